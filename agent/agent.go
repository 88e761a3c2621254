// Package agent is goironic's deploy ramdisk agent: the Ironic Python
// Agent's (IPA 9.x, contemporary with Ironic 21.4) behaviour towards
// Ironic, in Go. It looks its node up (GET /v1/lookup), heartbeats
// (POST /v1/heartbeat/<node>) at the interval IPA derives from the
// lookup's heartbeat_timeout, and serves IPA's command API on the
// advertised port (9999 by default) with the commands Ironic 21.4's
// agent_client sends for direct and ramdisk deploys, cleaning and
// rescue.
//
// Disk work goes through the Disks interface (agent/disk implements it),
// the hardware inventory through Inventory (agent/hardware), powering
// off through Power: the agent itself touches no device.
package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/goironic/ironic/agent/disk"
	"github.com/goironic/ironic/agent/hardware"
)

// Version is the agent_version sent with heartbeats: the IPA release
// whose behaviour this agent follows.
const Version = "9.4.1"

// Disks is the block-device side the agent drives (agent/disk.Manager
// satisfies it; the contract is agent/disk.Disks).
type Disks interface {
	BlockDevices(ctx context.Context) ([]disk.BlockDevice, error)
	RootDevice(ctx context.Context, hints map[string]any) (disk.BlockDevice, error)
	WriteImage(ctx context.Context, dev string, image disk.ImageInfo) error
	WriteConfigDrive(ctx context.Context, dev, configdrive string) error
	PartitionUUIDs(ctx context.Context, dev string) (map[string]any, error)
	EraseMetadata(ctx context.Context, devs []disk.BlockDevice) error
	Sync(ctx context.Context) error
}

// Power turns the machine off or restarts it, as IPA's
// standby.power_off and run_image do with poweroff(8) and reboot(8); on
// a ramdisk running as PID 1 it is reboot(2) (PowerSyscall).
type Power interface {
	PowerOff(ctx context.Context) error
	Reboot(ctx context.Context) error
}

// UEFI is the UEFI side of image.install_bootloader (agent/disk.Manager
// satisfies it).
type UEFI interface {
	// BootMode is how the machine booted: "uefi" or "bios".
	BootMode() string
	// ManageUEFI is IPA's efi_utils.manage_uefi: the boot entries of the
	// loaders on dev's EFI system partition written to the firmware's
	// variables; false when the partition holds no loader.
	ManageUEFI(ctx context.Context, dev, efiPartUUID string) (bool, error)
}

// Inventory is IPA's list_hardware_info (agent/hardware.Reader).
type Inventory interface {
	Inventory(ctx context.Context) (hardware.Inventory, error)
}

