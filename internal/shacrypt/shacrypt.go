// Package shacrypt is crypt(3)'s SHA-256 ("$5$") and SHA-512 ("$6$")
// password hashes with the default 5000 rounds, as Ulrich Drepper's
// specification ("Unix crypt using SHA-256 and SHA-512") and glibc give
// them: Ironic's hash_password (the conductor) and Python's crypt.crypt
// (the agent's rescue password) produce these.
package shacrypt

import (
	"crypto/sha256"
	"crypto/sha512"
	"hash"
	"strings"
)

const alphabet = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// Alphabet is crypt's base-64 alphabet, for making salts.
const Alphabet = alphabet

// SHA256 is crypt(password, "$5$"+salt); salt is cut to 16 characters.
func SHA256(password, salt string) string {
	return scheme{"$5$", sha256.New, [][3]int{
		{0, 10, 20}, {21, 1, 11}, {12, 22, 2}, {3, 13, 23}, {24, 4, 14},
		{15, 25, 5}, {6, 16, 26}, {27, 7, 17}, {18, 28, 8}, {9, 19, 29},
	}}.crypt(password, salt, func(enc func(b2, b1, b0 byte, n int), c []byte) { enc(0, c[31], c[30], 3) })
}

// SHA512 is crypt(password, "$6$"+salt); salt is cut to 16 characters.
func SHA512(password, salt string) string {
	return scheme{"$6$", sha512.New, [][3]int{
		{0, 21, 42}, {22, 43, 1}, {44, 2, 23}, {3, 24, 45}, {25, 46, 4}, {47, 5, 26}, {6, 27, 48},
		{28, 49, 7}, {50, 8, 29}, {9, 30, 51}, {31, 52, 10}, {53, 11, 32}, {12, 33, 54}, {34, 55, 13},
		{56, 14, 35}, {15, 36, 57}, {37, 58, 16}, {59, 17, 38}, {18, 39, 60}, {40, 61, 19}, {62, 20, 41},
	}}.crypt(password, salt, func(enc func(b2, b1, b0 byte, n int), c []byte) { enc(0, 0, c[63], 2) })
}

// scheme is one of the two: its prefix, hash and the final byte
// permutation of the encoding.
type scheme struct {
	prefix string
	newH   func() hash.Hash
	perm   [][3]int
}

func (sc scheme) crypt(password, salt string, tail func(enc func(b2, b1, b0 byte, n int), c []byte)) string {
	if len(salt) > 16 {
		salt = salt[:16]
	}
	p, s := []byte(password), []byte(salt)
	sum := func(parts ...[]byte) []byte {
		h := sc.newH()
		for _, x := range parts {
			h.Write(x)
		}
		return h.Sum(nil)
	}
	b := sum(p, s, p)
	h := sc.newH()
	h.Write(p)
	h.Write(s)
	h.Write(repeat(b, len(p)))
	for l := len(p); l > 0; l >>= 1 {
		if l&1 != 0 {
			h.Write(b)
		} else {
			h.Write(p)
		}
	}
	a := h.Sum(nil)
	pp := repeat(sum(repeat(p, len(p)*len(p))), len(p))
	sp := repeat(sum(repeat(s, len(s)*(16+int(a[0])))), len(s))
	c := a
	for i := 0; i < 5000; i++ {
		h := sc.newH()
		if i&1 != 0 {
			h.Write(pp)
		} else {
			h.Write(c)
		}
		if i%3 != 0 {
			h.Write(sp)
		}
		if i%7 != 0 {
			h.Write(pp)
		}
		if i&1 != 0 {
			h.Write(c)
		} else {
			h.Write(pp)
		}
		c = h.Sum(nil)
	}
	var out strings.Builder
	out.WriteString(sc.prefix + salt + "$")
	enc := func(b2, b1, b0 byte, n int) {
		w := uint(b2)<<16 | uint(b1)<<8 | uint(b0)
		for ; n > 0; n-- {
			out.WriteByte(alphabet[w&0x3f])
			w >>= 6
		}
	}
	for _, g := range sc.perm {
		enc(c[g[0]], c[g[1]], c[g[2]], 4)
	}
	tail(enc, c)
	return out.String()
}

// repeat is d repeated to n bytes.
func repeat(d []byte, n int) []byte {
	out := make([]byte, 0, n)
	for len(out) < n && len(d) > 0 {
		out = append(out, d[:min(len(d), n-len(out))]...)
	}
	return out
}
