// Package agent implements Ironic's interfaces built on the Ironic Python
// Agent: the "direct", "custom-agent" and "ramdisk" deploy interfaces and
// the "agent" RAID, rescue and power interfaces, and the agent protocol
// they share (Client: agent_client.AgentClient; heartbeats: agent_base's
// HeartbeatMixin and AgentBaseMixin). Deploying, cleaning and rescuing
// through the agent work; the agent RAID and power interfaces and fast
// track answer NotImplemented.
package agent

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/deployutil"
	"github.com/goironic/ironic/drivers/internal/py"
	"github.com/goironic/ironic/drivers/storage"
	"github.com/goironic/ironic/internal/glance"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
)

// Config holds the options the agent interfaces read.
type Config struct {
	// ManageAgentBoot is [agent]manage_agent_boot.
	ManageAgentBoot bool
	// ImageDownloadSource is [agent]image_download_source.
	ImageDownloadSource string
	// HTTPURL, HTTPRoot and HTTPImageSubdir are [deploy]http_url,
	// http_root and http_image_subdir.
	HTTPURL         string
	HTTPRoot        string
	HTTPImageSubdir string
	// FastTrack and FastTrackTimeout are [deploy]fast_track and
	// fast_track_timeout.
	FastTrack        bool
	FastTrackTimeout time.Duration
	// PostDeployPowerStateRetries and PostDeployPowerStateRetryInterval
	// are [agent]post_deploy_get_power_state_retries and
	// post_deploy_get_power_state_retry_interval: how long tear_down_agent
	// waits for the node to be off before forcing it.
	PostDeployPowerStateRetries       int
	PostDeployPowerStateRetryInterval time.Duration
	// Clock tells the time for the agent liveness check; nil uses the
	// system clock.
	Clock ironic.Clock
	// After waits (time.After when nil).
	After func(time.Duration) <-chan time.Time
	// Log receives the interfaces' warnings; nil discards them.
	Log *slog.Logger

	// Client talks to the nodes' agents; nil uses Ironic's defaults.
	Client *Client
	// ImageHTTP validates http(s) image URLs (HEAD); the binaries give
	// it [DEFAULT]webserver_verify_ca and webserver_connection_timeout;
	// nil uses a client with a 60 s timeout.
	ImageHTTP *http.Client
	// DeployLogsCollect, DeployLogsStorageBackend and DeployLogsLocalPath
	// are [agent]deploy_logs_collect (on_failure, always, never),
	// deploy_logs_storage_backend and deploy_logs_local_path.
	DeployLogsCollect        string
	DeployLogsStorageBackend string
	DeployLogsLocalPath      string
	// StreamRawImages is [agent]stream_raw_images.
	StreamRawImages bool
	// DefaultEphemeralFormat is [pxe]default_ephemeral_format, a partition
	// image's ephemeral partition's file system when instance_info names
	// none.
	DefaultEphemeralFormat string
	// ForceRawImages is [DEFAULT]force_raw_images: with StreamRawImages,
	// images the conductor serves are converted to raw first.
	ForceRawImages bool
	// ImagesPath is [pxe]images_path, where the conductor keeps the images
	// it serves (<node>/disk).
	ImagesPath string
	// PermittedImageFormats is [conductor]permitted_image_formats.
	PermittedImageFormats []string
	// FileURLAllowedPaths is [conductor]file_url_allowed_paths: where
	// file:// image sources may be.
	FileURLAllowedPaths []string
	// Glance shows Glance images and signs Swift temp URLs for them
	// (internal/glance.Client); nil fails deployments of Glance images.
	Glance GlanceImages
	// DefaultBootMode is [deploy]default_boot_mode ("" means uefi).
	DefaultBootMode string
	// RequireRescuePasswordHashed is
	// [conductor]require_rescue_password_hashed.
	RequireRescuePasswordHashed bool
	// AllowProvisioningInMaintenance is
	// [conductor]allow_provisioning_in_maintenance.
	AllowProvisioningInMaintenance bool
	// EraseDevicesPriority and EraseDevicesMetadataPriority are
	// [deploy]erase_devices_priority and erase_devices_metadata_priority
	// (nil: the agent's priorities).
	EraseDevicesPriority         *int
	EraseDevicesMetadataPriority *int

	// The [deploy] disk erasure options handed to the agent for cleaning:
	// shred_random_overwrite_iterations, shred_final_overwrite_with_zeros,
	// continue_if_disk_secure_erase_fails, enable_nvme_secure_erase,
	// enable_ata_secure_erase and disk_erasure_concurrency.
	ShredRandomOverwriteIterations int
	ShredFinalOverwriteWithZeros   bool
	ContinueIfDiskSecureEraseFails bool
	EnableNVMeSecureErase          bool
	EnableATASecureErase           bool
	DiskErasureConcurrency         int
	// EraseSkipReadOnly is [deploy]erase_skip_read_only, passed to the
	// agent for cleaning.
	EraseSkipReadOnly bool
}

