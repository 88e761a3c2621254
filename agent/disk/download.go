package disk

import (
	"context"
	"crypto/md5"  //nolint:gosec // Glance's legacy checksum is MD5
	"crypto/sha1" //nolint:gosec // os_hash_algo may name it
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"fmt"
	"hash"
	"io"
	"net"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strings"
	"time"
)

// newHash is the hashlib constructor for an os_hash_algo IPA's ramdisk
// has (hashlib.algorithms_available, the common ones).
func newHash(algo string) (hash.Hash, bool) {
	switch algo {
	case "md5":
		return md5.New(), true //nolint:gosec // see import
	case "sha1":
		return sha1.New(), true //nolint:gosec // see import
	case "sha224":
		return sha256.New224(), true
	case "sha256":
		return sha256.New(), true
	case "sha384":
		return sha512.New384(), true
	case "sha512":
		return sha512.New(), true
	}
	return nil, false
}

// validateImageInfo is IPA's standby._validate_image_info.
func validateImageInfo(image ImageInfo) error {
	if image.ID == "" {
		return errInvalidCommandParams("Image is missing 'id' field.")
	}
	if len(image.URLs) == 0 {
		return errInvalidCommandParams("Image 'urls' must be a list with at least one element.")
	}
	if image.Checksum == "" && image.OSHashAlgo == "" && image.OSHashValue == "" {
		return errInvalidCommandParams("Image checksum is not available, either the 'checksum' field or the 'os_hash_algo' and 'os_hash_value' fields pair must be set for image verification.")
	}
	if image.OSHashAlgo != "" || image.OSHashValue != "" {
		if image.OSHashAlgo == "" {
			return errInvalidCommandParams("Image 'os_hash_algo' must be a non-empty string.")
		}
		if image.OSHashValue == "" {
			return errInvalidCommandParams("Image 'os_hash_value' must be a non-empty string.")
		}
	}
	return nil
}

// imageHash is ImageDownload's choice of algorithm and expected value:
// os_hash_algo when the ramdisk has it, else the legacy MD5 checksum.
func imageHash(image ImageInfo) (hash.Hash, string, error) {
	if h, ok := newHash(image.OSHashAlgo); ok && image.OSHashAlgo != "" {
		return h, image.OSHashValue, nil
	}
	if image.Checksum != "" {
		return md5.New(), image.Checksum, nil //nolint:gosec // see import
	}
	algo := "None"
	if image.OSHashAlgo != "" {
		algo = image.OSHashAlgo
	}
	return nil, "", errREST(fmt.Sprintf("Unable to verify image %s with available checksums. Please make sure the specified 'os_hash_algo' (currently %s) is supported by this ramdisk, or provide a md5 checksum via the 'checksum' field", image.ID, algo))
}

// httpClient is the Manager's client with the image's proxies
// (requests' proxies dict, keyed by scheme) and no_proxy applied.
func (m *Manager) httpClient(image ImageInfo) *http.Client {
	if len(image.Proxies) == 0 {
		return m.client
	}
	base, ok := m.client.Transport.(*http.Transport)
	if m.client.Transport == nil {
		base, ok = http.DefaultTransport.(*http.Transport)
	}
	if !ok {
		return m.client
	}
	t := base.Clone()
	t.Proxy = func(r *http.Request) (*url.URL, error) {
		p := image.Proxies[r.URL.Scheme]
		if p == "" || noProxy(image.NoProxy, r.URL.Hostname()) {
			return nil, nil
		}
		return url.Parse(p)
	}
	c := *m.client
	c.Transport = t
	return &c
}

// noProxy is requests' should_bypass_proxies for a comma-separated
// no_proxy list (host suffixes, "*" for all).
func noProxy(list, host string) bool {
	for e := range strings.SplitSeq(list, ",") {
		e = strings.TrimPrefix(strings.TrimSpace(e), ".")
		if e == "" {
			continue
		}
		if e == "*" || host == e || strings.HasSuffix(host, "."+e) {
			return true
		}
		if _, n, err := net.ParseCIDR(e); err == nil {
			if ip := net.ParseIP(host); ip != nil && n.Contains(ip) {
				return true
			}
		}
	}
	return false
}

