package pyerr

import (
	"errors"
	"os"
	"syscall"
	"testing"
)

func TestMessages(t *testing.T) {
	_, err := os.ReadDir("/nonexistent-goironic-dir")
	if got, want := PathError(err), "[Errno 2] No such file or directory: '/nonexistent-goironic-dir'"; got != want {
		t.Errorf("PathError = %q, want %q", got, want)
	}
	if got, want := OSError(err), "[Errno 2] No such file or directory"; got != want {
		t.Errorf("OSError = %q, want %q", got, want)
	}
	if got, want := OSError(syscall.EIO), "[Errno 5] Input/output error"; got != want {
		t.Errorf("OSError(EIO) = %q, want %q", got, want)
	}
	if got := PathError(errors.New("plain")); got != "plain" {
		t.Errorf("PathError(plain) = %q", got)
	}
}