// GlanceImages is what a direct deploy needs of Glance (Ironic's
// GlanceImageService).
type GlanceImages interface {
	// Show is GlanceImageService.show: ImageNotFound, ImageNotAuthorized,
	// ImageUnacceptable (not active) or GlanceConnectionFailed.
	Show(ctx context.Context, href string) (glance.Image, error)
	// SwiftTempURL is GlanceImageService.swift_temp_url: a signed GET URL
	// of the image's object in Glance's Swift store.
	SwiftTempURL(ctx context.Context, im glance.Image) (string, error)
	// Download is GlanceImageService.download: the image's data.
	Download(ctx context.Context, href string, w io.Writer) error
}

// Implementations returns the agent-based interfaces, for
// drivers.NewRegistry.
func Implementations(cfg Config) []drivers.Implementation {
	if cfg.Clock == nil {
		cfg.Clock = ironic.SystemClock{}
	}
	if cfg.After == nil {
		cfg.After = time.After
	}
	return []drivers.Implementation{
		{Kind: drivers.Deploy, Name: "direct", Impl: &Deploy{cfg: cfg, name: "direct", image: true}},
		{Kind: drivers.Deploy, Name: "custom-agent", Impl: &Deploy{cfg: cfg, name: "custom-agent"}},
		{Kind: drivers.Deploy, Name: "ramdisk", Impl: &RamdiskDeploy{DeployBase: drivers.DeployBase{Log: cfg.Log}, cfg: cfg}},
		{Kind: drivers.RAID, Name: "agent", Impl: &RAID{}},
		{Kind: drivers.Rescue, Name: "agent", Impl: &Rescue{cfg: cfg}},
		{Kind: drivers.Power, Name: "agent", Impl: &Power{cfg: cfg}},
	}
}

// Deploy is the "direct" deploy interface (the agent writes the image) or,
// without image, the "custom-agent" one.
type Deploy struct {
	drivers.DeployBase
	cfg   Config
	name  string
	image bool
}

// GetProperties returns the agent kernel/ramdisk, image proxies and agent
// options.
func (*Deploy) GetProperties() drivers.Properties { return agentProperties() }

