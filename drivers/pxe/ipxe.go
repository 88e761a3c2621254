package pxe

import (
	"embed"
	"fmt"
	"net/url"
	"strings"
	"text/template"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/deployutil"
	"github.com/goironic/ironic/drivers/internal/py"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
)

//go:embed templates/ipxe_config.tmpl
var templateFS embed.FS

// IPXEConfigMethod is the driver vendor passthru method that answers a
// booting node's iPXE script (GET /v1/drivers/<driver>/vendor_passthru/
// ipxe_config?node_uuid=<uuid> or ?port_address=<mac>).
const IPXEConfigMethod = "ipxe_config"

// ScriptNode is what a node's iPXE script is generated from: the node as
// the database has it, with its volume targets and connectors.
type ScriptNode struct {
	UUID               string
	ProvisionState     states.Provision
	DeployInterface    string
	DriverInfo         *pyjson.Dict
	InstanceInfo       *pyjson.Dict
	DriverInternalInfo *pyjson.Dict
	VolumeTargets      []VolumeTarget
	VolumeConnectors   []VolumeConnector
}

// VolumeTarget is one of the node's volume targets.
type VolumeTarget = drivers.BootVolumeTarget

// VolumeConnector is one of the node's volume connectors.
type VolumeConnector struct {
	Type        string
	ConnectorID string
}

// ScriptConfig holds the options iPXE scripts are generated with.
type ScriptConfig struct {
	// HTTPURL is [deploy]http_url: images that are not URLs themselves
	// are served from <http_url>/<node uuid>/<label>, as Ironic lays
	// them out.
	HTTPURL string
	// KernelAppendParams is [pxe]kernel_append_params.
	KernelAppendParams string
	// IPXETimeout is [pxe]ipxe_timeout in seconds (0: none).
	IPXETimeout int
	// APIURL is the Ironic API URL the ramdisk calls back
	// (ipa-api-url; [service_catalog]endpoint_override, without trailing
	// slashes).
	APIURL string
	// Debug is [DEFAULT]debug: ipa-debug=1 unless the parameters have it.
	Debug bool
	// DeployKernel ... RescueRamdisk are the [conductor] defaults for
	// nodes whose driver_info names none.
	DeployKernel, DeployRamdisk, RescueKernel, RescueRamdisk string
	// ErrorSleep is how long the error script waits before it exits
	// (seconds; 30 when 0).
	ErrorSleep int
	// NetbootFallback is [pxe]enable_netboot_fallback: an active node
	// that boots from its local disk gets a script that boots that disk
	// (Ironic's "goto boot_whole_disk" config). Without it Ironic removes
	// the node's config at the end of the deployment, so such a node
	// gets the error script.
	NetbootFallback bool
	// IPXEUseSwift is [pxe]ipxe_use_swift. Ironic then gives iPXE Swift
	// temporary URLs for deploy and rescue images that are Glance images,
	// which it finds through Glance; this service has no Glance client, so
	// a node whose deploy or rescue image is a Glance image gets the error
	// script saying so, rather than an <http_url> location that nothing
	// fills (Ironic does not cache those images when the option is set).
	IPXEUseSwift bool
}

// Script is a generated iPXE script. Problem is non-empty when the script
// is the error script (unknown node, state without a boot configuration,
// missing images): the text the script prints, for the caller's log.
type Script struct {
	Body    string
	Problem string
}

// Scripter renders iPXE scripts.
type Scripter struct {
	cfg  ScriptConfig
	tmpl *template.Template
}

// NewScripter parses the script template.
func NewScripter(cfg ScriptConfig) (*Scripter, error) {
	if cfg.ErrorSleep <= 0 {
		cfg.ErrorSleep = 30
	}
	cfg.APIURL = strings.TrimRight(cfg.APIURL, "/")
	t, err := template.New("ipxe_config.tmpl").ParseFS(templateFS, "templates/ipxe_config.tmpl")
	if err != nil {
		return nil, fmt.Errorf("pxe: parsing the iPXE template: %w", err)
	}
	return &Scripter{cfg: cfg, tmpl: t}, nil
}

// scriptData is the template's input.
type scriptData struct {
	Error        string
	ErrorSleep   int
	Goto         string
	Timeout      int
	Kernel       string
	Ramdisk      string
	InitrdName   string
	AppendParams string
	Root         string
	RamdiskOpts  string
	BootISO      string
	ISCSI        *iscsiData
	// KSCfg, Stage2 and Repo are the anaconda (kickstart) boot's inst.ks,
	// inst.stage2 and inst.repo.
	KSCfg, Stage2, Repo string
}

