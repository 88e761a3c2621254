package agent

import (
	"context"
	"errors"
	"testing"

	"github.com/goironic/ironic/agent/disk"
)

// fakeUEFI is the UEFI side of a machine, recording ManageUEFI's calls.
type fakeUEFI struct {
	mode  string
	done  bool
	err   error
	calls []string
}

func (f *fakeUEFI) BootMode() string { return f.mode }

func (f *fakeUEFI) ManageUEFI(_ context.Context, dev, efiPart string) (bool, error) {
	f.calls = append(f.calls, dev+" "+efiPart)
	return f.done, f.err
}

// ipaErr is an IPA error as agent/disk returns them.
type ipaErr struct{ typ, details string }

func (e ipaErr) Error() string { return e.details }
func (e ipaErr) IPAError() (string, int, string, string) {
	return e.typ, 404, "Error finding the disk or partition device to deploy the image onto", e.details
}

// TestInstallBootloader is image.install_bootloader's decisions (IPA
// 9.4's _efi_boot_setup, then the whole-disk and grub2-install paths)
// for what Ironic 21.4 sends a whole disk image: root_uuid the disk
// identifier, target_boot_mode uefi.
func TestInstallBootloader(t *testing.T) {
	noESP := ipaErr{"DeviceNotFound", "No EFI partition could be detected on device /dev/sda"}
	for _, tc := range []struct {
		name      string
		uefi      *fakeUEFI
		params    map[string]any
		ignore    bool
		wantErr   string
		wantCalls int
	}{
		{name: "uefi-entry-written", uefi: &fakeUEFI{mode: "uefi", done: true},
			params: map[string]any{"root_uuid": "0x1234abcd", "efi_system_part_uuid": nil, "target_boot_mode": "uefi"}, wantCalls: 1},
		{name: "uefi-no-esp", uefi: &fakeUEFI{mode: "uefi", err: noESP},
			params: map[string]any{"root_uuid": "0x1234abcd", "target_boot_mode": "uefi"}, wantErr: "DeviceNotFound", wantCalls: 1},
		{name: "uefi-no-esp-ignored-by-param", uefi: &fakeUEFI{mode: "uefi", err: noESP},
			params: map[string]any{"root_uuid": "0x1234abcd", "ignore_bootloader_failure": true}, wantCalls: 1},
		// Ignored, IPA goes on to the grub2 path, which the parameter
		// ignores too.
		{name: "uefi-no-esp-ignored-by-kernel-param", uefi: &fakeUEFI{mode: "uefi", err: noESP}, ignore: true,
			params: map[string]any{"root_uuid": "0x1234abcd"}, wantCalls: 1},
		// An ESP without loaders: IPA's grub2-install path, which fails.
		{name: "uefi-empty-esp", uefi: &fakeUEFI{mode: "uefi"},
			params: map[string]any{"root_uuid": "0x1234abcd", "target_boot_mode": "uefi"}, wantErr: "DeviceNotFound", wantCalls: 1},
		{name: "uefi-empty-esp-no-root", uefi: &fakeUEFI{mode: "uefi"},
			params: map[string]any{"root_uuid": "0x00000000", "target_boot_mode": "uefi"}, wantCalls: 1},
		// Booted by BIOS: no UEFI records, the grub2 path.
		{name: "bios", uefi: &fakeUEFI{mode: "bios", done: true},
			params: map[string]any{"root_uuid": "0x1234abcd", "target_boot_mode": "uefi"}, wantErr: "DeviceNotFound"},
		{name: "bios-no-root", uefi: nil, params: map[string]any{"root_uuid": nil, "target_boot_mode": "bios"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newTestAgent(t, &fakeDisks{})
			if tc.uefi != nil {
				a.cfg.UEFI = tc.uefi
			}
			a.cfg.IgnoreBootloaderFailure = tc.ignore
			err := a.installBootloader(t.Context(), &state{}, tc.params)
			var re *restError
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("error %v", err)
			case tc.wantErr != "" && (!errors.As(err, &re) || re.Type != tc.wantErr):
				t.Errorf("error %#v, want %s", err, tc.wantErr)
			}
			if tc.uefi != nil && len(tc.uefi.calls) != tc.wantCalls {
				t.Errorf("ManageUEFI calls %v, want %d", tc.uefi.calls, tc.wantCalls)
			}
		})
	}
}

var _ UEFI = (*disk.Manager)(nil)
