// Package strutils carries the behaviour of oslo_utils.strutils that shows
// in Ironic's answers: masking secrets in dicts and in free text.
package strutils

import (
	"regexp"
	"slices"
	"strings"

	"github.com/goironic/ironic/internal/pyjson"
)

// sanitizeKeys are oslo's _SANITIZE_KEYS: a key containing any of them
// (case-insensitively) holds a secret.
var sanitizeKeys = [...]string{"adminpass", "admin_pass", "password", "admin_password",
	"auth_token", "new_pass", "auth_password", "secret_uuid",
	"secret", "sys_pswd", "token", "configdrive",
	"chappassword", "encrypted_key", "private_key",
	"fernetkey", "sslkey", "passphrase",
	"cephclusterfsid", "octaviaheartbeatkey", "rabbitcookie",
	"cephmanilaclientkey", "pacemakerremoteauthkey",
	"designaterndckey", "cephadminkey", "heatauthencryptionkey",
	"cephclientkey", "keystonecredential",
	"barbicansimplecryptokek", "cephrgwkey", "swifthashsuffix",
	"migrationsshkey", "cephmdskey", "cephmonkey"}

// Masker masks secrets; build one with NewMasker and share it.
type Masker struct {
	p1, p2, wild map[string][]*regexp.Regexp
}

// NewMasker compiles oslo's masking patterns.
func NewMasker() *Masker {
	formats1 := []string{`(%s[0-9]*\s*[=]\s*)[^\s^'^"]+`}
	formats2 := []string{
		`(%s[0-9]*\s*[=]\s*["'])[^"']*(["'])`,
		`(%s[0-9]*\s*[=]\s*["])[^"]*(["])`,
		`(%s[0-9]*\s*[=]\s*['])[^']*(['])`,
		`(%s[0-9]*\s+["'])[^"']*(["'])`,
		`([-]{2}%s[0-9]*\s+)[^'^"^=^\s]+([\s]*)`,
		`(<%s[0-9]*>)[^<]*(</%s[0-9]*>)`,
		`(["']%s[0-9]*["']\s*:\s*["'])[^"']*(["'])`,
		`(['"][^"']*%s[0-9]*['"]\s*:\s*u?['"])[^"']*(['"])`,
		`(['"][^'"]*%s[0-9]*['"]\s*,\s*'--?[A-z]+'\s*,\s*u?['"])[^"']*(['"])`,
		`(%s[0-9]*\s*--?[A-z]+\s*)\S+(\s*)`,
	}
	formatsWild := []string{`(['"][^"']*%s[0-9]*['"]\s*:\s*u?['"].*['"])[^"']*(['"])`}
	m := &Masker{p1: map[string][]*regexp.Regexp{}, p2: map[string][]*regexp.Regexp{}, wild: map[string][]*regexp.Regexp{}}
	compile := func(format, key string) *regexp.Regexp {
		return regexp.MustCompile(`(?is)` + strings.ReplaceAll(format, "%s", regexp.QuoteMeta(key)))
	}
	for _, k := range sanitizeKeys {
		for _, f := range formats2 {
			m.p2[k] = append(m.p2[k], compile(f, k))
		}
		for _, f := range formats1 {
			m.p1[k] = append(m.p1[k], compile(f, k))
		}
		for _, f := range formatsWild {
			m.wild[k] = append(m.wild[k], compile(f, k))
		}
	}
	return m
}

// IsSecretKey reports whether a dict key names a secret.
func IsSecretKey(k string) bool {
	lk := strings.ToLower(k)
	for _, s := range sanitizeKeys {
		if strings.Contains(lk, s) {
			return true
		}
	}
	return false
}

// MaskPassword is oslo's mask_password: secrets inside free text (for
// example "password=abc") are replaced by secret.
func (m *Masker) MaskPassword(message, secret string) string {
	lower := strings.ToLower(message)
	for _, k := range sanitizeKeys {
		if !strings.Contains(lower, k) {
			continue
		}
		for _, re := range m.p2[k] {
			message = re.ReplaceAllString(message, "${1}"+escapeRepl(secret)+"${2}")
		}
		for _, re := range m.p1[k] {
			message = re.ReplaceAllString(message, "${1}"+escapeRepl(secret))
		}
		for _, re := range m.wild[k] {
			message = re.ReplaceAllString(message, "${1}"+escapeRepl(secret)+"${2}")
		}
	}
	return message
}

func escapeRepl(s string) string { return strings.ReplaceAll(s, "$", "$$") }

// MaskDict is oslo's mask_dict_password: values of secret keys become
// secret, nested dicts are masked recursively and other strings go through
// MaskPassword. The input is not modified; a dict without secrets is
// returned as is.
func (m *Masker) MaskDict(d map[string]any, secret string) map[string]any {
	out, _ := m.maskDict(d, secret)
	return out
}

// maskDict masks d and reports whether anything changed (copying only
// then).
func (m *Masker) maskDict(d map[string]any, secret string) (map[string]any, bool) {
	var out map[string]any
	set := func(k string, v any) {
		if out == nil {
			out = make(map[string]any, len(d))
			for k2, v2 := range d {
				out[k2] = v2
			}
		}
		out[k] = v
	}
	for k, v := range d {
		if x, ok := v.(map[string]any); ok {
			if masked, changed := m.maskDict(x, secret); changed {
				set(k, masked)
			}
			continue
		}
		if IsSecretKey(k) {
			set(k, secret)
			continue
		}
		if s, ok := v.(string); ok {
			if ms := m.MaskPassword(s, secret); ms != s {
				set(k, ms)
			}
		}
	}
	if out == nil {
		return d, false
	}
	return out, true
}

// AppendMaskedDict writes d in Python's json.dumps format with MaskDict's
// masking applied on the way, without building the masked copy.
func (m *Masker) AppendMaskedDict(dst []byte, d map[string]any, secret string) ([]byte, error) {
	if d == nil {
		return append(dst, "{}"...), nil
	}
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	var err error
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = pyjson.AppendString(dst, k)
		dst = append(dst, ": "...)
		switch v := d[k].(type) {
		case map[string]any:
			dst, err = m.AppendMaskedDict(dst, v, secret)
		case string:
			if IsSecretKey(k) {
				dst = pyjson.AppendString(dst, secret)
			} else {
				dst = pyjson.AppendString(dst, m.MaskPassword(v, secret))
			}
		default:
			if IsSecretKey(k) {
				dst = pyjson.AppendString(dst, secret)
			} else {
				dst, err = pyjson.Append(dst, v)
			}
		}
		if err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}
