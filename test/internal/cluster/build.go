package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Command is a main package of this module, under cmd/.
type Command string

// The module's commands.
const (
	AllInOne  Command = "ironic"
	API       Command = "ironic-api"
	Conductor Command = "ironic-conductor"
	DBSync    Command = "ironic-dbsync"
)

// BuildTimeout bounds one go build (a cold build compiles the pure-Go
// SQLite driver).
const BuildTimeout = 5 * time.Minute

// binDirPrefix starts the name of the directory that holds the binaries
// of one test process; the process id follows.
const binDirPrefix = "goironic-bin-"

// built holds the commands built by this test process, in one temporary
// directory: the package's only process-wide state, because a test binary
// has no other hook to share them between its tests.
var built struct {
	sync.Mutex
	dir  string
	bins map[Command]string
}

// Build builds the commands this test process has not built yet, with one
// go build, into the process's binary directory (removed by Main).
// Tests that start several commands call it first with all of them, so
// that they compile together. Since the commands run in subprocesses, the
// first build stats the module's sources, so that go test does not serve
// a cached result after they changed. A failure ends t.
func Build(t testing.TB, cmds ...Command) {
	t.Helper()
	built.Lock()
	defer built.Unlock()
	var pkgs []string
	for _, c := range cmds {
		if built.bins[c] == "" {
			pkgs = append(pkgs, "github.com/goironic/ironic/cmd/"+string(c))
		}
	}
	if len(pkgs) == 0 {
		return
	}
	if built.dir == "" {
		root, err := ModuleRoot()
		if err != nil {
			t.Fatal(err)
		}
		if err := StatSources(root); err != nil {
			t.Fatal(err)
		}
		sweepBinDirs()
		dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", binDirPrefix, os.Getpid()))
		if err != nil {
			t.Fatal(err)
		}
		built.dir, built.bins = dir, map[Command]string{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), BuildTimeout)
	defer cancel()
	start := time.Now()
	if err := GoBuild(ctx, built.dir+string(filepath.Separator), pkgs...); err != nil {
		t.Fatal(err)
	}
	for _, c := range cmds {
		built.bins[c] = filepath.Join(built.dir, string(c))
	}
	t.Logf("built %s in %s", strings.Join(pkgs, " "), time.Since(start).Round(time.Millisecond))
}

// Bin returns the path of cmd, built by this test process (see Build).
func Bin(t testing.TB, cmd Command) string {
	t.Helper()
	Build(t, cmd)
	built.Lock()
	defer built.Unlock()
	return built.bins[cmd]
}

// removeBinaries removes the binary directory of this test process.
func removeBinaries() {
	built.Lock()
	defer built.Unlock()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
		built.dir, built.bins = "", nil
	}
}

// sweepBinDirs removes the binary directories of test processes that are
// no longer running (killed at a timeout, before Main could clean up).
func sweepBinDirs() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), binDirPrefix+"*"))
	for _, d := range dirs {
		pid, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(d), binDirPrefix), "-")
		if n, err := strconv.Atoi(pid); err == nil && n != os.Getpid() && !alive(n) {
			_ = os.RemoveAll(d)
		}
	}
}

// GoBuild runs go build -o out pkgs; out is a file for one package, or a
// directory (ending in a separator) for several. The error carries the
// compiler's output.
func GoBuild(ctx context.Context, out string, pkgs ...string) error {
	// go test puts its own GOROOT/bin first on the PATH of tests.
	goBin, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("go build: %w", err)
	}
	cmd := exec.CommandContext(ctx, goBin, append([]string{"build", "-o", out}, pkgs...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", strings.Join(pkgs, " "), err, b)
	}
	return nil
}

// ModuleRoot returns the directory of the go.mod governing the working
// directory (a test's package directory).
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// StatSources stats every Go source file, go.mod and go.sum under root
// (hidden directories skipped). A test that runs the module's code in a
// subprocess calls it (Build does) so that `go test`, which records the
// files a test looks at, does not serve a cached result after that code
// changed.
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
