package disk

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// partitionLines are sfdisk -d's partition lines without the device
// path and the partition UUIDs (random on both sides).
func partitionLines(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for l := range strings.SplitSeq(run(t, "sfdisk", "-d", path), "\n") {
		if !strings.HasPrefix(l, path) {
			continue
		}
		l = strings.TrimPrefix(l, path)
		l = regexp.MustCompile(`, uuid=[0-9A-F-]+`).ReplaceAllString(l, "")
		// The GPT name is ours (docs/departures.md); sgdisk leaves none.
		l = strings.TrimSuffix(l, `, name="config-2"`)
		out = append(out, regexp.MustCompile(`= +`).ReplaceAllString(l, "="))
	}
	return out
}

// TestConfigDrivePartitionAsIronicLib makes the config drive partition
// with the commands ironic-lib runs (sgdisk -e then sgdisk -n
// 0:-64MB:0 on GPT; parted -a optimal mkpart primary fat32 -64MiB -0 on
// DOS) on a copy of the same disk, and requires the same partitions.
func TestConfigDrivePartitionAsIronicLib(t *testing.T) {
	need(t, "sgdisk", "sfdisk", "parted", "genisoimage")
	_, cd := configDriveISO(t, "dddddddd-2222-3333-4444-555555555555")
	for _, tc := range []struct {
		name   string
		size   int64
		layout func(disk string)
		ref    [][]string
	}{
		{"gpt", 250<<20 + 12345*512, func(disk string) { run(t, "sgdisk", "-n", "1:2048:+8M", "-t", "1:ef00", "-n", "2:0:+12M", disk) },
			[][]string{{"sgdisk", "-e"}, {"sgdisk", "-n", "0:-64MB:0"}}},
		{"gpt-full-image", 250<<20 + 12345*512, func(disk string) { run(t, "sgdisk", "-n", "1:2048:0", disk) },
			[][]string{{"sgdisk", "-e"}, {"sgdisk", "-n", "0:-64MB:0"}}},
		{"dos", 250<<20 + 12345*512, func(disk string) {
			run(t, "sh", "-c", "printf 'label: dos\\nstart=2048, size=20480, type=83\\nsize=4096, type=82\\n' | sfdisk -q "+disk)
		}, [][]string{{"parted", "-a", "optimal", "-s", "--", "", "mkpart", "primary", "fat32", "-64MiB", "-0"}}},
		// Over 2 TiB (a sparse file): ironic-lib's limits, in parted's MB.
		{"dos-3TiB", 3 << 40, func(disk string) {
			run(t, "sh", "-c", "printf 'label: dos\\nstart=2048, size=20480, type=83\\n' | sfdisk -q "+disk)
		}, [][]string{{"parted", "-a", "optimal", "-s", "--", "", "mkpart", "primary", "fat32", "2097087", "2097151"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, dev := testManager(t)
			// The same layout made twice (never copied: the 3 TiB disk is
			// a sparse file).
			disk := makeDisk(t, dev, "vda", 30<<20)
			ref := makeDisk(t, t.TempDir(), "ref", 30<<20)
			for _, d := range []string{disk, ref} {
				tc.layout(d)
				if err := os.Truncate(d, tc.size); err != nil {
					t.Fatal(err)
				}
			}
			for _, c := range tc.ref {
				args := append([]string(nil), c[1:]...)
				if c[0] == "parted" {
					args[4] = ref
				} else {
					args = append(args, ref)
				}
				run(t, c[0], args...)
			}
			if err := m.WriteConfigDrive(t.Context(), "/dev/vda", cd); err != nil {
				t.Fatal(err)
			}
			got, want := partitionLines(t, disk), partitionLines(t, ref)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("partitions:\n%s\nironic-lib's commands give:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}
