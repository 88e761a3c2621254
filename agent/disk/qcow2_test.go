package disk

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fileExtents writes into a regular file, holes punched as zeros.
func fileExtents(t *testing.T, path string, size int64) (region, func()) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	// Garbage where the image has holes must be zeroed, as on a used disk.
	junk := bytes.Repeat([]byte{0xa5}, 1<<16)
	for off := int64(0); off < size; off += int64(len(junk)) {
		if _, err := f.WriteAt(junk[:min(int64(len(junk)), size-off)], off); err != nil {
			t.Fatal(err)
		}
	}
	return region{f: f, n: size}, func() { _ = f.Close() }
}

// rawSource writes a raw image of size bytes with data at a few places
// (random and compressible) and zeros elsewhere.
func rawSource(t *testing.T, path string, size int64, seed uint64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 1))
	for i := 0; i < 12; i++ {
		n := 1 + r.IntN(200000)
		off := r.Int64N(size - int64(n))
		buf := make([]byte, n)
		if i%2 == 0 {
			for k := range buf {
				buf[k] = byte(r.Uint32())
			}
		} else {
			copy(buf, bytes.Repeat([]byte("goironic config-2 "), n/18+1))
		}
		if _, err := f.WriteAt(buf, off); err != nil {
			t.Fatal(err)
		}
	}
	// The last byte, so a partial last cluster is exercised.
	if _, err := f.WriteAt([]byte{0x42}, size-1); err != nil {
		t.Fatal(err)
	}
}

// TestQcow2MatchesQemuImg converts images qemu-img made with our reader
// and requires qemu-img convert -O raw's bytes.
func TestQcow2MatchesQemuImg(t *testing.T) {
	need(t, "qemu-img", "qemu-io")
	dir := t.TempDir()
	const size = 24<<20 + 4096 + 512
	src := filepath.Join(dir, "src.raw")
	rawSource(t, src, size, 7)
	cases := []struct {
		name string
		args []string
		io   []string // qemu-io commands run on the qcow2 afterwards
	}{
		{name: "v2", args: []string{"-o", "compat=0.10"}},
		{name: "v3", args: []string{"-o", "compat=1.1"}},
		{name: "v2-compressed", args: []string{"-c", "-o", "compat=0.10"}},
		{name: "v3-compressed", args: []string{"-c", "-o", "compat=1.1"}},
		{name: "v3-zero-clusters", args: []string{"-o", "compat=1.1"}, io: []string{"write -z 0 1M", "write -z 8M 2M", "write -P 0x11 9M 64k"}},
		{name: "v3-512b-clusters", args: []string{"-o", "compat=1.1,cluster_size=512"}},
		{name: "v3-2M-clusters-compressed", args: []string{"-c", "-o", "compat=1.1,cluster_size=2M"}},
		{name: "v3-refcount-bits-1", args: []string{"-o", "compat=1.1,refcount_bits=1"}},
		{name: "v2-sparse-empty", args: []string{"-o", "compat=0.10"}, io: []string{"discard 0 24M"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			img := filepath.Join(dir, tc.name+".qcow2")
			run(t, "qemu-img", append(append([]string{"convert", "-f", "raw", "-O", "qcow2"}, tc.args...), src, img)...)
			for _, c := range tc.io {
				run(t, "qemu-io", "-f", "qcow2", "-c", c, img)
			}
			want := filepath.Join(dir, tc.name+".want")
			run(t, "qemu-img", "convert", "-f", "qcow2", "-O", "raw", img, want)
			f, err := os.Open(img)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = f.Close() }()
			fi, _ := f.Stat()
			q, err := openQcow2(f, fi.Size())
			if err != nil {
				t.Fatal(err)
			}
			if q.virtualSize != size {
				t.Fatalf("virtual size %d, want %d", q.virtualSize, size)
			}
			got := filepath.Join(dir, tc.name+".got")
			out, done := fileExtents(t, got, size)
			defer done()
			if err := q.convert(context.Background(), out); err != nil {
				t.Fatal(err)
			}
			a, _ := os.ReadFile(want)
			sameBytes(t, "converted from the file", a, got)
			// The same image converted as it streams, in odd-sized pieces.
			streamed := filepath.Join(dir, tc.name+".streamed")
			sout, sdone := fileExtents(t, streamed, size)
			defer sdone()
			s := newQcow2Stream(sout, size, "/dev/test")
			imgData, _ := os.ReadFile(img)
			for off := 0; off < len(imgData); off += 77777 {
				if _, err := s.Write(imgData[off:min(off+77777, len(imgData))]); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.finish(); err != nil {
				t.Fatal(err)
			}
			sameBytes(t, "converted as it streamed", a, streamed)
		})
	}
}

func sameBytes(t *testing.T, what string, want []byte, path string) {
	t.Helper()
	got, _ := os.ReadFile(path)
	if len(got) != len(want) {
		t.Fatalf("%s: %d bytes, want %d", what, len(got), len(want))
	}
	for i := range want {
		if want[i] != got[i] {
			t.Fatalf("%s: differs from qemu-img at byte %d (%#x, want %#x)", what, i, got[i], want[i])
		}
	}
}

