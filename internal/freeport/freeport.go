// Package freeport hands tests the ports their servers will listen on.
//
// Asking the kernel for port 0 and closing the socket gives a port that
// anything else binding port 0 may get next: an httptest server of the
// same test, another package's test binary, or a client's outgoing
// socket (ipmitool's UDP, every TCP connect). A server started on that
// port a moment later then finds it taken, or, worse, a test's readiness
// check reaches the other listener. So the ports handed out here lie
// below the kernel's ephemeral range (net.ipv4.ip_local_port_range),
// which bind(0) and connect never use, are checked free when handed out,
// and are never handed out twice by one process.
package freeport

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

// The ports handed out by this process. A package variable on purpose:
// the process is the scope in which two callers must never get the same
// port, whichever package's helper asked.
var (
	mu     sync.Mutex
	issued = map[int]bool{}
)

const (
	lowest   = 10000 // below this, well-known services' ports are dense
	attempts = 200
)

// TCP returns a TCP port that is free on 127.0.0.1.
func TCP() (int, error) { return pick("tcp", "127.0.0.1") }

// TCPOn returns a TCP port that is free on every one of addrs.
func TCPOn(addrs ...string) (int, error) { return pick("tcp", addrs...) }

// UDP returns a UDP port that is free on 127.0.0.1.
func UDP() (int, error) { return pick("udp", "127.0.0.1") }

func pick(network string, addrs ...string) (int, error) {
	if len(addrs) == 0 {
		return 0, errors.New("freeport: no address")
	}
	lo, hi := span()
	mu.Lock()
	defer mu.Unlock()
	for range attempts {
		p := lo + rand.IntN(hi-lo+1)
		if issued[p] || !free(network, p, addrs) {
			continue
		}
		issued[p] = true
		return p, nil
	}
	return 0, fmt.Errorf("freeport: no %s port in %d-%d free on %v after %d tries", network, lo, hi, addrs, attempts)
}

// free reports whether port can be bound on every address now.
func free(network string, port int, addrs []string) bool {
	var closers []func() error
	defer func() {
		for _, c := range closers {
			_ = c()
		}
	}()
	for _, a := range addrs {
		hp := net.JoinHostPort(a, strconv.Itoa(port))
		if network == "udp" {
			c, err := net.ListenPacket("udp", hp)
			if err != nil {
				return false
			}
			closers = append(closers, c.Close)
			continue
		}
		l, err := net.Listen("tcp", hp)
		if err != nil {
			return false
		}
		closers = append(closers, l.Close)
	}
	return true
}

// span is the range ports are drawn from: the one below the ephemeral
// range when it is wide enough, else the one above it.
func span() (lo, hi int) {
	elo, ehi := ephemeral()
	if elo-1-lowest >= 4000 {
		return lowest, elo - 1
	}
	if 65535-(ehi+1) >= 4000 {
		return ehi + 1, 65535
	}
	// The ephemeral range covers nearly everything: fall back on the
	// bottom of it and on the check that the port is free.
	return lowest, lowest + 4000
}

// ephemeral reads the kernel's ephemeral port range (Linux's default
// when it cannot).
func ephemeral() (lo, hi int) {
	lo, hi = 32768, 60999
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return lo, hi
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return lo, hi
	}
	l, err1 := strconv.Atoi(f[0])
	h, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || l > h {
		return lo, hi
	}
	return l, h
}