type iscsiData struct {
	Username, Password, InitiatorIQN, BootURL string
	Extra                                     []iscsiVolume
}

type iscsiVolume struct {
	Drive, URL, Username, Password string
}

// deployLikeStates chain the deploy ramdisk; rescueStates the rescue one.
var deployLikeStates = map[states.Provision]drivers.RamdiskMode{
	states.Deploying: drivers.RamdiskDeploy, states.DeployWait: drivers.RamdiskDeploy,
	states.Cleaning: drivers.RamdiskDeploy, states.CleanWait: drivers.RamdiskDeploy,
	states.Inspecting: drivers.RamdiskDeploy, states.InspectWait: drivers.RamdiskDeploy,
	states.Rescuing: drivers.RamdiskRescue, states.RescueWait: drivers.RamdiskRescue,
}

// ErrorScript is the script for a request no node answers to: it prints
// problem on the console, sleeps and exits.
func (s *Scripter) ErrorScript(problem string) Script {
	return s.render(scriptData{Error: oneLine(problem)}, problem)
}

// Render returns the iPXE script of node n for its provision state.
func (s *Scripter) Render(n ScriptNode) Script {
	d, problem := s.data(n)
	if problem == "" {
		if v := spaced(d); v != "" {
			problem = fmt.Sprintf("node %s has an image location with white space in it: %q", n.UUID, v)
		}
	}
	if problem != "" {
		return s.ErrorScript(problem)
	}
	return s.render(d, "")
}

// spaced finds an image location with white space in it: iPXE would read
// the rest as further arguments (or, after "||", as another command).
func spaced(d scriptData) string {
	for _, v := range []string{d.Kernel, d.Ramdisk, d.BootISO, d.KSCfg, d.Stage2, d.Repo} {
		if strings.ContainsAny(v, " \t") {
			return v
		}
	}
	return ""
}

func (s *Scripter) render(d scriptData, problem string) Script {
	d.ErrorSleep = s.cfg.ErrorSleep
	var b strings.Builder
	if err := s.tmpl.Execute(&b, d); err != nil {
		// The template is ours and its data plain strings: this cannot
		// happen, but the node must still get a script.
		msg := "cannot render the iPXE script: " + oneLine(err.Error())
		return Script{Body: fmt.Sprintf("#!ipxe\n\necho ironic: %s\nsleep %d\nexit 1\n", msg, s.cfg.ErrorSleep), Problem: msg}
	}
	b.WriteByte('\n')
	return Script{Body: b.String(), Problem: problem}
}

