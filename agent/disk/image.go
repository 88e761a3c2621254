package disk

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/goironic/ironic/agent/internal/pyerr"
)

// WriteImage is IPA's standby.prepare_image for a whole-disk image
// (deploy.write_image): the image downloaded from image.URLs with its
// checksum verified while it streams. A raw image with
// stream_raw_images goes straight onto dev; otherwise it is downloaded
// to TempDir, dev's metadata is destroyed and the image written: qcow2
// (v2/v3) converted by this package's reader (IPA runs qemu-img
// convert), anything else copied raw. A backup GPT the image left short
// of the disk's end is moved there (fix_gpt_partition). Partition
// images (root_mb set) are refused.
func (m *Manager) WriteImage(ctx context.Context, dev string, image ImageInfo) error {
	if err := validateImageInfo(image); err != nil {
		return err
	}
	if image.RootMB != nil {
		return errInvalidCommandParams("Partition images are not supported by this agent: deploy a whole-disk image.")
	}
	isRaw := image.DiskFormat != nil && *image.DiskFormat == "raw"
	path := m.devPath(dev)
	var err error
	switch {
	case image.StreamRawImages && isRaw:
		err = m.streamRaw(ctx, dev, path, image)
	case image.StreamRawImages:
		err = m.streamQcow2(ctx, dev, path, image)
		var ipa *Error
		if err != nil && !errors.As(err, &ipa) {
			m.log.InfoContext(ctx, "image not streamable, downloading it first", "image", image.ID, "reason", err)
			err = m.cacheAndWrite(ctx, dev, path, image, isRaw)
		}
	default:
		err = m.cacheAndWrite(ctx, dev, path, image, isRaw)
	}
	if err != nil {
		return err
	}
	_ = withDevice(path, func(f *os.File, size int64) error {
		if g, gerr := readGPT(f); gerr == nil {
			if werr := g.write(f, uint64(size/sectorSize)); werr != nil {
				m.log.WarnContext(ctx, "unable to move the backup GPT", "device", dev, "error", werr)
			}
		}
		rescan(f)
		return nil
	})
	return nil
}

// seqWriter writes sequentially into a region, failing as a full block
// device does past its end.
type seqWriter struct {
	r   region
	off int64
}

func (w *seqWriter) Write(p []byte) (int, error) {
	n, err := w.r.WriteAt(p, w.off)
	w.off += int64(n)
	if err != nil {
		return n, &writeError{msg: pyerr.OSError(err)}
	}
	return n, nil
}

// streamRaw is IPA's _stream_raw_image_onto_device.
func (m *Manager) streamRaw(ctx context.Context, dev, path string, image ImageInfo) error {
	return withDeviceErr(dev, path, func(f *os.File, size int64) error {
		w := &seqWriter{r: region{f: f, n: size}}
		_, err := m.download(ctx, image, dev, "device "+dev, w, func() error { w.off = 0; return nil })
		return err
	})
}

// withDeviceErr is withDevice with an open failure reported as IPA's
// write failure.
func withDeviceErr(dev, path string, fn func(f *os.File, size int64) error) error {
	err := withDevice(path, fn)
	var pe *os.PathError
	if errors.As(err, &pe) && pe.Op == "open" {
		return errImageWrite(dev, 1, "", fmt.Sprintf("Could not open '%s': %s", dev, pyerr.OSError(pe.Err)))
	}
	return err
}

// streamQcow2 converts a qcow2 image onto dev while it downloads (an
// addition to IPA, which caches every image that is not raw): the
// download's RAM in the ramdisk is saved. An error that is not IPA's
// (not qcow2, not laid out for streaming, refused) sends WriteImage to
// cacheAndWrite.
func (m *Manager) streamQcow2(ctx context.Context, dev, path string, image ImageInfo) error {
	return withDeviceErr(dev, path, func(f *os.File, size int64) error {
		whole := region{f: f, n: size}
		if err := destroyMetadata(whole); err != nil {
			return errImageWrite(dev, 1, "", pyerr.OSError(err))
		}
		sink := &streamSink{s: newQcow2Stream(whole, size, dev)}
		_, err := m.download(ctx, image, dev, "device "+dev, sink, func() error { sink.s = newQcow2Stream(whole, size, dev); return nil })
		if err != nil {
			return err
		}
		if err := sink.s.finish(); err != nil {
			var we *writeError
			if errors.As(err, &we) {
				return errImageWrite(dev, 1, "", fmt.Sprintf("qemu-img: error while writing to %s: %s\n", dev, we.msg))
			}
			return err
		}
		return nil
	})
}

// cacheAndWrite is IPA's _download_image and _write_whole_disk_image.
func (m *Manager) cacheAndWrite(ctx context.Context, dev, path string, image ImageInfo, isRaw bool) error {
	location := filepath.Join(m.cfg.TempDir, strings.ReplaceAll(image.ID, "/", "_"))
	tmp, err := os.Create(location)
	if err != nil {
		return errImageDownload(image.ID, fmt.Sprintf("Unable to write image to %s. Error: %s", location, pyerr.OSError(err)))
	}
	defer func() {
		_ = tmp.Close()
		_ = os.Remove(location)
	}()
	w := &seqWriter{r: region{f: tmp, n: 1 << 62}}
	size, err := m.download(ctx, image, location, location, w, func() error { w.off = 0; return tmp.Truncate(0) })
	if err != nil {
		return err
	}
	var q *qcow2Image
	if !isRaw {
		q, err = openQcow2(tmp, size)
		if err != nil && !errors.Is(err, errNotQcow2) {
			return errImageWrite(dev, 1, "", fmt.Sprintf("qemu-img: Could not open '%s': %v\n", location, err))
		}
	}
	return withDeviceErr(dev, path, func(f *os.File, devSize int64) error {
		whole := region{f: f, n: devSize}
		if err := destroyMetadata(whole); err != nil {
			return errImageWrite(dev, 1, "", pyerr.OSError(err))
		}
		virtual := size
		if q != nil {
			virtual = q.virtualSize
		}
		if virtual > devSize {
			return errImageWrite(dev, 1, "", fmt.Sprintf("qemu-img: %s: error while converting host_device: Cannot grow device files\n", dev))
		}
		m.log.InfoContext(ctx, "writing image", "image", image.ID, "device", dev, "qcow2", q != nil, "bytes", virtual)
		if q != nil {
			err = q.convert(ctx, whole)
		} else {
			_, err = io.Copy(&seqWriter{r: whole}, io.NewSectionReader(tmp, 0, size))
		}
		if err != nil {
			return errImageWrite(dev, 1, "", fmt.Sprintf("qemu-img: error while writing to %s: %s\n", dev, pyerr.OSError(err)))
		}
		return nil
	})
}
