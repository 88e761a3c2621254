package diskimage

import (
	"regexp"
	"strings"
)

// Marker is one line tinyinit printed on the serial console.
type Marker struct {
	// Kind is BOOTED, DEPLOYED or NO-CONFIGDRIVE.
	Kind string
	// SystemUUID is the SMBIOS product UUID (QEMU's -uuid).
	SystemUUID string
	// ConfigDriveUUID is the uuid of the config drive's meta_data.json
	// (DEPLOYED only).
	ConfigDriveUUID string
	// Cmdline is the kernel command line (BOOTED only).
	Cmdline string
	// Reason is why no config drive was found (NO-CONFIGDRIVE only).
	Reason string
}

var markerLine = regexp.MustCompile(`GOIRONIC-(BOOTED|DEPLOYED|NO-CONFIGDRIVE) system-uuid=(\S+)(?: configdrive-uuid=(\S+))?(?: cmdline=([^\r\n]*))?(?: reason=(\S+))?`)

// ParseMarkers returns the marker lines of a console log, in order.
func ParseMarkers(console string) []Marker {
	var ms []Marker
	for _, m := range markerLine.FindAllStringSubmatch(console, -1) {
		ms = append(ms, Marker{Kind: m[1], SystemUUID: strings.ToLower(m[2]), ConfigDriveUUID: m[3],
			Cmdline: strings.TrimSpace(m[4]), Reason: m[5]})
	}
	return ms
}

// Find returns the first marker of kind in console.
func Find(console, kind string) (Marker, bool) {
	for _, m := range ParseMarkers(console) {
		if m.Kind == kind {
			return m, true
		}
	}
	return Marker{}, false
}
