package boot

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func ptr[T any](v T) *T { return &v }

func TestParseCmdline(t *testing.T) {
	// What Ironic 21.4's ipxe_config.template gives a deploy kernel
	// (pxe_append_params from [pxe]kernel_append_params and the agent's
	// parameters, then BOOTIF=${mac} and initrd=), plus the rest.
	cmdline := "deploy_kernel selinux=0 troubleshoot=0 text nofb nomodeset console=ttyS0 " +
		"ipa-api-url=http://10.0.2.2:6385 ipa-agent-token=tok3n ipa-global-request-id=req-0f3 " +
		"BOOTIF=52:54:00:AB:CD:EF initrd=deploy_ramdisk ipa-debug=1 ipa-advertise-host=127.0.0.1 " +
		"ipa-advertise-port=19999 ipa-lookup-timeout=60 ipa-insecure=True ipa-inspection-callback-url=http://x/v1/continue " +
		"ipa-standalone=no root=/dev/ram0 goironic-test=a=b console=tty0\n"
	got, err := ParseCmdline(cmdline)
	if err != nil {
		t.Fatal(err)
	}
	want := Params{
		APIURL: "http://10.0.2.2:6385", AgentToken: "tok3n", GlobalRequestID: "req-0f3",
		BootIF: "52:54:00:ab:cd:ef", Debug: ptr(true), AdvertiseHost: "127.0.0.1", AdvertisePort: 19999,
		AdvertiseProtocol: "http", ListenPort: 9999, LookupTimeout: 60 * time.Second, LookupInterval: time.Second,
		Insecure: true, InspectionCallbackURL: "http://x/v1/continue",
		All: map[string]string{
			"selinux": "0", "troubleshoot": "0", "console": "tty0", "ipa-api-url": "http://10.0.2.2:6385",
			"ipa-agent-token": "tok3n", "ipa-global-request-id": "req-0f3", "BOOTIF": "52:54:00:AB:CD:EF",
			"initrd": "deploy_ramdisk", "ipa-debug": "1", "ipa-advertise-host": "127.0.0.1",
			"ipa-advertise-port": "19999", "ipa-lookup-timeout": "60", "ipa-insecure": "True",
			"ipa-inspection-callback-url": "http://x/v1/continue", "ipa-standalone": "no",
			"root": "/dev/ram0", "goironic-test": "a=b",
		},
		Unknown: []string{"selinux", "troubleshoot", "console", "initrd", "root", "goironic-test"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestParseCmdlineDefaults(t *testing.T) {
	got, err := ParseCmdline("")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(DefaultParams(), got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if got.Debug != nil || got.BootIF != "" {
		t.Errorf("absent values set: %+v", got)
	}
}

func TestParseCmdlineBadValues(t *testing.T) {
	got, err := ParseCmdline("ipa-api-url=http://a ipa-advertise-port=99999 ipa-debug=maybe BOOTIF=01-zz ipa-lookup-timeout=ten")
	if err == nil {
		t.Fatal("no error")
	}
	for _, s := range []string{`ipa-advertise-port="99999": not a port number`, `ipa-debug="maybe": not a boolean`, `BOOTIF="01-zz": not a MAC`, `ipa-lookup-timeout="ten"`} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
	if got.APIURL != "http://a" || got.AdvertisePort != 9999 || got.Debug != nil || got.BootIF != "" || got.LookupTimeout != 300*time.Second {
		t.Errorf("good values lost or bad ones kept: %+v", got)
	}
}

func TestNormalizeBootIF(t *testing.T) {
	for in, want := range map[string]string{
		"01-52-54-00-12-34-56": "52:54:00:12:34:56",
		"01-52-54-00-AB-CD-EF": "52:54:00:ab:cd:ef",
		"52:54:00:AB:CD:EF":    "52:54:00:ab:cd:ef",
	} {
		got, err := NormalizeBootIF(in)
		if err != nil || got != want {
			t.Errorf("NormalizeBootIF(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "01-", "52-54-00-12-34-56", "01-52-54-00-12-34", "0123456789ab", "01-52-54-00-12-34-56-78-9a"} {
		if got, err := NormalizeBootIF(in); err == nil {
			t.Errorf("NormalizeBootIF(%q) = %q, want an error", in, got)
		}
	}
}
