package inspector

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Machine describes the hardware a played ramdisk reports.
type Machine struct {
	// MACs are the NICs' addresses; the first is the PXE NIC.
	MACs []string
	// BMCAddress is inventory.bmc_address ("" for none).
	BMCAddress string
	// DiskSizes are the disks' sizes in bytes (/dev/vda, /dev/vdb, ...).
	DiskSizes []int64
	// CPUs, MemoryMB.
	CPUs     int
	MemoryMB int
	// BootMode is "bios" or "uefi".
	BootMode string
	// Error is the ramdisk's reported error ("" for none).
	Error string
}

// Data is the body IPA 9.4's inspector collector posts to /v1/continue
// (the default collectors: inventory, root_disk, boot_interface).
func (m Machine) Data() map[string]any {
	var ifaces []map[string]any
	for i, mac := range m.MACs {
		ifaces = append(ifaces, map[string]any{
			"name": fmt.Sprintf("eth%d", i), "mac_address": mac, "ipv4_address": fmt.Sprintf("192.0.2.%d", 100+i),
			"ipv6_address": nil, "has_carrier": true, "lldp": nil, "vendor": "0x1af4", "product": "0x0001",
			"client_id": nil, "biosdevname": nil, "speed_mbps": nil,
		})
	}
	var disks []map[string]any
	for i, size := range m.DiskSizes {
		disks = append(disks, map[string]any{
			"name": fmt.Sprintf("/dev/vd%c", 'a'+i), "model": "", "size": size, "rotational": true,
			"wwn": nil, "serial": fmt.Sprintf("serial%d", i), "vendor": "0x1af4", "wwn_with_extension": nil,
			"wwn_vendor_extension": nil, "hctl": nil, "by_path": fmt.Sprintf("/dev/disk/by-path/pci-0000:00:0%d.0", 4+i),
		})
	}
	mode := m.BootMode
	if mode == "" {
		mode = "bios"
	}
	inv := map[string]any{
		"interfaces": ifaces,
		"cpu": map[string]any{"model_name": "QEMU Virtual CPU version 2.5+", "frequency": "2400.000", "count": m.CPUs,
			"architecture": "x86_64", "flags": []string{"fpu", "vme", "lm"}, "socket_count": 1},
		"memory":      map[string]any{"total": int64(m.MemoryMB) << 20, "physical_mb": m.MemoryMB},
		"disks":       disks,
		"bmc_address": orNone(m.BMCAddress), "bmc_v6address": "::/0",
		"boot": map[string]any{"current_boot_mode": mode, "pxe_interface": first(m.MACs)},
		"system_vendor": map[string]any{"product_name": "Standard PC (i440FX + PIIX, 1996)", "serial_number": "",
			"manufacturer": "QEMU", "firmware": map[string]any{"vendor": "SeaBIOS", "version": "1.16.2", "build_date": "04/01/2014"}},
		"hostname": "localhost",
	}
	data := map[string]any{"inventory": inv}
	if len(disks) > 0 {
		data["root_disk"] = disks[0]
	}
	if len(m.MACs) > 0 {
		data["boot_interface"] = "01-" + strings.ReplaceAll(m.MACs[0], ":", "-")
	}
	if m.Error != "" {
		data["error"] = m.Error
	}
	return data
}

func orNone(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func first(s []string) any {
	if len(s) == 0 {
		return nil
	}
	return s[0]
}

// Continue posts data to inspector's /v1/continue as the ramdisk does and
// returns the answer's status and body.
func Continue(ctx context.Context, inspectorURL string, data map[string]any) (int, string, error) {
	b, err := json.Marshal(data)
	if err != nil {
		return 0, "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, inspectorURL+"/v1/continue", bytes.NewReader(b))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), nil
}
