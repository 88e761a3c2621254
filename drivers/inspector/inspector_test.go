package inspector

import (
	"context"
	"log/slog"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/fake"
)

// kernelParams is _parse_kernel_params over shlex.split.
func TestKernelParams(t *testing.T) {
	for in, want := range map[string][]string{
		"":                                       nil,
		"ipa-debug=1 nofb":                       {"ipa-debug=1", "nofb"},
		`a="b c" 'd e'=f  g\ h`:                  {"a=b c", "d e=f", "g h"},
		`ipa-inspection-collectors=default,logs`: {"ipa-inspection-collectors=default,logs"},
	} {
		i := &Inspect{cfg: Config{ExtraKernelParams: in}}
		d, err := i.kernelParams()
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		var got []string
		for k, v := range d.All() {
			if v == nil {
				got = append(got, k)
			} else {
				got = append(got, k+"="+v.(string))
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q: %s", in, diff)
		}
	}
	for _, bad := range []string{`a="b`, `c\`} {
		if _, err := (&Inspect{cfg: Config{ExtraKernelParams: bad}}).kernelParams(); !ironic.IsClass(err, ironic.InvalidParameterValue) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// callbackEndpoint is _get_callback_endpoint.
func TestCallbackEndpoint(t *testing.T) {
	for in, want := range map[string]string{
		"http://10.0.0.1:5050":        "http://10.0.0.1:5050/v1/continue",
		"http://10.0.0.1:5050/":       "http://10.0.0.1:5050/v1/continue",
		"http://10.0.0.1:5050/v1":     "http://10.0.0.1:5050/v1/continue",
		"https://insp.example/v1/":    "https://insp.example/v1/v1/continue", // as Python's endswith("/v1")
		"http://insp.example/ironic/": "http://insp.example/ironic/v1/continue",
		"mdns":                        "mdns",
	} {
		got, err := (&Inspect{cfg: Config{CallbackEndpointOverride: in}}).callbackEndpoint(context.Background())
		if err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", in, got, err, want)
		}
	}
	for _, loop := range []string{"http://127.0.0.1:5050", "http://localhost:5050", "http://[::1]:5050"} {
		_, err := (&Inspect{cfg: Config{CallbackEndpointOverride: loop}}).callbackEndpoint(context.Background())
		if !ironic.IsClass(err, ironic.InvalidParameterValue) {
			t.Errorf("%q: %v, want InvalidParameterValue", loop, err)
		}
	}
}

// macManagement is a management interface that reports NICs, as
// redfish's get_mac_addresses does.
type macManagement struct {
	fake.Management
	macs []string
	err  error
}

func (m *macManagement) GetMACAddresses(context.Context, drivers.Task) ([]string, error) {
	return m.macs, m.err
}

// inspect_hardware first creates ports for the NICs the management
// interface reports (existing ones and invalid addresses skipped); one
// without get_mac_addresses, or answering UnsupportedDriverExtension,
// creates none; another error fails the inspection before anything else.
func TestCreatePortsFromBMC(t *testing.T) {
	ctx := context.Background()
	i := &Inspect{cfg: Config{Log: slog.New(slog.DiscardHandler)}}
	task := &fake.Task{Node: &fake.Node{UUID: "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"},
		PortList: []drivers.Port{{UUID: "p0", Address: "52:54:00:00:00:01"}},
		Drv:      &drivers.Driver{Management: &macManagement{macs: []string{"52:54:00:00:00:01", "52:54:00:AA:00:02", "not-a-mac"}}}}
	if err := i.createPortsFromBMC(ctx, task); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range task.PortList {
		got = append(got, p.Address)
	}
	if diff := cmp.Diff([]string{"52:54:00:00:00:01", "52:54:00:aa:00:02"}, got); diff != "" {
		t.Errorf("ports (-want +got):\n%s", diff)
	}
	for _, m := range []drivers.ManagementInterface{&fake.Management{}, &macManagement{err: ironic.Errorf(ironic.UnsupportedDriverExtension, "no")}} {
		task.Drv.Management = m
		if err := i.createPortsFromBMC(ctx, task); err != nil {
			t.Errorf("%T: %v", m, err)
		}
	}
	task.Drv.Management = &macManagement{err: ironic.Errorf(ironic.RedfishError, "Redfish exception occurred. Error: down")}
	if err := i.createPortsFromBMC(ctx, task); !ironic.IsClass(err, ironic.RedfishError) {
		t.Errorf("a BMC error: %v", err)
	}
}