func (s *Scripter) data(n ScriptNode) (scriptData, string) {
	d := scriptData{Timeout: s.cfg.IPXETimeout * 1000}
	append_, err := s.appendParams(n)
	if err != "" {
		return d, err
	}
	if n.DeployInterface == "anaconda" && (n.ProvisionState == states.Deploying || n.ProvisionState == states.DeployWait) {
		return s.anaconda(n, d, append_)
	}
	if mode, ok := deployLikeStates[n.ProvisionState]; ok {
		kref, rref := s.agentImages(n, mode)
		if kref == nil || rref == nil {
			return d, fmt.Sprintf("node %s is %s but has no %s_kernel and %s_ramdisk in its driver_info or the configuration", n.UUID, n.ProvisionState, mode, mode)
		}
		if s.cfg.IPXEUseSwift {
			for _, img := range []struct {
				label string
				ref   any
			}{{mode.KernelKey(), kref}, {mode.RamdiskKey(), rref}} {
				if deployutil.IsGlanceImage(img.ref) {
					return d, fmt.Sprintf("node %s's %s %s is a Glance image and [pxe]ipxe_use_swift is set, but this service has no Glance client to make a Swift temporary URL for it: give the image as an http(s) URL", n.UUID, img.label, py.Str(img.ref))
				}
			}
		}
		k, r := s.imageURL(n, kref, mode.KernelKey()), s.imageURL(n, rref, mode.RamdiskKey())
		params := append_
		if extra, ok := n.DriverInternalInfo.Get(RamdiskParamsKey).(string); ok && extra != "" {
			params = strings.TrimSpace(params + " " + extra)
		}
		// An inspection ramdisk's parameters are the inspector
		// interface's alone (21.4's _start_managed_inspection adds
		// ipa-api-url itself, for fast track only).
		if s.cfg.APIURL != "" && n.ProvisionState != states.Inspecting && n.ProvisionState != states.InspectWait {
			params = strings.TrimSpace(params + " ipa-api-url=" + s.cfg.APIURL)
		}
		d.Goto, d.Kernel, d.Ramdisk, d.AppendParams = "deploy", clean(k), clean(r), clean(params)
		d.InitrdName = mode.RamdiskKey()
		return d, ""
	}
	if n.ProvisionState != states.Active {
		return d, fmt.Sprintf("node %s is in provision state %q, which has no boot configuration", n.UUID, n.ProvisionState)
	}
	ii := n.InstanceInfo
	d.AppendParams = clean(append_)
	switch boot := iscsiBootVolume(n); {
	case boot != nil:
		iscsi, problem := volumeOptions(n, boot)
		if problem != "" {
			return d, problem
		}
		d.Goto, d.ISCSI = "boot_iscsi", iscsi
	case n.DeployInterface == "ramdisk":
		d.Goto = "boot_ramdisk"
		if py.Truthy(ii.Get("boot_iso")) {
			d.BootISO = clean(s.imageURL(n, ii.Get("boot_iso"), "boot_iso"))
			return d, ""
		}
		if !py.Truthy(ii.Get("kernel")) || !py.Truthy(ii.Get("ramdisk")) {
			return d, fmt.Sprintf("node %s is active with the ramdisk deploy interface but its instance_info has no kernel and ramdisk", n.UUID)
		}
		d.Kernel, d.Ramdisk = clean(s.imageURL(n, ii.Get("kernel"), "kernel")), clean(s.imageURL(n, ii.Get("ramdisk"), "ramdisk"))
		if o, ok := ii.Get("ramdisk_kernel_arguments").(string); ok {
			d.RamdiskOpts = clean(o)
		}
	case netboot(n):
		d.Goto = "boot_netboot"
		d.Kernel, d.Ramdisk = clean(s.imageURL(n, ii.Get("kernel"), "kernel")), clean(s.imageURL(n, ii.Get("ramdisk"), "ramdisk"))
		if r, ok := n.DriverInternalInfo.Get("root_uuid_or_disk_id").(string); ok && r != "" {
			d.Root = clean("UUID=" + r)
		}
	case s.cfg.NetbootFallback:
		d.Goto = "boot_whole_disk"
	default:
		return d, localBootProblem(n)
	}
	return d, ""
}

// anaconda is the anaconda deploy interface's boot: its deploy step runs
// the boot interface's prepare_instance, which switches the node's config
// to "goto boot_anaconda" (pxe_utils.build_instance_pxe_options with
// service=True), and the node stays there until the installer calls back.
// The instance kernel and ramdisk come from instance_info (Ironic copies a
// Glance image's kernel_id/ramdisk_id there); the kickstart file and the
// stage2 image are the files the Python conductor renders and caches in
// Ironic's <http_url>/<node> layout (ks.cfg; LiveOS/squashfs.img under the
// stage2 URL, the node's directory); with is_source_a_path the
// image_source is the installation tree (inst.repo) instead of stage2.
func (s *Scripter) anaconda(n ScriptNode, d scriptData, append_ string) (scriptData, string) {
	ii := n.InstanceInfo
	if !py.Truthy(ii.Get("kernel")) || !py.Truthy(ii.Get("ramdisk")) {
		return d, fmt.Sprintf("node %s is %s with the anaconda deploy interface but its instance_info has no kernel and ramdisk", n.UUID, n.ProvisionState)
	}
	base := strings.TrimRight(s.cfg.HTTPURL, "/") + "/" + n.UUID
	d.Goto, d.AppendParams = "boot_anaconda", clean(append_)
	d.Kernel, d.Ramdisk = clean(s.imageURL(n, ii.Get("kernel"), "kernel")), clean(s.imageURL(n, ii.Get("ramdisk"), "ramdisk"))
	d.KSCfg = clean(base + "/ks.cfg")
	if py.Truthy(n.DriverInternalInfo.Get("is_source_a_path")) {
		d.Repo = clean(str(ii.Get("image_source")))
	} else {
		d.Stage2 = clean(base)
	}
	return d, ""
}

