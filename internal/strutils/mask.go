// Package strutils carries the behaviour of oslo_utils.strutils that shows
// in Ironic's answers: masking secrets in dicts and in free text.
package strutils

import (
	"regexp"
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
// MaskPassword; keys keep their order. The input is not modified; a dict
// without secrets is returned as is.
func (m *Masker) MaskDict(d *pyjson.Dict, secret string) *pyjson.Dict {
	out, _ := m.maskDict(d, secret)
	return out
}

// maskDict masks d and reports whether anything changed (copying only
// then).
func (m *Masker) maskDict(d *pyjson.Dict, secret string) (*pyjson.Dict, bool) {
	var out *pyjson.Dict
	set := func(k string, v any) {
		if out == nil {
			out = d.Clone()
		}
		out.Set(k, v)
	}
	for k, v := range d.All() {
		if x, ok := asDict(v); ok {
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

// asDict is a nested dict of a decoded JSON value (a map, from older
// code paths, is taken in sorted order).
func asDict(v any) (*pyjson.Dict, bool) {
	switch v.(type) {
	case *pyjson.Dict, map[string]any:
		return pyjson.AsDict(v)
	}
	return nil, false
}

// AppendMaskedDict writes d in Python's json.dumps format with MaskDict's
// masking applied on the way, without building the masked copy.
func (m *Masker) AppendMaskedDict(dst []byte, d *pyjson.Dict, secret string) ([]byte, error) {
	if d == nil {
		return append(dst, "{}"...), nil
	}
	dst = append(dst, '{')
	var err error
	for i, mem := range d.Members() {
		k := mem.Key
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = pyjson.AppendString(dst, k)
		dst = append(dst, ": "...)
		if x, ok := asDict(mem.Value); ok {
			dst, err = m.AppendMaskedDict(dst, x, secret)
		} else if v, ok := mem.Value.(string); ok {
			if IsSecretKey(k) {
				dst = pyjson.AppendString(dst, secret)
			} else {
				dst = pyjson.AppendString(dst, m.MaskPassword(v, secret))
			}
		} else if IsSecretKey(k) {
			dst = pyjson.AppendString(dst, secret)
		} else {
			dst, err = pyjson.Append(dst, mem.Value)
		}
		if err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}
