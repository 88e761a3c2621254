package dbtest

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/goironic/ironic/internal/freeport"

	"github.com/go-sql-driver/mysql"
)

// StartTimeout bounds the initialisation and start of a server.
const StartTimeout = 90 * time.Second

// dirPrefix names the server directories under os.TempDir(), so that a
// later run can remove the ones whose test binary has gone.
const dirPrefix = "goironic-mariadb-"

// Server is a private mariadbd process: its own datadir, unix socket and
// TCP port on 127.0.0.1. Root logs in over the socket without a password.
type Server struct {
	Dir    string
	Socket string
	Port   int

	cmd    *exec.Cmd
	exited chan struct{}
	seq    atomic.Int64
	admin  *sql.DB
	// bin and args start mariadbd again after Halt.
	bin  string
	args []string
}

// Binaries locates mariadbd and mariadb-install-db; ok is false when
// MariaDB is not installed.
func Binaries() (server, installDB string, ok bool) {
	server = lookBin("mariadbd", "/usr/sbin/mariadbd", "mysqld", "/usr/sbin/mysqld")
	installDB = lookBin("mariadb-install-db", "/usr/bin/mariadb-install-db", "mysql_install_db")
	return server, installDB, server != "" && installDB != ""
}

func lookBin(names ...string) string {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// StartMariaDB initialises a datadir under dir and starts mariadbd on it,
// waiting until it answers (at most StartTimeout), with extra server
// options after the usual ones (e.g. "--ssl-ca=..."). The server gets
// SIGTERM when the calling process dies.
func StartMariaDB(ctx context.Context, dir string, extra ...string) (*Server, error) {
	serverBin, installBin, ok := Binaries()
	if !ok {
		return nil, errors.New("dbtest: MariaDB is not installed (mariadbd, mariadb-install-db)")
	}
	ctx, cancel := context.WithTimeout(ctx, StartTimeout)
	defer cancel()
	s := &Server{Dir: dir, Socket: filepath.Join(dir, "mysqld.sock")}
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "owner.pid"), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		return nil, err
	}
	common := []string{
		"--innodb-log-file-size=8M", "--innodb-buffer-pool-size=64M",
	}
	var user []string
	if os.Geteuid() == 0 {
		user = []string{"--user=root"}
	}
	install := exec.CommandContext(ctx, installBin, append(append([]string{
		"--no-defaults", "--datadir=" + data, "--auth-root-authentication-method=normal",
		"--skip-test-db", "--skip-name-resolve",
	}, user...), common...)...)
	if out, err := install.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("dbtest: mariadb-install-db: %w\n%s", err, tail(out, 2000))
	}
	port, err := freeport.TCP()
	if err != nil {
		return nil, err
	}
	s.Port = port
	args := append([]string{
		"--no-defaults", "--datadir=" + data, "--socket=" + s.Socket, "--port=" + strconv.Itoa(port),
		"--bind-address=127.0.0.1", "--pid-file=" + filepath.Join(dir, "mysqld.pid"),
		"--log-error=" + filepath.Join(dir, "mysqld.err"), "--skip-log-bin", "--skip-name-resolve",
		"--innodb-flush-log-at-trx-commit=0", "--innodb-doublewrite=0", "--max-connections=500",
		"--character-set-server=utf8mb3", "--collation-server=utf8mb3_general_ci",
	}, common...)
	args = append(append(args, user...), extra...)
	s.bin, s.args = serverBin, args
	if err := s.launch(ctx); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// launch starts mariadbd and waits until it answers.
func (s *Server) launch(ctx context.Context) error {
	s.exited = make(chan struct{})
	started := make(chan error, 1)
	go s.run(s.bin, s.args, started)
	if err := <-started; err != nil {
		return err
	}
	return s.waitReady(ctx)
}

// Halt stops the server (SIGTERM, as an operator's restart does) but keeps
// its data, so that Resume can start it again on the same port: for tests
// of a database outage.
func (s *Server) Halt() {
	if s.admin != nil {
		s.admin.Close()
		s.admin = nil
	}
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(30 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.exited
		}
	}
	s.cmd = nil
}

// Resume starts a halted server again on its data, port and socket.
func (s *Server) Resume(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, StartTimeout)
	defer cancel()
	return s.launch(ctx)
}