// localBootProblem is why an active node that boots from its local disk
// has no script: pxe_base.prepare_instance removes its (i)PXE config
// unless [pxe]enable_netboot_fallback. A boot volume iPXE does not attach
// (Fibre Channel: the ipxe boot interface has no fibre_channel_volume_boot
// capability, so Ironic records no boot_from_volume) is booted as the local
// disk the firmware presents, so it is named as a hint.
func localBootProblem(n ScriptNode) string {
	msg := fmt.Sprintf("node %s is active and boots from its local disk: it has no network boot configuration without [pxe]enable_netboot_fallback", n.UUID)
	for _, t := range n.VolumeTargets {
		if t.BootIndex != nil && *t.BootIndex == 0 && t.VolumeType != "iscsi" {
			msg += fmt.Sprintf(" (boot volume %s is %s, which iPXE does not attach: the firmware boots it as a local disk)", t.UUID, t.VolumeType)
		}
	}
	return msg
}

// netboot: the instance's kernel and ramdisk are booted over the network
// (a partition image with boot_option netboot, or one that names its
// kernel and ramdisk without asking for local boot).
//
// Not for the anaconda deploy interface: its instance kernel and ramdisk
// are the installer's, and once the installer called back Ironic removes
// the node's config (clean_up_instance) and boots it from its disk.
func netboot(n ScriptNode) bool {
	ii := n.InstanceInfo
	if n.DeployInterface == "anaconda" || !py.Truthy(ii.Get("kernel")) || !py.Truthy(ii.Get("ramdisk")) || py.Truthy(n.DriverInternalInfo.Get("is_whole_disk_image")) {
		return false
	}
	if caps, ok := ii.Get("capabilities").(*pyjson.Dict); ok {
		if opt, ok := caps.Get("boot_option").(string); ok {
			return opt == "netboot"
		}
	}
	return true
}

// agentImages is pxe_utils.parse_driver_info: driver_info's
// <mode>_kernel/<mode>_ramdisk, else the [conductor] defaults; nil, nil
// when either is missing.
func (s *Scripter) agentImages(n ScriptNode, mode drivers.RamdiskMode) (any, any) {
	k, r := n.DriverInfo.Get(mode.KernelKey()), n.DriverInfo.Get(mode.RamdiskKey())
	if !py.Truthy(k) && !py.Truthy(r) {
		if mode == drivers.RamdiskRescue {
			k, r = s.cfg.RescueKernel, s.cfg.RescueRamdisk
		} else {
			k, r = s.cfg.DeployKernel, s.cfg.DeployRamdisk
		}
	}
	if !py.Truthy(k) || !py.Truthy(r) {
		return nil, nil
	}
	return k, r
}

// imageURL is where iPXE fetches an image: the reference itself when it is
// an HTTP(S) URL (no conductor has to cache it), else Ironic's layout
// <[deploy]http_url>/<node uuid>/<label>.
func (s *Scripter) imageURL(n ScriptNode, ref any, label string) string {
	if r, ok := ref.(string); ok {
		if u, err := url.Parse(r); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
			return r
		}
	}
	return strings.Join([]string{strings.TrimRight(s.cfg.HTTPURL, "/"), n.UUID, label}, "/")
}

// appendParams is driver_utils.get_kernel_append_params (instance_info,
// then driver_info, then [pxe]kernel_append_params, "%default%" replaced)
// plus ipa-debug=1 under [DEFAULT]debug.
func (s *Scripter) appendParams(n ScriptNode) (string, string) {
	p := s.cfg.KernelAppendParams
	for _, loc := range []struct {
		name string
		m    *pyjson.Dict
	}{{"instance_info", n.InstanceInfo}, {"driver_info", n.DriverInfo}} {
		v, ok := loc.m.Lookup("kernel_append_params")
		if !ok || v == nil {
			continue
		}
		str, ok := v.(string)
		if !ok {
			return "", fmt.Sprintf("node %s's %s['kernel_append_params'] is not a string", n.UUID, loc.name)
		}
		p = strings.ReplaceAll(str, "%default%", s.cfg.KernelAppendParams)
		break
	}
	if s.cfg.Debug && !strings.Contains(p, "ipa-debug") {
		p += " ipa-debug=1"
	}
	return p, ""
}

// iscsiBootVolume is deploy_utils.is_iscsi_boot: the target that
// driver_internal_info's boot_from_volume names, when it is an iSCSI one.
// Ironic records boot_from_volume at deploy time only when the boot
// interface can boot the volume's type (ipxe: iscsi_volume_boot), so a
// Fibre Channel boot volume, or targets added to an active node, do not
// make it boot from a volume.
func iscsiBootVolume(n ScriptNode) *VolumeTarget {
	want, _ := n.DriverInternalInfo.Get("boot_from_volume").(string)
	if want == "" {
		return nil
	}
	for i := range n.VolumeTargets {
		if t := &n.VolumeTargets[i]; t.UUID == want && t.VolumeType == "iscsi" {
			return t
		}
	}
	return nil
}

