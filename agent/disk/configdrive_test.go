package disk

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kdomanski/iso9660"
)

// configDriveISO builds a config drive as Ironic does (genisoimage -V
// config-2) and returns it as Ironic sends it: base64 of gzip.
func configDriveISO(t *testing.T, uuid string) (iso []byte, encoded string) {
	t.Helper()
	need(t, "genisoimage")
	dir := t.TempDir()
	latest := filepath.Join(dir, "root", "openstack", "latest")
	if err := os.MkdirAll(latest, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(latest, "meta_data.json"), fmt.Appendf(nil, `{"uuid": %q}`, uuid), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "cd.iso")
	run(t, "genisoimage", "-o", out, "-ldots", "-allow-lowercase", "-allow-multidot", "-l", "-publisher", "Ironic", "-quiet", "-J", "-r", "-V", "config-2", filepath.Join(dir, "root"))
	iso, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(iso)
	_ = zw.Close()
	return iso, base64.StdEncoding.EncodeToString(gz.Bytes())
}

// readMetaUUID reads openstack/latest/meta_data.json's uuid from the
// ISO at offset of path.
func readMetaUUID(t *testing.T, path string, off, n int64) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	img, err := iso9660.OpenImage(io.NewSectionReader(f, off, n))
	if err != nil {
		t.Fatal(err)
	}
	if label, _ := img.Label(); label != "config-2" {
		t.Errorf("ISO label %q", label)
	}
	root, err := img.RootDir()
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"openstack", "latest"} {
		kids, err := root.GetChildren()
		if err != nil {
			t.Fatal(err)
		}
		root = nil
		for _, k := range kids {
			if k.Name() == dir {
				root = k
			}
		}
		if root == nil {
			t.Fatalf("no %s in the ISO", dir)
		}
	}
	kids, _ := root.GetChildren()
	for _, k := range kids {
		if k.Name() == "meta_data.json" {
			b, _ := io.ReadAll(k.Reader())
			m := regexp.MustCompile(`"uuid": "([^"]*)"`).FindSubmatch(b)
			if m != nil {
				return string(m[1])
			}
		}
	}
	t.Fatal("no meta_data.json")
	return ""
}

// blkidLabel is blkid's view of the filesystem at offset of path.
func blkidLabel(t *testing.T, path string, off int64) string {
	t.Helper()
	return strings.TrimSpace(run(t, "blkid", "-p", "-O", strconv.FormatInt(off, 10), "-s", "LABEL", "-o", "value", path))
}

var sgdiskPart = regexp.MustCompile(`(?m)^\s+(\d+)\s+(\d+)\s+(\d+)\s+.*?\s+(\S+)\s+(\S*)$`)

func TestWriteConfigDriveGPT(t *testing.T) {
	need(t, "sgdisk", "blkid")
	iso, cd := configDriveISO(t, "11111111-2222-3333-4444-555555555555")
	m, dev := testManager(t, WithUUIDs(func() [16]byte { return [16]byte{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12} }))
	m.SetNodeUUID("node-1")
	disk := makeDisk(t, dev, "vda", 40<<20)
	// A whole-disk image of 40 MiB written onto a 200 MiB disk: its backup
	// GPT sits in the middle of the disk.
	run(t, "sgdisk", "-n", "1:2048:+8M", "-t", "1:ef00", "-n", "2:0:0", disk)
	if err := os.Truncate(disk, 200<<20); err != nil {
		t.Fatal(err)
	}
	if err := m.WriteConfigDrive(t.Context(), "/dev/vda", cd); err != nil {
		t.Fatal(err)
	}
	out := run(t, "sgdisk", "-v", disk)
	if !strings.Contains(out, "No problems found") {
		t.Fatalf("sgdisk -v: %s", out)
	}
	out = run(t, "sgdisk", "-p", disk)
	parts := sgdiskPart.FindAllStringSubmatch(out, -1)
	if len(parts) != 3 {
		t.Fatalf("sgdisk -p: %s", out)
	}
	last := parts[2]
	start, _ := strconv.ParseInt(last[2], 10, 64)
	end, _ := strconv.ParseInt(last[3], 10, 64)
	// Last usable sector of a 200 MiB disk with a 128-entry array; the
	// start is where sgdisk -n 0:-64MB:0 puts it (276480 here).
	if end != 200<<20/512-34 || start != (end+1-64<<20/512)/2048*2048 || last[5] != "config-2" || last[4] != "8300" {
		t.Errorf("config drive partition %q in\n%s", last, out)
	}
	info := run(t, "sgdisk", "-i", "3", disk)
	if !strings.Contains(info, "DEADBEEF-0102-0304-0506-0708090A0B0C") {
		t.Errorf("partition GUID not the injected one:\n%s", info)
	}
	if l := blkidLabel(t, disk, start*512); l != "config-2" {
		t.Errorf("blkid label %q", l)
	}
	if got := readMetaUUID(t, disk, start*512, int64(len(iso))); got != "11111111-2222-3333-4444-555555555555" {
		t.Errorf("meta_data uuid %q", got)
	}
	// Again (a rebuild): the partition is reused, not added twice.
	_, cd2 := configDriveISO(t, "99999999-2222-3333-4444-555555555555")
	if err := m.WriteConfigDrive(t.Context(), "vda", cd2); err != nil {
		t.Fatal(err)
	}
	if n := len(sgdiskPart.FindAllString(run(t, "sgdisk", "-p", disk), -1)); n != 3 {
		t.Errorf("%d partitions after a second config drive", n)
	}
	if got := readMetaUUID(t, disk, start*512, int64(len(iso))); got != "99999999-2222-3333-4444-555555555555" {
		t.Errorf("meta_data uuid %q after rewrite", got)
	}
}

