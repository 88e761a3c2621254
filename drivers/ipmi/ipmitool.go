package ipmi

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/py"
)

// retryableFailures are the ipmitool error texts Ironic retries whatever
// the configuration (IPMITOOL_RETRYABLE_FAILURES).
var retryableFailures = []string{
	"insufficient resources for session",
	"Node busy",
	"Timeout",
	"Out of space",
	"BMC initialization in progress",
}

// cipherSuiteErrors are the ipmitool errors after which the next of
// [ipmi]cipher_suite_versions is tried.
var cipherSuiteErrors = []string{
	"Unsupported cipher suite ID",
	"Error in open session response message : no matching cipher suite",
}

// bridgingOptions map Info's bridging fields to ipmitool's options, in
// Ironic's order (BRIDGING_OPTIONS).
var bridgingOptions = []struct {
	flag  string
	value func(*Info) any
}{
	{"-m", func(i *Info) any { return i.LocalAddress }},
	{"-B", func(i *Info) any { return i.TransitChannel }},
	{"-T", func(i *Info) any { return i.TransitAddress }},
	{"-b", func(i *Info) any { return i.TargetChannel }},
	{"-t", func(i *Info) any { return i.TargetAddress }},
}

// tool runs ipmitool for the interfaces of one registry: Ironic's
// _exec_ipmitool with its option probes, retries and per-BMC pacing.
type tool struct {
	cfg   Config
	gates *gates

	probeOnce sync.Once
	support   map[string]bool // "timing", "single_bridge", "dual_bridge"
}

func newTool(cfg Config) *tool {
	return &tool{cfg: cfg.withDefaults(), gates: &gates{m: map[string]*gate{}}}
}

// probes are the command lines whose success tells whether the
// installed ipmitool has an option (ipmitool_command_options).
var probes = []struct{ name string }{{"timing"}, {"single_bridge"}, {"dual_bridge"}}

func probeArgv(name string) []string {
	switch name {
	case "timing":
		return []string{"ipmitool", "-N", "0", "-R", "0", "-h"}
	case "single_bridge":
		return []string{"ipmitool", "-m", "0", "-b", "0", "-t", "0", "-h"}
	}
	return []string{"ipmitool", "-m", "0", "-b", "0", "-t", "0", "-B", "0", "-T", "0", "-h"}
}

// supports reports whether the installed ipmitool has an option,
// probing them all once (Ironic's _check_option_support, run when its
// interfaces load). An ipmitool that cannot run supports nothing.
func (t *tool) supports(ctx context.Context, option string) bool {
	t.probeOnce.Do(func() {
		t.support = map[string]bool{}
		for _, p := range probes {
			_, _, err := t.cfg.Runner.Run(context.WithoutCancel(ctx), probeArgv(p.name), RunOptions{Timeout: time.Minute})
			t.support[p.name] = err == nil
			var ee *ExecError
			switch {
			case err == nil:
				t.cfg.Log.InfoContext(ctx, fmt.Sprintf("Option %s is supported by ipmitool", p.name))
			case errors.As(err, &ee):
				t.cfg.Log.InfoContext(ctx, fmt.Sprintf("Option %s is not supported by ipmitool", p.name))
			default:
				t.cfg.Log.ErrorContext(ctx, "Unable to locate usable ipmitool command in the system path when checking ipmitool version", "error", err)
			}
		}
	})
	return t.support[option]
}

// args is _get_ipmitool_args: the interface, address, privilege level,
// port, user, Kg key, cipher suite and bridging options of the node, a
// password file when given (consoles), and -v when [ipmi]debug is set.
func (t *tool) args(info *Info, pwFile string) []string {
	iface := "lan"
	if info.ProtocolVersion == "2.0" {
		iface = "lanplus"
	}
	args := []string{"ipmitool", "-I", iface, "-H", info.Address, "-L", info.PrivLevel}
	if info.DestPort != nil && *info.DestPort != 0 {
		args = append(args, "-p", strconv.FormatInt(*info.DestPort, 10))
	}
	if py.Truthy(info.Username) {
		args = append(args, "-U", py.Str(info.Username))
	}
	if py.Truthy(info.HexKgKey) {
		args = append(args, "-y", py.Str(info.HexKgKey))
	}
	if py.Truthy(info.CipherSuite) {
		args = append(args, "-C", py.Str(info.CipherSuite))
	}
	for _, o := range bridgingOptions {
		if v := o.value(info); v != nil {
			args = append(args, o.flag, py.Str(v))
		}
	}
	if pwFile != "" {
		args = append(args, "-f", pwFile)
	}
	if t.cfg.Debug {
		args = append(args, "-v")
	}
	return args
}

