// Package inspector is the "inspector" inspect interface: in-band
// inspection through ironic-inspector, as Ironic 21.4's
// ironic/drivers/modules/inspector.py does it. Inspection starts with a
// call to inspector (which boots the node itself, or, when the node's boot
// and network interfaces can, Ironic prepares the ramdisk with the
// inspection callback on its kernel command line and powers the node on);
// a periodic job polls inspector for every node in inspect wait, stores
// the data inspector collected as the node's inventory and moves the node
// to manageable (or inspect failed).
//
// The inspector API is declared here as Client; package
// drivers/inspector/inspectorclient implements it over gophercloud.
package inspector

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/deployutil"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
)

// Status is what inspector reports of a node's introspection.
type Status struct {
	// Finished is the "finished" field.
	Finished bool
	// Error is the "error" field ("" for null).
	Error string
}

// Client is the part of ironic-inspector's API Ironic uses (openstacksdk's
// baremetal_introspection proxy).
type Client interface {
	// StartIntrospection is POST /v1/introspection/{uuid}; manageBoot
	// false adds ?manage_boot=False (Ironic boots the node).
	StartIntrospection(ctx context.Context, uuid string, manageBoot bool) error
	// AbortIntrospection is POST /v1/introspection/{uuid}/abort.
	AbortIntrospection(ctx context.Context, uuid string) error
	// GetIntrospection is GET /v1/introspection/{uuid}.
	GetIntrospection(ctx context.Context, uuid string) (Status, error)
	// GetIntrospectionData is GET /v1/introspection/{uuid}/data: the
	// processed data, keys in inspector's order.
	GetIntrospectionData(ctx context.Context, uuid string) (*pyjson.Dict, error)
	// Endpoint is inspector's endpoint (the adapter's get_endpoint()).
	Endpoint(ctx context.Context) (string, error)
}

// Config holds the [inspector] and [inventory] options the interface
// reads, and its client.
type Config struct {
	// StatusCheckPeriod is [inspector]status_check_period: how often nodes
	// in inspect wait are polled.
	StatusCheckPeriod time.Duration
	// ExtraKernelParams is [inspector]extra_kernel_params: more kernel
	// parameters for a ramdisk Ironic boots (shell words, key=value).
	ExtraKernelParams string
	// PowerOff is [inspector]power_off: power a managed-boot node off
	// when inspection ends.
	PowerOff bool
	// CallbackEndpointOverride is [inspector]callback_endpoint_override:
	// the inspector URL the ramdisk calls back (default: the endpoint).
	CallbackEndpointOverride string
	// RequireManagedBoot is [inspector]require_managed_boot: fail rather
	// than let inspector boot the node.
	RequireManagedBoot bool
	// DataBackend is [inventory]data_backend: "database" stores the data
	// as the node's inventory, "none" drops it.
	DataBackend string
	// FastTrack is [deploy]fast_track (a node's driver_info["fast_track"]
	// overrides it): a managed-boot ramdisk also gets ipa-api-url, so its
	// agent looks up and heartbeats after inspection, and the node is not
	// powered off at the end.
	FastTrack bool
	// APIURL is [service_catalog]endpoint_override, the ipa-api-url of
	// fast track (deploy_utils.get_ironic_api_url without a catalog).
	APIURL string

	// Client talks to inspector (set by the wiring).
	Client Client
	// Log is the conductor's logger.
	Log *slog.Logger
}

// manageBootKey is the driver_internal_info field recording who boots the
// node (Ironic's _IRONIC_MANAGES_BOOT).
const manageBootKey = "inspector_manage_boot"

// Inspect is the "inspector" inspect interface.
type Inspect struct {
	cfg Config
}

// Implementations returns the "inspector" inspect interface.
func Implementations(cfg Config) []drivers.Implementation {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return []drivers.Implementation{{Kind: drivers.Inspect, Name: "inspector", Impl: &Inspect{cfg: cfg}}}
}

// Properties has none.
func (*Inspect) GetProperties() drivers.Properties { return nil }