func TestWriteConfigDriveMBR(t *testing.T) {
	need(t, "sfdisk", "blkid")
	_, cd := configDriveISO(t, "aaaaaaaa-2222-3333-4444-555555555555")
	m, dev := testManager(t)
	disk := makeDisk(t, dev, "vda", 30<<20)
	sfdisk := func(script string) {
		t.Helper()
		cmd := fmt.Sprintf("printf '%s' | sfdisk -q %s", script, disk)
		run(t, "sh", "-c", cmd)
	}
	sfdisk("label: dos\\nlabel-id: 0x12345678\\nstart=2048, size=20480, type=83, bootable\\n")
	if err := os.Truncate(disk, 300<<20); err != nil {
		t.Fatal(err)
	}
	if err := m.WriteConfigDrive(t.Context(), "/dev/vda", cd); err != nil {
		t.Fatal(err)
	}
	dump := regexp.MustCompile(`= +`).ReplaceAllString(run(t, "sfdisk", "-d", disk), "=")
	start := int64(300<<20/512 - 64<<20/512)
	want := fmt.Sprintf("%s2 : start=%d, size=%d, type=c", disk, start, 64<<20/512)
	if !strings.Contains(dump, want) {
		t.Errorf("sfdisk -d:\n%s\nwant %q", dump, want)
	}
	if l := blkidLabel(t, disk, start*512); l != "config-2" {
		t.Errorf("blkid label %q", l)
	}
	u, err := m.PartitionUUIDs(t.Context(), "/dev/vda")
	if err != nil || u["root uuid"] != "0x12345678" {
		t.Errorf("PartitionUUIDs = %v, %v", u, err)
	}
	// Four primaries: IPA's refusal.
	disk2 := makeDisk(t, dev, "vdb", 300<<20)
	sfdisk2 := fmt.Sprintf("printf 'label: dos\\nsize=2048\\nsize=2048\\nsize=2048\\nsize=2048\\n' | sfdisk -q %s", disk2)
	run(t, "sh", "-c", sfdisk2)
	m.SetNodeUUID("node-2")
	e := ipaError(t, m.WriteConfigDrive(t.Context(), "/dev/vdb", cd))
	if want := "Command execution failed: Config drive cannot be created for node node-2. Disk (/dev/vdb) uses MBR partitioning and already has 4 primary partitions."; e.Error() != want {
		t.Errorf("got %q", e.Error())
	}
}

func TestWriteConfigDriveErrors(t *testing.T) {
	m, dev := testManager(t)
	m.SetNodeUUID("n")
	makeDisk(t, dev, "vda", 100<<20)
	e := ipaError(t, m.WriteConfigDrive(t.Context(), "/dev/vda", "not base64!"))
	if !strings.HasPrefix(e.Details, "Config drive for node n is not base64 encoded or the content is malformed.") {
		t.Errorf("got %q", e.Details)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(make([]byte, 65<<20))
	_ = zw.Close()
	e = ipaError(t, m.WriteConfigDrive(t.Context(), "/dev/vda", base64.StdEncoding.EncodeToString(gz.Bytes())))
	if want := "Config drive size exceeds maximum limit of 64MiB. Size of the given config drive is 65 MiB for node n."; e.Details != want {
		t.Errorf("got %q", e.Details)
	}
	srv := newImageServer(t)
	e = ipaError(t, m.WriteConfigDrive(t.Context(), "/dev/vda", srv.URL+"/cd"))
	if want := "Can't download the configdrive content for node n from '" + srv.URL + "/cd'. Got status code 404, response body Not Found"; e.Details != want {
		t.Errorf("got %q", e.Details)
	}
}

func TestWriteConfigDriveFromURL(t *testing.T) {
	need(t, "sgdisk")
	iso, cd := configDriveISO(t, "bbbbbbbb-2222-3333-4444-555555555555")
	srv := newImageServer(t)
	srv.files["/cd"] = []byte(cd)
	m, dev := testManager(t)
	disk := makeDisk(t, dev, "vda", 100<<20)
	run(t, "sgdisk", "-o", disk)
	if err := m.WriteConfigDrive(t.Context(), "/dev/vda", srv.URL+"/cd"); err != nil {
		t.Fatal(err)
	}
	start := int64(100<<20/512-34+1-64<<20/512) / 2048 * 2048
	if got := readMetaUUID(t, disk, start*512, int64(len(iso))); got != "bbbbbbbb-2222-3333-4444-555555555555" {
		t.Errorf("meta_data uuid %q", got)
	}
}
