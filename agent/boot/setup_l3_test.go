package boot

import (
	"context"
	"errors"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeMedia serves labelled file sets; absent labels are ErrNoMedia
// until appearAfter reads.
type fakeMedia struct {
	byLabel     map[string]map[string][]byte
	appearAfter int
	reads       int
	err         error
}

func (m *fakeMedia) ReadLabelled(_ context.Context, label string, names []string) (map[string][]byte, error) {
	m.reads++
	if m.err != nil {
		return nil, m.err
	}
	files, ok := m.byLabel[label]
	if !ok || m.reads <= m.appearAfter {
		return nil, ErrNoMedia
	}
	out := map[string][]byte{}
	for _, n := range names {
		if b, ok := files[n]; ok {
			out[n] = b
		}
	}
	return out, nil
}

// fakeStatic records the plan's application as ip(8) lines.
type fakeStatic struct {
	ops     []string
	failDev string
}

func (f *fakeStatic) AddDevice(d NetDevice) error {
	if d.Name == f.failDev {
		return errors.New("no such device")
	}
	f.ops = append(f.ops, d.Kind+" "+d.Name)
	return nil
}

func (f *fakeStatic) AddAddr(dev string, p netip.Prefix) error {
	f.ops = append(f.ops, "addr "+p.String()+" "+dev)
	return nil
}

func (f *fakeStatic) AddRoute(r NetRouteEntry) error {
	f.ops = append(f.ops, "route "+r.Dst.String()+" via "+r.Gw.String()+" "+r.Dev)
	return nil
}

const l3NetworkData = `{"links": [{"id": "port-1", "type": "phy", "ethernet_mac_address": "52:54:00:00:00:01", "mtu": 1400}],
 "networks": [{"id": "n", "type": "ipv4", "link": "port-1", "ip_address": "192.0.2.10", "netmask": "255.255.255.0",
   "routes": [{"network": "0.0.0.0", "netmask": "0.0.0.0", "gateway": "192.0.2.1"}], "network_id": "x"}],
 "services": [{"type": "dns", "address": "192.0.2.53"}]}`

func l3Setup(f *fakeSystem, m *fakeMedia, st *fakeStatic) *Setup {
	s := setupFor(f)
	s.Media, s.Static, s.MediaWait = m, st, 2*time.Second
	return s
}

func TestSetupStaticFromConfigDrive(t *testing.T) {
	f := newFake()
	f.files["/proc/cmdline"] = "boot_method=vmedia ipa-api-url=http://192.0.2.1:6385"
	f.leases = map[string]Lease{} // no DHCP server anywhere
	m := &fakeMedia{appearAfter: 2, byLabel: map[string]map[string][]byte{ConfigDriveLabel: {
		NetworkDataFile: []byte(l3NetworkData), MetaDataFile: []byte(`{"uuid": "u"}`)}}}
	st := &fakeStatic{}
	r, err := l3Setup(f, m, st).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"phy eth0", "addr 192.0.2.10/24 eth0", "route 0.0.0.0/0 via 192.0.2.1 eth0"}
	if d := cmp.Diff(want, st.ops); d != "" {
		t.Errorf("applied (-want +got):\n%s", d)
	}
	// eth1 is not named: glean's DHCP fallback, bounded by the grace
	// since eth0 has its address.
	if d := cmp.Diff([]string{"eth1"}, f.dhcpAsked); d != "" {
		t.Errorf("DHCP (-want +got):\n%s", d)
	}
	if r.Addr().String() != "192.0.2.10" || r.Interfaces[0].Lease.Router.String() != "192.0.2.1" || r.NetworkData == nil {
		t.Errorf("result %+v", r)
	}
	if f.files["/etc/resolv.conf"] != "nameserver 192.0.2.53\n" {
		t.Errorf("resolv.conf %q", f.files["/etc/resolv.conf"])
	}
	// The virtual floppy once, then the drive twice more (vmedia: it may
	// come late) until it appeared.
	if m.reads != 3 {
		t.Errorf("media reads %d", m.reads)
	}
}

