package ipmi

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/deployutil"
	"github.com/goironic/ironic/drivers/internal/py"
	"github.com/goironic/ironic/internal/pyjson"
)

// Management is the "ipmitool" management interface (IPMIManagement).
// It has no boot mode, secure boot or indicator support: those answer
// UnsupportedDriverExtension, as in Ironic 21.4.
type Management struct {
	drivers.ManagementBase
	t *tool
}

// GetProperties returns the IPMI driver_info keys.
func (*Management) GetProperties() drivers.Properties { return commonProperties() }

// Validate checks the node's IPMI driver_info.
func (m *Management) Validate(ctx context.Context, task drivers.Task) error {
	_, err := m.t.parse(ctx, task)
	return err
}

// bootDeviceCodes are the device selector bytes of IPMI's boot flags
// parameter (BOOT_DEVICE_HEXA_MAP), in Ironic's order.
var bootDeviceCodes = []struct{ device, code string }{
	{drivers.BootDevicePXE, "0x04"},
	{drivers.BootDeviceDisk, "0x08"},
	{drivers.BootDeviceCDROM, "0x14"},
	{drivers.BootDeviceBIOS, "0x18"},
	{drivers.BootDeviceSafe, "0x0c"},
}

// GetSupportedBootDevices returns the devices ipmitool can select: pxe,
// disk, cdrom, bios and safe.
func (*Management) GetSupportedBootDevices(context.Context, drivers.Task) ([]string, error) {
	out := make([]string, len(bootDeviceCodes))
	for i, d := range bootDeviceCodes {
		out[i] = d.device
	}
	return out, nil
}

// SetBootDevice is IPMIManagement.set_boot_device: the BMC's 60 s boot
// flag timeout is disabled first (raw 0x00 0x08 0x03 0x08) unless
// driver_info/ipmi_disable_boot_timeout or [ipmi]disable_boot_timeout
// say not to; ipmi_force_boot_device nodes remember the device instead
// of asking the BMC for persistence; then UEFI nodes get the boot flags
// as raw bytes (0x00 0x08 0x05, 0xe0 persistent or 0xa0 next boot, the
// device's selector) and the others "chassis bootdev <device>" with
// options=persistent.
func (m *Management) SetBootDevice(ctx context.Context, task drivers.Task, device string, persistent bool) error {
	supported, _ := m.GetSupportedBootDevices(ctx, task)
	if !slices.Contains(supported, device) {
		return drivers.InvalidParameter("Invalid boot device %s specified.", device)
	}
	info := task.DriverInfo()
	idt, ok := info.Lookup("ipmi_disable_boot_timeout")
	if !ok || idt == nil {
		idt = m.t.cfg.DisableBootTimeout
	}
	if boolFromString(idt) {
		if _, _, err := m.t.sendRaw(ctx, task, "0x00 0x08 0x03 0x08"); err != nil {
			return err
		}
	} else {
		m.t.cfg.Log.InfoContext(ctx, fmt.Sprintf("For node %s, driver_info['ipmi_disable_boot_timeout'] is set to False, so not sending ipmi boot-timeout-disable", task.NodeUUID()), "node", task.NodeUUID())
	}
	if boolFromString(info.Get("ipmi_force_boot_device")) {
		if err := forcePersistentBoot(ctx, task, device, persistent); err != nil {
			return err
		}
		persistent = false
	}
	mode, err := deployutil.BootMode(task, m.t.cfg.DefaultBootMode)
	if err != nil {
		return err
	}
	if mode == drivers.BootModeUEFI {
		flags := "0xa0"
		if persistent {
			flags = "0xe0"
		}
		_, _, err := m.t.sendRaw(ctx, task, fmt.Sprintf("0x00 0x08 0x05 %s %s 0x00 0x00 0x00", flags, m.vendorDeviceCode(task, mode, device)))
		return err
	}
	cmd := "chassis bootdev " + device
	if persistent {
		cmd += " options=persistent"
	}
	parsed, err := m.t.parse(ctx, task)
	if err != nil {
		return err
	}
	if _, _, err := m.t.exec(ctx, parsed, cmd, execOptions{}); err != nil {
		m.t.cfg.Log.WarnContext(ctx, fmt.Sprintf("IPMI set boot device failed for node %s when executing \"ipmitool %s\". Error: %s", parsed.NodeUUID, cmd, err), "node", parsed.NodeUUID)
		return ipmiFailure(cmd)
	}
	return nil
}

