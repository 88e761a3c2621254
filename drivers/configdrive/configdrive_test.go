package configdrive_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/kdomanski/iso9660"

	"github.com/goironic/ironic/drivers/configdrive"
)

var update = flag.Bool("update", false, "rebuild the reference goldens with Ironic's own build_configdrive (/usr/bin/python3)")

// sample reads testdata/sample.json: the node and the API's dict form.
func sample(t testing.TB) (configdrive.Node, map[string]any) {
	t.Helper()
	raw, err := os.ReadFile("testdata/sample.json")
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Node        struct{ UUID, Name string }
		Configdrive map[string]any
	}
	if err := json.Unmarshal(raw, &spec); err != nil {
		t.Fatal(err)
	}
	return configdrive.Node{UUID: spec.Node.UUID, Name: spec.Node.Name}, spec.Configdrive
}

func TestFiles(t *testing.T) {
	node := configdrive.Node{UUID: "u-1", Name: "n-1"}
	cases := map[string]struct {
		in   map[string]any
		want map[string]string
	}{
		"empty dict: meta_data only, uuid and name defaulted": {
			in: map[string]any{},
			want: map[string]string{
				"openstack/2012-08-10/meta_data.json": `{"name": "n-1", "uuid": "u-1"}`,
				"openstack/latest/meta_data.json":     `{"name": "n-1", "uuid": "u-1"}`,
			},
		},
		"given uuid and name win; empty network_data and vendor_data are left out": {
			in: map[string]any{"meta_data": map[string]any{"uuid": "x", "name": "y"}, "network_data": map[string]any{}, "vendor_data": map[string]any{}, "user_data": ""},
			want: map[string]string{
				"openstack/2012-08-10/meta_data.json": `{"name": "y", "uuid": "x"}`,
				"openstack/latest/meta_data.json":     `{"name": "y", "uuid": "x"}`,
			},
		},
		"user_data object is JSON; list too": {
			in: map[string]any{"user_data": map[string]any{"a": []any{1.0, "é"}}},
			want: map[string]string{
				"openstack/2012-08-10/meta_data.json": `{"name": "n-1", "uuid": "u-1"}`,
				"openstack/2012-08-10/user_data":      `{"a": [1.0, "\u00e9"]}`,
				"openstack/latest/meta_data.json":     `{"name": "n-1", "uuid": "u-1"}`,
				"openstack/latest/user_data":          `{"a": [1.0, "\u00e9"]}`,
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, err := configdrive.FromMap(tc.in)
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
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("files:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
	// No name on the node: meta_data gets none.
	files, err := configdrive.Files(configdrive.Node{UUID: "u-2"}, configdrive.Contents{})
	if err != nil || string(files[0].Data) != `{"uuid": "u-2"}` {
		t.Errorf("nameless node: %q %v", files[0].Data, err)
	}
}

// buildSample builds the sample drive and returns the ISO image and the
// files it should hold.
func buildSample(t *testing.T) ([]byte, []configdrive.File) {
	t.Helper()
	node, in := sample(t)
	c, err := configdrive.FromMap(in)
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
	// The JSON read back is the input (plus the node's uuid and name).
	node, in := sample(t)
	for _, name := range []string{"meta_data.json", "network_data.json", "vendor_data2.json"} {
		var got any
		if err := json.Unmarshal([]byte(isoinfo(t, "-R", "-i", iso, "-x", "/openstack/latest/"+name)), &got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := map[string]any{"meta_data.json": in["meta_data"], "network_data.json": in["network_data"], "vendor_data2.json": in["vendor_data"]}[name]
		if name == "meta_data.json" {
			md := map[string]any{"uuid": node.UUID, "name": node.Name}
			for k, v := range want.(map[string]any) {
				md[k] = v
			}
			want = md
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s read back %v, want %v", name, got, want)
		}
	}
	if got := isoinfo(t, "-R", "-i", iso, "-x", "/openstack/2012-08-10/user_data"); got != in["user_data"] {
		t.Errorf("user_data read back %q", got)
	}

	golden, goldenISO := "testdata/reference-tree.golden", "testdata/reference-tree-iso9660.golden"
	goldenJoliet := "testdata/reference-tree-joliet.golden"
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
	in["user_data"] = benchUserData()
	c, err := configdrive.FromMap(in)
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
