package inspector

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic"
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
