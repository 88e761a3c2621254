package cluster

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestMain(m *testing.M) { Main(m) }

// TestHelperProcess is the program the process tests start: the test
// binary itself, with its role after "--" (go test passes no positional
// arguments, so a normal run skips it).
//
//	serve PORT   answer every request on 127.0.0.1:PORT until killed
//	exit CODE    print a line and exit with CODE
//	fork         start a child in the same process group, print its pid
//	             and wait
func TestHelperProcess(t *testing.T) {
	args := flag.Args()
	if len(args) == 0 {
		t.Skip("the helper process of the process tests")
	}
	switch args[0] {
	case "serve":
		fmt.Println("serving")
		_ = http.ListenAndServe("127.0.0.1:"+args[1], http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprint(w, "{}")
		}))
	case "exit":
		code, _ := strconv.Atoi(args[1])
		fmt.Println("exiting")
		os.Exit(code)
	case "fork":
		child := exec.Command("sleep", "600")
		if err := child.Start(); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Printf("child %d\n", child.Process.Pid)
		_ = child.Wait()
	}
	os.Exit(0)
}

func helper(t *testing.T, dir string, args ...string) *Process {
	t.Helper()
	p, err := StartProcess(os.Args[0], append([]string{"-test.run=^TestHelperProcess$", "--"}, args...), filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Kill() })
	return p
}

func TestProcessServesAndStops(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	p := helper(t, t.TempDir(), "serve", strconv.Itoa(port))
	if err := WaitHTTP(ctx, fmt.Sprintf("http://127.0.0.1:%d/", port), 20*time.Second, p); err != nil {
		t.Fatal(err)
	}
	if done, _ := p.Exited(); done {
		t.Fatal("exited while serving")
	}
	if got := p.LogCount("serving"); got != 1 {
		t.Errorf("LogCount(serving) = %d, want 1; log:\n%s", got, p.LogTail(-1))
	}
	if err := p.Stop(5 * time.Second); err != nil {
		t.Errorf("Stop of a running process = %v, want nil", err)
	}
	if done, err := p.Exited(); !done || err == nil {
		t.Fatalf("after Stop: exited %v (%v), want exited by SIGTERM", done, err)
	}
	if err := p.Stop(time.Second); err == nil {
		t.Error("Stop of a stopped process should return its exit error")
	}
}

func TestWaitHTTPNoticesExit(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	p := helper(t, t.TempDir(), "exit", "3")
	start := time.Now()
	err = WaitHTTP(ctx, fmt.Sprintf("http://127.0.0.1:%d/", port), 20*time.Second, p)
	if err == nil || !strings.Contains(err.Error(), "exited") || !strings.Contains(err.Error(), "exiting") {
		t.Fatalf("WaitHTTP on an exiting process = %v, want the exit and the log", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("WaitHTTP took %s to notice the exit", d)
	}
	var exit *exec.ExitError
	if _, err := p.Exited(); !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Errorf("exit error %v, want code 3", err)
	}
}

// TestProcessGroup checks that Kill and Stop take the whole process group
// along, children included.
func TestProcessGroup(t *testing.T) {
	for _, end := range []string{"stop", "kill"} {
		t.Run(end, func(t *testing.T) {
			p := helper(t, t.TempDir(), "fork")
			var child int
			Eventually(context.Background(), t, 20*time.Second, "the child's pid in the log", func() (bool, string) {
				_, err := fmt.Sscanf(p.LogTail(-1), "child %d", &child)
				return err == nil, p.LogTail(200)
			})
			if end == "stop" {
				_ = p.Stop(5 * time.Second)
			} else if err := p.Kill(); err != nil {
				t.Fatal(err)
			}
			Eventually(context.Background(), t, 10*time.Second, "the child gone", func() (bool, string) {
				// The child is reaped by init once its parent has gone.
				err := syscall.Kill(child, 0)
				return errors.Is(err, syscall.ESRCH), fmt.Sprint(err)
			})
		})
	}
}