// Validate parses [inspector]extra_kernel_params and, under
// require_managed_boot, checks that Ironic can boot the node.
func (i *Inspect) Validate(ctx context.Context, task drivers.Task) error {
	if _, err := i.kernelParams(); err != nil {
		return err
	}
	if i.cfg.RequireManagedBoot {
		_, err := i.ironicManagesBoot(ctx, task, true)
		return err
	}
	return nil
}

// InspectHardware starts inspection and returns inspect wait: with a boot
// Ironic manages, inspector is told so and the node powered on here;
// otherwise inspector is called once the node's lock is released, so
// that it can drive the node through the API.
func (i *Inspect) InspectHardware(ctx context.Context, task drivers.Task) (states.Provision, error) {
	if err := i.createPortsFromBMC(ctx, task); err != nil {
		return "", err
	}
	manages, err := i.ironicManagesBoot(ctx, task, i.cfg.RequireManagedBoot)
	if err != nil {
		return "", err
	}
	task.DriverInternalInfo().Set(manageBootKey, manages)
	if err := task.Save(ctx); err != nil {
		return "", err
	}
	i.cfg.Log.DebugContext(ctx, "starting inspection using ironic-inspector", "node", task.NodeUUID(), "ironic_manages_boot", manages)
	if manages {
		if err := i.startManaged(ctx, task); err != nil {
			return "", err
		}
		return states.InspectWait, nil
	}
	uuid := task.NodeUUID()
	task.AfterRelease(func(ctx context.Context, withNode drivers.WithNode) {
		err := i.cfg.Client.StartIntrospection(ctx, uuid, true)
		if err == nil {
			i.cfg.Log.InfoContext(ctx, "node was sent to inspection to ironic-inspector", "node", uuid)
			return
		}
		i.cfg.Log.ErrorContext(ctx, "error contacting ironic-inspector for inspection", "node", uuid, "error", err)
		// If the node can't be locked, inspect_wait_timeout ends it.
		lerr := withNode(ctx, func(ctx context.Context, t drivers.Task) error {
			return i.fail(ctx, t, "Failed to start inspection: "+err.Error(), true)
		})
		if lerr != nil {
			i.cfg.Log.ErrorContext(ctx, "recording the inspection error", "node", uuid, "error", lerr)
		}
	})
	return states.InspectWait, nil
}

// macLister is the management interface's optional get_mac_addresses
// (the redfish one has it).
type macLister interface {
	GetMACAddresses(ctx context.Context, task drivers.Task) ([]string, error)
}

// createPortsFromBMC is inspect_hardware's first part: the MACs of the
// NICs the management interface reports enabled become ports (a
// management interface without get_mac_addresses skips it).
func (i *Inspect) createPortsFromBMC(ctx context.Context, task drivers.Task) error {
	var lister macLister
	if drv := task.Driver(); drv != nil {
		lister, _ = drv.Management.(macLister)
	}
	if lister == nil {
		i.cfg.Log.DebugContext(ctx, "pre-creating ports prior to inspection not supported", "node", task.NodeUUID())
		return nil
	}
	macs, err := lister.GetMACAddresses(ctx, task)
	switch {
	case ironic.IsClass(err, ironic.UnsupportedDriverExtension):
		i.cfg.Log.DebugContext(ctx, "pre-creating ports prior to inspection not supported", "node", task.NodeUUID())
		return nil
	case err != nil:
		return err
	case len(macs) == 0:
		i.cfg.Log.WarnContext(ctx, fmt.Sprintf("Not attempting to create any port as no NICs were discovered in 'enabled' state for node %s: %s",
			task.NodeUUID(), "[]"))
		return nil
	}
	return deployutil.CreatePortsIfNotExist(ctx, task, macs, i.cfg.Log)
}

// Abort asks inspector to stop.
func (i *Inspect) Abort(ctx context.Context, task drivers.Task) error {
	i.cfg.Log.DebugContext(ctx, "aborting inspection using ironic-inspector", "node", task.NodeUUID())
	return i.cfg.Client.AbortIntrospection(ctx, task.NodeUUID())
}

