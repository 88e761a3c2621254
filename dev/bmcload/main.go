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
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"
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
	client := &http.Client{Timeout: time.Minute}
	next := make(chan string)
	errs := make(chan error, *workers)
	var wg sync.WaitGroup
	start := time.Now()
	for range *workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range next {
				if err := get(ctx, client, u, *user, *pass); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		}()
	}
	for i := range *requests {
		next <- targets[i%len(targets)]
	}
	close(next)
	wg.Wait()
	took := time.Since(start)
	select {
	case err := <-errs:
		return err
	default:
	}
	fmt.Printf("%.3f\n", took.Seconds())
	return nil
}

func get(ctx context.Context, client *http.Client, url, user, pass string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.SetBasicAuth(user, pass)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}
