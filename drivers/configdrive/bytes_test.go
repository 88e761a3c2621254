package configdrive_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"

	"github.com/goironic/ironic/drivers/configdrive"
)

// sampleImageSHA256 is the image of the sample drive (plus an empty
// file, a multi-dot name and a shared extent) at a fixed time, as the
// writer made it before it moved to internal/isoimage: the shared writer
// must keep config drives byte for byte. Regenerate (only for a wanted
// change of the image) with the value this test prints.
const sampleImageSHA256 = "6d3851d038900fe0ad156910b007c54254248832168f60eb071a72654977eaa8"

func TestImageBytesUnchanged(t *testing.T) {
	_, files := buildSample(t)
	files = append(files,
		configdrive.File{Path: "openstack/empty"},
		configdrive.File{Path: "a/b/c/d.e.f", Data: []byte("same")},
		configdrive.File{Path: "x", Data: files[0].Data})
	img, err := configdrive.Builder{Now: func() time.Time { return time.Unix(1700000000, 0) }}.ISO(context.Background(), files)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(img)
	if got := hex.EncodeToString(sum[:]); got != sampleImageSHA256 {
		t.Errorf("image sha256 = %s, want %s", got, sampleImageSHA256)
	}
}
