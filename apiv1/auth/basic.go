package auth

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"

	"github.com/goironic/ironic/internal/pyjson"
)

// http_basic is ironic_lib.auth_basic.BasicAuthMiddleware: an Apache
// htpasswd file with bcrypt entries only, read again on every request (so
// edits take effect at once), and ironic_lib's answers.

// basicRealm is ironic_lib.exception.Unauthorized's header.
const basicRealm = `Basic realm="Baremetal API"`

// basicError is an ironic_lib exception as BasicAuthMiddleware renders
// it: {"error": {"message": str(e), "code": e.code}}.
type basicError struct {
	code int
	msg  string
}

func (e *basicError) Error() string { return e.msg }

func basicUnauthorized(msg string) *basicError {
	if msg == "" {
		msg = "Incorrect username or password"
	}
	return &basicError{code: http.StatusUnauthorized, msg: msg}
}

func basicBadRequest(msg string) *basicError {
	return &basicError{code: http.StatusBadRequest, msg: msg}
}

// configInvalid is ironic_lib's ConfigInvalid: "Invalid configuration
// file. %(error_msg)s", code 500.
func configInvalid(msg string) *basicError {
	return &basicError{code: http.StatusInternalServerError, msg: "Invalid configuration file. " + msg}
}

// writeBasicError is BasicAuthMiddleware.format_exception: webob's
// json_body (compact separators, ASCII escapes) with the exception's
// headers.
func writeBasicError(w http.ResponseWriter, r *http.Request, e *basicError) {
	body := []byte(`{"error":{"message":`)
	body = pyjson.AppendString(body, latin1(e.msg))
	body = append(body, `,"code":`...)
	body = strconv.AppendInt(body, int64(e.code), 10)
	body = append(body, "}}"...)
	h := w.Header()
	if e.code == http.StatusUnauthorized {
		h["Www-Authenticate"] = []string{basicRealm}
	}
	h["Content-Type"] = []string{"application/json"}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(e.code)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// basicAuth checks requests against the user file.
type basicAuth struct {
	file string
	log  *slog.Logger
	read func(string) ([]byte, error)
}

// newBasicAuth is BasicAuthMiddleware.__init__: the file must be readable
// and every "user:hash" line must hold a bcrypt hash.
func newBasicAuth(file string, log *slog.Logger) (*basicAuth, error) {
	b := &basicAuth{file: file, log: log, read: os.ReadFile}
	data, err := b.read(file)
	if err == nil {
		var lines []string
		if lines, err = htpasswdLines(data); err == nil {
			for _, entry := range lines {
				if strings.IndexByte(entry, ':') < 0 {
					continue
				}
				if _, _, berr := parseHtpasswdEntry(entry); berr != nil {
					return nil, berr
				}
			}
			return b, nil
		}
	}
	log.Error("Problem reading auth user file", "file", file, "error", err)
	return nil, configInvalid("Problem reading auth user file: " + file)
}

// htpasswdLines splits the file as Python's text mode does (universal
// newlines: \n, \r\n and \r end lines), each line stripped, blank lines
// dropped. The file must be UTF-8, the locale's encoding.
func htpasswdLines(data []byte) ([]string, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("the file is not UTF-8")
	}
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimFunc(l, isPyUnicodeSpace); l != "" {
			out = append(out, l)
		}
	}
	return out, nil
}

// isPyUnicodeSpace is Python's str.isspace for one character.
func isPyUnicodeSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// parseHtpasswdEntry is ironic_lib's parse_entry.
func parseHtpasswdEntry(entry string) (user, crypted string, err *basicError) {
	user, crypted, _ = strings.Cut(entry, ":")
	switch {
	case strings.HasPrefix(crypted, "$2y$"), strings.HasPrefix(crypted, "$2a$"), strings.HasPrefix(crypted, "$2b$"):
		return user, crypted, nil
	}
	return "", "", configInvalid("Only bcrypt digested passwords are supported for " + user)
}

// authenticate is BasicAuthMiddleware.__call__ up to the application: the
// user name on success.
func (b *basicAuth) authenticate(ctx context.Context, h http.Header) (string, *basicError) {
	token, err := parseBasicHeader(h)
	if err != nil {
		return "", err
	}
	user, password, err := parseBasicToken(token)
	if err != nil {
		return "", err
	}
	return b.check(ctx, user, password)
}

// parseBasicHeader is ironic_lib's parse_header.
func parseBasicHeader(h http.Header) (string, *basicError) {
	v, ok := newEnviron(h).get("Authorization")
	if !ok {
		return "", basicUnauthorized("Authorization required")
	}
	// auth_header.strip().split(maxsplit=1)
	v = pyStrip(v)
	i := 0
	for i < len(v) && !isPyWhitespace(v[i]) {
		i++
	}
	authType, rest := v[:i], v[i:]
	j := 0
	for j < len(rest) && isPyWhitespace(rest[j]) {
		j++
	}
	token := rest[j:]
	if authType == "" || token == "" {
		return "", basicBadRequest("Could not parse Authorization header")
	}
	if !asciiEqualFold(authType, "basic") {
		return "", basicBadRequest(`Unsupported authorization type "` + authType + `"`)
	}
	return token, nil
}