// vendorDeviceCode is _vendor_aware_boot_device_map: Supermicro's UEFI
// hard disk is 0x24.
func (m *Management) vendorDeviceCode(task drivers.Task, mode, device string) string {
	if device == drivers.BootDeviceDisk && mode == drivers.BootModeUEFI {
		if v := task.Properties().Get("vendor"); v != nil && strings.ToLower(py.Str(v)) == "supermicro" {
			return "0x24"
		}
	}
	for _, d := range bootDeviceCodes {
		if d.device == device {
			return d.code
		}
	}
	return ""
}

// forcePersistentBoot is driver_utils.force_persistent_boot: the device
// is remembered in driver_internal_info as persistent_boot_device, or
// the next boot marked not persistent.
func forcePersistentBoot(ctx context.Context, task drivers.Task, device string, persistent bool) error {
	dii := task.DriverInternalInfo()
	if persistent {
		dii.Delete("is_next_boot_persistent")
		dii.Set("persistent_boot_device", device)
	} else {
		dii.Set("is_next_boot_persistent", false)
	}
	return task.Save(ctx)
}

// bootSelector finds the boot device selector in "chassis bootparam get
// 5" output.
var bootSelector = regexp.MustCompile(`Boot Device Selector : (.+)?\n`)

// GetBootDevice is IPMIManagement.get_boot_device: the device remembered
// for ipmi_force_boot_device nodes, else what "chassis bootparam get 5"
// reports.
func (m *Management) GetBootDevice(ctx context.Context, task drivers.Task) (drivers.BootDevice, error) {
	ifbd := task.DriverInfo().Get("ipmi_force_boot_device")
	info, err := m.t.parse(ctx, task)
	if err != nil {
		return drivers.BootDevice{}, err
	}
	dii := task.DriverInternalInfo()
	if boolFromString(ifbd) && py.Truthy(dii.Get("persistent_boot_device")) {
		if v, ok := dii.Lookup("is_next_boot_persistent"); !ok || py.Truthy(v) {
			yes := true
			return drivers.BootDevice{Device: py.Str(dii.Get("persistent_boot_device")), Persistent: &yes}, nil
		}
	}
	const cmd = "chassis bootparam get 5"
	out, _, err := m.t.exec(ctx, info, cmd, execOptions{})
	if err != nil {
		m.t.cfg.Log.WarnContext(ctx, fmt.Sprintf("IPMI get boot device failed for node %s when executing \"ipmitool %s\". Error: %s", info.NodeUUID, cmd, err), "node", info.NodeUUID)
		return drivers.BootDevice{}, ipmiFailure(cmd)
	}
	var bd drivers.BootDevice
	if sm := bootSelector.FindStringSubmatch(out); sm != nil {
		sel := sm[1]
		switch {
		case strings.Contains(sel, "PXE"):
			bd.Device = drivers.BootDevicePXE
		case strings.Contains(sel, "Hard-Drive") && strings.Contains(sel, "Safe-Mode"):
			bd.Device = drivers.BootDeviceSafe
		case strings.Contains(sel, "Hard-Drive"):
			bd.Device = drivers.BootDeviceDisk
		case strings.Contains(sel, "BIOS"):
			bd.Device = drivers.BootDeviceBIOS
		case strings.Contains(sel, "CD/DVD"):
			bd.Device = drivers.BootDeviceCDROM
		}
	}
	persistent := strings.Contains(out, "Options apply to all future boots")
	bd.Persistent = &persistent
	return bd, nil
}

// manufacturer finds the manufacturer in "mc info" output.
var manufacturer = regexp.MustCompile(`Manufacturer Name *: (.+)`)

// DetectVendor is IPMIManagement.detect_vendor: the manufacturer "mc
// info" names, lower-cased ("" when it names none).
func (m *Management) DetectVendor(ctx context.Context, task drivers.Task) (string, error) {
	info, err := m.t.parse(ctx, task)
	if err != nil {
		return "", err
	}
	out, _, err := m.t.exec(ctx, info, "mc info", execOptions{})
	if err != nil {
		return "", err
	}
	if sm := manufacturer.FindStringSubmatch(out); sm != nil {
		return strings.ToLower(sm[1]), nil
	}
	return "", nil
}

