package disk

import (
	"bytes"
	"context"
	"crypto/md5" //nolint:gosec // Glance's legacy checksum
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// imageServer serves files by path, counting requests; a path listed
// in fail answers 503 that many times first.
type imageServer struct {
	*httptest.Server
	files    map[string][]byte
	requests atomic.Int32
	fail     map[string]*atomic.Int32
}

func newImageServer(t *testing.T) *imageServer {
	s := &imageServer{files: map[string][]byte{}, fail: map[string]*atomic.Int32{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		if n, ok := s.fail[r.URL.Path]; ok && n.Add(-1) >= 0 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		b, ok := s.files[r.URL.Path]
		if !ok {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte("Not Found"))
			return
		}
		_, _ = w.Write(b)
	}))
	t.Cleanup(s.Close)
	return s
}

func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func ptr[T any](v T) *T { return &v }

func TestWriteImageRawStreamAndChecksums(t *testing.T) {
	srv := newImageServer(t)
	img := randomBytes(3<<20+17, 1)
	srv.files["/img.raw"] = img
	m5, s256, s512 := md5.Sum(img), sha256.Sum256(img), sha512.Sum512(img)                          //nolint:gosec // legacy checksum
	srv.files["/SHA256SUMS"] = fmt.Appendf(nil, "%x  other.raw\n%x *img.raw\n", md5.Sum(nil), s256) //nolint:gosec // any value
	srv.files["/single.md5"] = fmt.Appendf(nil, "%x\n", m5)
	cases := map[string]ImageInfo{
		"md5 legacy":          {Checksum: fmt.Sprintf("%x", m5)},
		"sha256":              {OSHashAlgo: "sha256", OSHashValue: fmt.Sprintf("%x", s256)},
		"sha512":              {OSHashAlgo: "sha512", OSHashValue: fmt.Sprintf("%x", s512), Checksum: "ignored"},
		"checksums file":      {OSHashAlgo: "sha256", OSHashValue: srv.URL + "/SHA256SUMS"},
		"single-line md5 URL": {Checksum: srv.URL + "/single.md5"},
	}
	for name, info := range cases {
		for _, stream := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/stream=%v", name, stream), func(t *testing.T) {
				m, dev := testManager(t)
				disk := makeDisk(t, dev, "vda", 8<<20)
				info.ID, info.URLs, info.DiskFormat, info.StreamRawImages = "img-1", []string{srv.URL + "/img.raw"}, ptr("raw"), stream
				if err := m.WriteImage(t.Context(), "/dev/vda", info); err != nil {
					t.Fatal(err)
				}
				got, _ := os.ReadFile(disk)
				if !bytes.Equal(got[:len(img)], img) {
					t.Fatal("image not on the disk")
				}
			})
		}
	}
}

func TestWriteImageQcow2(t *testing.T) {
	need(t, "qemu-img")
	dir := t.TempDir()
	src := filepath.Join(dir, "src.raw")
	rawSource(t, src, 6<<20, 3)
	qc := filepath.Join(dir, "img.qcow2")
	run(t, "qemu-img", "convert", "-c", "-f", "raw", "-O", "qcow2", src, qc)
	data, _ := os.ReadFile(qc)
	want, _ := os.ReadFile(src)
	srv := newImageServer(t)
	srv.files["/img.qcow2"] = data
	for _, stream := range []bool{false, true} {
		m, dev := testManager(t)
		disk := makeDisk(t, dev, "vda", 8<<20)
		// Old data on the disk must not survive where the image has zeros.
		_ = os.WriteFile(disk, bytes.Repeat([]byte{0xff}, 8<<20), 0o600)
		before := srv.requests.Load()
		info := ImageInfo{ID: "img-q", URLs: []string{srv.URL + "/img.qcow2"}, DiskFormat: ptr("qcow2"), StreamRawImages: stream,
			OSHashAlgo: "sha256", OSHashValue: fmt.Sprintf("%x", sha256.Sum256(data))}
		if err := m.WriteImage(t.Context(), "/dev/vda", info); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(disk)
		if !bytes.Equal(got[:len(want)], want) {
			t.Fatalf("stream=%v: converted image differs from its raw source", stream)
		}
		if n := srv.requests.Load() - before; n != 1 {
			t.Errorf("stream=%v: %d downloads", stream, n)
		}
		if ents, _ := os.ReadDir(m.cfg.TempDir); len(ents) != 0 {
			t.Errorf("temporary image left behind: %v", ents)
		}
	}
}

