package cluster

import (
	"fmt"
	"maps"
	"slices"
	"strings"
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