// Validate checks the boot interface (when Ironic manages the agent's
// boot), capabilities and root device hints; "direct" also checks the image
// information, the HTTP provisioning configuration and the proxies.
func (d *Deploy) Validate(ctx context.Context, task drivers.Task) error {
	drv := task.Driver()
	if d.cfg.ManageAgentBoot && drv != nil && drv.Boot != nil {
		if err := drv.Boot.Validate(ctx, task); err != nil {
			return err
		}
	}
	if err := deployutil.ValidateCapabilities(task); err != nil {
		return err
	}
	if err := deployutil.ValidateRootDeviceHints(task); err != nil {
		return err
	}
	if !d.image {
		return nil
	}
	if drv != nil && drv.Storage != nil {
		write, err := drv.Storage.ShouldWriteImage(ctx, task)
		if err != nil {
			return err
		}
		if !write {
			return nil
		}
	}
	ii := task.InstanceInfo()
	source := ii.Get("image_source")
	if err := deployutil.CheckMissing(fmt.Sprintf("Node %s failed to validate deploy image info. Some parameters were missing", task.NodeUUID()),
		deployutil.Param{Label: "instance_info.image_source", Value: source}); err != nil {
		return err
	}
	if t := ii.Get("image_type"); py.Truthy(t) && t != "partition" && t != "whole-disk" {
		return drivers.InvalidParameter("Invalid image_type \"%s\", valid are %s", py.Str(t), "partition, whole-disk")
	}
	src := py.Str(source)
	if !deployutil.IsGlanceImage(source) && !strings.HasPrefix(src, "file://") {
		checksum := py.Truthy(ii.Get("image_checksum"))
		algo, value := py.Truthy(ii.Get("image_os_hash_algo")), py.Truthy(ii.Get("image_os_hash_value"))
		if value != algo || (!value && !checksum) {
			return drivers.MissingParameter("image_source's \"image_checksum\", or \"image_os_hash_algo\" and \"image_os_hash_value\" must be provided in instance_info for node %s", task.NodeUUID())
		}
	}
	if err := d.validateHTTPProvisioning(task, src); err != nil {
		return err
	}
	return validateImageProxies(task)
}

// validateHTTPProvisioning is Ironic's
// validate_http_provisioning_configuration.
func (d *Deploy) validateHTTPProvisioning(task drivers.Task, source string) error {
	ids := ImageDownloadSource(task, d.cfg.ImageDownloadSource)
	if ids != "swift" && ids != "http" && ids != "local" {
		return drivers.InvalidParameter("Invalid value for image_download_source: \"%s\". Valid values are swift, http or local.", ids)
	}
	if !strings.HasPrefix(source, "file://") && ids != "local" && (!deployutil.IsGlanceImage(source) || ids == "swift") {
		return nil
	}
	return deployutil.CheckMissing(fmt.Sprintf("Node %s failed to validate http provisoning. Some configuration options were missing", task.NodeUUID()),
		deployutil.Param{Label: "[deploy]http_url", Value: d.cfg.HTTPURL},
		deployutil.Param{Label: "[deploy]http_root", Value: d.cfg.HTTPRoot},
		deployutil.Param{Label: "[deploy]http_image_subdir", Value: d.cfg.HTTPImageSubdir})
}

// ImageDownloadSource is Ironic's get_image_download_source: instance_info,
// then driver_info, then the [agent]image_download_source option.
func ImageDownloadSource(task drivers.Task, conf string) string {
	if v := task.InstanceInfo().Get("image_download_source"); py.Truthy(v) {
		return py.Str(v)
	}
	if v := task.DriverInfo().Get("image_download_source"); py.Truthy(v) {
		return py.Str(v)
	}
	return conf
}

// validateImageProxies is Ironic's agent.validate_image_proxies.
func validateImageProxies(task drivers.Task) error {
	di := task.DriverInfo()
	invalid := map[string]any{}
	for _, scheme := range []string{"http", "https"} {
		param := "image_" + scheme + "_proxy"
		proxy := di.Get(param)
		if !py.Truthy(proxy) {
			continue
		}
		s := py.Str(proxy)
		sch := ""
		if u, err := url.Parse(s); err == nil {
			sch = u.Scheme
		}
		if sch != "" && sch != "http" && sch != "https" {
			invalid[param] = proxy
		}
	}
	msg := ""
	if len(invalid) > 0 {
		msg += fmt.Sprintf("Proxy URL should either have HTTP(S) scheme or no scheme at all, the following URLs are invalid: %s.", py.Repr(invalid))
	}
	if noProxy, ok := di.Lookup("image_no_proxy"); ok && noProxy != nil && !validNoProxy(noProxy) {
		msg += fmt.Sprintf("image_no_proxy should be a list of host names, IP addresses or domain names to exclude from proxying, the specified list %s is incorrect. To denote a domain name, prefix it with a dot (instead of e.g. '.*').", py.Str(noProxy))
	}
	if msg != "" {
		return drivers.InvalidParameter("%s", msg)
	}
	return nil
}