// seconds is d in whole seconds, as Ironic's integer options hold it.
func seconds(d time.Duration) int64 { return int64(d / time.Second) }

// timingArgs is _ipmitool_timing_args: -R and -N when ipmitool has them.
// With [ipmi]use_ipmitool_retries, -R counts the tries that fit in
// command_retry_timeout, each waiting a second longer than the one
// before.
func (t *tool) timingArgs(ctx context.Context) []string {
	if !t.supports(ctx, "timing") {
		return nil
	}
	interval := seconds(t.cfg.MinCommandInterval)
	if !t.cfg.UseIpmitoolRetries {
		return []string{"-R", "1", "-N", strconv.FormatInt(interval, 10)}
	}
	timeout := seconds(t.cfg.CommandRetryTimeout)
	var tries, duration int64
	for iv := interval; duration+iv <= timeout; iv++ {
		duration += iv
		tries++
	}
	return []string{"-R", strconv.FormatInt(tries, 10), "-N", strconv.FormatInt(interval, 10)}
}

// execOptions qualify one ipmitool command.
type execOptions struct {
	// exitCodes are the accepted exit statuses (empty: 0).
	exitCodes []int
	// killOnTimeout kills ipmitool after [ipmi]command_retry_timeout.
	killOnTimeout bool
}

// exec is _exec_ipmitool: it runs "ipmitool <node's args> <timing args>
// -f <password file> <command>", the password written to a 0600 file
// of [DEFAULT]tempdir that is removed after each run. A failure is
// retried until command_retry_timeout has passed or
// command_retry_timeout/min_command_interval tries were made: every
// failure, or with use_ipmitool_retries only those naming one of the
// retryable errors; under drivers.SingleAttempt (the power sync's reads),
// none. Each try waits until min_command_interval has passed
// since the last command to the same BMC ended (the BMC's gate, which
// also keeps two commands from reaching one BMC at once). A failed
// ipmitool is an *ExecError; a killed one a *TimeoutError; a password
// file that cannot be written a PasswordFileFailedToCreate fault.
func (t *tool) exec(ctx context.Context, info *Info, command string, o execOptions) (stdout, stderr string, err error) {
	args := t.args(info, "")
	changeCS := len(t.cfg.CipherSuiteVersions) > 0 && info.CipherSuite == nil
	actualCS := ""
	args = append(args, t.timingArgs(ctx)...)
	timeout := seconds(t.cfg.CommandRetryTimeout)
	interval := seconds(t.cfg.MinCommandInterval)
	run := RunOptions{ExitCodes: o.exitCodes}
	if o.killOnTimeout {
		run.Timeout = t.cfg.CommandRetryTimeout
	}
	end := t.cfg.Clock.Now().Add(t.cfg.CommandRetryTimeout)
	tries := timeout
	if interval > 0 {
		tries = timeout / interval
	}
	tries = max(tries, 1)
	g := t.gates.get(info.bmcKey())
	password := info.Password
	if password == "" {
		password = "\x00"
	}
	for {
		tries--
		if err := g.enter(ctx, t.cfg.Clock, t.cfg.Sleeper, t.cfg.MinCommandInterval); err != nil {
			return "", "", err
		}
		stdout, stderr, err = t.runWithPassword(ctx, args, password, command, run)
		g.leave(t.cfg.Clock.Now())
		var pwErr *passwordFileError
		if err == nil || errors.As(err, &pwErr) {
			if pwErr != nil {
				return "", "", ironic.Errorf(ironic.PasswordFileFailedToCreate, "Failed to create the password file. %s", pwErr.err)
			}
			return stdout, stderr, nil
		}
		var ee *ExecError
		if !errors.As(err, &ee) {
			return stdout, stderr, err
		}
		if changeCS && containsAny(ee.Stderr, cipherSuiteErrors) {
			actualCS = t.nextCipherSuite(actualCS)
			if i := slices.Index(args, "-C"); i >= 0 {
				args[i+1] = actualCS
			} else {
				args = append(args, "-C", actualCS)
			}
		} else {
			changeCS = false
		}
		retryable := containsAny(err.Error(), retryableFailures) || containsAny(err.Error(), t.cfg.AdditionalRetryableErrors)
		if t.cfg.Clock.Now().After(end) || tries == 0 || (!retryable && t.cfg.UseIpmitoolRetries) || drivers.IsSingleAttempt(ctx) {
			t.cfg.Log.ErrorContext(ctx, fmt.Sprintf("IPMI Error while attempting \"%s\" for node %s. Error: %s", strings.Join(ee.Argv, " "), info.NodeUUID, err), "node", info.NodeUUID)
			return stdout, stderr, err
		}
		t.cfg.Log.WarnContext(ctx, fmt.Sprintf("IPMI Error encountered, retrying \"%s\" for node %s. Error: %s", strings.Join(ee.Argv, " "), info.NodeUUID, err), "node", info.NodeUUID)
	}
}

