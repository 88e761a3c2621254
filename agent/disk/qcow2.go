package disk

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// qcow2 limits, as QEMU's block/qcow2.h sets them.
const (
	qcow2Magic       = 0x514649fb
	qcow2MinCluster  = 9
	qcow2MaxCluster  = 21
	qcow2MaxL1Bytes  = 32 << 20
	qcow2OffsetMask  = 0x00fffffffffffe00
	qcow2Compressed  = 1 << 62
	qcow2ZeroFlag    = 1
	qcow2MaxVirtual  = 1 << 55
	qcow2KnownIncomp = 0x1f
)

// errNotQcow2 is returned for data without the qcow2 magic.
var errNotQcow2 = errors.New("not a qcow2 image")

// qcow2Image reads a qcow2 (version 2 or 3) image: the header, the L1
// table and, while converting, one L2 table at a time. Unallocated and
// zero clusters are holes; compressed clusters are raw deflate (QEMU's
// zlib compression type). Backing files, encryption, external data
// files, extended L2 entries and zstd compression are refused.
type qcow2Image struct {
	r           io.ReaderAt
	fileSize    int64
	clusterBits uint
	virtualSize int64
	l1          []uint64
}

// openQcow2 parses the header and L1 table of the image in r (fileSize
// bytes long).
func openQcow2(r io.ReaderAt, fileSize int64) (*qcow2Image, error) {
	h := make([]byte, 104)
	if n, err := r.ReadAt(h, 0); n < 72 {
		if err == nil || errors.Is(err, io.EOF) {
			return nil, errNotQcow2
		}
		return nil, err
	}
	q, l1Offset, need, err := parseQcow2Header(h, fileSize)
	if err != nil {
		return nil, err
	}
	q.r = r
	buf := make([]byte, need*8)
	if _, err := r.ReadAt(buf, int64(l1Offset)); err != nil {
		return nil, fmt.Errorf("qcow2: reading the L1 table: %w", err)
	}
	q.l1 = make([]uint64, need)
	for i := range q.l1 {
		q.l1[i] = binary.BigEndian.Uint64(buf[i*8:])
	}
	return q, nil
}

// parseQcow2Header checks the first 104 bytes of an image (zero-padded
// when the image is shorter) and returns the image without its L1
// table, the table's offset and its number of entries in use.
func parseQcow2Header(h []byte, fileSize int64) (q *qcow2Image, l1Offset, need uint64, err error) {
	be := binary.BigEndian
	if be.Uint32(h[0:]) != qcow2Magic {
		return nil, 0, 0, errNotQcow2
	}
	version := be.Uint32(h[4:])
	if version != 2 && version != 3 {
		return nil, 0, 0, fmt.Errorf("qcow2: unsupported version %d", version)
	}
	if be.Uint64(h[8:]) != 0 {
		return nil, 0, 0, errors.New("qcow2: images with a backing file are not supported")
	}
	q = &qcow2Image{fileSize: fileSize}
	bits := be.Uint32(h[20:])
	if bits < qcow2MinCluster || bits > qcow2MaxCluster {
		return nil, 0, 0, fmt.Errorf("qcow2: invalid cluster size 2^%d", bits)
	}
	q.clusterBits = uint(bits)
	size := be.Uint64(h[24:])
	if size > qcow2MaxVirtual {
		return nil, 0, 0, fmt.Errorf("qcow2: virtual size %d is too large", size)
	}
	q.virtualSize = int64(size)
	if be.Uint32(h[32:]) != 0 {
		return nil, 0, 0, errors.New("qcow2: encrypted images are not supported")
	}
	l1Size := be.Uint32(h[36:])
	l1Offset = be.Uint64(h[40:])
	if version == 3 {
		incompat := be.Uint64(h[72:])
		hdrLen := be.Uint32(h[100:])
		if hdrLen < 104 {
			return nil, 0, 0, fmt.Errorf("qcow2: invalid header length %d", hdrLen)
		}
		switch {
		case incompat&^qcow2KnownIncomp != 0:
			return nil, 0, 0, fmt.Errorf("qcow2: unsupported incompatible features %#x", incompat&^qcow2KnownIncomp)
		case incompat&(1<<2) != 0:
			return nil, 0, 0, errors.New("qcow2: images with an external data file are not supported")
		case incompat&(1<<3) != 0:
			return nil, 0, 0, errors.New("qcow2: compression types other than zlib are not supported")
		case incompat&(1<<4) != 0:
			return nil, 0, 0, errors.New("qcow2: images with extended L2 entries are not supported")
		case incompat&(1<<1) != 0:
			return nil, 0, 0, errors.New("qcow2: the image is marked corrupt")
		}
	}
	clusterSize := uint64(1) << q.clusterBits
	l2Entries := clusterSize / 8
	need = (size + clusterSize*l2Entries - 1) / (clusterSize * l2Entries)
	if uint64(l1Size) < need || uint64(l1Size)*8 > qcow2MaxL1Bytes {
		return nil, 0, 0, fmt.Errorf("qcow2: invalid L1 table size %d", l1Size)
	}
	if need > 0 && (l1Offset%clusterSize != 0 || l1Offset+need*8 > uint64(fileSize)) {
		return nil, 0, 0, fmt.Errorf("qcow2: invalid L1 table offset %d", l1Offset)
	}
	return q, l1Offset, need, nil
}