var hostnameLabel = regexp.MustCompile(`(?i)^[a-z\d]([a-z\d-]{0,61}[a-z\d])?$`)

// validNoProxy is Ironic's is_valid_no_proxy.
func validNoProxy(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	for _, h := range strings.Split(s, ",") {
		h = strings.Split(strings.TrimSpace(h), ":")[0]
		if h == "" {
			continue
		}
		max := 253
		if strings.HasPrefix(h, ".") {
			h, max = h[1:], 251
		}
		if len(h) > max {
			return false
		}
		for _, part := range strings.Split(h, ".") {
			if !hostnameLabel.MatchString(part) {
				return false
			}
		}
	}
	return true
}

// The deploy interfaces are steppers (the conductor finds them by type
// assertion: a drifting signature must fail here, not hide the steps).
var (
	_ drivers.Stepper = (*Deploy)(nil)
	_ drivers.Stepper = (*RamdiskDeploy)(nil)
)

// RamdiskDeploy is the "ramdisk" deploy interface: the node boots a
// ramdisk and stays there.
type RamdiskDeploy struct {
	drivers.DeployBase
	cfg Config
}

// GetProperties returns none.
func (*RamdiskDeploy) GetProperties() drivers.Properties { return nil }

// Validate requires a boot interface able to boot ramdisks, then checks it
// and the capabilities.
func (*RamdiskDeploy) Validate(ctx context.Context, task drivers.Task) error {
	drv := task.Driver()
	if drv == nil || drv.Boot == nil || !hasCapability(drv.Boot.Capabilities(), "ramdisk_boot") {
		return drivers.InvalidParameter("Invalid configuration: The boot interface must have the `ramdisk_boot` capability. You are using an incompatible boot interface.")
	}
	if err := drv.Boot.Validate(ctx, task); err != nil {
		return err
	}
	return deployutil.ValidateCapabilities(task)
}

func hasCapability(caps []string, c string) bool {
	for _, x := range caps {
		if x == c {
			return true
		}
	}
	return false
}

// Steps declares the "deploy" deploy step (100).
func (*RamdiskDeploy) Steps() []drivers.Step {
	return []drivers.Step{{Phase: drivers.DeployStep, Interface: drivers.Deploy, Name: deployStepDeploy, Priority: 100}}
}

// ExecuteStep runs the "deploy" step, or an agent's clean step.
func (r *RamdiskDeploy) ExecuteStep(ctx context.Context, task drivers.Task, name string, args *pyjson.Dict) (states.Provision, error) {
	if name != deployStepDeploy {
		if stepPhase(task) == drivers.CleanStep {
			return r.cfg.executeInband(ctx, task, drivers.CleanStep, name, args)
		}
		return "", drivers.InvalidParameter("Step %s is not supported by this interface.", name)
	}
	return r.Deploy(ctx, task)
}

// InbandSteps is the agent's clean steps (the ramdisk deploy has no
// in-band deploy steps).
func (r *RamdiskDeploy) InbandSteps(task drivers.Task, phase drivers.StepPhase) []*pyjson.Dict {
	if phase != drivers.CleanStep {
		return nil
	}
	return r.cfg.inbandSteps(task, phase)
}

// Heartbeat is HeartbeatMixin.heartbeat (cleaning through the agent).
func (r *RamdiskDeploy) Heartbeat(ctx context.Context, task drivers.Task, hb drivers.Heartbeat) error {
	return r.cfg.heartbeat(ctx, task, hb)
}