func ipaError(t *testing.T, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v (%T), want an IPA error", err, err)
	}
	return e
}

func TestWriteImageErrors(t *testing.T) {
	srv := newImageServer(t)
	img := randomBytes(1<<20, 4)
	srv.files["/img.raw"] = img
	sum := fmt.Sprintf("%x", sha256.Sum256(img))
	t.Run("checksum mismatch", func(t *testing.T) {
		m, dev := testManager(t)
		makeDisk(t, dev, "vda", 4<<20)
		bad := strings.Repeat("0", 64)
		for _, stream := range []bool{true, false} {
			before := srv.requests.Load()
			err := m.WriteImage(t.Context(), "/dev/vda", ImageInfo{ID: "i1", URLs: []string{srv.URL + "/img.raw"}, DiskFormat: ptr("raw"), StreamRawImages: stream, OSHashAlgo: "sha256", OSHashValue: bad})
			e := ipaError(t, err)
			loc := "/dev/vda"
			if !stream {
				loc = filepath.Join(m.cfg.TempDir, "i1")
			}
			want := fmt.Sprintf("Error verifying image checksum: Image failed to verify against checksum. location: %s; image ID: i1; image checksum: %s; verification checksum: %s", loc, bad, sum)
			if e.Type != "ImageChecksumError" || e.Error() != want {
				t.Errorf("got %s %q\nwant %q", e.Type, e.Error(), want)
			}
			// IPA retries the whole download image_download_connection_retries times.
			if n := srv.requests.Load() - before; n != 3 {
				t.Errorf("%d downloads, want 3", n)
			}
		}
	})
	t.Run("404", func(t *testing.T) {
		m, dev := testManager(t)
		makeDisk(t, dev, "vda", 4<<20)
		before := srv.requests.Load()
		err := m.WriteImage(t.Context(), "/dev/vda", ImageInfo{ID: "i2", URLs: []string{srv.URL + "/missing.raw"}, DiskFormat: ptr("raw"), StreamRawImages: true, Checksum: "abc"})
		e := ipaError(t, err)
		prefix := "Error downloading image: Download of image i2 failed: URL: " + srv.URL + "/missing.raw; time: "
		suffix := " seconds. Error: Received status code 404 from " + srv.URL + "/missing.raw, expected 200. Response body: Not Found Response headers: {"
		if e.Type != "ImageDownloadError" || !strings.HasPrefix(e.Error(), prefix) || !strings.Contains(e.Error(), suffix) {
			t.Errorf("got %q", e.Error())
		}
		// A 4xx is not retried by the connection loop; the download loop retries.
		if n := srv.requests.Load() - before; n != 3 {
			t.Errorf("%d requests, want 3", n)
		}
	})
	t.Run("5xx retried", func(t *testing.T) {
		m, dev := testManager(t)
		makeDisk(t, dev, "vda", 4<<20)
		srv.fail["/img.raw"] = &atomic.Int32{}
		srv.fail["/img.raw"].Store(2)
		defer delete(srv.fail, "/img.raw")
		if err := m.WriteImage(t.Context(), "/dev/vda", ImageInfo{ID: "i3", URLs: []string{srv.URL + "/img.raw"}, DiskFormat: ptr("raw"), StreamRawImages: true, OSHashAlgo: "sha256", OSHashValue: sum}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("second URL", func(t *testing.T) {
		m, dev := testManager(t)
		makeDisk(t, dev, "vda", 4<<20)
		if err := m.WriteImage(t.Context(), "/dev/vda", ImageInfo{ID: "i4", URLs: []string{srv.URL + "/gone", srv.URL + "/img.raw"}, DiskFormat: ptr("raw"), OSHashAlgo: "sha256", OSHashValue: sum}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("disk too small, streamed", func(t *testing.T) {
		m, dev := testManager(t)
		makeDisk(t, dev, "vda", 512<<10)
		err := m.WriteImage(t.Context(), "/dev/vda", ImageInfo{ID: "i5", URLs: []string{srv.URL + "/img.raw"}, DiskFormat: ptr("raw"), StreamRawImages: true, OSHashAlgo: "sha256", OSHashValue: sum})
		e := ipaError(t, err)
		want := "Error downloading image: Download of image i5 failed: Unable to write image to device /dev/vda. Error: [Errno 28] No space left on device"
		if e.Error() != want {
			t.Errorf("got %q\nwant %q", e.Error(), want)
		}
	})
	t.Run("disk too small, converted", func(t *testing.T) {
		m, dev := testManager(t)
		makeDisk(t, dev, "vda", 512<<10)
		err := m.WriteImage(t.Context(), "/dev/vda", ImageInfo{ID: "i6", URLs: []string{srv.URL + "/img.raw"}, DiskFormat: ptr("qcow2"), OSHashAlgo: "sha256", OSHashValue: sum})
		e := ipaError(t, err)
		want := "Error writing image to device: Writing image to device /dev/vda failed with exit code 1. stdout: . stderr: qemu-img: /dev/vda: error while converting host_device: Cannot grow device files\n"
		if e.Type != "ImageWriteError" || e.Error() != want {
			t.Errorf("got %q\nwant %q", e.Error(), want)
		}
	})
	t.Run("invalid image_info", func(t *testing.T) {
		m, _ := testManager(t)
		for info, want := range map[*ImageInfo]string{
			{URLs: []string{"x"}, Checksum: "a"}:                                  "Image is missing 'id' field.",
			{ID: "a", Checksum: "a"}:                                              "Image 'urls' must be a list with at least one element.",
			{ID: "a", URLs: []string{"x"}}:                                        "Image checksum is not available, either the 'checksum' field or the 'os_hash_algo' and 'os_hash_value' fields pair must be set for image verification.",
			{ID: "a", URLs: []string{"x"}, OSHashAlgo: "sha256"}:                  "Image 'os_hash_value' must be a non-empty string.",
			{ID: "a", URLs: []string{"x"}, Checksum: "a", RootMB: ptr(int64(10))}: "Partition images are not supported by this agent: deploy a whole-disk image.",
		} {
			e := ipaError(t, m.WriteImage(t.Context(), "/dev/vda", *info))
			if e.Type != "InvalidCommandParamsError" || e.Details != want {
				t.Errorf("got %s %q, want %q", e.Type, e.Details, want)
			}
		}
		e := ipaError(t, m.WriteImage(t.Context(), "/dev/vda", ImageInfo{ID: "a", URLs: []string{"x"}, OSHashAlgo: "whirlpool", OSHashValue: "x"}))
		if want := "Unable to verify image a with available checksums. Please make sure the specified 'os_hash_algo' (currently whirlpool) is supported by this ramdisk, or provide a md5 checksum via the 'checksum' field"; e.Details != want {
			t.Errorf("got %q", e.Details)
		}
	})
	t.Run("checksums file without the image", func(t *testing.T) {
		m, dev := testManager(t)
		makeDisk(t, dev, "vda", 4<<20)
		srv.files["/SUMS"] = []byte("abc  other.img\ndef  another.img\n")
		e := ipaError(t, m.WriteImage(t.Context(), "/dev/vda", ImageInfo{ID: "i7", URLs: []string{srv.URL + "/img.raw"}, OSHashAlgo: "sha256", OSHashValue: srv.URL + "/SUMS"}))
		want := "Error downloading image: Download of image " + srv.URL + "/SUMS failed: Checksum file does not contain name img.raw"
		if e.Error() != want {
			t.Errorf("got %q", e.Error())
		}
	})
}

// TestWriteImageProxy sends the download through the image's proxy,
// except for no_proxy hosts.
func TestWriteImageProxy(t *testing.T) {
	img := randomBytes(4096, 5)
	var proxied atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		if r.URL.Host != "images.invalid" {
			http.Error(w, "bad host "+r.URL.Host, http.StatusBadGateway)
			return
		}
		_, _ = w.Write(img)
	}))
	defer proxy.Close()
	m, dev := testManager(t)
	makeDisk(t, dev, "vda", 1<<20)
	info := ImageInfo{ID: "p", URLs: []string{"http://images.invalid/img"}, DiskFormat: ptr("raw"), StreamRawImages: true,
		OSHashAlgo: "sha256", OSHashValue: fmt.Sprintf("%x", sha256.Sum256(img)), Proxies: map[string]string{"http": proxy.URL}}
	if err := m.WriteImage(t.Context(), "/dev/vda", info); err != nil {
		t.Fatal(err)
	}
	if proxied.Load() != 1 {
		t.Fatalf("proxy saw %d requests", proxied.Load())
	}
	info.NoProxy = "example.com,.invalid"
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := m.WriteImage(ctx, "/dev/vda", info); err == nil {
		t.Fatal("no_proxy host went through the proxy")
	}
	if proxied.Load() != 1 {
		t.Fatalf("proxy saw %d requests", proxied.Load())
	}
}