// passwordFileError is a password file that could not be written.
type passwordFileError struct{ err error }

func (e *passwordFileError) Error() string { return e.err.Error() }

// runWithPassword writes password to a fresh 0600 file, runs args, -f
// and the file, and command's words, and removes the file.
func (t *tool) runWithPassword(ctx context.Context, args []string, password, command string, run RunOptions) (string, string, error) {
	path, err := writePasswordFile(t.cfg.TempDir, password)
	if err != nil {
		return "", "", &passwordFileError{err}
	}
	defer os.Remove(path)
	argv := slices.Concat(args, []string{"-f", path}, strings.Split(command, " "))
	return t.cfg.Runner.Run(ctx, argv, run)
}

// writePasswordFile is _make_password_file: a new file of dir (the
// system's temporary directory when empty), readable by this user only,
// holding password.
func writePasswordFile(dir, password string) (string, error) {
	f, err := os.CreateTemp(dir, "tmp")
	if err != nil {
		return "", err
	}
	_, werr := f.WriteString(password)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// nextCipherSuite is choose_cipher_suite: the last of
// [ipmi]cipher_suite_versions first, then each one before it, staying
// on the first.
func (t *tool) nextCipherSuite(actual string) string {
	versions := t.cfg.CipherSuiteVersions
	i := slices.Index(versions, actual)
	if actual == "" || i < 0 {
		return versions[len(versions)-1]
	}
	return versions[max(i-1, 0)]
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// gates pace the commands to each BMC.
type gates struct {
	mu sync.Mutex
	m  map[string]*gate
}

func (gs *gates) get(key string) *gate {
	gs.mu.Lock()
	defer gs.mu.Unlock()
	g := gs.m[key]
	if g == nil {
		g = &gate{slot: make(chan struct{}, 1)}
		gs.m[key] = g
	}
	return g
}

// gate is one BMC's: one command at a time, min_command_interval after
// the end of the one before (Ironic's LAST_CMD_TIME).
type gate struct {
	slot chan struct{}
	last time.Time // guarded by slot
}

// enter waits for the BMC's turn, then for interval to pass since its
// last command ended.
func (g *gate) enter(ctx context.Context, clock ironic.Clock, sleeper Sleeper, interval time.Duration) error {
	select {
	case g.slot <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	if wait := interval - clock.Now().Sub(g.last); !g.last.IsZero() && wait > 0 {
		if err := sleeper.Sleep(ctx, wait); err != nil {
			<-g.slot
			return err
		}
	}
	return nil
}

// leave records when the command ended and hands the BMC on.
func (g *gate) leave(now time.Time) {
	g.last = now
	<-g.slot
}