// Deploy is Ironic's RamdiskDeploy.deploy: the node is powered off, put
// on its tenant networks, set to boot its instance ramdisk and powered
// on; the deployment is then done. A configuration drive is ignored (with
// a warning) by boot interfaces that can't pass one to a ramdisk.
func (r *RamdiskDeploy) Deploy(ctx context.Context, task drivers.Task) (states.Provision, error) {
	drv := task.Driver()
	if _, ok := task.InstanceInfo().Lookup("configdrive"); ok && !hasCapability(drv.Boot.Capabilities(), "ramdisk_boot_configdrive") && r.Log != nil {
		r.Log.WarnContext(ctx, "A configuration drive is present in the ramdisk deployment request of node "+task.NodeUUID()+
			" with boot interface "+task.InterfaceName(drivers.Boot)+". The configuration drive will be ignored for this deployment.", "node", task.NodeUUID())
	}
	if err := task.PowerAction(ctx, states.PowerOff); err != nil {
		return "", err
	}
	if drv.Network != nil {
		if err := withNetworkPower(ctx, task, true, func() error { return drv.Network.ConfigureTenantNetworks(ctx, task) }); err != nil {
			return "", err
		}
	}
	if err := drv.Boot.PrepareInstance(ctx, task); err != nil {
		return "", err
	}
	if err := task.PowerAction(ctx, states.PowerOn); err != nil {
		return "", err
	}
	if r.Log != nil {
		r.Log.InfoContext(ctx, "Deployment setup for node "+task.NodeUUID()+" done", "node", task.NodeUUID())
	}
	return "", nil
}

// Prepare is Ironic's RamdiskDeploy.prepare: while deploying, the network
// is checked, the node powered off and its volumes attached; an active
// (taken over) or unrescuing node gets its instance boot prepared again.
func (*RamdiskDeploy) Prepare(ctx context.Context, task drivers.Task) error {
	if err := storage.PopulateInternalInfo(ctx, task); err != nil {
		return err
	}
	drv := task.Driver()
	switch task.ProvisionState() {
	case states.Deploying:
		if drv.Network != nil {
			if err := drv.Network.Validate(ctx, task); err != nil {
				return err
			}
		}
		if err := task.PowerAction(ctx, states.PowerOff); err != nil {
			return err
		}
		if drv.Storage != nil {
			return drv.Storage.AttachVolumes(ctx, task)
		}
	case states.Active, states.Unrescuing:
		return drv.Boot.PrepareInstance(ctx, task)
	}
	return nil
}

// TearDown is AgentBaseMixin.tear_down (see Deploy.TearDown).
func (r *RamdiskDeploy) TearDown(ctx context.Context, task drivers.Task) (states.Provision, error) {
	return tearDown(ctx, task, r.Log)
}

// CleanUp is AgentBaseMixin.clean_up, the ramdisk boot always managed.
func (*RamdiskDeploy) CleanUp(ctx context.Context, task drivers.Task) error {
	return cleanUp(ctx, task, true)
}

// TakeOver has nothing to do.
func (*RamdiskDeploy) TakeOver(context.Context, drivers.Task) error { return nil }

// PrepareCleaning is AgentBaseMixin.prepare_cleaning: the agent ramdisk
// boots for in-band cleaning.
func (r *RamdiskDeploy) PrepareCleaning(ctx context.Context, task drivers.Task) (states.Provision, error) {
	return r.cfg.prepareCleaning(ctx, task, true)
}

// TearDownCleaning is AgentBaseMixin.tear_down_cleaning.
func (r *RamdiskDeploy) TearDownCleaning(ctx context.Context, task drivers.Task) error {
	return r.cfg.tearDownInbandCleaning(ctx, task, true)
}

// RAID is the "agent" RAID interface: the agent builds the volumes.
type RAID struct{ drivers.RAIDBase }

// CreateConfiguration is not implemented yet.
func (*RAID) CreateConfiguration(context.Context, drivers.Task, drivers.RAIDCreateOptions) (states.Provision, error) {
	return "", drivers.NotImplemented("agent", drivers.RAID, "create RAID configurations")
}

// DeleteConfiguration is not implemented yet.
func (*RAID) DeleteConfiguration(context.Context, drivers.Task) (states.Provision, error) {
	return "", drivers.NotImplemented("agent", drivers.RAID, "delete RAID configurations")
}

