package agent

import (
	"bytes"
	"crypto/rand"
	"crypto/sha512"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// writeRescuePassword is rescue.write_rescue_password: the hash (Ironic
// 21.4 sends it hashed; an unhashed password is hashed with SHA-512
// crypt, as Python's crypt.crypt does by default) written to the
// password file, and, when Config.ShadowFile is set (the ramdisk),
// made the rescue user's password.
func (a *Agent) writeRescuePassword(p map[string]any) error {
	pw := fmt.Sprint(p["rescue_password"])
	if p["rescue_password"] == nil {
		pw = ""
	}
	hash := pw
	if hashed, _ := p["hashed"].(bool); !hashed {
		salt := make([]byte, 16)
		if _, err := rand.Read(salt); err != nil {
			return err
		}
		for i := range salt {
			salt[i] = cryptAlphabet[int(salt[i])%64]
		}
		hash = sha512Crypt([]byte(pw), salt)
	}
	if err := os.MkdirAll(filepath.Dir(a.cfg.RescuePasswordFile), 0o700); err != nil {
		return rescueWriteError(err)
	}
	if err := os.WriteFile(a.cfg.RescuePasswordFile, []byte(hash), 0o600); err != nil {
		return rescueWriteError(err)
	}
	if a.cfg.ShadowFile != "" {
		if err := setShadowPassword(a.cfg.ShadowFile, "rescue", hash); err != nil {
			return rescueWriteError(err)
		}
	}
	return nil
}

func rescueWriteError(err error) error {
	return errCommandExecution("Rescue Operation failed when writing the hashed rescue password to the password file. Error " + err.Error())
}

// setShadowPassword sets user's hash in a shadow(5) file, adding the
// user when missing.
func setShadowPassword(path, user, hash string) error {
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	var lines []string
	found := false
	for _, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if l == "" {
			continue
		}
		fs := strings.Split(l, ":")
		if fs[0] == user && len(fs) >= 2 {
			fs[1] = hash
			l = strings.Join(fs, ":")
			found = true
		}
		lines = append(lines, l)
	}
	if !found {
		lines = append(lines, user+":"+hash+":0:0:99999:7:::")
	}
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
}

const cryptAlphabet = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// sha512Crypt is glibc's SHA-512 crypt ($6$, 5000 rounds) as specified
// by Ulrich Drepper's "Unix crypt using SHA-256 and SHA-512".
func sha512Crypt(pw, salt []byte) string {
	if len(salt) > 16 {
		salt = salt[:16]
	}
	const rounds = 5000
	b := sha512.Sum512(bytes.Join([][]byte{pw, salt, pw}, nil))
	ah := sha512.New()
	ah.Write(pw)
	ah.Write(salt)
	for i := len(pw); i > 0; i -= 64 {
		ah.Write(b[:min(i, 64)])
	}
	for i := len(pw); i > 0; i >>= 1 {
		if i&1 != 0 {
			ah.Write(b[:])
		} else {
			ah.Write(pw)
		}
	}
	a := ah.Sum(nil)
	dp := sha512.New()
	for range pw {
		dp.Write(pw)
	}
	p := repeatTo(dp.Sum(nil), len(pw))
	ds := sha512.New()
	for i := 0; i < 16+int(a[0]); i++ {
		ds.Write(salt)
	}
	s := repeatTo(ds.Sum(nil), len(salt))
	for r := 0; r < rounds; r++ {
		c := sha512.New()
		if r&1 != 0 {
			c.Write(p)
		} else {
			c.Write(a)
		}
		if r%3 != 0 {
			c.Write(s)
		}
		if r%7 != 0 {
			c.Write(p)
		}
		if r&1 != 0 {
			c.Write(a)
		} else {
			c.Write(p)
		}
		a = c.Sum(nil)
	}
	var out strings.Builder
	out.WriteString("$6$")
	out.Write(salt)
	out.WriteByte('$')
	enc := func(b2, b1, b0 byte, n int) {
		w := uint(b2)<<16 | uint(b1)<<8 | uint(b0)
		for ; n > 0; n-- {
			out.WriteByte(cryptAlphabet[w&0x3f])
			w >>= 6
		}
	}
	for _, g := range sha512Perm {
		enc(a[g[0]], a[g[1]], a[g[2]], 4)
	}
	enc(0, 0, a[63], 2)
	return out.String()
}

var sha512Perm = [21][3]int{
	{0, 21, 42}, {22, 43, 1}, {44, 2, 23}, {3, 24, 45}, {25, 46, 4}, {47, 5, 26}, {6, 27, 48},
	{28, 49, 7}, {50, 8, 29}, {9, 30, 51}, {31, 52, 10}, {53, 11, 32}, {12, 33, 54}, {34, 55, 13},
	{56, 14, 35}, {15, 36, 57}, {37, 58, 16}, {59, 17, 38}, {18, 39, 60}, {40, 61, 19}, {62, 20, 41},
}

func repeatTo(d []byte, n int) []byte {
	out := make([]byte, 0, n)
	for len(out) < n {
		out = append(out, d[:min(len(d), n-len(out))]...)
	}
	return out
}