func TestINI(t *testing.T) {
	base := INI{"DEFAULT": {"host": "a", "debug": "false"}, "api": {"port": "1"}}
	got := base.Merged(INI{"DEFAULT": {"host": "b"}}, INI{"dhcp": {"dhcp_provider": "none"}, "DEFAULT": {"host": "c"}})
	if base["DEFAULT"]["host"] != "a" {
		t.Error("Merged modified its receiver")
	}
	want := "[DEFAULT]\ndebug = false\nhost = c\n\n[api]\nport = 1\n\n[dhcp]\ndhcp_provider = none\n\n"
	if got.String() != want {
		t.Errorf("String() =\n%s\nwant\n%s", got, want)
	}
}

func TestStateConfig(t *testing.T) {
	dir := t.TempDir()
	c := StateConfig(t, dir)
	for _, path := range []string{c["deploy"]["http_root"], c["pxe"]["tftp_root"], c["pxe"]["images_path"],
		c["pxe"]["tftp_master_path"], c["pxe"]["instance_master_path"], c["oslo_concurrency"]["lock_path"]} {
		if fi, err := os.Stat(path); err != nil || !fi.IsDir() || !strings.HasPrefix(path, dir) {
			t.Errorf("%q: not a directory under %s (%v)", path, dir, err)
		}
	}
}

func TestClient(t *testing.T) {
	var got http.Header
	var gotBody string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		b, _ := io.ReadAll(r.Body)
		gotBody = string(b)
		if r.URL.Path == "/missing" {
			w.WriteHeader(http.StatusNotFound)
		}
		fmt.Fprint(w, `{"a": 1}`)
	}))
	defer srv.Close()
	c := NewClient(srv.URL, "1.82")
	c.Header = http.Header{"Accept": {"application/json"}}
	ctx := context.Background()
	if obj := c.Object(ctx, t, http.MethodPost, "/x", map[string]int{"b": 2}); obj["a"] != 1.0 {
		t.Errorf("Object = %v", obj)
	}
	if got.Get(VersionHeader) != "1.82" || got.Get("Accept") != "application/json" ||
		got.Get("Content-Type") != "application/json" || gotBody != `{"b":2}` {
		t.Errorf("request headers %v, body %q", got, gotBody)
	}
	r, err := c.Do(ctx, http.MethodGet, "/missing", nil)
	if err != nil || r.Status != http.StatusNotFound || got.Get("Content-Type") != "" || gotBody != "" {
		t.Errorf("GET /missing = %v, %v; Content-Type %q, body %q", r, err, got.Get("Content-Type"), gotBody)
	}
}

func TestBuildOnce(t *testing.T) {
	first := Bin(t, DBSync)
	fi, err := os.Stat(first)
	if err != nil || fi.Mode()&0o111 == 0 {
		t.Fatalf("%s: %v (mode %v)", first, err, fi)
	}
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(first, root+string(filepath.Separator)) {
		t.Errorf("built into the source tree: %s", first)
	}
	start := time.Now()
	if again := Bin(t, DBSync); again != first || time.Since(start) > time.Second {
		t.Errorf("second Bin = %s after %s, want %s at once", again, time.Since(start), first)
	}
}

func TestSweepBinDirs(t *testing.T) {
	// A pid above the kernel's limit (4194304) names no process.
	dead, err := os.MkdirTemp("", binDirPrefix+"99999999-")
	if err != nil {
		t.Fatal(err)
	}
	own, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", binDirPrefix, os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(own)
	sweepBinDirs()
	if _, err := os.Stat(dead); !errors.Is(err, os.ErrNotExist) {
		_ = os.RemoveAll(dead)
		t.Errorf("the directory of a dead process was kept: %v", err)
	}
	if _, err := os.Stat(own); err != nil {
		t.Errorf("this process's directory was removed: %v", err)
	}
}

// TestProcessesEndNoThread: a child started elsewhere in the test process
// with Pdeathsig (as test/internal/keystone starts uwsgi) dies when the OS
// thread that forked it ends, so starting and reaping processes here must
// end no thread of the test process.
func TestProcessesEndNoThread(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 5; i++ {
		p := helper(t, dir, "serve", "0")
		before := threads(t)
		_ = p.Stop(5 * time.Second)
		time.Sleep(100 * time.Millisecond) // the waiting goroutine's end
		after := threads(t)
		for tid := range before {
			if !after[tid] {
				t.Fatalf("thread %s ended with the process's goroutine", tid)
			}
		}
	}
}

// threads lists the ids of the test process's threads.
func threads(t *testing.T) map[string]bool {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, e := range entries {
		out[e.Name()] = true
	}
	return out
}