// Clock is the agent's time: every wait goes through it so tests step
// time instead of sleeping.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Config is the agent's configuration: IPA's kernel parameters
// (ipa-api-url, ipa-agent-token, ...) and its dependencies.
type Config struct {
	// APIURL is ipa-api-url, Ironic's API endpoint. Empty: no lookup and
	// no heartbeats (IPA's standalone mode), the command API only.
	APIURL string
	// AgentToken is ipa-agent-token, a token given on the kernel command
	// line (Ironic's agent_token_pregenerated); a lookup's token
	// replaces it as in IPA's process_lookup_data.
	AgentToken string
	// AgentTokenRequired is IPA's agent_token_required; the lookup turns
	// it on when Ironic says so.
	AgentTokenRequired bool
	// AdvertiseHost and AdvertisePort are ipa-advertise-host and
	// ipa-advertise-port: the callback_url sent to Ironic
	// (http://host:port). AdvertisePort defaults to 9999.
	AdvertiseHost string
	AdvertisePort int
	// ListenAddress is where the command API listens (IPA's
	// ipa-listen-host/ipa-listen-port; default ":<AdvertisePort>").
	ListenAddress string
	// NodeUUID is sent as the lookup's node_uuid (IPA passes the UUID
	// inspection returned).
	NodeUUID string
	// MACs are the addresses looked up with; empty takes the
	// inventory's interfaces' mac_address, as IPA does.
	MACs []string
	// GlobalRequestID is ipa-global-request-id, sent as
	// X-OpenStack-Request-ID.
	GlobalRequestID string
	// IronicAPIVersion is ipa-ironic-api-version: the API version to
	// assume instead of discovering it from GET /.
	IronicAPIVersion string
	// LookupTimeout is ipa-lookup-timeout (default 600 s), how long to
	// retry the lookup; LookupInterval is ipa-lookup-interval (default
	// 1 s), the back-off's lower bound, MaxLookupInterval its upper
	// bound (IPA: 60 s).
	LookupTimeout     time.Duration
	LookupInterval    time.Duration
	MaxLookupInterval time.Duration
	// ForcedHeartbeatGap is the least time between a heartbeat and one
	// forced by a finished command, and the longest wait between checks
	// (IPA: 5 s).
	ForcedHeartbeatGap time.Duration
	// IgnoreBootloaderFailure is ipa-ignore-bootloader-failure: a boot
	// loader that cannot be installed is logged, not a failure (for
	// firmware that finds the boot loaders on its disks itself).
	IgnoreBootloaderFailure bool
	// RescuePasswordFile is where rescue.finalize_rescue writes the
	// password hash (IPA: /etc/ipa-rescue-config/ipa-rescue-password).
	RescuePasswordFile string
	// ShadowFile, when set, is the shadow(5) file whose "rescue" user
	// gets the rescue password (the ramdisk's /etc/shadow).
	ShadowFile string
	// Dmesg reads the kernel log for log.collect_system_logs (the
	// ramdisk: KernelLog); nil leaves it out.
	Dmesg func() ([]byte, error)
	// LogFile is the agent's own log, included by
	// log.collect_system_logs; Root is the file system root it reads
	// /proc from (default "/").
	LogFile string
	Root    string
	// CommandLog, when set, receives every command request as one JSON
	// line (name, params, wait, agent_token): the record tests compare.
	CommandLog io.Writer
	// InspectionCallbackURL is ipa-inspection-callback-url: when set,
	// the agent first inspects the machine and posts the data there
	// (Inspect), then looks its node up as usual (with the node UUID
	// inspector answered) or, without APIURL, only serves its API.
	InspectionCallbackURL string
	// InspectionCollectors is ipa-inspection-collectors, comma-separated
	// (default "default"; "logs" is the other one this agent has).
	InspectionCollectors string
	// InspectionDHCPWaitTimeout is ipa-inspection-dhcp-wait-timeout: how
	// long inspection waits for the PXE NIC (BootIF), or every NIC with
	// InspectionDHCPAllInterfaces (ipa-inspection-dhcp-all-interfaces),
	// to have an IPv4 address. Zero does not wait (IPA's default is 60 s,
	// which cmd/ironic-agent sets).
	InspectionDHCPWaitTimeout   time.Duration
	InspectionDHCPAllInterfaces bool
	// BootIF is the PXE NIC's MAC (BOOTIF, aa:bb:cc:dd:ee:ff).
	BootIF string
	// OnLookup, when set, is called with the node's UUID once a lookup
	// succeeds (cmd/ironic-agent names the node in agent/disk's
	// messages with it); it must not block.
	OnLookup func(nodeUUID string)

	// Dependencies; nil picks the real thing (Disks, Power and
	// Inventory are required for the commands that use them).
	Disks     Disks
	Power     Power
	Inventory Inventory
	// UEFI, nil for a machine booted by BIOS.
	UEFI  UEFI
	HTTP  *http.Client
	Clock Clock
	// Rand returns a float in [0, 1) (the heartbeat jitter and the
	// lookup back-off).
	Rand func() float64
	// NewID returns a command result's id (default a random UUID).
	NewID  func() string
	Logger *slog.Logger
}

