package configdrive_test

import (
	"os"
	"testing"
)

func TestDumpSample(t *testing.T) {
	p := os.Getenv("CONFIGDRIVE_DUMP")
	if p == "" {
		t.Skip("set CONFIGDRIVE_DUMP=<file> to write the sample drive's ISO there")
	}
	img, _ := buildSample(t)
	if err := os.WriteFile(p, img, 0o644); err != nil {
		t.Fatal(err)
	}
}
