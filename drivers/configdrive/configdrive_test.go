package configdrive_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kdomanski/iso9660"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers/configdrive"
	"github.com/goironic/ironic/internal/pyjson"
)

var update = flag.Bool("update", false, "rebuild the reference goldens with Ironic's own build_configdrive (/usr/bin/python3)")

// sample reads testdata/sample.json: the node and the API's dict form,
// keys in the file's order (as the API decodes a request).
func sample(t testing.TB) (configdrive.Node, pyjson.Object) {
	t.Helper()
	raw, err := os.ReadFile("testdata/sample.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := pyjson.DecodeOrdered(raw)
	if err != nil {
		t.Fatal(err)
	}
	spec := v.(pyjson.Object)
	nv, _ := spec.Get("node")
	uuid, _ := nv.(pyjson.Object).Get("uuid")
	name, _ := nv.(pyjson.Object).Get("name")
	cd, _ := spec.Get("configdrive")
	return configdrive.Node{UUID: uuid.(string), Name: name.(string)}, cd.(pyjson.Object)
}

// set sets key k of o, in place if present, else at the end.
func set(o pyjson.Object, k string, v any) pyjson.Object {
	for i := range o {
		if o[i].Key == k {
			o[i].Value = v
			return o
		}
	}
	return append(o, pyjson.Member{Key: k, Value: v})
}

// TestFiles: each file is json.dumps of what json.loads made of the
// client's text, keys in the client's order; meta_data gets the node's
// uuid, then its name, after the given keys unless given (expected
// strings printed by json.dumps(json.loads(...)) under /usr/bin/python3,
// uuid and name added as Ironic 21.4's build_configdrive adds them).
func TestFiles(t *testing.T) {
	node := configdrive.Node{UUID: "u-1", Name: "n-1"}
	cases := map[string]struct {
		in   string
		want map[string]string
	}{
		"empty dict: meta_data only, uuid and name defaulted": {
			in: `{}`,
			want: map[string]string{
				"meta_data.json": `{"uuid": "u-1", "name": "n-1"}`,
			},
		},
		"given uuid and name win; empty network_data and vendor_data are left out": {
			in: `{"meta_data": {"uuid": "x", "name": "y"}, "network_data": {}, "vendor_data": {}, "user_data": ""}`,
			want: map[string]string{
				"meta_data.json": `{"uuid": "x", "name": "y"}`,
			},
		},
		"client order kept; a given name stays in place, uuid comes after": {
			in: `{"meta_data": {"z": 1, "name": "given", "a": {"y": 1.50, "x": 1e5, "w": -0}, "é": "ü"},
			      "network_data": {"services": [], "networks": [], "links": [{"type": "phy", "id": "p"}]},
			      "vendor_data": {"b": {"d": 1, "c": 2}, "a": null}}`,
			want: map[string]string{
				"meta_data.json":    `{"z": 1, "name": "given", "a": {"y": 1.5, "x": 100000.0, "w": 0}, "\u00e9": "\u00fc", "uuid": "u-1"}`,
				"network_data.json": `{"services": [], "networks": [], "links": [{"type": "phy", "id": "p"}]}`,
				"vendor_data2.json": `{"b": {"d": 1, "c": 2}, "a": null}`,
			},
		},
		"user_data object is JSON; list too": {
			in: `{"user_data": {"b": [1.0, "é"], "a": 2}}`,
			want: map[string]string{
				"meta_data.json": `{"uuid": "u-1", "name": "n-1"}`,
				"user_data":      `{"b": [1.0, "\u00e9"], "a": 2}`,
			},
		},
		"repeated keys: first position, last value (a Python dict)": {
			in: `{"meta_data": {"k": 1, "uuid": "a", "k": 2}}`,
			want: map[string]string{
				"meta_data.json": `{"k": 2, "uuid": "a", "name": "n-1"}`,
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in, err := pyjson.DecodeOrdered([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			c, err := configdrive.FromDict(in)
			if err != nil {
				t.Fatal(err)
			}
			files, err := configdrive.Files(node, c)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, f := range files {
				got[f.Path] = string(f.Data)
			}
			want := map[string]string{}
			for k, v := range tc.want {
				want["openstack/2012-08-10/"+k] = v
				want["openstack/latest/"+k] = v
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("files:\n got %q\nwant %q", got, want)
			}
		})
	}
	// No name on the node: meta_data gets none.
	files, err := configdrive.Files(configdrive.Node{UUID: "u-2"}, configdrive.Contents{})
	if err != nil || string(files[0].Data) != `{"uuid": "u-2"}` {
		t.Errorf("nameless node: %q %v", files[0].Data, err)
	}
	// A Go map has no order: its keys are taken sorted.
	c, err := configdrive.FromDict(map[string]any{"meta_data": map[string]any{"b": 1, "a": 2}})
	if err != nil {
		t.Fatal(err)
	}
	if files, err := configdrive.Files(node, c); err != nil || string(files[0].Data) != `{"a": 2, "b": 1, "uuid": "u-1", "name": "n-1"}` {
		t.Errorf("map: %q %v", files[0].Data, err)
	}
}

// buildSample builds the sample drive and returns the ISO image and the
// files it should hold.
func buildSample(t *testing.T) ([]byte, []configdrive.File) {
	t.Helper()
	node, in := sample(t)
	c, err := configdrive.FromDict(in)
	if err != nil {
		t.Fatal(err)
	}
	packed, err := configdrive.Builder{}.Build(context.Background(), node, c)
	if err != nil {
		t.Fatal(err)
	}
	img, err := configdrive.Unpack(packed)
	if err != nil {
		t.Fatal(err)
	}
	files, err := configdrive.Files(node, c)
	if err != nil {
		t.Fatal(err)
	}
	return img, files
}

// TestReadBackGo reads the image with the library's reader.
func TestReadBackGo(t *testing.T) {
	img, files := buildSample(t)
	r, err := iso9660.OpenImage(bytes.NewReader(img))
	if err != nil {
		t.Fatal(err)
	}
	label, err := r.Label()
	if err != nil || label != configdrive.VolumeID {
		t.Fatalf("label %q %v", label, err)
	}
	got := map[string][]byte{}
	var walk func(dir *iso9660.File, prefix string)
	walk = func(dir *iso9660.File, prefix string) {
		kids, err := dir.GetChildren()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range kids {
			p := prefix + k.Name()
			if k.IsDir() {
				walk(k, p+"/")
				continue
			}
			data := new(bytes.Buffer)
			if _, err := data.ReadFrom(k.Reader()); err != nil {
				t.Fatal(err)
			}
			got[p] = data.Bytes()
		}
	}
	root, err := r.RootDir()
	if err != nil {
		t.Fatal(err)
	}
	walk(root, "")
	want := map[string][]byte{}
	for _, f := range files {
		want[f.Path] = f.Data
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back %d files, want %d:\n%q\n%q", len(got), len(want), got, want)
	}
}

func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not installed (scripts/install-test-deps.sh installs genisoimage)", name)
	}
	return p
}

func isoinfo(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(needTool(t, "isoinfo"), args...).Output()
	if err != nil {
		t.Fatalf("isoinfo %v: %v", args, err)
	}
	return string(out)
}

// tree lists an image's paths as `isoinfo -f` (-R: with the Rock Ridge
// names) prints them, sorted.
func tree(t *testing.T, iso string, rockRidge bool) []string {
	args := []string{"-f", "-i", iso}
	if rockRidge {
		args = append(args, "-R")
	}
	paths := strings.Split(strings.TrimSpace(isoinfo(t, args...)), "\n")
	sort.Strings(paths)
	return paths
}

// TestIsoinfo is the proof that real tools read what we build: the volume id,
// every file, and the JSON read back equals the input; the tree is the one
// Ironic 21.4 builds for the same dict (testdata/reference-tree.golden).
func TestIsoinfo(t *testing.T) {
	needTool(t, "isoinfo")
	img, files := buildSample(t)
	iso := filepath.Join(t.TempDir(), "configdrive.iso")
	if err := os.WriteFile(iso, img, 0o600); err != nil {
		t.Fatal(err)
	}
	d := isoinfo(t, "-d", "-i", iso)
	for _, want := range []string{"\nVolume id: config-2\n", "\nPublisher id: metalsmith\n", "\nJoliet with UCS level 3 found\n", "\nRock Ridge signatures version 1 found"} {
		if !strings.Contains(d, want) {
			t.Errorf("isoinfo -d lacks %q:\n%s", want, d)
		}
	}
	// cloud-init finds the drive by label, through blkid.
	if blkid, err := exec.LookPath("blkid"); err == nil {
		out, err := exec.Command(blkid, "-o", "export", iso).Output()
		if err != nil || !strings.Contains(string(out), "\nLABEL=config-2\n") || !strings.Contains(string(out), "\nTYPE=iso9660\n") {
			t.Errorf("blkid: %v\n%s", err, out)
		}
	}
	// Every file, by its real name, through Rock Ridge and through Joliet.
	for _, tree := range []string{"-R", "-J"} {
		listing := isoinfo(t, "-l", tree, "-i", iso)
		for _, f := range files {
			name := f.Path[strings.LastIndex(f.Path, "/")+1:]
			if !strings.Contains(listing, " "+name+" \n") {
				t.Errorf("isoinfo -l %s lacks %s:\n%s", tree, f.Path, listing)
			}
			got := isoinfo(t, tree, "-i", iso, "-x", "/"+f.Path)
			if got != string(f.Data) {
				t.Errorf("isoinfo %s -x %s = %q, want %q", tree, f.Path, got, f.Data)
			}
		}
	}
	golden, goldenISO := "testdata/reference-tree.golden", "testdata/reference-tree-iso9660.golden"
	goldenJoliet, goldenFiles := "testdata/reference-tree-joliet.golden", "testdata/reference-files.golden"
	if *update {
		ref := filepath.Join(t.TempDir(), "reference.iso")
		cmd := exec.Command("/usr/bin/python3", "testdata/reference.py", "testdata/sample.json", ref)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("reference build: %v\n%s", err, out)
		}
		for g, rr := range map[string]bool{golden: true, goldenISO: false} {
			if err := os.WriteFile(g, []byte(strings.Join(tree(t, ref, rr), "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(goldenJoliet, []byte(jolietListing(t, ref)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenFiles, []byte(contents(t, ref, "-R", files)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The files hold Ironic's bytes: json.dump of the client's dict, keys
	// in the client's order, then uuid and name; read through Rock Ridge
	// and through Joliet.
	wantFiles, err := os.ReadFile(goldenFiles)
	if err != nil {
		t.Fatal(err)
	}
	for _, tree := range []string{"-R", "-J"} {
		if got := contents(t, iso, tree, files); got != string(wantFiles) {
			t.Errorf("files (isoinfo %s) differ from Ironic 21.4's:\n got:\n%s\nwant:\n%s", tree, got, wantFiles)
		}
	}
	// The Rock Ridge names (what Linux and cloud-init see) and the ISO 9660
	// names underneath are both Ironic's.
	for g, rr := range map[string]bool{golden: true, goldenISO: false} {
		want, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(tree(t, iso, rr), "\n") + "\n"; got != string(want) {
			t.Errorf("file tree (Rock Ridge %v) differs from Ironic 21.4's:\n got:\n%s\nwant:\n%s", rr, got, want)
		}
	}
	// So is the Joliet tree: names, sizes, modes, in isoinfo's order.
	want, err := os.ReadFile(goldenJoliet)
	if err != nil {
		t.Fatal(err)
	}
	if got := jolietListing(t, iso); got != string(want) {
		t.Errorf("Joliet tree differs from Ironic 21.4's:\n got:\n%s\nwant:\n%s", got, want)
	}
}

// contents lists the files' contents as isoinfo (-R or -J) extracts
// them from iso, one "== path" header each, in files' order.
func contents(t *testing.T, iso, tree string, files []configdrive.File) string {
	var sb strings.Builder
	for _, f := range files {
		sb.WriteString("== /" + f.Path + "\n")
		sb.WriteString(isoinfo(t, tree, "-i", iso, "-x", "/"+f.Path))
		sb.WriteString("\n")
	}
	return sb.String()
}

// isoinfoDateExtent is the part of an `isoinfo -l` line that depends on
// when and how the image was laid out: the date and the extent (the file
// flags after it stay).
var isoinfoDateExtent = regexp.MustCompile(` [A-Z][a-z]{2} [ 0-9]\d \d{4} \[ *\d+ `)

// jolietListing is `isoinfo -J -l`, without dates, extents and trailing
// blanks.
func jolietListing(t *testing.T, iso string) string {
	lines := strings.Split(isoinfo(t, "-J", "-l", "-i", iso), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(isoinfoDateExtent.ReplaceAllString(l, " ["), " ")
	}
	return strings.Join(lines, "\n")
}

// BenchmarkBuild64KiB builds a config drive with 64 KiB of user_data (the
// target: at most 5 ms per build).
func BenchmarkBuild64KiB(b *testing.B) {
	node, in := sample(b)
	in = set(in, "user_data", benchUserData())
	c, err := configdrive.FromDict(in)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (configdrive.Builder{}).Build(ctx, node, c); err != nil {
			b.Fatal(err)
		}
	}
}

// benchUserData is 64 KiB of cloud-config text (compressible as real user
// data is, not random bytes).
func benchUserData() string {
	var sb strings.Builder
	sb.WriteString("#cloud-config\nwrite_files:\n")
	for i := 0; sb.Len() < 64*1024; i++ {
		sb.WriteString("  - path: /etc/motd.d/")
		sb.WriteString(strings.Repeat("x", i%17))
		sb.WriteString("\n    content: hello from the config drive\n")
	}
	return sb.String()[:64*1024]
}

// TestBuildConfigdrive: the conductor's entry point builds what Build
// builds for the node's UUID and name, and refuses a dict that is no
// config drive as InvalidParameterValue.
func TestBuildConfigdrive(t *testing.T) {
	ctx := context.Background()
	b := configdrive.Builder{Now: func() time.Time { return time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC) }}
	got, err := b.BuildConfigdrive(ctx, "n-uuid", "n1", pyjson.Object{{Key: "user_data", Value: "#!/bin/sh"}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := configdrive.FromDict(pyjson.Object{{Key: "user_data", Value: "#!/bin/sh"}})
	if err != nil {
		t.Fatal(err)
	}
	want, err := b.Build(ctx, configdrive.Node{UUID: "n-uuid", Name: "n1"}, c)
	if err != nil || got != want {
		t.Errorf("BuildConfigdrive differs from Build (%v)", err)
	}
	_, err = b.BuildConfigdrive(ctx, "n-uuid", "", pyjson.Object{{Key: "meta_data", Value: "x"}})
	if !ironic.IsClass(err, ironic.InvalidParameterValue) || !strings.HasPrefix(err.Error(), "Invalid configdrive: meta_data must be an object") {
		t.Errorf("bad dict: %v", err)
	}
}
