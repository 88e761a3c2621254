package boot

import (
	"net"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/insomniacslk/dhcp/dhcpv4"
)

func TestLeaseFromACK(t *testing.T) {
	ack, err := dhcpv4.New(
		dhcpv4.WithMessageType(dhcpv4.MessageTypeAck),
		dhcpv4.WithYourIP(net.IPv4(10, 0, 2, 15)),
		dhcpv4.WithServerIP(net.IPv4(10, 0, 2, 2)),
		dhcpv4.WithNetmask(net.CIDRMask(24, 32)),
		dhcpv4.WithRouter(net.IPv4(10, 0, 2, 2)),
		dhcpv4.WithDNS(net.IPv4(10, 0, 2, 3)),
		dhcpv4.WithLeaseTime(86400),
	)
	if err != nil {
		t.Fatal(err)
	}
	l, err := leaseFromACK(ack)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{l.Addr.String(), l.Router.String(), l.Server.String(), l.Time.String()}
	if d := cmp.Diff([]string{"10.0.2.15/24", "10.0.2.2", "10.0.2.2", (24 * time.Hour).String()}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if len(l.DNS) != 1 || l.DNS[0].String() != "10.0.2.3" {
		t.Errorf("DNS %v", l.DNS)
	}

	empty, _ := dhcpv4.New(dhcpv4.WithMessageType(dhcpv4.MessageTypeAck))
	if _, err := leaseFromACK(empty); err == nil {
		t.Error("an ACK without yiaddr gave a lease")
	}
}
