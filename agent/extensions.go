package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/goironic/ironic/agent/disk"
	"github.com/goironic/ironic/internal/pyjson"
)

// step is one of GenericHardwareManager's steps, keys in IPA's order.
type step struct {
	Step            string         `json:"step"`
	Priority        int            `json:"priority"`
	Interface       string         `json:"interface"`
	RebootRequested bool           `json:"reboot_requested"`
	Abortable       *bool          `json:"abortable,omitempty"`
	ArgsInfo        map[string]any `json:"argsinfo,omitempty"`
}

var yes = true

// AppendPyJSON writes the step with IPA's key order.
func (s step) AppendPyJSON(dst []byte) ([]byte, error) {
	o := pyjson.Object{{Key: "step", Value: s.Step}, {Key: "priority", Value: s.Priority}, {Key: "interface", Value: s.Interface},
		{Key: "reboot_requested", Value: s.RebootRequested}}
	if s.Abortable != nil {
		o = append(o, pyjson.Member{Key: "abortable", Value: *s.Abortable})
	}
	if s.ArgsInfo != nil {
		o = append(o, pyjson.Member{Key: "argsinfo", Value: s.ArgsInfo})
	}
	return pyjson.Append(dst, o)
}

// cleanSteps are GenericHardwareManager.get_clean_steps (IPA 9.4) for the
// steps this agent carries out; erase_devices, erase_devices_express,
// the RAID and burn-in steps are not offered (docs/departures.md).
func cleanSteps() []step {
	return []step{
		{Step: "erase_devices_metadata", Priority: 99, Interface: "deploy", Abortable: &yes},
		{Step: "erase_pstore", Priority: 0, Interface: "deploy", Abortable: &yes},
	}
}

// deploySteps are GenericHardwareManager.get_deploy_steps for the steps
// this agent carries out (apply_configuration and inject_files are not
// offered).
func deploySteps() []step {
	return []step{
		{Step: "erase_devices_metadata", Priority: 0, Interface: "deploy"},
		{Step: "write_image", Priority: 0, Interface: "deploy"},
	}
}

// hardwareManagers is get_current_versions.
var hardwareManagers = map[string]string{"generic_hardware_manager": "1.1"}

// state is what the extensions remember between commands: the cached
// node (hardware.cache_node) and standby's partition_uuids and
// cached_image_id.
type state struct {
	mu             sync.Mutex
	node           map[string]any
	partitionUUIDs map[string]any
	cachedImageID  string
}

// extensions is the command table: IPA's extensions and the commands
// Ironic 21.4 sends.
func extensions(a *Agent) map[string]map[string]command {
	st := &state{}
	syncCmd := func(f func(ctx context.Context, p map[string]any) (any, error)) command {
		return command{run: f}
	}
	asyncCmd := func(f func(ctx context.Context, p map[string]any) (any, error)) command {
		return command{async: true, run: f}
	}
	return map[string]map[string]command{
		"deploy": {
			"get_deploy_steps": syncCmd(func(_ context.Context, p map[string]any) (any, error) {
				if err := requireParams(p, "node", "ports"); err != nil {
					return nil, err
				}
				st.cacheNode(p["node"])
				return map[string]any{"deploy_steps": map[string]any{"GenericHardwareManager": deploySteps()},
					"hardware_manager_version": hardwareManagers}, nil
			}),
			"execute_deploy_step": {async: true, validate: stepParams,
				run: func(ctx context.Context, p map[string]any) (any, error) { return a.executeStep(ctx, st, "deploy", p) }},
		},
		"clean": {
			"get_clean_steps": syncCmd(func(_ context.Context, p map[string]any) (any, error) {
				if err := requireParams(p, "node", "ports"); err != nil {
					return nil, err
				}
				st.cacheNode(p["node"])
				return map[string]any{"clean_steps": map[string]any{"GenericHardwareManager": cleanSteps()},
					"hardware_manager_version": hardwareManagers}, nil
			}),
			"execute_clean_step": {async: true, validate: stepParams,
				run: func(ctx context.Context, p map[string]any) (any, error) { return a.executeStep(ctx, st, "clean", p) }},
		},
		"standby": {
			"get_partition_uuids": syncCmd(func(context.Context, map[string]any) (any, error) {
				st.mu.Lock()
				defer st.mu.Unlock()
				if st.partitionUUIDs == nil {
					a.log.Warn("no partition UUIDs recorded yet, prepare_image has to be called before get_partition_uuids")
					return map[string]any{}, nil
				}
				return st.partitionUUIDs, nil
			}),
			"sync": syncCmd(func(ctx context.Context, _ map[string]any) (any, error) {
				if err := a.disks().Sync(ctx); err != nil {
					return nil, errCommandExecution("Flushing file system buffers failed. Error: " + err.Error())
				}
				return nil, nil
			}),
			"prepare_image": {async: true, validate: imageInfoParams, run: func(ctx context.Context, p map[string]any) (any, error) {
				return a.prepareImage(ctx, st, p, true)
			}},
			"cache_image": {async: true, validate: imageInfoParams, run: func(ctx context.Context, p map[string]any) (any, error) {
				return a.prepareImage(ctx, st, p, false)
			}},
			"power_off": asyncCmd(func(ctx context.Context, _ map[string]any) (any, error) {
				return nil, a.shutdown(ctx, "poweroff")
			}),
			"run_image": asyncCmd(func(ctx context.Context, _ map[string]any) (any, error) {
				return nil, a.shutdown(ctx, "reboot")
			}),
		},
		"image": {
			"install_bootloader": asyncCmd(func(ctx context.Context, p map[string]any) (any, error) {
				return nil, a.installBootloader(ctx, st, p)
			}),
		},
		"rescue": {
			"finalize_rescue": syncCmd(func(ctx context.Context, p map[string]any) (any, error) {
				if err := a.writeRescuePassword(p); err != nil {
					return nil, err
				}
				// IPA's serve_api = False: the agent stops once this
				// answer is sent.
				go func() {
					select {
					case <-ctx.Done():
					case <-a.cfg.Clock.After(100 * time.Millisecond):
					}
					a.stopServing()
				}()
				return nil, nil
			}),
		},
		"log": {
			"collect_system_logs": syncCmd(func(ctx context.Context, _ map[string]any) (any, error) {
				logs, err := a.collectSystemLogs(ctx)
				if err != nil {
					return nil, errCommandExecution(err.Error())
				}
				return map[string]any{"system_logs": logs}, nil
			}),
		},
	}
}

