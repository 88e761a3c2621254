package configdrive

import (
	"bytes"
	"context"
	"time"

	"github.com/goironic/ironic/internal/isoimage"
)

// publisher is the primary volume descriptor's publisher, as openstacksdk's
// configdrive.pack writes it.
const publisher = "metalsmith"

// writeISO lays files out as `genisoimage -r -J -l -allow-lowercase
// -allow-multidot -V volumeID -publisher metalsmith` does.
func writeISO(ctx context.Context, files []File, volumeID string, now time.Time) ([]byte, error) {
	fs := make([]isoimage.File, len(files))
	for i, f := range files {
		fs[i] = isoimage.File{Path: f.Path, Data: f.Data}
	}
	var buf bytes.Buffer
	err := isoimage.Write(ctx, &buf, fs, isoimage.Options{
		VolumeID: volumeID, Publisher: publisher,
		Application: "GOIRONIC CONFIGDRIVE (GITHUB.COM/KDOMANSKI/ISO9660)",
		Joliet:      true, Now: now,
	})
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