// openURL is IPA's _download_with_proxy: a GET answered 200, retried on
// connection errors and 5xx up to DownloadRetries times. The error is an
// ImageDownloadError for imageID; secondary is its message alone.
func (m *Manager) openURL(ctx context.Context, image ImageInfo, rawURL, imageID string) (*http.Response, error) {
	client := m.httpClient(image)
	for attempt := 0; ; attempt++ {
		resp, err := m.get(ctx, client, rawURL)
		var status int
		if err == nil {
			if resp.StatusCode == http.StatusOK {
				return resp, nil
			}
			status = resp.StatusCode
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
			_ = resp.Body.Close()
			err = &downloadError{imageID: imageID, msg: fmt.Sprintf("Received status code %d from %s, expected 200. Response body: %s Response headers: %s",
				resp.StatusCode, rawURL, body, pyHeaders(resp.Header))}
		} else {
			err = &downloadError{imageID: imageID, msg: err.Error()}
		}
		if attempt >= m.cfg.DownloadRetries || (status != 0 && status < 500) || ctx.Err() != nil {
			return nil, err
		}
		m.log.WarnContext(ctx, "unable to connect, retrying", "url", rawURL, "error", err)
		if serr := m.sleep(ctx, m.cfg.RetryInterval); serr != nil {
			return nil, err
		}
	}
}

