package diskimage

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseMarkers(t *testing.T) {
	console := "[    1.0] sd 0:0:0:0: [sda]\r\n\r\nGOIRONIC-BOOTED system-uuid=1BE2C9B4-0000-4000-8000-000000000001 cmdline=console=ttyS0 panic=-1 \r\n" +
		"noise\r\nGOIRONIC-DEPLOYED system-uuid=1be2c9b4-0000-4000-8000-000000000001 configdrive-uuid=1be2c9b4-0000-4000-8000-000000000001\r\n" +
		"GOIRONIC-NO-CONFIGDRIVE system-uuid=unknown reason=no_device_labelled_config-2_after_20s\r\n"
	want := []Marker{
		{Kind: "BOOTED", SystemUUID: "1be2c9b4-0000-4000-8000-000000000001", Cmdline: "console=ttyS0 panic=-1"},
		{Kind: "DEPLOYED", SystemUUID: "1be2c9b4-0000-4000-8000-000000000001", ConfigDriveUUID: "1be2c9b4-0000-4000-8000-000000000001"},
		{Kind: "NO-CONFIGDRIVE", SystemUUID: "unknown", Reason: "no_device_labelled_config-2_after_20s"},
	}
	if diff := cmp.Diff(want, ParseMarkers(console)); diff != "" {
		t.Errorf("markers (-want +got):\n%s", diff)
	}
	if _, ok := Find("GOIRONIC-BOOTED system-uuid=x cmdline=", "DEPLOYED"); ok {
		t.Error("found DEPLOYED in a console without it")
	}
}