func (c *Config) defaults() {
	if c.AdvertisePort == 0 {
		c.AdvertisePort = 9999
	}
	if c.ListenAddress == "" {
		c.ListenAddress = ":" + strconv.Itoa(c.AdvertisePort)
	}
	if c.LookupTimeout == 0 {
		c.LookupTimeout = 600 * time.Second
	}
	if c.LookupInterval == 0 {
		c.LookupInterval = time.Second
	}
	if c.MaxLookupInterval == 0 {
		c.MaxLookupInterval = 60 * time.Second
	}
	if c.ForcedHeartbeatGap == 0 {
		c.ForcedHeartbeatGap = 5 * time.Second
	}
	if c.InspectionCollectors == "" {
		c.InspectionCollectors = DefaultInspectionCollectors
	}
	if c.RescuePasswordFile == "" {
		c.RescuePasswordFile = "/etc/ipa-rescue-config/ipa-rescue-password"
	}
	if c.Root == "" {
		c.Root = "/"
	}
	if c.HTTP == nil {
		c.HTTP = &http.Client{Timeout: 60 * time.Second}
	}
	if c.Clock == nil {
		c.Clock = realClock{}
	}
	if c.Rand == nil {
		c.Rand = cryptoFloat
	}
	if c.NewID == nil {
		c.NewID = randomUUID
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

func cryptoFloat() float64 {
	n, err := rand.Int(rand.Reader, big.NewInt(1<<53))
	if err != nil {
		return 0.5
	}
	return float64(n.Int64()) / (1 << 53)
}

func randomUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// Agent is one run of the agent: its token, node, command results and
// heartbeat state.
type Agent struct {
	cfg       Config
	log       *slog.Logger
	startedAt time.Time
	client    *ironicClient
	cmds      *commands

	mu            sync.Mutex
	token         string
	tokenRequired bool
	node          map[string]any
	hbTimeout     float64
	logMu         sync.Mutex
	forced        chan struct{}
	stop          chan struct{}
	stopOnce      sync.Once
}

// New makes an agent from cfg (defaults filled in as documented).
func New(cfg Config) *Agent {
	cfg.defaults()
	a := &Agent{cfg: cfg, log: cfg.Logger, token: cfg.AgentToken, tokenRequired: cfg.AgentTokenRequired,
		forced: make(chan struct{}, 1), stop: make(chan struct{})}
	a.client = &ironicClient{cfg: &a.cfg, log: a.log}
	a.cmds = newCommands(a)
	return a
}

// Handler is the command API (IPA's api/app.py routes).
func (a *Agent) Handler() http.Handler { return &api{a: a} }

// Run is IPA's IronicPythonAgent.run: inspect (when an inspection
// callback URL is set; see Inspect), look the node up (when an API URL
// is set), serve the command API on ln (nil listens on
// Config.ListenAddress) and heartbeat until ctx ends or
// rescue.finalize_rescue stops the agent. A lookup that times out is an
// error, as in IPA (whose service manager then restarts it).
func (a *Agent) Run(ctx context.Context, ln net.Listener) (err error) {
	a.startedAt = a.cfg.Clock.Now()
	if err := a.runInspection(ctx); err != nil {
		return err
	}
	if a.cfg.APIURL != "" {
		content, err := a.lookup(ctx)
		if err != nil {
			return err
		}
		a.processLookup(ctx, content)
		if id := a.nodeUUID(); id != "" && a.cfg.OnLookup != nil {
			a.cfg.OnLookup(id)
		}
	}
	if a.cfg.AdvertiseHost == "" && a.cfg.APIURL != "" {
		a.cfg.AdvertiseHost = routeSource(a.cfg.APIURL)
	}
	if ln == nil {
		if ln, err = net.Listen("tcp", a.cfg.ListenAddress); err != nil {
			return fmt.Errorf("command API: %w", err)
		}
	}
	srv := &http.Server{Handler: a.Handler(), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) }}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	a.log.InfoContext(ctx, "started API service", "address", ln.Addr().String())
	hbDone := make(chan struct{})
	hbCtx, stopHB := context.WithCancel(ctx)
	go func() {
		defer close(hbDone)
		if a.cfg.APIURL != "" {
			a.heartbeatLoop(hbCtx)
		}
	}()
	select {
	case <-ctx.Done():
	case <-a.stop:
		a.log.InfoContext(ctx, "agent stopped (rescue finalized)")
	case err = <-serveErr:
	}
	stopHB()
	<-hbDone
	shutCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutCtx)
	a.cmds.wait()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// Stopped is closed once the agent stops serving (after
// rescue.finalize_rescue, as IPA's serve_api = False).
func (a *Agent) Stopped() <-chan struct{} { return a.stop }

func (a *Agent) stopServing() { a.stopOnce.Do(func() { close(a.stop) }) }

// validToken is IPA's validate_agent_token.
func (a *Agent) validToken(token string, given bool) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if (!given || token == "") && a.token != "" && !a.tokenRequired {
		return true
	}
	if a.token == "" {
		return !given
	}
	return given && a.token == token
}

// forceHeartbeat asks for a heartbeat soon (a command finished).
func (a *Agent) forceHeartbeat() {
	select {
	case a.forced <- struct{}{}:
	default:
	}
}

func (a *Agent) inventory(ctx context.Context) (hardware.Inventory, error) {
	if a.cfg.Inventory == nil {
		return hardware.Reader{Root: a.cfg.Root, Disks: a.disks()}.Inventory(ctx)
	}
	return a.cfg.Inventory.Inventory(ctx)
}

func inventoryMACs(inv hardware.Inventory) []string { return inv.MACs() }

// routeSource is IPA's _get_route_source: the local address the kernel
// would send from to reach the API (a connected UDP socket sends
// nothing).
func routeSource(apiURL string) string {
	u, err := url.Parse(apiURL)
	if err != nil {
		return ""
	}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	c, err := net.Dial("udp", net.JoinHostPort(u.Hostname(), port))
	if err != nil {
		return ""
	}
	defer c.Close()
	if ua, ok := c.LocalAddr().(*net.UDPAddr); ok {
		return ua.IP.String()
	}
	return ""
}