// get sends the GET, allowing ConnectTimeout for the answer's headers.
func (m *Manager) get(ctx context.Context, client *http.Client, rawURL string) (*http.Response, error) {
	ctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	timer := time.AfterFunc(m.cfg.ConnectTimeout, cancel)
	resp, err := client.Do(req)
	if err != nil || !timer.Stop() {
		cancel()
		if err == nil {
			_ = resp.Body.Close()
			err = context.DeadlineExceeded
		}
		return nil, err
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// cancelBody releases the request's context with the body.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// downloadError is an ImageDownloadError keeping its secondary message
// (ImageDownload joins them over its URLs).
type downloadError struct {
	imageID, msg string
}

func (e *downloadError) Error() string { return errImageDownload(e.imageID, e.msg).Error() }

// rest is the IPA error a download error is reported as.
func rest(err error) error {
	var d *downloadError
	if errors.As(err, &d) {
		return errImageDownload(d.imageID, d.msg)
	}
	return err
}

// pyHeaders is requests' CaseInsensitiveDict repr of response headers.
func pyHeaders(h http.Header) string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = pyRepr(k) + ": " + pyRepr(strings.Join(h[k], ", "))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// fetchChecksum is IPA's _fetch_checksum: a checksum that is an http(s)
// URL names a checksums file, whose line for the image's file name (or
// whose only, name-less line) gives the value.
func (m *Manager) fetchChecksum(ctx context.Context, checksum string, image ImageInfo) (string, error) {
	if !strings.HasPrefix(checksum, "http://") && !strings.HasPrefix(checksum, "https://") {
		return checksum, nil
	}
	m.log.DebugContext(ctx, "downloading checksums file", "url", checksum)
	resp, err := m.openURL(ctx, image, checksum, checksum)
	if err != nil {
		return "", rest(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return "", errImageDownload(checksum, err.Error())
	}
	var lines []string
	for l := range strings.SplitSeq(string(body), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return "", errImageDownload(checksum, "Empty checksum file")
	}
	if len(lines) == 1 && !strings.Contains(lines[0], " ") {
		return lines[0], nil
	}
	u, _ := url.Parse(image.URLs[0])
	expected := ""
	if u != nil {
		expected = path.Base(u.Path)
		if u.Path == "" || strings.HasSuffix(u.Path, "/") {
			expected = ""
		}
	}
	for _, l := range lines {
		sum, fname, ok := strings.Cut(l, " ")
		if !ok {
			// Python's split(None, 1) unpacking fails on a one-field line.
			return "", errCommandExecution("not enough values to unpack (expected 2, got 1)")
		}
		if strings.TrimLeft(strings.TrimSpace(fname), "*") == expected {
			return strings.TrimSpace(sum), nil
		}
	}
	return "", errImageDownload(checksum, "Checksum file does not contain name "+expected)
}

// download is IPA's ImageDownload plus the copy loop of _download_image
// and _stream_raw_image_onto_device: the first of image.URLs that
// answers is copied into w (through sink, which may refuse a write) with
// its hash computed on the way, then verified against the expected
// value; the whole is retried DownloadRetries times on download and
// checksum errors. location names the target in IPA's checksum
// messages, writeTarget in its write-failure message ("device /dev/vda"
// when streaming onto a disk as _stream_raw_image_onto_device says, the
// cache file's path for _download_image); reset rewinds the target
// before a retry.
func (m *Manager) download(ctx context.Context, image ImageInfo, location, writeTarget string, w io.Writer, reset func() error) (int64, error) {
	h, want, err := imageHash(image)
	if err != nil {
		return 0, err
	}
	if want, err = m.fetchChecksum(ctx, want, image); err != nil {
		return 0, err
	}
	start := m.now()
	for attempt := 0; ; attempt++ {
		h.Reset()
		n, err := m.downloadOnce(ctx, image, writeTarget, w, h, start)
		if err == nil {
			if got := fmt.Sprintf("%x", h.Sum(nil)); got != want {
				err = errImageChecksum(location, image.ID, want, got)
			} else {
				m.log.InfoContext(ctx, "image downloaded", "image", image.ID, "location", location, "bytes", n, "seconds", m.now().Sub(start).Seconds())
				return n, nil
			}
		}
		var de *downloadError
		var ce *Error
		retriable := errors.As(err, &de) || (errors.As(err, &ce) && ce.Type == "ImageChecksumError")
		if !retriable || attempt >= m.cfg.DownloadRetries || ctx.Err() != nil {
			return n, rest(err)
		}
		m.log.WarnContext(ctx, "image download failed", "attempt", attempt, "total", m.cfg.DownloadRetries, "error", rest(err))
		if serr := m.sleep(ctx, m.cfg.RetryInterval); serr != nil {
			return n, rest(err)
		}
		if reset != nil {
			if rerr := reset(); rerr != nil {
				return n, errImageDownload(image.ID, rerr.Error())
			}
		}
	}
}

func (m *Manager) downloadOnce(ctx context.Context, image ImageInfo, writeTarget string, w io.Writer, h hash.Hash, start time.Time) (int64, error) {
	var resp *http.Response
	var details []string
	for _, u := range image.URLs {
		m.log.InfoContext(ctx, "attempting to download image", "url", u)
		r, err := m.openURL(ctx, image, u, image.ID)
		if err != nil {
			var de *downloadError
			msg := err.Error()
			if errors.As(err, &de) {
				msg = de.msg
			}
			details = append(details, fmt.Sprintf("URL: %s; time: %v seconds. Error: %s", u, m.now().Sub(start).Seconds(), msg))
			continue
		}
		resp = r
		break
	}
	if resp == nil {
		return 0, &downloadError{imageID: image.ID, msg: strings.Join(details, "\n ")}
	}
	defer func() { _ = resp.Body.Close() }()
	body := &idleReader{r: resp.Body, timeout: m.cfg.ConnectTimeout}
	n, err := io.CopyBuffer(io.MultiWriter(w, h), body, make([]byte, 1<<20)) // IPA's IMAGE_CHUNK_SIZE
	if err != nil {
		var se *streamError
		if errors.As(err, &se) {
			return n, se.err
		}
		var we *writeError
		if errors.As(err, &we) {
			return n, &downloadError{imageID: image.ID, msg: fmt.Sprintf("Unable to write image to %s. Error: %s", writeTarget, we.msg)}
		}
		if errors.Is(err, errIdle) {
			return n, &downloadError{imageID: image.ID, msg: "Timed out reading next chunk from webserver"}
		}
		return n, &downloadError{imageID: image.ID, msg: err.Error()}
	}
	return n, nil
}

// writeError marks a failure of the target (not of the download).
type writeError struct{ msg string }

func (e *writeError) Error() string { return e.msg }

var errIdle = errors.New("idle")

// idleReader fails a read that waits longer than timeout for data.
type idleReader struct {
	r       io.Reader
	timeout time.Duration
}

func (r *idleReader) Read(p []byte) (int, error) {
	type res struct {
		n   int
		err error
	}
	ch := make(chan res, 1)
	go func() {
		n, err := r.r.Read(p)
		ch <- res{n, err}
	}()
	t := time.NewTimer(r.timeout)
	defer t.Stop()
	select {
	case x := <-ch:
		return x.n, x.err
	case <-t.C:
		if c, ok := r.r.(io.Closer); ok {
			_ = c.Close()
		}
		<-ch
		return 0, errIdle
	}
}
