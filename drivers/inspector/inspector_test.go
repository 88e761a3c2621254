package inspector

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/drivers/generic"
	"github.com/goironic/ironic/states"
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

// recBoot records the ramdisk parameters a managed inspection boots with.
type recBoot struct {
	fake.Boot
	params map[string]any
}

func (b *recBoot) PrepareRamdisk(_ context.Context, _ drivers.Task, params map[string]any, _ drivers.RamdiskMode) error {
	b.params = params
	return nil
}

// introspection is the inspector client of TestFastTrack: it starts
// every introspection.
type introspection struct{ Client }

func (introspection) StartIntrospection(context.Context, string, bool) error { return nil }
func (introspection) Endpoint(context.Context) (string, error) {
	return "http://192.0.2.5:5050", nil
}

// Fast track (driver_info["fast_track"] over [deploy]fast_track) adds
// ipa-api-url to a managed inspection's ramdisk and skips Ironic's power
// off when it ends; without an API URL the inspection cannot start, with
// 21.4's message; an unreadable fast_track is its InvalidParameterValue.
func TestFastTrack(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		cfg       bool
		info      any
		apiURL    string
		wantURL   string
		wantErr   string
		wantPower []states.Power // the actions at the end
	}{
		{name: "off", apiURL: "http://192.0.2.1:6385/", wantPower: []states.Power{states.PowerOff}},
		{name: "config", cfg: true, apiURL: "http://192.0.2.1:6385/", wantURL: "http://192.0.2.1:6385"},
		{name: "driver_info over config", cfg: false, info: "yes", apiURL: "http://192.0.2.1:6385", wantURL: "http://192.0.2.1:6385"},
		{name: "driver_info off", cfg: true, info: false, apiURL: "http://192.0.2.1:6385", wantPower: []states.Power{states.PowerOff}},
		{name: "no API URL", cfg: true, wantErr: "Couldn't get the URL of the Ironic API service"},
		{name: "unreadable", info: "maybe", apiURL: "http://x", wantErr: "Invalid value of fast_track: Unrecognized value 'maybe'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			boot := &recBoot{}
			i := &Inspect{cfg: Config{FastTrack: tc.cfg, APIURL: tc.apiURL, PowerOff: true,
				Client: introspection{}, Log: slog.New(slog.DiscardHandler)}}
			node := &fake.Node{UUID: "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"}
			task := &fake.Task{Node: node, Drv: &drivers.Driver{Boot: boot, Power: &fake.Power{}, Network: &generic.NoopNetwork{}}}
			if tc.info != nil {
				task.DriverInfo().Set("fast_track", tc.info)
			}
			err := i.startManaged(ctx, task)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := boot.params["ipa-api-url"].(string); got != tc.wantURL {
				t.Errorf("ipa-api-url = %q, want %q (params %v)", got, tc.wantURL, boot.params)
			}
			task.DriverInternalInfo().Set(manageBootKey, true)
			task.PowerActions = nil
			if errs := i.tearDownManagedBoot(ctx, task); len(errs) != 0 {
				t.Fatal(errs)
			}
			if diff := cmp.Diff(tc.wantPower, task.PowerActions); diff != "" {
				t.Errorf("power actions at the end (-want +got):\n%s", diff)
			}
		})
	}
}
