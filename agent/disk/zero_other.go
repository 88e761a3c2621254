//go:build !linux

package disk

import "os"

// zeroRange has no fast path outside Linux: the caller writes zeros.
func zeroRange(_ *os.File, _, _ int64) bool { return false }

// rescan has nothing to do outside Linux.
func rescan(_ *os.File) {}
