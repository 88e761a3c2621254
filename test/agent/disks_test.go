package agent

import (
	"context"
	"crypto/md5" //nolint:gosec // Ironic's legacy image checksum
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/goironic/ironic/agent/disk"
)

// fileDisks is a Disks whose one disk, /dev/vda, is a file: the image is
// downloaded from its first URL, verified against its checksum as IPA
// does (os_hash_algo/os_hash_value, else the md5 checksum) and written
// into the file; erasing metadata zeroes its first and last MiB.
type fileDisks struct {
	path string
	size int64

	mu    sync.Mutex
	calls []string
}

const fakeDev = "/dev/vda"

func (d *fileDisks) record(s string) {
	d.mu.Lock()
	d.calls = append(d.calls, s)
	d.mu.Unlock()
}

func (d *fileDisks) Calls() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.calls...)
}

func (d *fileDisks) BlockDevices(context.Context) ([]disk.BlockDevice, error) {
	serial := "goironic-test-disk"
	return []disk.BlockDevice{{Name: fakeDev, Model: "QEMU HARDDISK", Size: d.size, Rotational: true, Serial: &serial}}, nil
}

func (d *fileDisks) RootDevice(_ context.Context, hints map[string]any) (disk.BlockDevice, error) {
	devs, _ := d.BlockDevices(context.Background())
	if name, ok := hints["name"]; ok && name != fakeDev {
		return disk.BlockDevice{}, ipaError{"DeviceNotFound", 404, "Error finding the disk or partition device to deploy the image onto",
			fmt.Sprintf("No suitable device was found for deployment using these hints %v", hints)}
	}
	return devs[0], nil
}

// ipaError is one of IPA's RESTErrors (agent.IPAError).
type ipaError struct {
	typ      string
	code     int
	msg, det string
}

func (e ipaError) Error() string { return e.msg + ": " + e.det }
func (e ipaError) IPAError() (string, int, string, string) {
	return e.typ, e.code, e.msg, e.det
}

func (d *fileDisks) WriteImage(ctx context.Context, dev string, img disk.ImageInfo) error {
	d.record("write_image " + dev)
	if len(img.URLs) == 0 {
		return ipaError{"ImageDownloadError", 500, "Error downloading image", "no URL"}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, img.URLs[0], nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ipaError{"ImageDownloadError", 500, "Error downloading image", fmt.Sprintf("Download of image %s failed: %v", img.ID, err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return ipaError{"ImageDownloadError", 500, "Error downloading image",
			fmt.Sprintf("Download of image %s failed: Received status code %d from %s, expected 200", img.ID, resp.StatusCode, img.URLs[0])}
	}
	var h hash.Hash
	want := img.OSHashValue
	switch img.OSHashAlgo {
	case "sha256":
		h = sha256.New()
	case "sha512":
		h = sha512.New()
	case "md5":
		h = md5.New() //nolint:gosec
	default:
		h, want = md5.New(), img.Checksum //nolint:gosec
	}
	f, err := os.OpenFile(d.path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := io.Copy(io.MultiWriter(f, h), resp.Body); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != strings.ToLower(want) {
		return ipaError{"ImageChecksumError", 500, "Error verifying image checksum",
			fmt.Sprintf("Image failed to verify against checksum. location: %s; image ID: %s; image checksum: %s; verification checksum: %s",
				img.ID, img.ID, got, want)}
	}
	return f.Sync()
}

func (d *fileDisks) WriteConfigDrive(_ context.Context, dev, _ string) error {
	d.record("write_configdrive " + dev)
	return nil
}

// PartitionUUIDs is a whole disk's: the MBR disk identifier, as IPA's
// get_disk_identifier reads it.
func (d *fileDisks) PartitionUUIDs(context.Context, string) (map[string]any, error) {
	f, err := os.Open(d.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, 4)
	if _, err := f.ReadAt(b, 440); err != nil {
		return nil, err
	}
	return map[string]any{"root uuid": fmt.Sprintf("0x%08x", binary.LittleEndian.Uint32(b))}, nil
}

func (d *fileDisks) EraseMetadata(_ context.Context, devs []disk.BlockDevice) error {
	for _, dev := range devs {
		d.record("erase_metadata " + dev.Name)
	}
	f, err := os.OpenFile(d.path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	zero := make([]byte, 1<<20)
	if _, err := f.WriteAt(zero, 0); err != nil {
		return err
	}
	if _, err := f.WriteAt(zero, d.size-int64(len(zero))); err != nil {
		return err
	}
	return f.Sync()
}

func (d *fileDisks) Sync(context.Context) error { return nil }