// requireParams fails as a Python call missing keyword arguments would,
// as an invalid-parameters refusal.
func requireParams(p map[string]any, names ...string) error {
	for _, n := range names {
		if _, ok := p[n]; !ok {
			return errInvalidCommandParams(fmt.Sprintf("missing a required argument: '%s'", n))
		}
	}
	return nil
}

func stepParams(p map[string]any) error {
	if err := requireParams(p, "step", "node", "ports"); err != nil {
		return err
	}
	if _, ok := p["step"].(map[string]any); !ok {
		return errInvalidCommandParams("step must be an object")
	}
	return nil
}

// imageInfoParams is standby's _validate_image_info.
func imageInfoParams(p map[string]any) error {
	info, ok := p["image_info"].(map[string]any)
	if !ok {
		return errInvalidCommandParams("Image information is missing")
	}
	for _, f := range []string{"id", "urls"} {
		if _, ok := info[f]; !ok {
			return errInvalidCommandParams(fmt.Sprintf("Image is missing '%s' field.", f))
		}
	}
	if urls, ok := info["urls"].([]any); !ok || len(urls) == 0 {
		return errInvalidCommandParams("Image 'urls' must be a list with at least one element.")
	}
	_, hasChecksum := info["checksum"].(string)
	algo, _ := info["os_hash_algo"].(string)
	val, _ := info["os_hash_value"].(string)
	if !hasChecksum && (algo == "" || val == "") {
		return errInvalidCommandParams("Image checksum is not a valid string.")
	}
	return nil
}

func (st *state) cacheNode(n any) {
	if m, ok := n.(map[string]any); ok {
		st.mu.Lock()
		st.node = m
		st.mu.Unlock()
	}
}

func (a *Agent) disks() Disks {
	if a.cfg.Disks == nil {
		return noDisks{}
	}
	return a.cfg.Disks
}

// executeStep is execute_deploy_step / execute_clean_step: the step
// dispatched to the hardware manager, its result as
// {"<kind>_result": ..., "<kind>_step": step}.
func (a *Agent) executeStep(ctx context.Context, st *state, kind string, p map[string]any) (any, error) {
	st.cacheNode(p["node"])
	s := p["step"].(map[string]any)
	name, ok := s["step"].(string)
	if !ok {
		return nil, errCommandExecution(fmt.Sprintf("Malformed %s_step, no \"step\" key: %v", kind, s))
	}
	args := map[string]any{}
	for k, v := range p {
		if k != "step" && k != "node" && k != "ports" && k != kind+"_version" {
			args[k] = v
		}
	}
	if sa, ok := s["args"].(map[string]any); ok {
		for k, v := range sa {
			args[k] = v
		}
	}
	a.log.InfoContext(ctx, "executing step", "kind", kind, "step", name)
	out, err := a.runStep(ctx, st, name, args)
	if err != nil {
		var re *restError
		if errors.As(err, &re) {
			return nil, re
		}
		if re := fromDiskError(err); re != nil {
			return nil, re
		}
		msg := fmt.Sprintf("Unexpected exception performing %s step %s. %s: %v", kind, name, typeName(err), err)
		if kind == "deploy" {
			return nil, errDeployment(msg)
		}
		return nil, errCleaning(msg)
	}
	return map[string]any{kind + "_result": out, kind + "_step": s}, nil
}

