package redfishbmc

import "context"

// Machine is a computer behind a System that makes its power, boot
// override and virtual media real (QEMU is one). Without one, a System
// is a model in memory. The BMC calls a Machine while it holds the BMC's
// lock, so one Machine sees one call at a time.
type Machine interface {
	// PowerOn starts the machine, booting as boot says. It fails if the
	// machine can't start; it doesn't wait for an operating system.
	PowerOn(ctx context.Context, boot MachineBoot) error
	// PowerOff stops it. Graceful presses the (ACPI) power button and
	// returns at once: the guest may or may not power off. Otherwise
	// the power is cut and PowerOff returns once it is off.
	PowerOff(ctx context.Context, graceful bool) error
	// NMI injects a non-maskable interrupt into a running machine.
	NMI(ctx context.Context) error
	// Running reports whether the machine is powered on (a guest may
	// have powered itself off).
	Running() bool
	// MediaFile is the file an image inserted into the virtual media
	// device ("Cd" or "Floppy") is written to; the machine boots from it.
	MediaFile(device string) string
	// ChangeMedia inserts the media file (MediaFile) of device into the
	// running machine, or ejects it (insert false). A device that can't
	// change while running takes the media at the next PowerOn.
	ChangeMedia(ctx context.Context, device string, insert bool) error
}

// MachineBoot is how a Machine boots.
type MachineBoot struct {
	// Target is the BootSourceOverrideTarget ("None": the machine's own
	// order); Once: only this boot, later boots follow the machine's own
	// order; Mode: "UEFI" or "Legacy".
	Target string
	Once   bool
	Mode   string
	// Media lists the virtual media devices that hold an image.
	Media []string
}
