package ironic_test

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// generated lists every generated file of the tree, the directory whose
// //go:generate directive writes it, and a text of that directive.
// `go generate ./...` runs them all; see README.md.
var generated = []struct {
	path, dir, directive string
	python               bool // the generator needs Python Ironic
}{
	{"faults_gen.go", ".", "internal/tools/pygen/faults.py", true},
	{"apiv1/traits_data.go", "apiv1", "internal/tools/pygen/traits.py", true},
	{"option/upstream_opts.go", "option", "tools/extract_opts.py", true},
	{"etc/ironic/ironic.conf.sample", "option", "go test ../conf -run TestSampleGolden -update", false},
	{"apiv1/policy/testdata/defaults.json", "apiv1/policy", "tools/extract_policies.py", true},
	{"apiv1/policy/defaults_table.go", "apiv1/policy", "go test -run TestDefaults -update", false},
	{"etc/ironic/policy.yaml.sample", "apiv1/policy", "go test -run TestSampleGolden -update", false},
}

// directives returns the //go:generate lines of the Go files of dir.
func directives(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "//go:generate "); ok {
				out = append(out, d)
			}
		}
	}
	return out
}

// TestGeneratedFiles checks that the list above is the tree's: each
// listed Go file says it is generated (go/ast.IsGenerated), each listed
// file has its directive, every Go file that says it is generated is
// listed, and every directive writes a listed file.
func TestGeneratedFiles(t *testing.T) {
	listed := map[string]bool{}
	used := map[string]bool{} // dir + directive
	for _, g := range generated {
		listed[g.path] = true
		found := false
		for _, d := range directives(t, g.dir) {
			if strings.Contains(d, g.directive) {
				found = true
				used[g.dir+"\x00"+d] = true
			}
		}
		if !found {
			t.Errorf("%s: no //go:generate directive in %s/ runs %q", g.path, g.dir, g.directive)
		}
		if _, err := os.Stat(g.path); err != nil {
			t.Error(err)
		}
	}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			for _, dr := range directives(t, path) {
				if !used[path+"\x00"+dr] {
					t.Errorf("%s: //go:generate %s writes no file listed in generate_test.go", path, dr)
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		switch gen := ast.IsGenerated(f); {
		case gen && !listed[path]:
			t.Errorf("%s says it is generated but is not listed in generate_test.go", path)
		case !gen && listed[path]:
			t.Errorf("%s lacks the line `// Code generated ... DO NOT EDIT.` before its package clause", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// pythonIronic reports why the Python generators cannot run here ("" when
// they can), as pygen itself judges it.
func pythonIronic(t *testing.T) string {
	out, err := exec.Command("go", "run", "./internal/tools/pygen", "-check").CombinedOutput()
	if err != nil {
		if !bytes.HasPrefix(out, []byte("pygen: ")) {
			t.Fatalf("pygen -check: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	return ""
}

// TestGenerateReproduces runs `go generate ./...` in a copy of the tree
// and checks that it rewrote every listed file with the bytes checked in
// and changed nothing else. Without Python Ironic, the Python generators
// are skipped (go generate -skip pygen) and only the others are checked.
func TestGenerateReproduces(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every generator (-short)")
	}
	copyRoot := t.TempDir()
	if err := copyTree(".", copyRoot); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, g := range generated {
		if err := os.Chtimes(filepath.Join(copyRoot, g.path), old, old); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"generate", "./..."}
	skipPython := pythonIronic(t)
	if skipPython != "" {
		t.Logf("not checking the Python generators: %s", skipPython)
		args = []string{"generate", "-skip", "pygen", "./..."}
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = copyRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	for _, g := range generated {
		if g.python && skipPython != "" {
			continue
		}
		st, err := os.Stat(filepath.Join(copyRoot, g.path))
		if err != nil {
			t.Error(err)
			continue
		}
		if !st.ModTime().After(old) {
			t.Errorf("%s: go generate did not write it", g.path)
		}
	}
	// Nothing differs from the checked-in tree, and nothing was added.
	err := filepath.WalkDir(copyRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == "__pycache__" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(copyRoot, path)
		got, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		want, err := os.ReadFile(rel)
		switch {
		case os.IsNotExist(err):
			t.Errorf("go generate wrote %s, which is not in the tree", rel)
		case err != nil:
			return err
		case !bytes.Equal(got, want):
			t.Errorf("go generate changed %s: the checked-in file is not what its generator writes", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// copyTree copies the files of the module at src to dst, leaving out
// version control and editor state.
func copyTree(src, dst string) error {
	skip := []string{".git", ".idea", ".vscode"}
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if slices.Contains(skip, d.Name()) || d.Name() == "__pycache__" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, path)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
}
