// Command redfish-emulator serves the Redfish BMC emulator of
// test/redfishbmc, for development and for running the reference Ironic
// against the same BMCs as this service:
//
//	redfish-emulator -listen 127.0.0.1:8000 [-systems 1] [-bmcs 0] [-listen-each]
//	    [-username admin -password password] [-latency 0] [-power-delay 0]
//	    [-fail-fraction 0 -fail-mode 500|hang|ignore-reset -seed 1] [-urls FILE] [-v]
//
// The default BMC (with -systems systems) answers at
// http://LISTEN/redfish/v1. -bmcs N adds BMCs "1".."N" with one system
// each, at http://LISTEN/bmc/<n>/redfish/v1, and with -listen-each also at
// /redfish/v1 on a port of their own (127.0.0.1, chosen by the kernel).
// -urls writes one line per BMC, "<name> <url> <system path>", where url
// is the address to give a node as driver_info/redfish_address.
// GET /_redfishbmc/requests returns the requests received (DELETE forgets
// them). It stops on SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/goironic/ironic/test/redfishbmc"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "redfish-emulator:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("redfish-emulator", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:8000", "address of the shared listener")
	systems := fs.Int("systems", 1, "systems of the default BMC (at /redfish/v1)")
	bmcs := fs.Int("bmcs", 0, "further BMCs with one system each, at /bmc/<n>/redfish/v1")
	listenEach := fs.Bool("listen-each", false, "also serve each of the -bmcs BMCs at /redfish/v1 on a port of its own")
	user := fs.String("username", "admin", "BMC user name")
	pass := fs.String("password", "password", "BMC password")
	latency := fs.Duration("latency", 0, "added before every answer")
	powerDelay := fs.Duration("power-delay", 0, "time a power transition takes")
	failFraction := fs.Float64("fail-fraction", 0, "fraction of the -bmcs BMCs that fail")
	failMode := fs.String("fail-mode", "500", "how failing BMCs fail: an HTTP status (500, 503, ...), hang or ignore-reset")
	seed := fs.Uint64("seed", 1, "seed of the choice of failing BMCs")
	urls := fs.String("urls", "", "write the BMCs' addresses to this file")
	verbose := fs.Bool("v", false, "log every request")
	if err := fs.Parse(args); err != nil {
		return err
	}
	fault, err := parseFault(*failMode)
	if err != nil {
		return err
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	srv := redfishbmc.New(redfishbmc.Options{Username: *user, Password: *pass, Latency: *latency, Log: log})
	defer srv.Close()
	spec := redfishbmc.SystemSpec{PowerDelay: *powerDelay}
	for range *systems {
		srv.AddSystem(spec)
	}
	rnd := rand.New(rand.NewPCG(*seed, *seed))
	var extra []*redfishbmc.BMC
	for i := range *bmcs {
		b, err := srv.AddBMC(strconv.Itoa(i+1), redfishbmc.BMCSpec{})
		if err != nil {
			return err
		}
		b.AddSystem(spec)
		if rnd.Float64() < *failFraction {
			b.SetFault(fault)
		}
		extra = append(extra, b)
	}

	var g errgroup.Group
	serve := func(addr string, h http.Handler) (string, error) {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return "", err
		}
		hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
		g.Go(func() error {
			if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		})
		g.Go(func() error {
			<-ctx.Done()
			srv.Close()
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			return hs.Shutdown(sctx)
		})
		return "http://" + ln.Addr().String(), nil
	}
	base, err := serve(*listen, srv)
	if err != nil {
		return err
	}
	var lines []string
	for _, s := range srv.Default().Systems() {
		lines = append(lines, fmt.Sprintf("default %s %s", base, s.Path()))
	}
	for _, b := range extra {
		url := base + "/bmc/" + b.Name() + "/redfish/v1"
		path := b.Systems()[0].Path()
		if *listenEach {
			if url, err = serve("127.0.0.1:0", b.Handler()); err != nil {
				return err
			}
			path = "/redfish/v1/Systems/" + b.Systems()[0].ID()
		}
		lines = append(lines, fmt.Sprintf("%s %s %s", b.Name(), url, path))
	}
	if *urls != "" {
		if err := os.WriteFile(*urls, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			return err
		}
	}
	log.Warn("redfish-emulator listening", "address", base, "bmcs", len(extra)+1)
	return g.Wait()
}

func parseFault(mode string) (redfishbmc.Fault, error) {
	switch mode {
	case "hang":
		return redfishbmc.Fault{Hang: true}, nil
	case "ignore-reset":
		return redfishbmc.Fault{IgnoreReset: true}, nil
	}
	code, err := strconv.Atoi(mode)
	if err != nil || code < 400 || code > 599 {
		return redfishbmc.Fault{}, fmt.Errorf("-fail-mode %q: want an HTTP error status, hang or ignore-reset", mode)
	}
	return redfishbmc.Fault{Status: code}, nil
}