// volumeOptions is pxe_utils.get_volume_pxe_options: the boot volume's
// iSCSI URL and CHAP credentials, the initiator IQN of the node's iqn
// connector, and every other iSCSI target (boot_index not 0) as an extra
// sanhook drive, 0x81, 0x82, ... in the order the node's targets are
// listed (by id, as Ironic's task.volume_targets).
func volumeOptions(n ScriptNode, boot *VolumeTarget) (*iscsiData, string) {
	d := &iscsiData{
		Username: clean(str(boot.Properties.Get("auth_username"))),
		Password: clean(str(boot.Properties.Get("auth_password"))),
		BootURL:  clean(iscsiURL(boot.Properties)),
	}
	if d.BootURL == "" {
		return nil, fmt.Sprintf("node %s's boot volume %s has no target_portal and target_iqn", n.UUID, boot.UUID)
	}
	for _, c := range n.VolumeConnectors {
		if c.Type == "iqn" {
			d.InitiatorIQN = clean(c.ConnectorID)
		}
	}
	extra := make([]VolumeTarget, 0, len(n.VolumeTargets))
	for _, t := range n.VolumeTargets {
		if (t.BootIndex == nil || *t.BootIndex != 0) && strings.Contains(t.VolumeType, "iscsi") {
			extra = append(extra, t)
		}
	}
	for i, t := range extra {
		d.Extra = append(d.Extra, iscsiVolume{
			Drive: fmt.Sprintf("0x%x", 0x81+i), URL: clean(iscsiURL(t.Properties)),
			Username: clean(str(t.Properties.Get("auth_username"))), Password: clean(str(t.Properties.Get("auth_password"))),
		})
	}
	return d, ""
}

// iscsiURL is get_volume_pxe_options' __generate_iscsi_url:
// iscsi:<host>::<port>:<lun>:<iqn>, one per portal of target_portals.
func iscsiURL(props *pyjson.Dict) string {
	iqn, lun := property(props, "target_iqn"), property(props, "target_lun")
	if ps, ok := props.Get("target_portals").([]any); ok {
		out := make([]string, 0, len(ps))
		for _, p := range ps {
			out = append(out, formatPortal(str(p), iqn, lun))
		}
		return strings.Join(out, " ")
	}
	portal := property(props, "target_portal")
	if portal == "" || iqn == "" {
		return ""
	}
	return formatPortal(portal, iqn, lun)
}

func formatPortal(portal, iqn, lun string) string {
	host, port := portal, ""
	if i := strings.LastIndexByte(portal, ':'); i >= 0 && !strings.HasSuffix(portal, "]") {
		host, port = portal[:i], portal[i+1:]
	}
	return fmt.Sprintf("iscsi:%s::%s:%s:%s", host, port, lun, iqn)
}

// property is the key's value (the first one when a list), else the
// first of the plural key's.
func property(props *pyjson.Dict, key string) string {
	first := func(v any) string {
		if l, ok := v.([]any); ok {
			if len(l) == 0 {
				return ""
			}
			return str(l[0])
		}
		return str(v)
	}
	if v := first(props.Get(key)); v != "" {
		return v
	}
	return first(props.Get(key + "s"))
}

func str(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	return py.Str(v)
}

// clean keeps a value one argument list of one script line: control
// characters (a newline would start a new iPXE command) become spaces, and
// the words iPXE reads as command separators ("||", "&&", ";") are
// bracketed so that they stay plain text.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if !strings.ContainsAny(s, "|&;") {
		return s
	}
	words := strings.Split(s, " ")
	for i, w := range words {
		switch w {
		case "||", "&&", ";":
			words[i] = "(" + w + ")"
		}
	}
	return strings.Join(words, " ")
}

// oneLine is clean for console messages.
func oneLine(s string) string { return clean(s) }

// NormalizeMAC accepts a MAC address as iPXE expands ${mac}
// (52:54:00:12:34:56) or ${mac:hexhyp} (52-54-00-12-34-56), in any case,
// and returns it as Ironic stores port addresses: lower case, colons.
func NormalizeMAC(s string) (string, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if len(s) != 17 {
		return "", false
	}
	b := []byte(s)
	for i := range b {
		if i%3 == 2 {
			if b[i] != ':' && b[i] != '-' {
				return "", false
			}
			b[i] = ':'
			continue
		}
		if !(b[i] >= '0' && b[i] <= '9' || b[i] >= 'a' && b[i] <= 'f') {
			return "", false
		}
	}
	return string(b), true
}