// run starts mariadbd on a locked OS thread that stays blocked in Wait, so
// that Pdeathsig (tied to the creating thread) fires only when the test
// process dies.
func (s *Server) run(bin string, args []string, started chan<- error) {
	runtime.LockOSThread()
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM, Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		close(s.exited)
		started <- fmt.Errorf("dbtest: start mariadbd: %w", err)
		return
	}
	s.cmd = cmd
	started <- nil
	_ = cmd.Wait()
	close(s.exited)
}

func (s *Server) waitReady(ctx context.Context) error {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "unix", s.Socket
	admin, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return err
	}
	admin.SetMaxOpenConns(2)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err = admin.PingContext(pctx)
		cancel()
		if err == nil {
			s.admin = admin
			return nil
		}
		select {
		case <-s.exited:
			admin.Close()
			return fmt.Errorf("dbtest: mariadbd exited during startup:\n%s", s.errorLog())
		case <-ctx.Done():
			admin.Close()
			return fmt.Errorf("dbtest: mariadbd not ready after %s: %w\n%s", StartTimeout, err, s.errorLog())
		case <-tick.C:
		}
	}
}

func (s *Server) errorLog() string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "mysqld.err"))
	return tail(b, 3000)
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// DSN is the go-sql-driver DSN of database name, as root over the socket.
func (s *Server) DSN(name string) string {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.DBName = "root", "unix", s.Socket, name
	cfg.Params = map[string]string{"charset": "utf8"}
	return cfg.FormatDSN()
}

// PythonURL is the SQLAlchemy URL of database name (PyMySQL over the
// socket), for ironic.conf's [database]connection.
func (s *Server) PythonURL(name string) string {
	return "mysql+pymysql://root@localhost/" + name + "?unix_socket=" + s.Socket + "&charset=utf8"
}

func (s *Server) nextID() int64 { return s.seq.Add(1) }

// CreateDatabase creates an empty utf8mb3 database.
func (s *Server) CreateDatabase(ctx context.Context, name string) error {
	_, err := s.admin.ExecContext(ctx, "CREATE DATABASE `"+name+"` CHARACTER SET utf8mb3 COLLATE utf8mb3_general_ci")
	return err
}

// DropDatabase drops a database.
func (s *Server) DropDatabase(ctx context.Context, name string) error {
	_, err := s.admin.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+name+"`")
	return err
}

// Stop terminates the server (SIGTERM, then SIGKILL after 30 s) and
// removes its directory.
func (s *Server) Stop() {
	s.Halt()
	_ = os.RemoveAll(s.Dir)
}

// shared is the test binary's one server, started on first use: the only
// process-wide state of this package, because a test binary has no other
// hook to share a server between its tests.
var shared struct {
	sync.Mutex
	srv *Server
	err error
}

func sharedServer(t testing.TB) *Server {
	t.Helper()
	if _, _, ok := Binaries(); !ok {
		if os.Getenv("IRONIC_TEST_REQUIRE_MARIADB") == "1" {
			t.Fatalf("dbtest: MariaDB is required (IRONIC_TEST_REQUIRE_MARIADB=1) but mariadbd is not installed")
		}
		t.Skip("dbtest: MariaDB is not installed (apt-get install mariadb-server); skipping")
	}
	shared.Lock()
	defer shared.Unlock()
	if shared.srv == nil && shared.err == nil {
		sweepStale()
		dir, err := os.MkdirTemp("", dirPrefix)
		if err == nil {
			shared.srv, err = StartMariaDB(context.Background(), dir)
			if err != nil {
				_ = os.RemoveAll(dir)
			}
		}
		shared.err = err
	}
	if shared.err != nil {
		t.Fatalf("dbtest: %v", shared.err)
	}
	return shared.srv
}

// StopShared stops the shared server if it was started.
func StopShared() {
	shared.Lock()
	defer shared.Unlock()
	if shared.srv != nil {
		shared.srv.Stop()
		shared.srv = nil
	}
}

// sweepStale removes server directories left by test binaries that are no
// longer running (stopping their mariadbd if it survived).
func sweepStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, d := range dirs {
		owner := readPid(filepath.Join(d, "owner.pid"))
		if owner > 0 && alive(owner) {
			continue
		}
		if fi, err := os.Stat(d); err != nil || time.Since(fi.ModTime()) < time.Minute && owner == 0 {
			continue // being created right now by another binary
		}
		if pid := readPid(filepath.Join(d, "mysqld.pid")); pid > 0 && alive(pid) {
			if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil &&
				strings.Contains(string(cmdline), filepath.Join(d, "data")) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			} else {
				continue
			}
		}
		_ = os.RemoveAll(d)
	}
}

func readPid(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
