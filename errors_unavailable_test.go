package ironic

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"
)

func TestAsFaultUnavailable(t *testing.T) {
	for name, err := range map[string]error{
		"refused":      &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED},
		"bad conn":     fmt.Errorf("query: %w", driver.ErrBadConn),
		"gone away":    errors.New("Error 2006 (HY000): MySQL server has gone away"),
		"invalid conn": errors.New("invalid connection"),
	} {
		if f := AsFault(err); f.Class != TemporaryFailure || f.HTTPStatus() != 503 {
			t.Errorf("%s: %v → %s %d, want TemporaryFailure 503", name, err, f.Class, f.HTTPStatus())
		}
	}
	for name, err := range map[string]error{
		"other":     errors.New("UNIQUE constraint failed: nodes.uuid"),
		"duplicate": errors.New("Error 1062 (23000): Duplicate entry"),
	} {
		if f := AsFault(err); f.Class != IronicException {
			t.Errorf("%s: %v → %s, want IronicException", name, err, f.Class)
		}
	}
}
