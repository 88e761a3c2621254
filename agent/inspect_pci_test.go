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
	for f, v := range map[string]string{"vendor": "0x1af4", "device": "0x1000", "class": "0x020000"} {
		write("0000:00:05.0", f, v) // no revision file: null
	}
	write("0000:00:06.0", "vendor", "8086") // no "x": skipped
	a := &Agent{cfg: Config{Root: root}, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	var data inspectionData
	var fail failures
	if err := a.collectPCIDevices(context.Background(), &data, &fail); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(&data)
	want := `{"pci_devices":[{"vendor_id":"8086","product_id":"1572","class":"020000","revision":"01","bus":"0000:00:03.0"},{"vendor_id":"1af4","product_id":"1000","class":"020000","revision":null,"bus":"0000:00:05.0"}]}`
	if string(got) != want {
		t.Errorf("body %s, want %s", got, want)
	}

	a.cfg.Root = t.TempDir() // no /sys/bus/pci/devices: a failure, nothing posted
	data = inspectionData{}
	if err := a.collectPCIDevices(context.Background(), &data, &fail); err != nil {
		t.Fatal(err)
	}
	wantFail := "Failed to get list of PCI devices: [Errno 2] No such file or directory: '" + filepath.Join(a.cfg.Root, "sys/bus/pci/devices") + "'"
	if len(fail) != 1 || fail[0] != wantFail {
		t.Errorf("failures %q, want [%q]", fail, wantFail)
	}
	if data.Has("pci_devices") {
		t.Errorf("pci_devices posted without sysfs: %v", data.Keys())
	}
}
