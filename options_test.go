package ironic_test

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestBoundOptionsAreRead fails when an option is implemented but nothing
// reads it: every Config field that a Bind method binds (the &c.Field it
// hands to an option.Binder) must be read by code of this module
// somewhere other than its binding: by the component that owns it, or
// by the wiring that builds the component from it. Tests, test helpers
// (test/...) and assignments to the field do not count as reads.
func TestBoundOptionsAreRead(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the whole module")
	}
	pkgs := loadModule(t)
	bound := map[string][]string{} // field -> binding positions
	reads := map[string]int{}
	for _, p := range pkgs {
		for _, f := range p.files {
			ast.Inspect(f, func(n ast.Node) bool {
				fn, ok := n.(*ast.FuncDecl)
				if !ok || !bindsOptions(p.info, fn) {
					return true
				}
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					if u, ok := n.(*ast.UnaryExpr); ok && u.Op == token.AND {
						if key, ok := fieldKey(p.info, u.X); ok {
							bound[key] = append(bound[key], p.fset.Position(u.Pos()).String())
							p.bindingSites[u.X] = true
						}
					}
					return true
				})
				return false
			})
		}
	}
	for _, p := range pkgs {
		for _, f := range p.files {
			writes := map[ast.Expr]bool{}
			ast.Inspect(f, func(n ast.Node) bool {
				if as, ok := n.(*ast.AssignStmt); ok && (as.Tok == token.ASSIGN || as.Tok == token.DEFINE) {
					for _, l := range as.Lhs {
						writes[l] = true
					}
				}
				return true
			})
			ast.Inspect(f, func(n ast.Node) bool {
				e, ok := n.(*ast.SelectorExpr)
				if !ok || writes[e] || p.bindingSites[e] {
					return true
				}
				if key, ok := fieldKey(p.info, e); ok {
					reads[key]++
				}
				return true
			})
		}
	}
	if len(bound) < 100 {
		t.Fatalf("only %d bound fields found; is the binding pattern still &c.Field in Bind(b *option.Binder)?", len(bound))
	}
	var unread []string
	for key, at := range bound {
		if reads[key] == 0 {
			unread = append(unread, fmt.Sprintf("%s (bound at %s)", key, strings.Join(at, ", ")))
		}
	}
	sort.Strings(unread)
	for _, u := range unread {
		t.Errorf("bound but read by nothing: %s", u)
	}
	t.Logf("%d bound fields, all read", len(bound)-len(unread))
}

// bindsOptions tells whether fn is a Bind method or function that takes
// an *option.Binder.
func bindsOptions(info *types.Info, fn *ast.FuncDecl) bool {
	if fn.Body == nil || fn.Name.Name != "Bind" {
		return false
	}
	for _, f := range fn.Type.Params.List {
		if tv, ok := info.Types[f.Type]; ok && strings.HasSuffix(tv.Type.String(), "/option.Binder") {
			return true
		}
	}
	return false
}

// fieldKey names the struct field e selects, as "pkg.Type.Field" of the
// named struct type that declares it (through embedded fields too).
func fieldKey(info *types.Info, e ast.Expr) (string, bool) {
	se, ok := e.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	sel, ok := info.Selections[se]
	if !ok || sel.Kind() != types.FieldVal {
		return "", false
	}
	typ := sel.Recv()
	idx := sel.Index()
	for i, x := range idx {
		if p, ok := typ.Underlying().(*types.Pointer); ok {
			typ = p.Elem()
		}
		st, ok := typ.Underlying().(*types.Struct)
		if !ok {
			return "", false
		}
		if i == len(idx)-1 {
			owner := "struct"
			if n, ok := typ.(*types.Named); ok {
				owner = n.Obj().Pkg().Path() + "." + n.Obj().Name()
			}
			return owner + "." + st.Field(x).Name(), true
		}
		typ = st.Field(x).Type()
	}
	return "", false
}

type modPkg struct {
	fset         *token.FileSet
	files        []*ast.File
	info         *types.Info
	bindingSites map[ast.Expr]bool
}

// loadModule type-checks every non-test package of the module (but the
// test helpers under test/) from source, importing dependencies from
// the build's export data.
func loadModule(t *testing.T) []*modPkg {
	t.Helper()
	const mod = "github.com/goironic/ironic"
	out, err := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Dir,GoFiles,Export,Module", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	type listed struct {
		ImportPath, Dir, Export string
		GoFiles                 []string
		Module                  *struct{ Path string }
	}
	exports := map[string]string{}
	var ours []listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
		if p.Module != nil && p.Module.Path == mod && !strings.HasPrefix(p.ImportPath, mod+"/test/") {
			ours = append(ours, p)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	var pkgs []*modPkg
	for _, lp := range ours {
		p := &modPkg{fset: fset, bindingSites: map[ast.Expr]bool{}, info: &types.Info{
			Types:      map[ast.Expr]types.TypeAndValue{},
			Selections: map[*ast.SelectorExpr]*types.Selection{},
		}}
		for _, name := range lp.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(lp.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			p.files = append(p.files, f)
		}
		conf := types.Config{Importer: imp}
		if _, err := conf.Check(lp.ImportPath, fset, p.files, p.info); err != nil {
			t.Fatalf("type-checking %s: %v", lp.ImportPath, err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}
