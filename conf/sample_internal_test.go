package conf

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

func TestWriteWrapped(t *testing.T) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	long := strings.Repeat("word ", 30) + "averyveryveryveryveryveryveryveryveryveryveryveryveryveryverylongword end"
	writeWrapped(w, long+"\n\nsecond paragraph")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	for _, l := range lines {
		if !strings.HasPrefix(l, "#") {
			t.Errorf("line %q is not a comment", l)
		}
		if len(l) > sampleWidth && strings.Contains(strings.TrimPrefix(l, "# "), " ") {
			t.Errorf("line %q is longer than %d", l, sampleWidth)
		}
	}
	if got := lines[len(lines)-2:]; got[0] != "#" || got[1] != "# second paragraph" {
		t.Errorf("paragraphs not kept: %q", got)
	}
	if !strings.Contains(buf.String(), "\n# averyvery") {
		t.Errorf("long word not on its own line:\n%s", buf.String())
	}
}
