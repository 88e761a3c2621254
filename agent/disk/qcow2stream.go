package disk

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/goironic/ironic/agent/internal/pyerr"
)

// errNotStreamable: the image refers back to data the stream has
// already passed (its tables come after its data), so it must be
// downloaded whole and converted from the file.
var errNotStreamable = errors.New("qcow2: the image is not laid out for streaming")

// compressedRef is a compressed cluster still to come.
type compressedRef struct {
	start, end int64 // host bytes, end clamped at nothing (may pass EOF)
	voff       int64
}

// qcow2Stream converts a qcow2 image while it downloads (an io.Writer
// fed the image's bytes in order), as qemu-img convert would from the
// file. It works when every table comes before what it points to, as in
// images qemu-img convert writes: the header, the L1 table, then each
// L2 table before its clusters. Otherwise it fails with
// errNotStreamable. finish, after the last byte, zeroes what no cluster
// wrote.
type qcow2Stream struct {
	w       extentWriter
	devSize int64
	dev     string

	hdr     []byte // the first bytes, until the header is parsed
	q       *qcow2Image
	cs      int64
	pos     int64  // stream offset of cur's first byte
	cur     []byte // the cluster being filled
	window  map[int64][]byte
	l1Off   int64
	l1      []byte
	l2      map[int64]int64   // L2 table host offset -> virtual base
	data    map[int64][]int64 // data cluster host offset -> virtual offsets
	comp    []compressedRef
	written []uint64 // bitmap of written virtual clusters
}

func newQcow2Stream(w extentWriter, devSize int64, dev string) *qcow2Stream {
	return &qcow2Stream{w: w, devSize: devSize, dev: dev, window: map[int64][]byte{}, l2: map[int64]int64{}, data: map[int64][]int64{}}
}

