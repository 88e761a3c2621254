package boot

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Exit is how a child process ended.
type Exit struct {
	PID    int
	Code   int    // exit status, when it exited
	Signal string // the signal that killed it, if one did
}

func (e Exit) String() string {
	if e.Signal != "" {
		return fmt.Sprintf("pid %d killed by %s", e.PID, e.Signal)
	}
	return fmt.Sprintf("pid %d exited with status %d", e.PID, e.Code)
}

// Starter starts the agent as a child process and returns its PID.
type Starter interface {
	StartAgent() (int, error)
}

// Reaper waits for any child of this process to end (wait4(-1)):
// the agent, or an orphan the kernel handed to PID 1.
type Reaper interface {
	WaitAny() (Exit, error)
}

// Supervisor is PID 1 once the machine is set up: it runs the agent as
// its child, restarts it when it ends as the Ironic Python Agent's
// systemd unit does (Restart=always, RestartSec=30s, not once the node
// is rescued: ConditionPathExists=!/etc/.rescued), and reaps every
// orphan, so that the agent is not PID 1 (whose end panics the kernel)
// and its own commands are reaped by os/exec without a race with
// PID 1's reaping.
type Supervisor struct {
	Log     *slog.Logger
	Starter Starter
	Reaper  Reaper
	Files   Files
	Sleep   func(ctx context.Context, d time.Duration) error
	// RestartDelay is the wait before the agent is started again.
	RestartDelay time.Duration
	// Starts bounds how many times the agent is started (0: no bound;
	// tests bound it).
	Starts int
}

// RescuedMarker is the file whose presence keeps a finished agent from
// being restarted (IPA's rescue.finalize_rescue writes it).
const RescuedMarker = "/etc/.rescued"

// DefaultRestartDelay is IPA's unit's RestartSec.
const DefaultRestartDelay = 30 * time.Second

// Run starts the agent and supervises it until ctx ends or Starts is
// reached; it returns the number of orphans it reaped.
func (s *Supervisor) Run(ctx context.Context) (int, error) {
	reaped := 0
	for n := 1; s.Starts == 0 || n <= s.Starts; n++ {
		if ctx.Err() != nil {
			return reaped, ctx.Err()
		}
		if _, err := s.Files.ReadFile(RescuedMarker); err == nil {
			s.Log.InfoContext(ctx, "node rescued: the agent is not started again", "marker", RescuedMarker)
			return reaped, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			s.Log.WarnContext(ctx, "reading the rescue marker", "err", err)
		}
		pid, err := s.Starter.StartAgent()
		if err != nil {
			s.Log.ErrorContext(ctx, "starting the agent", "attempt", n, "err", err)
		} else {
			s.Log.InfoContext(ctx, "agent started", "attempt", n, "pid", pid)
			for {
				e, err := s.Reaper.WaitAny()
				if err != nil {
					// ECHILD: the agent is gone without our seeing it end.
					s.Log.ErrorContext(ctx, "waiting for the agent", "pid", pid, "err", err)
					break
				}
				if e.PID == pid {
					s.Log.ErrorContext(ctx, "agent ended", "exit", e.String(), "attempt", n)
					break
				}
				reaped++
				s.Log.DebugContext(ctx, "orphan reaped", "exit", e.String())
			}
		}
		if s.Starts != 0 && n == s.Starts {
			break
		}
		s.Log.InfoContext(ctx, "restarting the agent", "after", s.RestartDelay)
		if err := s.Sleep(ctx, s.RestartDelay); err != nil {
			return reaped, err
		}
	}
	return reaped, nil
}

// AgentEnv is set (to "1") in the environment of the agent Init starts.
const AgentEnv = "GOIRONIC_RAMDISK_AGENT"

// InRamdisk reports whether this process is the agent Init started:
// its parameters are then on /proc/cmdline (ParseCmdline).
func InRamdisk() bool { return os.Getenv(AgentEnv) == "1" }

// selfStarter runs this same executable again (/proc/self/exe) with
// the same arguments and standard streams, AgentEnv set.
type selfStarter struct{}

func (selfStarter) StartAgent() (int, error) {
	p, err := os.StartProcess("/proc/self/exe", os.Args, &os.ProcAttr{
		Env:   append(os.Environ(), AgentEnv+"=1"),
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
	})
	if err != nil {
		return 0, err
	}
	pid := p.Pid
	// Never p.Wait(): the Reaper collects it, with the orphans.
	_ = p.Release()
	return pid, nil
}

type wait4Reaper struct{}

func (wait4Reaper) WaitAny() (Exit, error) {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return Exit{}, err
		}
		e := Exit{PID: pid, Code: ws.ExitStatus()}
		if ws.Signaled() {
			e.Signal = ws.Signal().String()
		}
		return e, nil
	}
}

// InitConfig adjusts Init (zero values: the defaults).
type InitConfig struct {
	// RestartDelay is the wait before the agent is started again
	// (DefaultRestartDelay).
	RestartDelay time.Duration
	// Starts bounds the agent's starts (0: none).
	Starts int
	// LinkWait bounds the wait for the NICs (DefaultLinkWait).
	LinkWait time.Duration
}

// Init is the agent's main when it is PID 1 (IsInit): it sets the
// machine up (Linux().Run), keeps the DHCP leases, and runs this same
// binary again as the agent under a Supervisor (the child is not PID 1,
// so it runs as on any host, with InRamdisk true: its parameters are on
// /proc/cmdline). It never returns: once the supervisor stops (a
// rescued node whose agent ended, or cfg.Starts reached) PID 1 goes on
// reaping.
func Init(ctx context.Context, log *slog.Logger, cfg InitConfig) {
	setup := Linux(log)
	if cfg.LinkWait > 0 {
		setup.LinkWait = cfg.LinkWait
	}
	res, err := setup.Run(ctx)
	if err != nil {
		log.ErrorContext(ctx, "ramdisk set-up", "err", err)
	}
	go setup.KeepLeases(ctx, res.Interfaces)
	sup := &Supervisor{Log: log, Starter: selfStarter{}, Reaper: wait4Reaper{}, Files: osFiles{},
		Sleep: sleepCtx, RestartDelay: DefaultRestartDelay, Starts: cfg.Starts}
	if cfg.RestartDelay > 0 {
		sup.RestartDelay = cfg.RestartDelay
	}
	if _, err := sup.Run(ctx); err != nil {
		log.ErrorContext(ctx, "supervisor", "err", err)
	}
	for {
		if _, err := (wait4Reaper{}).WaitAny(); err != nil {
			_ = sleepCtx(context.Background(), time.Second)
		}
	}
}
