package ipmi

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/option"
)

// Config configures the ipmitool interfaces: every [ipmi] and [console]
// option of Ironic 21.4, the [conductor] power timeouts the power
// interface waits with, and the clock, sleeper, randomness and command
// runner they use (nil means the real ones).
type Config struct {
	// CommandRetryTimeout is [ipmi]command_retry_timeout: how long a
	// failing ipmitool command is retried.
	CommandRetryTimeout time.Duration
	// MinCommandInterval is [ipmi]min_command_interval: the least time
	// between two commands to one BMC, and ipmitool's -N.
	MinCommandInterval time.Duration
	// UseIpmitoolRetries is [ipmi]use_ipmitool_retries: ipmitool retries
	// (-R computed from the timeout) and only errors of the retryable
	// list are retried here.
	UseIpmitoolRetries bool
	// KillOnTimeout is [ipmi]kill_on_timeout: "power status" and
	// "sdr -v" are killed after CommandRetryTimeout.
	KillOnTimeout bool
	// DisableBootTimeout is [ipmi]disable_boot_timeout: send
	// "raw 0x00 0x08 0x03 0x08" before setting a boot device, unless the
	// node's driver_info/ipmi_disable_boot_timeout says otherwise.
	DisableBootTimeout bool
	// AdditionalRetryableErrors is [ipmi]additional_retryable_ipmi_errors.
	AdditionalRetryableErrors []string
	// Debug is [ipmi]debug: ipmitool runs with -v.
	Debug bool
	// CipherSuiteVersions is [ipmi]cipher_suite_versions: the cipher
	// suites tried, last first, for nodes without ipmi_cipher_suite.
	CipherSuiteVersions []string

	// Terminal is [console]terminal, the shellinabox daemon.
	Terminal string
	// TerminalCertDir is [console]terminal_cert_dir ("" means plain
	// http for shellinabox).
	TerminalCertDir string
	// TerminalPIDDir is [console]terminal_pid_dir ("" means TempDir).
	TerminalPIDDir string
	// TerminalTimeout is [console]terminal_timeout: socat's -T.
	TerminalTimeout time.Duration
	// SubprocessCheckingInterval and SubprocessTimeout are
	// [console]subprocess_checking_interval and subprocess_timeout: how
	// often, and how long, a starting console process is watched.
	SubprocessCheckingInterval time.Duration
	SubprocessTimeout          time.Duration
	// KillTimeout is [console]kill_timeout: SIGKILL follows SIGTERM
	// after it.
	KillTimeout time.Duration
	// SocatAddress is [console]socat_address (defaults to [DEFAULT]my_ip).
	SocatAddress string
	// PortRange is [console]port_range ("" when unset): the ports
	// consoles are given when the node has no ipmi_terminal_port.
	PortRange string

	// PowerStateChangeTimeout is [conductor]power_state_change_timeout:
	// how long a power action waits for the state when no timeout is
	// given.
	PowerStateChangeTimeout time.Duration
	// SoftPowerOffTimeout is [conductor]soft_power_off_timeout, for soft
	// power off without a timeout.
	SoftPowerOffTimeout time.Duration
	// DefaultBootMode is [deploy]default_boot_mode: UEFI nodes get their
	// boot device through raw bytes.
	DefaultBootMode string
	// TempDir is [DEFAULT]tempdir, where password files are written.
	TempDir string
	// MyIP is [DEFAULT]my_ip, the host of shellinabox console URLs.
	MyIP string
	// Host is [DEFAULT]host, named when no console port is free.
	Host string

	// Runner runs ipmitool, socat and shellinaboxd (nil: ExecRunner).
	Runner Runner
	// Clock and Sleeper pace retries and polls (nil: the real ones).
	Clock   ironic.Clock
	Sleeper Sleeper
	// Rand supplies the jitter of power state polling (nil: seeded from
	// the system).
	Rand Rand
	// Log receives Ironic's warnings and errors; nil discards.
	Log *slog.Logger
}

// Bind reads the options the ipmitool interfaces use.
func (c *Config) Bind(b *option.Binder) {
	b.Seconds(&c.CommandRetryTimeout, "ipmi", "command_retry_timeout")
	b.Seconds(&c.MinCommandInterval, "ipmi", "min_command_interval")
	b.Bool(&c.UseIpmitoolRetries, "ipmi", "use_ipmitool_retries")
	b.Bool(&c.KillOnTimeout, "ipmi", "kill_on_timeout")
	b.Bool(&c.DisableBootTimeout, "ipmi", "disable_boot_timeout")
	b.List(&c.AdditionalRetryableErrors, "ipmi", "additional_retryable_ipmi_errors")
	b.Bool(&c.Debug, "ipmi", "debug")
	b.List(&c.CipherSuiteVersions, "ipmi", "cipher_suite_versions")

	b.String(&c.Terminal, "console", "terminal")
	b.String(&c.TerminalCertDir, "console", "terminal_cert_dir")
	b.String(&c.TerminalPIDDir, "console", "terminal_pid_dir")
	b.Seconds(&c.TerminalTimeout, "console", "terminal_timeout")
	b.Seconds(&c.SubprocessCheckingInterval, "console", "subprocess_checking_interval")
	b.Seconds(&c.SubprocessTimeout, "console", "subprocess_timeout")
	b.Seconds(&c.KillTimeout, "console", "kill_timeout")
	b.String(&c.SocatAddress, "console", "socat_address")
	b.String(&c.PortRange, "console", "port_range")

	b.Seconds(&c.PowerStateChangeTimeout, "conductor", "power_state_change_timeout")
	b.Seconds(&c.SoftPowerOffTimeout, "conductor", "soft_power_off_timeout")
	b.String(&c.DefaultBootMode, "deploy", "default_boot_mode")
	b.String(&c.TempDir, "DEFAULT", "tempdir")
	b.String(&c.MyIP, "DEFAULT", "my_ip")
	b.String(&c.Host, "DEFAULT", "host")
}

// DefaultConfig is Ironic 21.4's default configuration.
func DefaultConfig() Config { return option.Default[Config]() }

// Sleeper waits; Sleep returns early with ctx's error when ctx ends.
type Sleeper interface {
	Sleep(ctx context.Context, d time.Duration) error
}

// RealSleeper sleeps on the real clock.
type RealSleeper struct{}

// Sleep waits d or until ctx ends.
func (RealSleeper) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Rand is the randomness of power state polling: a standard normal
// sample (oslo's BackOffLoopingCall draws its jitter from
// random.gauss(0.75, 0.1)).
type Rand interface {
	NormFloat64() float64
}

// withDefaults fills the runtime dependencies left nil.
func (c Config) withDefaults() Config {
	if c.Runner == nil {
		c.Runner = ExecRunner{}
	}
	if c.Clock == nil {
		c.Clock = ironic.SystemClock{}
	}
	if c.Sleeper == nil {
		c.Sleeper = RealSleeper{}
	}
	if c.Rand == nil {
		c.Rand = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())) //nolint:gosec // jitter, not a secret
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	return c
}
