package shacrypt

import "testing"

// The expected hashes come from Python's crypt.crypt (glibc), e.g.
// python3 -c "import crypt; print(crypt.crypt('s3cret', '\$6\$saltsaltsaltsalt'))"
func TestMatchesPython(t *testing.T) {
	for _, c := range []struct {
		fn             func(string, string) string
		pw, salt, want string
	}{
		{SHA256, "hunter2", "abcdefghijklmnop", "$5$abcdefghijklmnop$/xm2M1oTvGc2fCTR8/zBr3MgGwgm.aL3PLXlM2aQy86"},
		{SHA256, "", "saltsalt", "$5$saltsalt$09agN5RZ2meWdEdnEusqsq5G7RwwghB8jCKoWWADxW/"},
		{SHA256, "a much longer password with 40+ characters in it!", "0123456789abcdef", "$5$0123456789abcdef$KGF3Sca0z9MlG6fXuZCXiaCKMwpCj/JZRliKy856bq4"},
		{SHA256, "s3cret", "saltsaltsaltsaltEXTRA", "$5$saltsaltsaltsalt$ufKwWDLLJ1uDOn1ie/t9sV7Q6ioIKFeLyVcGgHLVx96"},
		{SHA512, "s3cret", "saltsaltsaltsalt", "$6$saltsaltsaltsalt$l5UWeH/IeG/.rGs/l3kZH.R4sk8ITFTxjshy9P9lPXNB8b0ihXXzhtQvLuNQnAhkwrRoubSO9rQ4zDSfU/dVr."},
		{SHA512, "a much longer password with 40+ characters in it!a much longer password with 40+ characters in it!", "0123456789abcdef",
			"$6$0123456789abcdef$.d7iIpOTeTrXzc6lu9nSTfJiPm9f29DWJJvr08ithAKQCEg27PvlwP91o1pmwds5EighdVBG9CfBmM6.cV1dh1"},
		{SHA512, "", "abc", "$6$abc$mJP3a6FyA8uCnzRtlnNypPwjnvpi5TP9qOrInzrfDmwxUQG38PkpCPdqfTb8JQfAngapMxeim4AZ..hSdRRzD."},
	} {
		if got := c.fn(c.pw, c.salt); got != c.want {
			t.Errorf("(%q, %q) = %s, want %s", c.pw, c.salt, got, c.want)
		}
	}
}
