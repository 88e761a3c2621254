package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// Guest addressing of QEMU's user network (no DHCP client here).
var (
	guestIP   = [4]byte{10, 0, 2, 15}
	guestMask = [4]byte{255, 255, 255, 0}
)

const (
	// servePort is where the agent listens (IPA's 9999).
	servePort = 9999
	// serveFor bounds the wait for the host's request.
	serveFor = 90 * time.Second

	siocgifflags   = 0x8913
	siocsifflags   = 0x8914
	siocsifaddr    = 0x8916
	siocsifnetmask = 0x891c
)

// ifreq is struct ifreq with a sockaddr_in or the flags in its union.
type ifreq struct {
	name [16]byte
	data [24]byte
}

// serveOnce brings the first NIC up as 10.0.2.15/24 and answers one
// HTTP request on port 9999 (the agent's) with the system UUID, so that
// a test proves QEMU's hostfwd to the agent port; it gives up after
// serveFor.
func serveOnce(uuid string) error {
	nic, err := firstNIC(10 * time.Second)
	if err != nil {
		return err
	}
	if err := ifUp(nic); err != nil {
		return fmt.Errorf("%s: %w", nic, err)
	}
	l, err := net.Listen("tcp", fmt.Sprintf(":%d", servePort))
	if err != nil {
		return err
	}
	done := make(chan struct{})
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "GOIRONIC-AGENT system-uuid=%s\n", uuid)
		select {
		case <-done:
		default:
			close(done)
		}
	})}
	go func() { _ = srv.Serve(l) }()
	select {
	case <-done:
	case <-time.After(serveFor):
		_ = srv.Close()
		return fmt.Errorf("no request on port %d in %s", servePort, serveFor)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return srv.Shutdown(ctx)
}

func firstNIC(wait time.Duration) (string, error) {
	deadline := time.Now().Add(wait)
	for {
		entries, _ := os.ReadDir("/sys/class/net")
		for _, e := range entries {
			if e.Name() != "lo" {
				return e.Name(), nil
			}
		}
		if time.Now().After(deadline) {
			return "", errors.New("no network interface")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func ifUp(name string) error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	req := func(op uintptr, fill func(*ifreq)) (ifreq, error) {
		var r ifreq
		copy(r.name[:], name)
		if fill != nil {
			fill(&r)
		}
		_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), op, uintptr(unsafe.Pointer(&r)))
		if errno != 0 {
			return r, errno
		}
		return r, nil
	}
	inet := func(a [4]byte) func(*ifreq) {
		return func(r *ifreq) {
			r.data[0] = syscall.AF_INET // sin_family, little-endian
			copy(r.data[4:8], a[:])
		}
	}
	if _, err := req(siocsifaddr, inet(guestIP)); err != nil {
		return fmt.Errorf("SIOCSIFADDR: %w", err)
	}
	if _, err := req(siocsifnetmask, inet(guestMask)); err != nil {
		return fmt.Errorf("SIOCSIFNETMASK: %w", err)
	}
	r, err := req(siocgifflags, nil)
	if err != nil {
		return fmt.Errorf("SIOCGIFFLAGS: %w", err)
	}
	flags := r.data[0:2]
	flags[0] |= syscall.IFF_UP | syscall.IFF_RUNNING
	if _, err := req(siocsifflags, func(n *ifreq) { copy(n.data[0:2], flags) }); err != nil {
		return fmt.Errorf("SIOCSIFFLAGS: %w", err)
	}
	return nil
}

// wantServe reports whether the kernel command line asks for serveOnce.
func wantServe(cmdline string) bool {
	for _, f := range strings.Fields(cmdline) {
		if f == "goironic.serve=1" {
			return true
		}
	}
	return false
}