// runStep is dispatch_to_managers for the generic manager's steps.
func (a *Agent) runStep(ctx context.Context, st *state, name string, args map[string]any) (any, error) {
	switch name {
	case "write_image":
		// GenericHardwareManager.write_image: standby.prepare_image,
		// waited for.
		if err := imageInfoParams(args); err != nil {
			return nil, err
		}
		return a.prepareImage(ctx, st, args, true)
	case "erase_devices_metadata":
		devs, err := a.disks().BlockDevices(ctx)
		if err != nil {
			return nil, err
		}
		if err := a.disks().EraseMetadata(ctx, devs); err != nil {
			return nil, newRESTError("BlockDeviceEraseError", 500, "Error erasing block device", err.Error())
		}
		return nil, nil
	case "erase_pstore":
		return nil, a.erasePstore(ctx)
	}
	return nil, errHardwareManagerMethodNotFound(name)
}

// erasePstore is GenericHardwareManager.erase_pstore.
func (a *Agent) erasePstore(ctx context.Context) error {
	f, err := os.Open(filepath.Join(a.cfg.Root, "proc/mounts"))
	if err != nil {
		return err
	}
	defer f.Close()
	mount := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fs := strings.Fields(sc.Text()); len(fs) >= 3 && fs[0] == "pstore" && fs[2] == "pstore" {
			mount = fs[1]
			break
		}
	}
	if mount == "" {
		a.log.DebugContext(ctx, "no pstore found")
		return nil
	}
	dir := filepath.Join(a.cfg.Root, mount)
	a.log.InfoContext(ctx, "cleaning up pstore", "path", dir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// prepareImage is standby.prepare_image (write true) and cache_image:
// the image written onto the install device chosen with the node's root
// device hints, the config drive after it, and the partition UUIDs
// recorded. Its result is IPA's message.
func (a *Agent) prepareImage(ctx context.Context, st *state, p map[string]any, withConfigdrive bool) (any, error) {
	rawInfo := p["image_info"].(map[string]any)
	data, err := json.Marshal(rawInfo)
	if err != nil {
		return nil, errInvalidCommandParams(err.Error())
	}
	var info disk.ImageInfo
	if err := json.Unmarshal(data, &info); err != nil {
		return nil, errInvalidCommandParams("invalid image_info: " + err.Error())
	}
	configdrive, _ := p["configdrive"].(string)
	if _, ok := p["configdrive"]; !ok {
		configdrive = info.Configdrive
	}
	st.mu.Lock()
	hints, _ := nested(st.node, "properties", "root_device").(map[string]any)
	cached := st.cachedImageID
	st.mu.Unlock()
	dev, err := a.disks().RootDevice(ctx, hints)
	if err != nil {
		return nil, err
	}
	if cached != info.ID || withConfigdrive {
		if err := a.disks().WriteImage(ctx, dev.Name, info); err != nil {
			return nil, err
		}
		st.mu.Lock()
		st.cachedImageID = info.ID
		st.mu.Unlock()
	}
	if withConfigdrive && configdrive != "" {
		if err := a.disks().WriteConfigDrive(ctx, dev.Name, configdrive); err != nil {
			return nil, newRESTError("InstanceDeployFailure", 500, "Failed to create config drive", err.Error())
		}
	}
	uuids, err := a.disks().PartitionUUIDs(ctx, dev.Name)
	if err != nil {
		a.log.WarnContext(ctx, "unable to obtain the root_uuid parameter", "error", err)
		uuids = map[string]any{}
	}
	st.mu.Lock()
	st.partitionUUIDs = uuids
	st.mu.Unlock()
	verb := "written to"
	if !withConfigdrive {
		verb = "cached to"
	}
	msg := fmt.Sprintf("image (%s) %s device %s root_uuid=%v", info.ID, verb, dev.Name, uuids["root uuid"])
	if efi := uuids["efi system partition uuid"]; info.DeployBootMode == "uefi" && efi != nil {
		msg += fmt.Sprintf(" efi_system_partition_uuid=%v", efi)
	}
	return msg, nil
}

// installBootloader is image.install_bootloader as IPA 9.4 runs it: on
// a machine booted by UEFI, the boot entries of the loaders on the
// disk's EFI system partition (efi_utils.manage_uefi, written to the
// firmware's variables without efibootmgr); failing that, nothing to do
// for a whole disk image without a root UUID (or the 0x00000000 disk
// identifier), otherwise IPA's grub2-install path, which this ramdisk
// does not carry: it fails as IPA's would, with DeviceNotFound for a
// disk identifier (no partition has that UUID) or CommandExecutionError.
// A failure is only logged when ignore_bootloader_failure (the
// parameter, else ipa-ignore-bootloader-failure) says to carry on.
func (a *Agent) installBootloader(ctx context.Context, st *state, p map[string]any) error {
	dev, err := a.disks().RootDevice(ctx, rootHints(st))
	if err != nil {
		return err
	}
	ignore := a.cfg.IgnoreBootloaderFailure
	if v, ok := p["ignore_bootloader_failure"].(bool); ok {
		ignore = v
	}
	mode := "bios"
	if a.cfg.UEFI != nil {
		mode = a.cfg.UEFI.BootMode()
	}
	if target, _ := p["target_boot_mode"].(string); target != "" && target != mode {
		a.log.WarnContext(ctx, fmt.Sprintf("Boot mode mismatch: target boot mode is %s, current boot mode is %s. "+
			"Installing boot loader may fail or work incorrectly.", target, mode))
	}
	if mode == "uefi" {
		efiPart, _ := p["efi_system_part_uuid"].(string)
		done, err := a.cfg.UEFI.ManageUEFI(ctx, dev.Name, efiPart)
		if re := fromDiskError(err); re != nil {
			err = re
		}
		if err != nil {
			a.log.ErrorContext(ctx, "error setting up bootloader", "error", err)
			if !ignore {
				return err
			}
		} else if done {
			return nil
		}
	}
	root, _ := p["root_uuid"].(string)
	if root == "" || root == "0x00000000" {
		a.log.InfoContext(ctx, "not using grub2-install since root UUID is not provided: assuming a whole disk image")
		return nil
	}
	err = errCommandExecution("Installing GRUB2 boot loader to device " + dev.Name + " failed: grub2-install is not available in this ramdisk")
	if strings.HasPrefix(root, "0x") {
		err = newRESTError("DeviceNotFound", 404, "Error finding the disk or partition device to deploy the image onto",
			fmt.Sprintf("No partition with UUID %s found on device %s", root, dev.Name))
	}
	a.log.ErrorContext(ctx, "error setting up bootloader", "error", err)
	if ignore {
		return nil
	}
	return err
}

func rootHints(st *state) map[string]any {
	st.mu.Lock()
	defer st.mu.Unlock()
	h, _ := nested(st.node, "properties", "root_device").(map[string]any)
	return h
}

// shutdown is _run_shutdown_command: sync, then power off or reboot.
func (a *Agent) shutdown(ctx context.Context, command string) error {
	if err := a.disks().Sync(ctx); err != nil {
		a.log.WarnContext(ctx, "failed to sync file system buffers", "error", err)
	}
	if a.cfg.Power == nil {
		return errSystemReboot("no power control configured")
	}
	var err error
	if command == "reboot" {
		err = a.cfg.Power.Reboot(ctx)
	} else {
		err = a.cfg.Power.PowerOff(ctx)
	}
	if err != nil {
		return errSystemReboot(fmt.Sprintf("%s failed: %v", command, err))
	}
	return nil
}

func nested(m map[string]any, keys ...string) any {
	var cur any = m
	for _, k := range keys {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[k]
	}
	return cur
}

func typeName(err error) string {
	t := reflect.TypeOf(err)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Name() == "" {
		return "Exception"
	}
	return t.Name()
}

// IPAError is implemented by errors (of agent/disk, say) that are one of
// IPA's RESTErrors: ImageChecksumError, ImageDownloadError,
// DeviceNotFound, ... They reach Ironic with IPA's type, message and
// details.
type IPAError interface {
	error
	IPAError() (typ string, code int, message, details string)
}

func fromDiskError(err error) *restError {
	var ie IPAError
	if !errors.As(err, &ie) {
		return nil
	}
	typ, code, msg, details := ie.IPAError()
	return newRESTError(typ, code, msg, details)
}

// noDisks is the Disks of an agent configured without any.
type noDisks struct{}

var errNoDisks = errors.New("no block device support in this agent")

func (noDisks) BlockDevices(context.Context) ([]disk.BlockDevice, error) { return nil, nil }
func (noDisks) RootDevice(context.Context, map[string]any) (disk.BlockDevice, error) {
	return disk.BlockDevice{}, newRESTError("DeviceNotFound", 404,
		"Error finding the disk or partition device to deploy the image onto", "No suitable device was found for deployment")
}
func (noDisks) WriteImage(context.Context, string, disk.ImageInfo) error { return errNoDisks }
func (noDisks) WriteConfigDrive(context.Context, string, string) error   { return errNoDisks }
func (noDisks) PartitionUUIDs(context.Context, string) (map[string]any, error) {
	return nil, errNoDisks
}
func (noDisks) EraseMetadata(context.Context, []disk.BlockDevice) error { return nil }
func (noDisks) Sync(context.Context) error                              { return nil }
