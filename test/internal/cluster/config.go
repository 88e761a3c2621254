package cluster

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// INI is an ironic.conf: section -> option -> value.
type INI map[string]map[string]string

// Merged returns a copy of c with the options of each of over set on top,
// in order.
func (c INI) Merged(over ...INI) INI {
	out := INI{}
	for _, src := range append([]INI{c}, over...) {
		for sec, opts := range src {
			if out[sec] == nil {
				out[sec] = map[string]string{}
			}
			maps.Copy(out[sec], opts)
		}
	}
	return out
}

// String renders c as ironic.conf text, sections and options sorted.
func (c INI) String() string {
	var b strings.Builder
	for _, sec := range slices.Sorted(maps.Keys(c)) {
		fmt.Fprintf(&b, "[%s]\n", sec)
		for _, k := range slices.Sorted(maps.Keys(c[sec])) {
			fmt.Fprintf(&b, "%s = %s\n", k, c[sec][k])
		}
		b.WriteString("\n")
	}
	return b.String()
}

// StateConfig creates the directories a server (Python's above all)
// writes to under dir, and returns the options that point it there:
// [deploy]http_root (and http_url), [pxe]'s image and TFTP paths and
// [oslo_concurrency]lock_path.
func StateConfig(t testing.TB, dir string) INI {
	t.Helper()
	for _, sub := range []string{"http", "tftp", "images", "master_images", "locks"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return INI{
		"deploy": {"http_root": dir + "/http", "http_url": "http://127.0.0.1:8080"},
		"pxe": {
			"tftp_root":            dir + "/tftp",
			"tftp_master_path":     dir + "/master_images",
			"images_path":          dir + "/images",
			"instance_master_path": dir + "/master_images",
		},
		"oslo_concurrency": {"lock_path": dir + "/locks"},
	}
}