// parseBasicToken is ironic_lib's parse_token: base64 (validated as
// Python's b64decode(validate=True) does), then "user:password" with a
// UTF-8 user name.
func parseBasicToken(token string) (string, []byte, *basicError) {
	bad := basicBadRequest("Could not decode authorization token")
	// The token is a str of Latin-1 characters, encoded to UTF-8 first:
	// any non-ASCII character is not base64 anyway.
	pair, ok := pyB64Decode(token)
	if !ok {
		return "", nil, bad
	}
	user, password, found := bytes.Cut(pair, []byte(":"))
	if !found || !utf8.Valid(user) {
		return "", nil, bad
	}
	return string(user), password, nil
}

// pyB64Decode is base64.b64decode(s, validate=True): only the standard
// alphabet followed by at most two "=", decoded by binascii.a2b_base64,
// which stops at the padding that completes a quantum and accepts stray
// padding after a complete one.
func pyB64Decode(s string) ([]byte, bool) {
	n := len(s)
	for n > 0 && s[n-1] == '=' && len(s)-n < 2 {
		n--
	}
	for i := 0; i < n; i++ {
		if b64Value(s[i]) < 0 {
			return nil, false
		}
	}
	out := make([]byte, 0, n*3/4)
	var quad, pads int
	var left byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '=' {
			pads++
			if quad >= 2 && quad+pads >= 4 {
				return out, true
			}
			continue
		}
		v := byte(b64Value(c))
		switch quad {
		case 0:
			quad, left = 1, v
		case 1:
			out = append(out, left<<2|v>>4)
			quad, left = 2, v&0x0f
		case 2:
			out = append(out, left<<4|v>>2)
			quad, left = 3, v&0x03
		case 3:
			out = append(out, left<<6|v)
			quad, left = 0, 0
		}
	}
	if quad != 0 {
		return nil, false
	}
	return out, true
}

func b64Value(c byte) int {
	switch {
	case 'A' <= c && c <= 'Z':
		return int(c - 'A')
	case 'a' <= c && c <= 'z':
		return int(c-'a') + 26
	case '0' <= c && c <= '9':
		return int(c-'0') + 52
	case c == '+':
		return 62
	case c == '/':
		return 63
	}
	return -1
}

// check is ironic_lib's authenticate and auth_entry: the first line that
// starts with "user:" decides.
func (b *basicAuth) check(ctx context.Context, user string, password []byte) (string, *basicError) {
	data, err := b.read(b.file)
	var lines []string
	if err == nil {
		lines, err = htpasswdLines(data)
	}
	if err != nil {
		b.log.ErrorContext(ctx, "Problem reading auth user file", "file", b.file, "error", err)
		return "", configInvalid("Problem reading auth user file")
	}
	prefix := user + ":"
	for _, entry := range lines {
		if !strings.HasPrefix(entry, prefix) {
			continue
		}
		name, crypted, berr := parseHtpasswdEntry(entry)
		if berr != nil {
			return "", berr
		}
		if err := checkBcrypt(crypted, password); err != nil {
			var be *basicError
			if errors.As(err, &be) {
				b.log.ErrorContext(ctx, "Bad entry in auth user file", "file", b.file, "user", name)
				return "", be
			}
			b.log.InfoContext(ctx, "Password does not match", "user", name)
			return "", basicUnauthorized("")
		}
		return name, nil
	}
	b.log.InfoContext(ctx, "User not found", "user", user)
	return "", basicUnauthorized("")
}

// checkBcrypt is bcrypt.checkpw as pyca/bcrypt 3.2 does it: the password
// is cut to 72 bytes, and the whole stored string must equal the hash it
// computes (so trailing characters never match). A password with a NUL
// byte makes pyca/bcrypt raise (Python answers 500); it is refused here.
func checkBcrypt(crypted string, password []byte) error {
	if bytes.IndexByte(password, 0) >= 0 || strings.IndexByte(crypted, 0) >= 0 {
		return bcrypt.ErrMismatchedHashAndPassword
	}
	if len(password) > 72 {
		password = password[:72]
	}
	// pyca hashes with the first 29 characters (the salt) and compares
	// the 60-character result with the whole entry.
	if len(crypted) != 60 {
		if len(crypted) < 29 {
			return configInvalid("Invalid bcrypt hash")
		}
		return bcrypt.ErrMismatchedHashAndPassword
	}
	err := bcrypt.CompareHashAndPassword([]byte(crypted), password)
	switch {
	case err == nil, errors.Is(err, bcrypt.ErrMismatchedHashAndPassword):
		return err
	}
	// A "$2b$" entry whose cost or salt bcrypt cannot read: pyca raises
	// "Invalid salt" (a 500 in Python); it is the file's fault here too.
	return configInvalid("Invalid bcrypt hash")
}