// NodePeriodics is _periodic_check_result: every status_check_period,
// each node in inspect wait.
func (i *Inspect) NodePeriodics() []drivers.NodePeriodic {
	return []drivers.NodePeriodic{{Name: "checking hardware inspection status", Interval: i.cfg.StatusCheckPeriod,
		ProvisionStates: []states.Provision{states.InspectWait}, Run: i.CheckStatus}}
}

// CheckStatus is _check_status: inspector is asked for the node's
// status; a failure to ask is logged and retried next period. A
// finished inspection ends the node's inspect wait.
func (i *Inspect) CheckStatus(ctx context.Context, task drivers.Task) error {
	if task.ProvisionState() != states.InspectWait {
		return nil
	}
	uuid := task.NodeUUID()
	st, err := i.cfg.Client.GetIntrospection(ctx, uuid)
	if err != nil {
		i.cfg.Log.WarnContext(ctx, "unexpected exception while getting inspection status, will retry later", "node", uuid, "error", err)
		return nil
	}
	if st.Error == "" && !st.Finished {
		return nil
	}
	if err := task.UpgradeLock(ctx); err != nil {
		return err
	}
	if task.ProvisionState() != states.InspectWait {
		return nil
	}
	if st.Error != "" {
		i.cfg.Log.ErrorContext(ctx, "inspection failed", "node", uuid, "error", st.Error)
		return i.fail(ctx, task, "ironic-inspector inspection failed: "+st.Error, true)
	}
	if errs := i.tearDownManagedBoot(ctx, task); len(errs) > 0 {
		msg := strings.Join(errs, ", ")
		i.cfg.Log.ErrorContext(ctx, "inspection clean up failed", "node", uuid, "error", msg)
		return i.fail(ctx, task, "Inspection clean up failed: "+msg, false)
	}
	i.cfg.Log.InfoContext(ctx, "inspection finished successfully", "node", uuid)
	if err := task.ProcessEvent(ctx, states.EventDone); err != nil {
		return err
	}
	if i.cfg.DataBackend == "none" {
		i.cfg.Log.DebugContext(ctx, "introspection data storage is disabled, the data will not be saved", "node", uuid)
		return nil
	}
	data, err := i.cfg.Client.GetIntrospectionData(ctx, uuid)
	if err != nil {
		return err
	}
	inv, _ := data.Get("inventory").(*pyjson.Dict)
	if inv == nil {
		inv = pyjson.NewDict(0)
	}
	plugin := data.Clone()
	plugin.Delete("inventory")
	if err := task.StoreInventory(ctx, inv, plugin); err != nil {
		return err
	}
	i.cfg.Log.InfoContext(ctx, "introspection data was stored in database", "node", uuid)
	return nil
}

// fail is _inspection_error_handler without raise_exc.
func (i *Inspect) fail(ctx context.Context, task drivers.Task, msg string, cleanUp bool) error {
	if cleanUp {
		i.tearDownManagedBoot(ctx, task)
	}
	return task.FailInspection(ctx, msg)
}

// ironicManagesBoot is _ironic_manages_boot: the boot and network
// interfaces both support inspection; with raise, their refusal is
// returned.
func (i *Inspect) ironicManagesBoot(ctx context.Context, task drivers.Task, raise bool) (bool, error) {
	drv := task.Driver()
	for _, v := range []struct {
		kind     string
		validate func(context.Context, drivers.Task) error
	}{{"boot", validateBoot(drv)}, {"network", validateNetwork(drv)}} {
		err := v.validate(ctx, task)
		if err == nil {
			continue
		}
		if !ironic.IsClass(err, ironic.UnsupportedDriverExtension) {
			return false, err
		}
		i.cfg.Log.DebugContext(ctx, "the "+v.kind+" interface does not support managed boot for in-band inspection",
			"node", task.NodeUUID(), "interface", task.InterfaceName(drivers.Kind(v.kind)), "error", err)
		if raise {
			return false, err
		}
		return false, nil
	}
	return true, nil
}

