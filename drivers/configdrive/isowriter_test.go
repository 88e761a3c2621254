package configdrive

import (
	"strings"
	"testing"
	"time"
)

func TestJolietIdent(t *testing.T) {
	for in, want := range map[string]string{
		"meta_data.json": "\x00m\x00e\x00t\x00a\x00_\x00d\x00a\x00t\x00a\x00.\x00j\x00s\x00o\x00n",
		"a:b;c":          "\x00a\x00_\x00b\x00_\x00c",
		"é😀":             "\x00\xe9\x00_",
	} {
		if got := jolietIdent(in); got != want {
			t.Errorf("jolietIdent(%q) = %q, want %q", in, got, want)
		}
	}
	// Descriptor fields: UCS-2 spaces, an odd field ends in a zero byte.
	if got := ucs2Field("ab", 7); string(got) != "\x00a\x00b\x00 \x00" {
		t.Errorf("ucs2Field = %q", got)
	}
	if got := ucs2Field(strings.Repeat("x", 40), 32); len(got) != 32 || got[31] != 'x' {
		t.Errorf("ucs2Field truncated = %q", got)
	}
}

func TestJolietNameLimit(t *testing.T) {
	ok := strings.Repeat("n", jolietMaxName)
	if _, err := writeISO([]File{{Path: "d/" + ok, Data: []byte("x")}}, "v", time.Unix(0, 0)); err != nil {
		t.Errorf("%d characters: %v", jolietMaxName, err)
	}
	if _, err := writeISO([]File{{Path: "d/" + ok + "n", Data: []byte("x")}}, "v", time.Unix(0, 0)); err == nil {
		t.Errorf("%d characters accepted", jolietMaxName+1)
	}
}
