package freeport

import (
	"net"
	"strconv"
	"testing"
)

func TestPortsAreDistinctBindableAndOutsideTheEphemeralRange(t *testing.T) {
	elo, ehi := ephemeral()
	seen := map[int]bool{}
	for range 50 {
		p, err := TCP()
		if err != nil {
			t.Fatal(err)
		}
		if seen[p] {
			t.Fatalf("port %d handed out twice", p)
		}
		seen[p] = true
		if p >= elo && p <= ehi {
			t.Fatalf("port %d is in the ephemeral range %d-%d", p, elo, ehi)
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			t.Fatalf("port %d handed out but not bindable: %v", p, err)
		}
		_ = l.Close()
	}
	u, err := UDP()
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.ListenPacket("udp", net.JoinHostPort("127.0.0.1", strconv.Itoa(u)))
	if err != nil {
		t.Fatalf("UDP port %d not bindable: %v", u, err)
	}
	_ = c.Close()
}

func TestABoundPortIsNotHandedOut(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	taken := l.Addr().(*net.TCPAddr).Port
	if free("tcp", taken, []string{"127.0.0.1"}) {
		t.Fatalf("port %d, bound, reported free", taken)
	}
	p, err := TCPOn("127.0.0.1", "127.0.0.2")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"127.0.0.1", "127.0.0.2"} {
		l, err := net.Listen("tcp", net.JoinHostPort(a, strconv.Itoa(p)))
		if err != nil {
			t.Fatalf("port %d not free on %s: %v", p, a, err)
		}
		_ = l.Close()
	}
}