// extentWriter receives the image's content in order: data at an offset,
// or a run of zeros.
type extentWriter interface {
	WriteAt(p []byte, off int64) (int, error)
	Zero(off, n int64) error
}

// convert writes the image's virtual content to w, in order, data
// clusters as writes (runs merged up to 4 MiB) and holes as zero runs.
func (q *qcow2Image) convert(ctx context.Context, w extentWriter) error {
	cs := int64(1) << q.clusterBits
	l2n := cs / 8
	be := binary.BigEndian
	var (
		pending     []byte // data not yet written
		pendingAt   int64
		zeroAt      int64 = -1
		zeroLen     int64
		l2buf       = make([]byte, cs)
		cluster     = make([]byte, cs)
		compressBuf []byte
	)
	flushData := func() error {
		if len(pending) == 0 {
			return nil
		}
		_, err := w.WriteAt(pending, pendingAt)
		pending = pending[:0]
		return err
	}
	flushZero := func() error {
		if zeroLen == 0 {
			return nil
		}
		err := w.Zero(zeroAt, zeroLen)
		zeroAt, zeroLen = -1, 0
		return err
	}
	addZero := func(off, n int64) error {
		if err := flushData(); err != nil {
			return err
		}
		if zeroLen > 0 && zeroAt+zeroLen == off {
			zeroLen += n
			return nil
		}
		if err := flushZero(); err != nil {
			return err
		}
		zeroAt, zeroLen = off, n
		return nil
	}
	addData := func(off int64, p []byte) error {
		if err := flushZero(); err != nil {
			return err
		}
		if len(pending) > 0 && (pendingAt+int64(len(pending)) != off || len(pending)+len(p) > 4<<20) {
			if err := flushData(); err != nil {
				return err
			}
		}
		if len(pending) == 0 {
			pendingAt = off
		}
		pending = append(pending, p...)
		return nil
	}
	for i, l1e := range q.l1 {
		if err := ctx.Err(); err != nil {
			return err
		}
		base := int64(i) * l2n * cs
		span := min(l2n*cs, q.virtualSize-base)
		l2off := int64(l1e & qcow2OffsetMask)
		if l2off == 0 {
			if err := addZero(base, span); err != nil {
				return err
			}
			continue
		}
		if l2off%cs != 0 || l2off+cs > q.fileSize {
			return fmt.Errorf("qcow2: invalid L2 table offset %d", l2off)
		}
		if _, err := q.r.ReadAt(l2buf, l2off); err != nil {
			return fmt.Errorf("qcow2: reading an L2 table: %w", err)
		}
		for j := int64(0); j*cs < span; j++ {
			vOff := base + j*cs
			n := min(cs, q.virtualSize-vOff)
			e := be.Uint64(l2buf[j*8:])
			var data []byte
			switch {
			case e&qcow2Compressed != 0:
				var err error
				compressBuf, err = q.readCompressed(e, cluster, compressBuf)
				if err != nil {
					return err
				}
				data = cluster
			case e&qcow2ZeroFlag != 0 || e&qcow2OffsetMask == 0:
				data = nil
			default:
				host := int64(e & qcow2OffsetMask)
				if host%cs != 0 || host >= q.fileSize {
					return fmt.Errorf("qcow2: invalid data cluster offset %d", host)
				}
				rn, err := q.r.ReadAt(cluster[:n], host)
				if err != nil && !errors.Is(err, io.EOF) {
					return fmt.Errorf("qcow2: reading a data cluster: %w", err)
				}
				clear(cluster[rn:n])
				data = cluster
			}
			var err error
			if data == nil {
				err = addZero(vOff, n)
			} else {
				err = addData(vOff, data[:n])
			}
			if err != nil {
				return err
			}
		}
	}
	if err := flushData(); err != nil {
		return err
	}
	return flushZero()
}

// readCompressed inflates the compressed cluster of L2 entry e into out.
func (q *qcow2Image) readCompressed(e uint64, out, buf []byte) ([]byte, error) {
	x := 62 - (q.clusterBits - 8)
	host := int64(e & (1<<x - 1))
	sectors := int64((e>>x)&(1<<(62-x)-1)) + 1
	size := sectors*512 - host%512
	if host >= q.fileSize || size <= 0 {
		return buf, fmt.Errorf("qcow2: invalid compressed cluster offset %d", host)
	}
	size = min(size, q.fileSize-host)
	if int64(cap(buf)) < size {
		buf = make([]byte, size)
	}
	buf = buf[:size]
	if _, err := q.r.ReadAt(buf, host); err != nil && !errors.Is(err, io.EOF) {
		return buf, fmt.Errorf("qcow2: reading a compressed cluster: %w", err)
	}
	fr := flate.NewReader(bytes.NewReader(buf))
	defer func() { _ = fr.Close() }()
	if _, err := io.ReadFull(fr, out); err != nil {
		return buf, fmt.Errorf("qcow2: inflating a compressed cluster at %d: %w", host, err)
	}
	return buf, nil
}