// GetSensorsData runs "sdr -v" and groups the sensors that have a
// reading by type, as Ironic's _parse_ipmi_sensors_data does.
func (m *Management) GetSensorsData(ctx context.Context, task drivers.Task) (map[string]any, error) {
	info, err := m.t.parse(ctx, task)
	if err != nil {
		return nil, err
	}
	out, _, err := m.t.exec(ctx, info, "sdr -v", execOptions{killOnTimeout: m.t.cfg.KillOnTimeout})
	if err != nil {
		return nil, ironic.Errorf(ironic.FailedToGetSensorData, "Failed to get sensor data for node %s. Error: %s", task.NodeUUID(), err)
	}
	return parseSensorsData(task.NodeUUID(), out)
}

// parseSensorsData is _parse_ipmi_sensors_data over "sdr -v" output:
// records separated by blank lines, "key : value" lines (those with one
// colon), grouped by the first word of the sensor type and keyed by
// Sensor ID; records without a Sensor Reading are left out.
func parseSensorsData(node, data string) (map[string]any, error) {
	out := map[string]any{}
	if data == "" {
		return out, nil
	}
	for _, record := range strings.Split(data, "\n\n") {
		fields := pyjson.NewDict(0)
		for _, line := range strings.Split(record, "\n") {
			if line == "" || strings.HasPrefix(line, "<<") {
				continue
			}
			kv := strings.Split(line, ":")
			if len(kv) != 2 {
				continue
			}
			fields.Set(strings.TrimSpace(kv[0]), strings.TrimSpace(kv[1]))
		}
		if fields.Len() == 0 {
			continue
		}
		typ, found := "", false
		for _, key := range []string{"Sensor Type (Analog)", "Sensor Type (Discrete)", "Sensor Type (Threshold)"} {
			if v, ok := fields.Lookup(key); ok {
				typ, _, _ = strings.Cut(py.Str(v), " ")
				found = true
				break
			}
		}
		if !found {
			// Ironic passes a (format, values) tuple as the error: its
			// repr is the message.
			return nil, ironic.Errorf(ironic.FailedToParseSensorData, "Failed to parse sensor data for node %s. Error: (%s, %s)", node,
				py.Repr("parse ipmi sensor data failed, unknown sensor type data: %(sensors_data)s"),
				py.Repr(pyjson.DictOf("sensors_data", fields)))
		}
		if _, ok := fields.Lookup("Sensor Reading"); !ok {
			continue
		}
		group, _ := out[typ].(*pyjson.Dict)
		if group == nil {
			group = pyjson.NewDict(0)
			out[typ] = group
		}
		group.Set(py.Str(fields.Get("Sensor ID")), fields)
	}
	if len(out) == 0 {
		return nil, ironic.Errorf(ironic.FailedToParseSensorData, "Failed to parse sensor data for node %s. Error: parse ipmi sensor data failed, get nothing with input data: %s", node, data)
	}
	return out, nil
}

// InjectNMI runs "power diag".
func (m *Management) InjectNMI(ctx context.Context, task drivers.Task) error {
	info, err := m.t.parse(ctx, task)
	if err != nil {
		return err
	}
	if _, _, err := m.t.exec(ctx, info, "power diag", execOptions{}); err != nil {
		m.t.cfg.Log.ErrorContext(ctx, fmt.Sprintf("Inject NMI failed for node %s: %s.", task.NodeUUID(), err), "node", task.NodeUUID())
		return ipmiFailure("power diag")
	}
	return nil
}

// sendRaw is the module's send_raw: "raw <bytes>", an IPMIFailure when
// ipmitool fails.
func (t *tool) sendRaw(ctx context.Context, task drivers.Task, raw string) (string, string, error) {
	t.cfg.Log.DebugContext(ctx, fmt.Sprintf("Sending node %s raw bytes %s", task.NodeUUID(), raw), "node", task.NodeUUID())
	info, err := t.parse(ctx, task)
	if err != nil {
		return "", "", err
	}
	cmd := "raw " + raw
	out, errOut, err := t.exec(ctx, info, cmd, execOptions{})
	if err != nil {
		t.cfg.Log.ErrorContext(ctx, fmt.Sprintf("IPMI \"raw bytes\" failed for node %s with error: %s.", task.NodeUUID(), err), "node", task.NodeUUID())
		return "", "", ipmiFailure(cmd)
	}
	t.cfg.Log.DebugContext(ctx, fmt.Sprintf("send raw bytes returned stdout: %s, stderr: %s", out, errOut), "node", task.NodeUUID())
	return out, errOut, nil
}

var _ drivers.VendorDetector = (*Management)(nil)
