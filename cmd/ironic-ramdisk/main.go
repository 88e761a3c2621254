// Command ironic-ramdisk builds the deploy kernel and ramdisk that
// nodes boot to run our agent:
//
//	ironic-ramdisk build -o DIR [-name deploy] [-agent PATH] [-kernel-version V] [-cache DIR]
//
// writes DIR/<name>.kernel (Debian's linux-image-amd64 kernel, fetched
// with apt-get download into the cache and unpacked, never installed)
// and DIR/<name>.initramfs (/init = the agent, a static binary: PATH,
// or ./cmd/ironic-agent built with CGO_ENABLED=0 when run in this
// module; plus the kernel modules it loads), for a node's driver_info
// deploy_kernel and deploy_ramdisk (or [conductor]deploy_kernel and
// deploy_ramdisk), and prints their sizes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/goironic/ironic/agent/ramdisk"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "ironic-ramdisk:", err)
		os.Exit(1)
	}
}

const usage = "usage: ironic-ramdisk build -o DIR [-name deploy] [-agent PATH] [-kernel-version V] [-cache DIR] [-modules a,b,...]"

func run(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "build" {
		return errors.New(usage)
	}
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	out := fs.String("o", "", "output directory (required)")
	name := fs.String("name", "deploy", "file name prefix: <name>.kernel and <name>.initramfs")
	agent := fs.String("agent", "", "static agent binary to use as /init (default: build ./cmd/ironic-agent)")
	version := fs.String("kernel-version", "", "kernel version, as in linux-image-<version> (default: the one linux-image-amd64 depends on)")
	cache := fs.String("cache", "", "where kernel packages are kept (default: $XDG_CACHE_HOME/goironic/kernels)")
	modules := fs.String("modules", "", "comma-separated kernel modules to load (default: "+strings.Join(ramdisk.DefaultModules(), ",")+")")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *out == "" || fs.NArg() != 0 {
		return errors.New(usage)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if *cache == "" {
		d, err := ramdisk.DefaultCacheDir()
		if err != nil {
			return err
		}
		*cache = d
	}
	initPath := *agent
	if initPath == "" {
		if _, err := os.Stat(filepath.Join("cmd", "ironic-agent")); err != nil {
			return errors.New("no -agent given and no ./cmd/ironic-agent here to build: run in the goironic source tree or pass -agent PATH (a static binary)")
		}
		tmp, err := os.MkdirTemp("", "ironic-ramdisk-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		initPath = filepath.Join(tmp, "ironic-agent")
		log.InfoContext(ctx, "building the agent", "package", "./cmd/ironic-agent")
		if err := ramdisk.BuildStatic(ctx, ".", "./cmd/ironic-agent", initPath); err != nil {
			return err
		}
	}
	initBin, err := os.ReadFile(initPath)
	if err != nil {
		return err
	}
	log.InfoContext(ctx, "fetching the kernel", "cache", *cache, "version", *version)
	k, err := ramdisk.KernelFetcher{Run: ramdisk.ExecRunner{}, CacheDir: *cache}.Fetch(ctx, *version)
	if err != nil {
		return err
	}
	spec := ramdisk.Spec{Init: initBin}
	if *modules != "" {
		spec.Modules = strings.Split(*modules, ",")
	}
	o, err := ramdisk.Write(*out, *name, k, spec)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "kernel     %s  %d bytes (%s, %s)\n", o.Kernel, o.KernelSize, k.Package, k.Version)
	fmt.Fprintf(stdout, "initramfs  %s  %d bytes (%d modules: %s)\n", o.Initramfs, o.InitramfsSize, len(o.Manifest.Modules), strings.Join(o.Manifest.Modules, " "))
	return nil
}