// Rescue is the "agent" rescue interface.
type Rescue struct{ cfg Config }

// GetProperties returns none.
func (*Rescue) GetProperties() drivers.Properties { return nil }

// Validate checks the rescuing network, the boot interface's rescue
// support (when Ironic manages the agent's boot) and the rescue password.
func (r *Rescue) Validate(ctx context.Context, task drivers.Task) error {
	drv := task.Driver()
	if drv != nil && drv.Network != nil {
		if err := drv.Network.ValidateRescue(ctx, task); err != nil {
			return err
		}
	}
	if r.cfg.ManageAgentBoot && drv != nil && drv.Boot != nil {
		if err := drv.Boot.Validate(ctx, task); err != nil {
			return err
		}
		if err := drv.Boot.ValidateRescue(ctx, task); err != nil {
			return err
		}
	}
	pass, ok := task.InstanceInfo().Lookup("rescue_password")
	if !ok || pass == nil {
		return drivers.MissingParameter("Node %s is missing 'instance_info/rescue_password'. It is required for rescuing node.", task.NodeUUID())
	}
	if strings.TrimSpace(py.Str(pass)) == "" {
		return drivers.InvalidParameter("The 'instance_info/rescue_password' is an empty string for node %s. The 'rescue_password' must be a non-empty string value.", task.NodeUUID())
	}
	return nil
}

// Power is the "agent" power interface: it reboots through a running
// agent (fast track).
type Power struct{ cfg Config }

// GetProperties returns none.
func (*Power) GetProperties() drivers.Properties { return nil }

// Validate requires fast track and an agent that heartbeated recently.
func (p *Power) Validate(_ context.Context, task drivers.Task) error {
	enabled, err := deployutil.FastTrackEnabled(task, p.cfg.FastTrack)
	if err != nil {
		return err
	}
	if !enabled {
		return drivers.InvalidParameter("Fast track mode must be enabled to use the agent power interface")
	}
	if !p.agentAlive(task) {
		return drivers.InvalidParameter("Agent seems offline for node %s, the agent power interface cannot be used", task.NodeUUID())
	}
	return nil
}

// agentAlive is Ironic's agent_is_alive.
func (p *Power) agentAlive(task drivers.Task) bool {
	dii := task.DriverInternalInfo()
	if !py.Truthy(dii.Get("agent_url")) {
		return false
	}
	last, _ := dii.Get("agent_last_heartbeat").(string)
	t, err := time.Parse("2006-01-02T15:04:05.000000", last)
	if err != nil {
		// isoformat() leaves out whole-second fractions.
		if t, err = time.Parse("2006-01-02T15:04:05", last); err != nil {
			return false
		}
	}
	clock := p.cfg.Clock
	if clock == nil {
		clock = ironic.SystemClock{}
	}
	return !t.Before(clock.Now().UTC().Add(-p.cfg.FastTrackTimeout))
}

// SupportsPowerSync is false: the agent can't report the power state
// reliably.
func (*Power) SupportsPowerSync(context.Context, drivers.Task) bool { return false }

// GetSupportedPowerStates returns reboot and soft reboot.
func (*Power) GetSupportedPowerStates(context.Context, drivers.Task) ([]states.Power, error) {
	return []states.Power{states.Rebooting, states.SoftRebooting}, nil
}

// GetPowerState is not implemented yet.
func (*Power) GetPowerState(context.Context, drivers.Task) (states.Power, error) {
	return "", drivers.NotImplemented("agent", drivers.Power, "get the power state")
}

// SetPowerState is not implemented yet.
func (*Power) SetPowerState(context.Context, drivers.Task, states.Power, time.Duration) error {
	return drivers.NotImplemented("agent", drivers.Power, "set the power state")
}

// Reboot is not implemented yet.
func (*Power) Reboot(context.Context, drivers.Task, time.Duration) error {
	return drivers.NotImplemented("agent", drivers.Power, "reboot")
}