func (s *qcow2Stream) Write(p []byte) (int, error) {
	n := len(p)
	if s.q == nil {
		s.hdr = append(s.hdr, p...)
		if len(s.hdr) < 104 {
			return n, nil
		}
		q, l1Off, need, err := parseQcow2Header(s.hdr, math.MaxInt64)
		if err != nil {
			return 0, err
		}
		if q.virtualSize > s.devSize {
			return 0, errImageWrite(s.dev, 1, "", fmt.Sprintf("qemu-img: %s: error while converting host_device: Cannot grow device files\n", s.dev))
		}
		s.q, s.cs, s.l1Off = q, int64(1)<<q.clusterBits, int64(l1Off)
		if q.virtualSize/s.cs > 1<<28 {
			return 0, errNotStreamable // the written-cluster bitmap would pass 32 MiB
		}
		s.l1 = make([]byte, 0, need*8)
		s.written = make([]uint64, (q.virtualSize/s.cs+64)/64)
		p, s.hdr = s.hdr, nil
	}
	for len(p) > 0 {
		k := min(int64(len(p)), s.cs-int64(len(s.cur)))
		s.cur = append(s.cur, p[:k]...)
		p = p[k:]
		if int64(len(s.cur)) == s.cs {
			if err := s.cluster(); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

// cluster handles the completed cluster at s.pos.
func (s *qcow2Stream) cluster() error {
	h, c := s.pos, s.cur
	s.window[h] = c
	delete(s.window, h-4*s.cs)
	s.pos += s.cs
	s.cur = make([]byte, 0, s.cs)
	// The L1 table, which may span clusters.
	if l1End := s.l1Off + int64(cap(s.l1)); h+s.cs > s.l1Off && h < l1End {
		from := max(s.l1Off, h) - h
		to := min(l1End, h+s.cs) - h
		s.l1 = append(s.l1, c[from:to]...)
		if len(s.l1) == cap(s.l1) {
			for i := 0; i < len(s.l1); i += 8 {
				off := int64(binary.BigEndian.Uint64(s.l1[i:]) & qcow2OffsetMask)
				if off == 0 {
					continue
				}
				if off%s.cs != 0 || off < s.pos {
					return errNotStreamable
				}
				s.l2[off] = int64(i/8) * (s.cs / 8) * s.cs
			}
		}
	}
	if base, ok := s.l2[h]; ok {
		delete(s.l2, h)
		if err := s.l2Table(base, c); err != nil {
			return err
		}
	}
	if voffs, ok := s.data[h]; ok {
		delete(s.data, h)
		for _, v := range voffs {
			if err := s.put(v, c); err != nil {
				return err
			}
		}
	}
	return s.compressed(false)
}

// l2Table records what an L2 table's entries point to.
func (s *qcow2Stream) l2Table(base int64, t []byte) error {
	x := 62 - (s.q.clusterBits - 8)
	for j := int64(0); j < s.cs/8; j++ {
		voff := base + j*s.cs
		if voff >= s.q.virtualSize {
			break
		}
		e := binary.BigEndian.Uint64(t[j*8:])
		switch {
		case e&qcow2Compressed != 0:
			start := int64(e & (1<<x - 1))
			size := (int64((e>>x)&(1<<(62-x)-1))+1)*512 - start%512
			if start < s.pos-3*s.cs {
				return errNotStreamable
			}
			s.comp = append(s.comp, compressedRef{start: start, end: start + size, voff: voff})
		case e&qcow2ZeroFlag != 0 || e&qcow2OffsetMask == 0:
		default:
			host := int64(e & qcow2OffsetMask)
			if host%s.cs != 0 {
				return fmt.Errorf("qcow2: invalid data cluster offset %d", host)
			}
			if host < s.pos {
				if _, ok := s.window[host]; !ok {
					return errNotStreamable
				}
				if err := s.put(voff, s.window[host]); err != nil {
					return err
				}
				continue
			}
			s.data[host] = append(s.data[host], voff)
		}
	}
	return nil
}

// compressed inflates the compressed clusters whose bytes have all
// arrived (at the end, all of them, with what arrived).
func (s *qcow2Stream) compressed(final bool) error {
	keep := s.comp[:0]
	for _, r := range s.comp {
		if !final && r.end > s.pos {
			keep = append(keep, r)
			continue
		}
		var buf []byte
		for h := r.start / s.cs * s.cs; h < min(r.end, s.pos); h += s.cs {
			c, ok := s.window[h]
			if !ok {
				return errNotStreamable
			}
			buf = append(buf, c...)
		}
		if final && len(s.cur) > 0 {
			buf = append(buf, s.cur...)
		}
		lo := r.start % s.cs
		if lo > int64(len(buf)) {
			return fmt.Errorf("qcow2: compressed cluster at %d beyond the end of the image", r.start)
		}
		buf = buf[lo:min(int64(len(buf)), r.end-r.start+lo)]
		out := make([]byte, s.cs)
		fr := flate.NewReader(bytes.NewReader(buf))
		_, err := io.ReadFull(fr, out)
		_ = fr.Close()
		if err != nil {
			return fmt.Errorf("qcow2: inflating a compressed cluster at %d: %w", r.start, err)
		}
		if err := s.put(r.voff, out); err != nil {
			return err
		}
	}
	s.comp = keep
	return nil
}

// put writes a cluster's data at virtual offset voff.
func (s *qcow2Stream) put(voff int64, c []byte) error {
	n := min(s.cs, s.q.virtualSize-voff)
	if _, err := s.w.WriteAt(c[:n], voff); err != nil {
		return &writeError{msg: pyerr.OSError(err)}
	}
	i := voff / s.cs
	s.written[i/64] |= 1 << (i % 64)
	return nil
}

// finish handles a last partial cluster, checks nothing is missing and
// zeroes the clusters nothing wrote.
func (s *qcow2Stream) finish() error {
	if s.q == nil {
		return errNotQcow2
	}
	if len(s.cur) > 0 {
		s.cur = append(s.cur, make([]byte, s.cs-int64(len(s.cur)))...)
		if err := s.cluster(); err != nil {
			return err
		}
	}
	if err := s.compressed(true); err != nil {
		return err
	}
	if len(s.l2) > 0 || len(s.data) > 0 || len(s.l1) < cap(s.l1) {
		return fmt.Errorf("qcow2: the image ends before %d of its tables and clusters", len(s.l2)+len(s.data))
	}
	clusters := (s.q.virtualSize + s.cs - 1) / s.cs
	run := int64(-1)
	for i := int64(0); i <= clusters; i++ {
		hole := i < clusters && s.written[i/64]&(1<<(i%64)) == 0
		switch {
		case hole && run < 0:
			run = i
		case !hole && run >= 0:
			end := min(i*s.cs, s.q.virtualSize)
			if err := s.w.Zero(run*s.cs, end-run*s.cs); err != nil {
				return &writeError{msg: pyerr.OSError(err)}
			}
			run = -1
		}
	}
	return nil
}

// streamError carries a converter's refusal through the download loop,
// which neither retries nor rewrites it.
type streamError struct{ err error }

func (e *streamError) Error() string { return e.err.Error() }
func (e *streamError) Unwrap() error { return e.err }

// streamSink feeds the download to the current converter (replaced on
// a retry).
type streamSink struct{ s *qcow2Stream }

func (w *streamSink) Write(p []byte) (int, error) {
	n, err := w.s.Write(p)
	if err != nil {
		var we *writeError
		if errors.As(err, &we) {
			return n, err
		}
		return n, &streamError{err: err}
	}
	return n, nil
}