func validateBoot(drv *drivers.Driver) func(context.Context, drivers.Task) error {
	if drv == nil || drv.Boot == nil {
		return func(_ context.Context, t drivers.Task) error { return drivers.Unsupported(t, "validate_inspection") }
	}
	return drv.Boot.ValidateInspection
}

func validateNetwork(drv *drivers.Driver) func(context.Context, drivers.Task) error {
	if drv == nil || drv.Network == nil {
		return func(_ context.Context, t drivers.Task) error { return drivers.Unsupported(t, "validate_inspection") }
	}
	return drv.Network.ValidateInspection
}

// startManaged is _start_managed_inspection: the node is powered off,
// put on the inspection network, its ramdisk prepared with the callback
// URL on the kernel command line, inspector told that Ironic boots it,
// and the node powered on. A failure cleans up and fails the inspection
// (HardwareInspectionFailure).
func (i *Inspect) startManaged(ctx context.Context, task drivers.Task) error {
	err := func() error {
		endpoint, err := i.callbackEndpoint(ctx)
		if err != nil {
			return err
		}
		params, err := i.kernelParams()
		if err != nil {
			return err
		}
		params.Set("ipa-inspection-callback-url", endpoint)
		fast, err := deployutil.FastTrackEnabled(task, i.cfg.FastTrack)
		if err != nil {
			return err
		}
		if fast {
			if i.cfg.APIURL == "" {
				return drivers.InvalidParameter("Couldn't get the URL of the Ironic API service from the configuration file or keystone catalog. Keystone error: [service_catalog]endpoint_override is not set")
			}
			params.Set("ipa-api-url", strings.TrimRight(i.cfg.APIURL, "/"))
		}
		if err := task.PowerAction(ctx, states.PowerOff); err != nil {
			return err
		}
		drv := task.Driver()
		if err := deployutil.WithNetworkPower(ctx, task, func() error {
			_, err := drv.Network.AddInspectionNetwork(ctx, task)
			return err
		}); err != nil {
			return err
		}
		if err := drv.Boot.PrepareRamdisk(ctx, task, ramdiskParams(params), drivers.RamdiskDeploy); err != nil {
			return err
		}
		// The boot interface may keep the parameters on the node (pxe's
		// scripts are rendered from it when the node boots).
		if err := task.Save(ctx); err != nil {
			return err
		}
		if err := i.cfg.Client.StartIntrospection(ctx, task.NodeUUID(), false); err != nil {
			return err
		}
		return task.PowerAction(ctx, states.PowerOn)
	}()
	if err == nil {
		return nil
	}
	i.cfg.Log.ErrorContext(ctx, "unable to start managed inspection", "node", task.NodeUUID(), "error", err)
	msg := "unable to start inspection: " + err.Error()
	i.tearDownManagedBoot(ctx, task)
	return ironic.Errorf(ironic.HardwareInspectionFailure, "Failed to inspect hardware. Reason: %s", msg)
}

// ramdiskParams is PrepareRamdisk's map of the ordered parameters.
func ramdiskParams(d *pyjson.Dict) map[string]any {
	out := map[string]any{}
	for k, v := range d.All() {
		out[k] = v
	}
	return out
}

