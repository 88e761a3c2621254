// Package rabbittest gives tests a private RabbitMQ: Debian's
// rabbitmq-server run as a plain process (not the system service) with
// its own node name, mnesia directory, Erlang cookie, epmd and free ports
// on 127.0.0.1, started once per test binary and stopped when it exits
// (use Main in TestMain). Tests can restart it to test reconnection.
//
// Tests are skipped when rabbitmq-server is not installed
// (scripts/install-test-deps.sh installs it), unless the environment sets
// IRONIC_TEST_REQUIRE_RABBITMQ=1, which makes them fail.
package rabbittest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/goironic/ironic/internal/freeport"

	amqp "github.com/rabbitmq/amqp091-go"
)

// StartTimeout bounds a broker start.
const StartTimeout = 120 * time.Second

// Broker is a private RabbitMQ node. The guest user (loopback only) owns
// vhost "/".
type Broker struct {
	Dir      string
	AMQPPort int
	// TLS is the TLS listener.
	TLS      TLS
	epmdPort int
	distPort int
	sbin     string

	mu     sync.Mutex
	server *exec.Cmd
	exited chan struct{}
	epmd   *exec.Cmd
}

// TransportURL is the oslo.messaging transport_url of the broker.
func (b *Broker) TransportURL() string {
	return fmt.Sprintf("rabbit://guest:guest@127.0.0.1:%d/", b.AMQPPort)
}

// AMQPURL is the URL for AMQP clients.
func (b *Broker) AMQPURL() string { return fmt.Sprintf("amqp://guest:guest@127.0.0.1:%d/", b.AMQPPort) }

// sbinDir finds rabbitmq-server; "" when RabbitMQ is not installed.
func sbinDir() string {
	dirs, _ := filepath.Glob("/usr/lib/rabbitmq/lib/rabbitmq_server-*/sbin")
	sort.Strings(dirs)
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "rabbitmq-server")); err == nil {
			return dirs[i]
		}
	}
	return ""
}

var (
	sharedMu  sync.Mutex
	shared    *Broker
	sharedErr error
)

// Shared returns the test binary's broker, starting it on first use.
func Shared(t testing.TB) *Broker {
	t.Helper()
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared == nil && sharedErr == nil {
		sbin := sbinDir()
		if sbin == "" {
			if os.Getenv("IRONIC_TEST_REQUIRE_RABBITMQ") == "1" {
				t.Fatal("rabbittest: rabbitmq-server is not installed (scripts/install-test-deps.sh)")
			}
			t.Skip("rabbittest: rabbitmq-server is not installed (scripts/install-test-deps.sh installs it)")
		}
		shared, sharedErr = start(sbin)
	}
	if sharedErr != nil {
		t.Fatalf("rabbittest: %v", sharedErr)
	}
	return shared
}

// Main runs the tests, then stops the shared broker.
func Main(m *testing.M) {
	code := m.Run()
	StopShared()
	os.Exit(code)
}

// StopShared stops the shared broker, if started, and removes its files.
func StopShared() {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared != nil {
		shared.Stop()
		shared.stopEPMD()
		_ = os.RemoveAll(shared.Dir)
		shared = nil
	}
}

func start(sbin string) (*Broker, error) {
	dir, err := os.MkdirTemp("", "goironic-rabbitmq-")
	if err != nil {
		return nil, err
	}
	b := &Broker{Dir: dir, sbin: sbin}
	for _, p := range []*int{&b.AMQPPort, &b.TLS.Port, &b.epmdPort, &b.distPort} {
		if *p, err = freeport.TCP(); err != nil {
			return nil, err
		}
	}
	for _, d := range []string{"home", "mnesia", "log"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return nil, err
		}
	}
	tls, tlsConf, err := writeTLS(filepath.Join(dir, "tls"), b.TLS.Port)
	if err != nil {
		return nil, err
	}
	b.TLS = tls
	files := map[string]string{
		"rabbitmq.conf":       fmt.Sprintf("listeners.tcp.1 = 127.0.0.1:%d\nlog.file.level = warning\nlog.console = false\n", b.AMQPPort) + tlsConf,
		"enabled_plugins":     "[].\n",
		"advanced.config":     "[].\n",
		"rabbitmq-env.conf":   "",
		"home/.erlang.cookie": fmt.Sprintf("GOIRONIC%dCOOKIE%d", os.Getpid(), b.AMQPPort),
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o400); err != nil {
			return nil, err
		}
	}
	epmd := exec.Command("epmd", "-port", strconv.Itoa(b.epmdPort), "-address", "127.0.0.1")
	epmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := epmd.Start(); err != nil {
		return nil, fmt.Errorf("epmd: %w", err)
	}
	b.epmd = epmd
	if err := b.Start(); err != nil {
		b.stopEPMD()
		return nil, err
	}
	return b, nil
}

