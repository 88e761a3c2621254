package deployutil

import (
	"testing"
)

func TestImageRefError(t *testing.T) {
	tests := map[string]string{
		"http://x/img":                         "",
		"HTTPS://x/img":                        "",
		"file:///img":                          "",
		"glance://abc":                         "",
		"9b5b8c4e-1d6a-4b8e-9f3e-2a3b4c5d6e7f": "",
		"ftp://x/img":                          "Image download protocol ftp is not supported.",
		"just-a-name":                          "Scheme-less image href is not a UUID.",
	}
	for ref, want := range tests {
		if got := ImageRefError(ref); got != want {
			t.Errorf("ImageRefError(%q) = %q, want %q", ref, got, want)
		}
	}
	if !IsGlanceImage("9B5B8C4E-1D6A-4B8E-9F3E-2A3B4C5D6E7F") || IsGlanceImage("http://x") || IsGlanceImage(5) {
		t.Error("IsGlanceImage")
	}
}