// tearDownManagedBoot is _tear_down_managed_boot: when Ironic booted the
// node, the ramdisk is cleaned up, the inspection network removed and
// (power_off) the node powered off. The failures are returned as
// messages.
func (i *Inspect) tearDownManagedBoot(ctx context.Context, task drivers.Task) []string {
	dii := task.DriverInternalInfo()
	manages := pyjson.Truthy(dii.Get(manageBootKey))
	dii.Delete(manageBootKey)
	if !manages {
		return nil
	}
	var errs []string
	drv := task.Driver()
	uuid := task.NodeUUID()
	if err := drv.Boot.CleanUpRamdisk(ctx, task, drivers.RamdiskDeploy); err != nil {
		errs = append(errs, "unable to clean up ramdisk boot: "+err.Error())
		i.cfg.Log.ErrorContext(ctx, "unable to clean up ramdisk boot", "node", uuid, "error", err)
	}
	if err := deployutil.WithNetworkPower(ctx, task, func() error { return drv.Network.RemoveInspectionNetwork(ctx, task) }); err != nil {
		errs = append(errs, "unable to remove inspection ports: "+err.Error())
		i.cfg.Log.ErrorContext(ctx, "unable to remove inspection network", "node", uuid, "error", err)
	}
	// A fast-track node keeps its agent running (an unreadable
	// driver_info["fast_track"] counts as off here).
	if fast, _ := deployutil.FastTrackEnabled(task, i.cfg.FastTrack); i.cfg.PowerOff && !fast {
		if err := task.PowerAction(ctx, states.PowerOff); err != nil {
			errs = append(errs, "unable to power off the node: "+err.Error())
			i.cfg.Log.ErrorContext(ctx, "unable to power off node", "node", uuid, "error", err)
		}
	}
	return errs
}

// callbackEndpoint is _get_callback_endpoint: callback_endpoint_override
// or inspector's endpoint, never a loopback address, ending in
// /v1/continue.
func (i *Inspect) callbackEndpoint(ctx context.Context) (string, error) {
	root := i.cfg.CallbackEndpointOverride
	if root == "" {
		var err error
		if root, err = i.cfg.Client.Endpoint(ctx); err != nil {
			return "", err
		}
	}
	if root == "mdns" {
		return root, nil
	}
	u, err := url.Parse(root)
	if err != nil {
		return "", ironic.Errorf(ironic.InvalidParameterValue, "Invalid introspection callback URL %s: %s", root, err)
	}
	host := u.Hostname()
	loopback := host == "localhost"
	if ip := net.ParseIP(host); ip != nil {
		loopback = ip.IsLoopback()
	}
	if loopback {
		return "", ironic.Errorf(ironic.InvalidParameterValue, "Loopback address %s cannot be used as an introspection callback URL", host)
	}
	add := "/v1/continue"
	if strings.HasSuffix(u.Path, "/v1") {
		add = "/continue"
	}
	u.Path = strings.TrimRight(u.Path, "/") + add
	u.RawPath = ""
	return u.String(), nil
}

// kernelParams is _parse_kernel_params: extra_kernel_params split as
// shlex.split does, "key=value" words as key → value, other words as
// key → nil, in order.
func (i *Inspect) kernelParams() (*pyjson.Dict, error) {
	words, err := shlexSplit(i.cfg.ExtraKernelParams)
	if err != nil {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Invalid [inspector]extra_kernel_params %q: %s", i.cfg.ExtraKernelParams, err)
	}
	d := pyjson.NewDict(len(words) + 1)
	for _, w := range words {
		if k, v, ok := strings.Cut(w, "="); ok {
			d.Set(k, v)
		} else {
			d.Set(w, nil)
		}
	}
	return d, nil
}

// shlexSplit is Python's shlex.split (POSIX mode, no comments).
func shlexSplit(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	for idx := 0; idx < len(s); idx++ {
		c := s[idx]
		switch c {
		case ' ', '\t', '\n', '\r':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		case '\\':
			if idx+1 >= len(s) {
				return nil, errors.New("No escaped character") //nolint:staticcheck // shlex's message
			}
			idx++
			cur.WriteByte(s[idx])
			inWord = true
		case '\'', '"':
			end := idx + 1
			for ; end < len(s) && s[end] != c; end++ {
				if c == '"' && s[end] == '\\' && end+1 < len(s) && strings.IndexByte("\\\"$`\n", s[end+1]) >= 0 {
					end++
					cur.WriteByte(s[end])
					continue
				}
				cur.WriteByte(s[end])
			}
			if end >= len(s) {
				return nil, errors.New("No closing quotation") //nolint:staticcheck // shlex's message
			}
			idx = end
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}
