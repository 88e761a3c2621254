package redfishbmc_test

import (
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/goironic/ironic/test/redfishbmc"
)

// TestThousandBMCs serves 1,000 BMCs from one process, each on a
// loopback port of its own (as distinct redfish_address authorities), a
// tenth of them failing with 500, and reads every system's power state
// through its own address; the same BMCs answer by path prefix on the
// shared listener.
func TestThousandBMCs(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	const n, failing = 1000, 100
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	ts := redfishbmc.ForTest(t, redfishbmc.Options{RequestLogLimit: 10 * n})
	urls := make([]string, n)
	for i := range n {
		b, err := ts.AddBMC(strconv.Itoa(i), redfishbmc.BMCSpec{})
		if err != nil {
			t.Fatal(err)
		}
		b.AddSystem(redfishbmc.SystemSpec{PowerState: redfishbmc.PowerOn})
		if i%(n/failing) == 0 {
			b.SetFault(redfishbmc.Fault{Status: http.StatusInternalServerError})
		}
		urls[i] = ts.ListenBMC(b)
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	t.Logf("%d BMCs with their listeners: %.1f MiB of heap", n, float64(after.HeapAlloc-before.HeapAlloc)/(1<<20))

	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	get := func(url string) int {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.SetBasicAuth("admin", "password")
		resp, err := client.Do(req)
		if err != nil {
			t.Error(err)
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, mode := range []string{"own port", "path prefix"} {
		start := time.Now()
		statuses := make([]int, n)
		var wg sync.WaitGroup
		sem := make(chan struct{}, 50)
		for i := range n {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				url := urls[i] + "/redfish/v1/Systems/1"
				if mode == "path prefix" {
					url = fmt.Sprintf("%s/bmc/%d/redfish/v1/Systems/1", ts.URL, i)
				}
				statuses[i] = get(url)
			}()
		}
		wg.Wait()
		count := map[int]int{}
		for _, s := range statuses {
			count[s]++
		}
		if count[200] != n-failing || count[500] != failing {
			t.Errorf("%s: statuses %v", mode, count)
		}
		t.Logf("%s: %d GETs in %v", mode, n, time.Since(start).Round(time.Millisecond))
	}
	if got := ts.RequestCount(); got != 2*n {
		t.Errorf("%d requests counted, want %d", got, 2*n)
	}
	client.CloseIdleConnections()
}