func (b *Broker) env() []string {
	dir := b.Dir
	return append(os.Environ(),
		"HOME="+filepath.Join(dir, "home"),
		"RABBITMQ_CONF_ENV_FILE="+filepath.Join(dir, "rabbitmq-env.conf"),
		"RABBITMQ_CONFIG_FILE="+filepath.Join(dir, "rabbitmq"),
		"RABBITMQ_ADVANCED_CONFIG_FILE="+filepath.Join(dir, "advanced.config"),
		"RABBITMQ_ENABLED_PLUGINS_FILE="+filepath.Join(dir, "enabled_plugins"),
		fmt.Sprintf("RABBITMQ_NODENAME=goironic%d@localhost", b.AMQPPort),
		"RABBITMQ_NODE_IP_ADDRESS=127.0.0.1",
		"RABBITMQ_NODE_PORT="+strconv.Itoa(b.AMQPPort),
		"RABBITMQ_DIST_PORT="+strconv.Itoa(b.distPort),
		"RABBITMQ_MNESIA_BASE="+filepath.Join(dir, "mnesia"),
		"RABBITMQ_LOG_BASE="+filepath.Join(dir, "log"),
		"RABBITMQ_PID_FILE="+filepath.Join(dir, "rabbit.pid"),
		"ERL_EPMD_PORT="+strconv.Itoa(b.epmdPort),
		"ERL_EPMD_ADDRESS=127.0.0.1",
		"RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS=-kernel inet_dist_use_interface {127,0,0,1}",
	)
}

// Start starts the broker (again, after Stop) and waits until it accepts
// AMQP connections.
func (b *Broker) Start() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.server != nil {
		return nil
	}
	logf, err := os.OpenFile(filepath.Join(b.Dir, "log", "startup.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(filepath.Join(b.sbin, "rabbitmq-server"))
	cmd.Env = b.env()
	cmd.Dir = b.Dir
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own process group, so that Stop reaches beam.smp too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("rabbitmq-server: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); logf.Close(); close(exited) }()
	b.server, b.exited = cmd, exited
	deadline := time.Now().Add(StartTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			b.server = nil
			log, _ := os.ReadFile(filepath.Join(b.Dir, "log", "startup.log"))
			return fmt.Errorf("rabbitmq-server exited during start:\n%s", tail(log, 2000))
		default:
		}
		if conn, err := amqp.Dial(b.AMQPURL()); err == nil {
			_ = conn.Close()
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	b.stopLocked()
	return fmt.Errorf("rabbitmq-server not ready after %s", StartTimeout)
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// Stop stops the broker (SIGTERM to its process group, then SIGKILL) and
// waits for it to exit.
func (b *Broker) Stop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stopLocked()
}

func (b *Broker) stopLocked() {
	if b.server == nil {
		return
	}
	pgid := b.server.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-b.exited:
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-b.exited
	}
	// beam.smp may outlive the wrapper shell for a moment.
	for i := 0; i < 100 && syscall.Kill(-pgid, 0) == nil; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	b.server = nil
}

// Restart stops and starts the broker; clients lose their connections.
func (b *Broker) Restart(t testing.TB) {
	t.Helper()
	b.Stop()
	if err := b.Start(); err != nil {
		t.Fatalf("rabbittest: restart: %v", err)
	}
}

func (b *Broker) stopEPMD() {
	if b.epmd != nil && b.epmd.Process != nil {
		_ = syscall.Kill(-b.epmd.Process.Pid, syscall.SIGTERM)
		_ = b.epmd.Wait()
		b.epmd = nil
	}
}

// Context returns a context that ends with the test or after d.
func Context(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