func TestQcow2Refused(t *testing.T) {
	need(t, "qemu-img")
	dir := t.TempDir()
	base := filepath.Join(dir, "base.qcow2")
	run(t, "qemu-img", "create", "-f", "qcow2", base, "1M")
	cases := map[string][]string{
		"backing file":       {"create", "-f", "qcow2", "-b", base, "-F", "qcow2", filepath.Join(dir, "child.qcow2")},
		"external data file": {"create", "-f", "qcow2", "-o", "data_file=" + filepath.Join(dir, "data.raw"), filepath.Join(dir, "ext.qcow2"), "1M"},
		"extended L2":        {"create", "-f", "qcow2", "-o", "extended_l2=on", filepath.Join(dir, "l2.qcow2"), "1M"},
	}
	for want, args := range cases {
		run(t, "qemu-img", args...)
		path := args[len(args)-1]
		if !strings.HasSuffix(path, ".qcow2") {
			path = args[len(args)-2]
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := f.Stat()
		_, err = openQcow2(f, fi.Size())
		_ = f.Close()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v", want, err)
		}
	}
	if _, err := openQcow2(bytes.NewReader(make([]byte, 512)), 512); !errors.Is(err, errNotQcow2) {
		t.Errorf("raw data: got %v", err)
	}
}

// memExtents checks the converter's writes stay inside the image.
type memExtents struct {
	size int64
	t    *testing.T
}

func (m memExtents) WriteAt(p []byte, off int64) (int, error) {
	if off < 0 || off+int64(len(p)) > m.size {
		m.t.Fatalf("write [%d,+%d) outside %d", off, len(p), m.size)
	}
	return len(p), nil
}

func (m memExtents) Zero(off, n int64) error {
	if off < 0 || n < 0 || off+n > m.size {
		m.t.Fatalf("zero [%d,+%d) outside %d", off, n, m.size)
	}
	return nil
}

// memDisk is a disk in memory.
type memDisk struct {
	size int64
	data []byte
	t    *testing.T
}

func (m *memDisk) bytes() []byte {
	if int64(len(m.data)) < m.size {
		m.data = append(m.data, make([]byte, m.size-int64(len(m.data)))...)
	}
	return m.data
}

func (m *memDisk) WriteAt(p []byte, off int64) (int, error) {
	if off < 0 || off+int64(len(p)) > m.size {
		m.t.Fatalf("write [%d,+%d) outside %d", off, len(p), m.size)
	}
	copy(m.bytes()[off:], p)
	return len(p), nil
}

func (m *memDisk) Zero(off, n int64) error {
	if off < 0 || n < 0 || off+n > m.size {
		m.t.Fatalf("zero [%d,+%d) outside %d", off, n, m.size)
	}
	clear(m.bytes()[off : off+n])
	return nil
}

// FuzzQcow2 feeds arbitrary headers and tables to the parser and the
// converters (from a file and as it streams): errors are fine, panics,
// writes outside the image and disagreeing conversions not.
func FuzzQcow2(f *testing.F) {
	hdr := func(version uint32, bits uint32, size uint64, l1 uint32, l1off uint64) []byte {
		b := make([]byte, 4096)
		be := binary.BigEndian
		be.PutUint32(b[0:], qcow2Magic)
		be.PutUint32(b[4:], version)
		be.PutUint32(b[20:], bits)
		be.PutUint64(b[24:], size)
		be.PutUint32(b[36:], l1)
		be.PutUint64(b[40:], l1off)
		be.PutUint32(b[100:], 104)
		return b
	}
	f.Add(hdr(2, 9, 1<<20, 32, 512))
	f.Add(hdr(3, 16, 1<<20, 1, 0))
	seed := hdr(3, 9, 64<<10, 2, 512)
	binary.BigEndian.PutUint64(seed[512:], 1024|1<<63)
	binary.BigEndian.PutUint64(seed[1024:], 1536)
	binary.BigEndian.PutUint64(seed[1032:], 1<<62|2048)
	f.Add(seed)
	f.Add(backwardQcow2())
	f.Fuzz(func(t *testing.T, data []byte) {
		s := newQcow2Stream(&memDisk{size: 1 << 20, t: t}, 1<<20, "/dev/fuzz")
		_, serr := s.Write(data)
		if serr == nil {
			serr = s.finish()
		}
		q, err := openQcow2(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		if q.virtualSize > 64<<20 {
			return // bounded: the converter walks every cluster
		}
		_ = q.convert(context.Background(), memExtents{size: q.virtualSize, t: t})
		if serr != nil || q.virtualSize > 1<<20 {
			return
		}
		// Where the stream converter succeeds, it agrees with the file one.
		file := &memDisk{size: q.virtualSize, t: t}
		if err := q.convert(context.Background(), file); err != nil {
			return
		}
		streamed := s.w.(*memDisk)
		if !bytes.Equal(file.bytes(), streamed.bytes()[:q.virtualSize]) {
			t.Fatalf("stream and file conversions differ")
		}
	})
}
