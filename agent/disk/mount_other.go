//go:build !linux

package disk

import "errors"

// sysMounter cannot mount outside Linux.
type sysMounter struct{}

var errNoMount = errors.New("mounting is only supported on Linux")

func (sysMounter) Mount(_, _, _ string, _ uintptr, _ string) error { return errNoMount }
func (sysMounter) Unmount(string) error                            { return errNoMount }

// clearImmutable has nothing to do outside Linux.
func clearImmutable(string) error { return nil }