func TestSetupNoConfigDriveIsDHCP(t *testing.T) {
	f := newFake()
	f.files["/proc/cmdline"] = "boot_method=vmedia BOOTIF=52:54:00:00:00:02"
	m := &fakeMedia{}
	st := &fakeStatic{}
	r, err := l3Setup(f, m, st).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(st.ops) != 0 || r.NetworkData != nil || r.Addr().String() != "10.0.2.15" {
		t.Errorf("ops %v result %+v", st.ops, r)
	}
	// Waited MediaWait in LinkPoll steps, then DHCP as before.
	if m.reads != 1+5 {
		t.Errorf("media reads %d", m.reads)
	}
}

func TestSetupWithoutVmediaLooksOnce(t *testing.T) {
	f := newFake()
	m := &fakeMedia{}
	if _, err := l3Setup(f, m, &fakeStatic{}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if m.reads != 1 {
		t.Errorf("media reads %d", m.reads)
	}
}

func TestSetupNetworkDataMatchingNoNICIsDHCP(t *testing.T) {
	f := newFake()
	f.files["/proc/cmdline"] = "boot_method=vmedia"
	m := &fakeMedia{byLabel: map[string]map[string][]byte{ConfigDriveLabel: {
		NetworkDataFile: []byte(strings.ReplaceAll(l3NetworkData, "52:54:00:00:00:01", "52:54:00:00:00:99"))}}}
	st := &fakeStatic{}
	r, err := l3Setup(f, m, st).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(st.ops) != 0 || r.Addr().String() != "10.0.2.15" || len(r.Plan.Problems) != 2 {
		t.Errorf("ops %v result %+v", st.ops, r)
	}
}

func TestSetupBadNetworkDataIsDHCP(t *testing.T) {
	f := newFake()
	m := &fakeMedia{byLabel: map[string]map[string][]byte{ConfigDriveLabel: {NetworkDataFile: []byte(`{"links": [}`)}}}
	r, err := l3Setup(f, m, &fakeStatic{}).Run(context.Background())
	if err != nil || r.NetworkData != nil || r.Addr().String() != "10.0.2.15" {
		t.Fatalf("%v %+v", err, r)
	}
}

func TestSetupStaticFailureIsAnError(t *testing.T) {
	f := newFake()
	f.leases = map[string]Lease{}
	m := &fakeMedia{byLabel: map[string]map[string][]byte{ConfigDriveLabel: {NetworkDataFile: []byte(l3NetworkData)}}}
	st := &fakeStatic{failDev: "eth0"}
	s := l3Setup(f, m, st)
	s.DHCPTimeout = 20 * time.Millisecond
	st2 := &failingAddr{fakeStatic: st}
	s.Static = st2
	_, err := s.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "network_data: no interface got an address") {
		t.Fatalf("err = %v", err)
	}
}

type failingAddr struct{ *fakeStatic }

func (f *failingAddr) AddAddr(string, netip.Prefix) error { return errors.New("EACCES") }

func TestSetupVmediaParameters(t *testing.T) {
	f := newFake()
	f.files["/proc/cmdline"] = "boot_method=vmedia ipa-api-url=http://old"
	m := &fakeMedia{byLabel: map[string]map[string][]byte{"ir-vfd-dev": {"parameters.txt": []byte("ipa-api-url=http://new:6385 ipa-debug=1\n")}}}
	r, err := l3Setup(f, m, &fakeStatic{}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.Params.APIURL != "http://new:6385" || r.Params.Debug == nil || !*r.Params.Debug {
		t.Errorf("params %+v", r.Params)
	}
	got, err := ReadCmdline(func(n string) ([]byte, error) { return f.ReadFile(n) })
	if err != nil || !strings.Contains(got, "ipa-api-url=http://new:6385") {
		t.Errorf("ReadCmdline = %q, %v", got, err)
	}
}

func TestReadCmdlineWithoutFile(t *testing.T) {
	got, err := ReadCmdline(func(n string) ([]byte, error) {
		if n == "/proc/cmdline" {
			return []byte("a=b"), nil
		}
		return nil, os.ErrNotExist
	})
	if err != nil || got != "a=b" {
		t.Errorf("%q %v", got, err)
	}
}
