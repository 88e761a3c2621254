// Command pygen runs a generator script with Debian's Python and the
// installed Python Ironic, and writes what the script prints to a file.
// It is how `go generate ./...` reaches the generators whose input is
// Ironic's own source (option table, policy rules, fault classes, trait
// schema):
//
//	go run ./internal/tools/pygen [-gofmt] -o OUT SCRIPT [ARG...]
//	go run ./internal/tools/pygen -check
//
// -check only reports whether the generators can run here.
//
// It fails, leaving OUT untouched, when the interpreter or Python Ironic
// 21.4 is missing (apt install python3-ironic), when the script fails, or
// when -gofmt is given and the output is not Go source.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// IronicRelease is the Python Ironic the checked-in files come from.
const IronicRelease = "21.4"

func main() {
	python := flag.String("python", "/usr/bin/python3", "the interpreter that has python3-ironic")
	out := flag.String("o", "", "the file to write")
	gofmt := flag.Bool("gofmt", false, "format the output as Go source")
	check := flag.Bool("check", false, "only check that the interpreter has Python Ironic "+IronicRelease)
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: pygen [-python PATH] [-gofmt] -o OUT SCRIPT [ARG...] | pygen -check")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *check {
		if err := checkIronic(*python); err != nil {
			fmt.Fprintf(os.Stderr, "pygen: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if *out == "" || flag.NArg() < 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*python, *out, *gofmt, flag.Args()); err != nil {
		fmt.Fprintf(os.Stderr, "pygen %s: %v\n", flag.Arg(0), err)
		os.Exit(1)
	}
}

func run(python, out string, gofmt bool, script []string) error {
	if err := checkIronic(python); err != nil {
		return err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(python, script...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w\n%s", err, stderr.Bytes())
	}
	src := stdout.Bytes()
	if gofmt {
		var err error
		if src, err = format.Source(src); err != nil {
			return fmt.Errorf("output is not Go source: %w", err)
		}
	}
	return writeFile(out, src)
}

// checkIronic makes sure the interpreter exists and imports Ironic of
// the release the checked-in files come from.
func checkIronic(python string) error {
	const need = "needs " + "%s with Python Ironic " + IronicRelease + " (Debian: apt install python3-ironic)"
	if _, err := os.Stat(python); err != nil {
		return fmt.Errorf(need+": %v", python, err)
	}
	v, err := exec.Command(python, "-c", "import ironic, importlib.metadata as m; print(m.version('ironic'))").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return fmt.Errorf(need+": import ironic failed:\n%s", python, ee.Stderr)
		}
		return fmt.Errorf(need+": %v", python, err)
	}
	if ver := strings.TrimSpace(string(v)); ver != IronicRelease && !strings.HasPrefix(ver, IronicRelease+".") {
		return fmt.Errorf(need+": found Ironic %s", python, ver)
	}
	return nil
}

// writeFile replaces path with data in one step, so that a failed run
// never leaves a truncated file behind.
func writeFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".pygen-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
