// Package plainget is the plain request loop that bounds a power sync pass
// from below: GETs of BMC resources, round robin, from a fixed number of
// goroutines, as directly as Go can send them. dev/bmcload runs it against
// a standalone emulator, test/powersync against its in-process one.
package plainget

import (
	"context"
	"io"
	"net/http"
	"sync"
	"time"
)

// Spec is one run: Requests GETs of Targets (URLs, taken round robin),
// Workers at a time, with HTTP basic authentication as Username and
// Password.
type Spec struct {
	Targets            []string
	Requests, Workers  int
	Username, Password string
}

// Run sends the requests spec asks for with client and returns how long
// they took, and the first request's error if any failed (every request
// is sent regardless).
func Run(ctx context.Context, client *http.Client, spec Spec) (time.Duration, error) {
	next := make(chan string)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	start := time.Now()
	for range spec.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range next {
				if err := get(ctx, client, u, spec.Username, spec.Password); err != nil {
					once.Do(func() { first = err })
				}
			}
		}()
	}
	for i := range spec.Requests {
		next <- spec.Targets[i%len(spec.Targets)]
	}
	close(next)
	wg.Wait()
	return time.Since(start), first
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
