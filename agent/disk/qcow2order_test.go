package disk

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// backwardQcow2 is a qcow2 v3 image (512-byte clusters) whose L2 table
// comes after the data it maps, further back than the stream
// converter's window: qemu-img reads it, streaming cannot.
func backwardQcow2() []byte {
	const cs = 512
	img := make([]byte, 12*cs)
	be := binary.BigEndian
	be.PutUint32(img[0:], qcow2Magic)
	be.PutUint32(img[4:], 3)
	be.PutUint32(img[20:], 9)             // cluster bits
	be.PutUint64(img[24:], 8*cs)          // virtual size
	be.PutUint32(img[36:], 1)             // L1 entries
	be.PutUint64(img[40:], 2*cs)          // L1 offset
	be.PutUint64(img[48:], 1*cs)          // refcount table offset
	be.PutUint32(img[56:], 1)             // refcount table clusters
	be.PutUint32(img[96:], 4)             // refcount order
	be.PutUint32(img[100:], 104)          // header length
	be.PutUint64(img[2*cs:], 11*cs|1<<63) // L1[0] -> L2 at cluster 11
	for c := 3; c <= 8; c++ {
		copy(img[c*cs:(c+1)*cs], bytes.Repeat([]byte{byte(c)}, cs))
	}
	l2 := img[11*cs:]
	be.PutUint64(l2[0:], 3*cs|1<<63)  // v0 -> cluster 3 (8 clusters back)
	be.PutUint64(l2[8:], 8*cs|1<<63)  // v1 -> cluster 8
	be.PutUint64(l2[24:], 4*cs|1)     // v3: zero flag
	be.PutUint64(l2[40:], 5*cs|1<<63) // v5 -> cluster 5
	return img
}

func TestQcow2NotStreamable(t *testing.T) {
	need(t, "qemu-img")
	img := backwardQcow2()
	dir := t.TempDir()
	src := filepath.Join(dir, "back.qcow2")
	if err := os.WriteFile(src, img, 0o600); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "want.raw")
	run(t, "qemu-img", "convert", "-f", "qcow2", "-O", "raw", src, want)
	wantData, _ := os.ReadFile(want)
	if len(wantData) != 4096 || wantData[0] != 3 || wantData[512] != 8 || wantData[5*512] != 5 || wantData[3*512] != 0 {
		t.Fatalf("qemu-img read the crafted image otherwise than planned")
	}

	s := newQcow2Stream(&memDisk{size: 1 << 20, t: t}, 1<<20, "/dev/x")
	if _, err := s.Write(img); !errors.Is(err, errNotStreamable) {
		t.Fatalf("stream: got %v, want errNotStreamable", err)
	}
	// WriteImage falls back to downloading first, and gets qemu-img's bytes.
	srv := newImageServer(t)
	srv.files["/back.qcow2"] = img
	m, dev := testManager(t)
	disk := makeDisk(t, dev, "vda", 1<<20)
	_ = os.WriteFile(disk, bytes.Repeat([]byte{0xff}, 1<<20), 0o600)
	info := ImageInfo{ID: "back", URLs: []string{srv.URL + "/back.qcow2"}, DiskFormat: ptr("qcow2"), StreamRawImages: true,
		OSHashAlgo: "sha256", OSHashValue: fmt.Sprintf("%x", sha256.Sum256(img))}
	if err := m.WriteImage(t.Context(), "/dev/vda", info); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(disk)
	if !bytes.Equal(got[:len(wantData)], wantData) {
		t.Fatal("fallback conversion differs from qemu-img")
	}
	if n := srv.requests.Load(); n != 2 {
		t.Errorf("%d downloads, want 2 (the stream attempt and the cached one)", n)
	}
}

func TestWriteImageQcow2TooSmallStreamed(t *testing.T) {
	need(t, "qemu-img")
	dir := t.TempDir()
	qc := filepath.Join(dir, "big.qcow2")
	run(t, "qemu-img", "create", "-f", "qcow2", qc, "8M")
	data, _ := os.ReadFile(qc)
	srv := newImageServer(t)
	srv.files["/big.qcow2"] = data
	m, dev := testManager(t)
	makeDisk(t, dev, "vda", 1<<20)
	info := ImageInfo{ID: "big", URLs: []string{srv.URL + "/big.qcow2"}, DiskFormat: ptr("qcow2"), StreamRawImages: true,
		OSHashAlgo: "sha256", OSHashValue: fmt.Sprintf("%x", sha256.Sum256(data))}
	e := ipaError(t, m.WriteImage(t.Context(), "/dev/vda", info))
	want := "Error writing image to device: Writing image to device /dev/vda failed with exit code 1. stdout: . stderr: qemu-img: /dev/vda: error while converting host_device: Cannot grow device files\n"
	if e.Error() != want {
		t.Errorf("got %q\nwant %q", e.Error(), want)
	}
	if n := srv.requests.Load(); n != 1 {
		t.Errorf("%d downloads, want 1", n)
	}
}
