package disk

import (
	"cmp"
	"context"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
)

var _ Disks = (*Manager)(nil)

// Config holds the Manager's settings, with IPA's defaults.
type Config struct {
	// SysRoot is where sysfs is mounted ("/sys"); tests point it at a
	// recorded tree.
	SysRoot string
	// DevRoot is where device nodes live ("/dev"): a device named
	// "/dev/vda" is opened as DevRoot/vda, so tests write to regular files.
	DevRoot string
	// EFIRoot is where the kernel shows UEFI firmware ("/sys/firmware/efi",
	// absent after a BIOS boot), its efivars directory the variables.
	EFIRoot string
	// TempDir holds downloaded images that must be converted (IPA's
	// tempfile.gettempdir()); "" is os.TempDir().
	TempDir string
	// DownloadRetries is IPA's [DEFAULT]image_download_connection_retries
	// (9): the attempts after the first.
	DownloadRetries int
	// RetryInterval is image_download_connection_retry_interval (10 s).
	RetryInterval time.Duration
	// ConnectTimeout is image_download_connection_timeout (60 s): the
	// wait for the answer's headers and between chunks.
	ConnectTimeout time.Duration
}

// DefaultConfig is IPA's defaults on a real machine.
func DefaultConfig() Config {
	return Config{SysRoot: "/sys", DevRoot: "/dev", EFIRoot: "/sys/firmware/efi", DownloadRetries: 9, RetryInterval: 10 * time.Second, ConnectTimeout: 60 * time.Second}
}

// Manager is the agent's disk side. Its zero value is not usable; build
// it with New.
type Manager struct {
	cfg    Config
	client *http.Client
	log    *slog.Logger
	now    func() time.Time
	sleep  func(ctx context.Context, d time.Duration) error
	uuid   func() [16]byte
	node   atomic.Pointer[string]
	// mounter mounts the EFI system partition and efivarfs.
	mounter Mounter
}

// Option sets one of the Manager's dependencies.
type Option func(*Manager)

// WithHTTPClient sets the client images and config drives are fetched
// with (its Transport, when an *http.Transport, is cloned to apply an
// image's proxies).
func WithHTTPClient(c *http.Client) Option { return func(m *Manager) { m.client = c } }

// WithLogger sets the logger.
func WithLogger(l *slog.Logger) Option { return func(m *Manager) { m.log = l } }

// WithClock sets the time source and the sleeper the retries wait with.
func WithClock(now func() time.Time, sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(m *Manager) { m.now, m.sleep = now, sleep }
}

// WithUUIDs sets the source of new partition GUIDs.
func WithUUIDs(f func() [16]byte) Option { return func(m *Manager) { m.uuid = f } }

// SetNodeUUID names the node being deployed in IPA's messages (the
// agent learns it at lookup); until then they say "None".
func (m *Manager) SetNodeUUID(id string) { m.node.Store(&id) }

func (m *Manager) nodeUUID() string {
	if p := m.node.Load(); p != nil {
		return *p
	}
	return "None"
}

// New builds a Manager; zero fields of cfg take DefaultConfig's values
// (DownloadRetries < 0 means no retry).
func New(cfg Config, opts ...Option) *Manager {
	def := DefaultConfig()
	cfg.SysRoot = cmp.Or(cfg.SysRoot, def.SysRoot)
	cfg.DevRoot = cmp.Or(cfg.DevRoot, def.DevRoot)
	cfg.EFIRoot = cmp.Or(cfg.EFIRoot, def.EFIRoot)
	cfg.TempDir = cmp.Or(cfg.TempDir, os.TempDir())
	if cfg.DownloadRetries == 0 {
		cfg.DownloadRetries = def.DownloadRetries
	}
	cfg.DownloadRetries = max(cfg.DownloadRetries, 0)
	cfg.RetryInterval = cmp.Or(cfg.RetryInterval, def.RetryInterval)
	cfg.ConnectTimeout = cmp.Or(cfg.ConnectTimeout, def.ConnectTimeout)
	m := &Manager{cfg: cfg, client: &http.Client{}, log: slog.New(slog.DiscardHandler), now: time.Now, sleep: sleepCtx, uuid: func() [16]byte { return uuid.New() }, mounter: sysMounter{}}
	for _, o := range opts {
		o(m)
	}
	return m
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// devPath is the file a device name ("/dev/vda" or "vda") is opened as.
func (m *Manager) devPath(dev string) string {
	return filepath.Join(m.cfg.DevRoot, strings.TrimPrefix(dev, "/dev/"))
}

// sysBlock is a path under SysRoot/block.
func (m *Manager) sysBlock(elem ...string) string {
	return filepath.Join(append([]string{m.cfg.SysRoot, "block"}, elem...)...)
}
