// Command bmcload sends GETs of the BMCs' systems listed in the Redfish
// emulator's -urls file, round robin, from -workers goroutines, and prints
// how many seconds -requests of them took: the physical limit of a power
// sync pass that sends as many requests at the same concurrency
// (dev/bench-power-sync.sh).
//
//	bmcload -urls FILE -requests N -workers W [-username admin -password password]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/goironic/ironic/dev/bmcload/plainget"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "bmcload:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bmcload", flag.ContinueOnError)
	urls := fs.String("urls", "", "the emulator's -urls file")
	requests := fs.Int("requests", 0, "how many requests to send")
	workers := fs.Int("workers", 8, "how many at a time")
	user := fs.String("username", "admin", "BMC user name")
	pass := fs.String("password", "password", "BMC password")
	if err := fs.Parse(args); err != nil {
		return err
	}
	data, err := os.ReadFile(*urls)
	if err != nil {
		return err
	}
	var targets []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[0] != "default" {
			targets = append(targets, strings.TrimSuffix(f[1], "/redfish/v1")+f[2])
		}
	}
	if len(targets) == 0 || *requests <= 0 || *workers <= 0 {
		return errors.New("want BMCs in -urls, -requests > 0 and -workers > 0")
	}
	took, err := plainget.Run(ctx, &http.Client{Timeout: time.Minute}, plainget.Spec{
		Targets: targets, Requests: *requests, Workers: *workers, Username: *user, Password: *pass,
	})
	if err != nil {
		return err
	}
	fmt.Printf("%.3f\n", took.Seconds())
	return nil
}
