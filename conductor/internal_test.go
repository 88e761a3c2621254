package conductor

import "testing"

// The expected hashes come from Python's crypt.crypt(password, "$5$"+salt).
func TestSHA256CryptMatchesPython(t *testing.T) {
	for _, c := range []struct{ pw, salt, want string }{
		{"hunter2", "abcdefghijklmnop", "$5$abcdefghijklmnop$/xm2M1oTvGc2fCTR8/zBr3MgGwgm.aL3PLXlM2aQy86"},
		{"", "saltsalt", "$5$saltsalt$09agN5RZ2meWdEdnEusqsq5G7RwwghB8jCKoWWADxW/"},
		{"a much longer password with 40+ characters in it!", "0123456789abcdef", "$5$0123456789abcdef$KGF3Sca0z9MlG6fXuZCXiaCKMwpCj/JZRliKy856bq4"},
	} {
		if got := sha256Crypt(c.pw, c.salt); got != c.want {
			t.Errorf("sha256Crypt(%q, %q) = %q, want %q", c.pw, c.salt, got, c.want)
		}
	}
}
