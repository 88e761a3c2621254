package boot

import (
	"bytes"
	"testing"
)

func TestVolumeLabel(t *testing.T) {
	iso := make([]byte, 17*2048)
	pvd := iso[16*2048:]
	pvd[0] = 1
	copy(pvd[1:6], "CD001")
	copy(pvd[40:72], "config-2                        ")
	if got := VolumeLabel(bytes.NewReader(iso)); got != "config-2" {
		t.Errorf("ISO label %q", got)
	}

	fat16 := make([]byte, 512)
	fat16[38] = 0x29
	copy(fat16[43:54], "IR-VFD-DEV ")
	copy(fat16[54:62], "FAT12   ")
	fat16[510], fat16[511] = 0x55, 0xAA
	if got := VolumeLabel(bytes.NewReader(fat16)); got != "IR-VFD-DEV" {
		t.Errorf("FAT12 label %q", got)
	}

	fat32 := make([]byte, 512)
	fat32[66] = 0x29
	copy(fat32[71:82], "CONFIG-2   ")
	copy(fat32[82:87], "FAT32")
	fat32[510], fat32[511] = 0x55, 0xAA
	if got := VolumeLabel(bytes.NewReader(fat32)); got != "CONFIG-2" {
		t.Errorf("FAT32 label %q", got)
	}

	noName := bytes.Clone(fat16)
	copy(noName[43:54], "NO NAME    ")
	for name, b := range map[string][]byte{"empty": make([]byte, 4096), "short": {1, 2}, "unlabelled FAT": noName} {
		if got := VolumeLabel(bytes.NewReader(b)); got != "" {
			t.Errorf("%s: label %q", name, got)
		}
	}
}
