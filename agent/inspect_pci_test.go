package agent

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
)

func TestCollectPCIDevices(t *testing.T) {
	root := t.TempDir()
	write := func(dev, file, val string) {
		d := filepath.Join(root, "sys", "bus", "pci", "devices", dev)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, file), []byte(val+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for f, v := range map[string]string{"vendor": "0x8086", "device": "0x1572", "class": "0x020000", "revision": "0x01"} {
		write("0000:00:03.0", f, v)
	}
	write("0000:00:04.0", "vendor", "0x1af4") // no device file: skipped
	a := &Agent{cfg: Config{Root: root}, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	var data inspectionData
	if err := a.collectPCIDevices(context.Background(), &data, nil); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(&data)
	want := `{"pci_devices":[{"vendor_id":"8086","product_id":"1572","class":"020000","revision":"01","bus":"0000:00:03.0"}]}`
	if string(got) != want {
		t.Errorf("body %s, want %s", got, want)
	}

	a.cfg.Root = t.TempDir() // no /sys/bus/pci/devices: nothing posted
	data = inspectionData{}
	if err := a.collectPCIDevices(context.Background(), &data, nil); err != nil {
		t.Fatal(err)
	}
	if data.Has("pci_devices") {
		t.Errorf("pci_devices posted without sysfs: %v", data.Keys())
	}
}
