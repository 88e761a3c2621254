package differential

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"text/template"
	"time"
)

// ServerPackage is the all-in-one binary the default mode builds and runs.
const ServerPackage = "github.com/goironic/ironic/cmd/ironic"

// Build compiles pkg with `go build` into dir and returns the binary's path.
// The error carries the compiler's output.
func Build(ctx context.Context, pkg, dir string) (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.CommandContext(ctx, goBin, "build", "-o", bin, pkg)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", pkg, err, out)
	}
	return bin, nil
}

// ModuleRoot returns the directory of the go.mod governing dir.
func ModuleRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above " + dir)
		}
		dir = parent
	}
}

// StatSources stats every Go source file, go.mod and go.sum under root
// (hidden directories skipped). A test that builds and runs the server in a
// subprocess calls it so that `go test`, which records the files a test
// looks at, does not serve a cached result after the server's code changed.
func StatSources(root string) error {
	return filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && strings.HasPrefix(name, ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") || name == "go.mod" || name == "go.sum" {
			_, err := os.Stat(path)
			return err
		}
		return nil
	})
}

// ServerConfig fills the config template (testdata/ours.conf.tmpl).
type ServerConfig struct {
	// Host is [DEFAULT]host, the conductor's host name.
	Host string
	// Port is [api]port on 127.0.0.1.
	Port int
	// StateDir holds the SQLite database and anything else the server writes.
	StateDir string
	// DatabaseURL, when set, is [database]connection instead of SQLite in
	// StateDir (e.g. a MariaDB database).
	DatabaseURL string
}

// Connection is [database]connection for the server.
func (c ServerConfig) Connection() string {
	if c.DatabaseURL != "" {
		return c.DatabaseURL
	}
	return "sqlite:///" + c.DBPath()
}

// DBPath is the SQLite file inside StateDir.
func (c ServerConfig) DBPath() string { return filepath.Join(c.StateDir, "ironic.sqlite") }

// URL is the endpoint the server listens on.
func (c ServerConfig) URL() string { return fmt.Sprintf("http://127.0.0.1:%d", c.Port) }

// RenderConfig executes the text/template at tmplPath with cfg and writes
// the result to out.
func RenderConfig(tmplPath string, cfg ServerConfig, out string) error {
	tmpl, err := template.ParseFiles(tmplPath)
	if err != nil {
		return err
	}
	tmpl.Option("missingkey=error")
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, cfg); err != nil {
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

// FreePort asks the kernel for a free TCP port on 127.0.0.1.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Process is a server started by Start or StartGroup.
type Process struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
	// group is set by StartGroup: the process leads its own process
	// group, which Stop signals as a whole.
	group bool
}

// Start runs bin with args, its output appended to logPath.
func Start(bin string, args []string, logPath string) (*Process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	p := &Process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// StartGroup is Start for a server that forks workers, such as Python's
// oslo.service launchers: the process leads a new process group, Stop
// signals the whole group (and kills what is left of it once the leader
// has exited), and the process gets SIGKILL if the test binary dies.
func StartGroup(bin string, args []string, logPath string) (*Process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	p := &Process{done: make(chan struct{}), group: true}
	started := make(chan error, 1)
	go func() {
		// Pdeathsig fires when the thread that started the child ends:
		// keep this goroutine on its thread, blocked in Wait, for the
		// child's whole life.
		runtime.LockOSThread()
		defer logFile.Close()
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = logFile, logFile
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		p.cmd = cmd
		started <- nil
		p.err = cmd.Wait()
		close(p.done)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return p, nil
}

// Exited reports whether the process has ended, and how.
func (p *Process) Exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// Stop interrupts the process and kills it if it has not ended after grace.
func (p *Process) Stop(grace time.Duration) error {
	if p.group {
		return p.stopGroup(grace)
	}
	if done, err := p.Exited(); done {
		return err
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	return nil
}

// stopGroup sends SIGTERM to the process group, SIGKILL after grace, and
// kills whatever is left of the group once the leader has exited. Like
// Stop, it returns the exit error of a process that had already ended.
func (p *Process) stopGroup(grace time.Duration) error {
	pgid := -p.cmd.Process.Pid
	done, err := p.Exited()
	if !done {
		_ = syscall.Kill(pgid, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(grace):
			_ = syscall.Kill(pgid, syscall.SIGKILL)
			<-p.done
		}
	}
	_ = syscall.Kill(pgid, syscall.SIGKILL)
	return err
}

// Kill ends the process with SIGKILL, as a crash or `kill -9` would, and
// waits until it has gone. A process that has already ended is left alone.
func (p *Process) Kill() error {
	if done, _ := p.Exited(); done {
		return nil
	}
	if err := p.cmd.Process.Kill(); err != nil {
		if done, _ := p.Exited(); done {
			return nil
		}
		return err
	}
	<-p.done
	return nil
}

// WaitReady polls GET url until it answers with any HTTP status, the process
// p (if not nil) exits, or timeout passes.
func WaitReady(ctx context.Context, url string, timeout time.Duration, p *Process) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := &http.Client{Timeout: 2 * time.Second}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var lastErr error
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		lastErr = err
		if p != nil {
			if done, err := p.Exited(); done {
				return fmt.Errorf("server exited before answering: %v", err)
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no answer from %s within %s: %w", url, timeout, errors.Join(ctx.Err(), lastErr))
		case <-tick.C:
		}
	}
}

// DiscoverHosts returns the conductor host names the endpoint lists at
// GET /v1/conductors (API 1.49 or later), for normalisation.
func DiscoverHosts(ctx context.Context, baseURL string) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/v1/conductors", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set(DefaultVersionHeader, DefaultVersion)
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /v1/conductors: status %d", resp.StatusCode)
	}
	var doc struct {
		Conductors []struct {
			Hostname string `json:"hostname"`
		} `json:"conductors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		return nil, fmt.Errorf("GET /v1/conductors: %w", err)
	}
	var hosts []string
	for _, c := range doc.Conductors {
		hosts = append(hosts, c.Hostname)
	}
	if len(hosts) == 0 {
		return nil, errors.New("GET /v1/conductors: no conductors")
	}
	return hosts, nil
}
