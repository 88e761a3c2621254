package apiv1_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// seedNodes creates n nodes shaped like ironic-bench's fixture.
func seedNodes(b *testing.B, s *Setup, n int) []string {
	b.Helper()
	uuids := make([]string, 0, n)
	for i := 0; i < n; i++ {
		res := s.Must(http.StatusCreated, "POST", "/v1/nodes", map[string]any{
			"driver": "fake-hardware", "name": fmt.Sprintf("bench-%07d", i), "resource_class": "bench",
			"properties":  map[string]any{"cpus": 8, "memory_mb": 16384, "local_gb": 100, "cpu_arch": "x86_64"},
			"extra":       map[string]any{"foo": "bar", "rack": fmt.Sprintf("r%d", i%10)},
			"driver_info": map[string]any{"ipmi_address": "192.0.2.1", "ipmi_username": "admin", "ipmi_password": "secret"},
		})
		uuids = append(uuids, res.Field("uuid").(string))
	}
	return uuids
}

// BenchmarkNodesDetail1000 is GET /v1/nodes/detail?limit=1000 over 1000
// nodes: the figure compared with the reference by ironic-bench.
func BenchmarkNodesDetail1000(b *testing.B) {
	s := NewSetup(b)
	seedNodes(b, s, 1000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if code := s.Serve("GET", "/v1/nodes/detail?limit=1000"); code != 200 {
			b.Fatal(code)
		}
	}
}

// BenchmarkNodeGet is GET /v1/nodes/{uuid}.
func BenchmarkNodeGet(b *testing.B) {
	s := NewSetup(b)
	uuids := seedNodes(b, s, 50)
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		if code := s.Serve("GET", "/v1/nodes/"+uuids[i%len(uuids)]); code != 200 {
			b.Fatal(code)
		}
		i++
	}
}

// discard is a ResponseWriter that only keeps the status.
type discard struct {
	h    http.Header
	code int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(code int)        { d.code = code }

// Serve sends a bodiless request and drops the answer (for benchmarks).
func (s *Setup) Serve(method, path string) int {
	req := httptest.NewRequest(method, path, nil)
	req.Header.Set("X-OpenStack-Ironic-API-Version", s.Version)
	w := &discard{h: http.Header{}, code: 200}
	s.API.ServeHTTP(w, req)
	return w.code
}

// BenchmarkNodeCreateDelete is ironic-bench's node_create_delete: POST a
// node, then DELETE it.
func BenchmarkNodeCreateDelete(b *testing.B) {
	s := NewSetup(b)
	b.ReportAllocs()
	for b.Loop() {
		res := s.Do("POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "resource_class": "bench",
			"properties": map[string]any{"cpus": 8}, "driver_info": map[string]any{"ipmi_address": "192.0.2.1"}})
		if res.Status != http.StatusCreated {
			b.Fatal(res.Status)
		}
		if code := s.Serve("DELETE", "/v1/nodes/"+res.Field("uuid").(string)); code != http.StatusNoContent {
			b.Fatal(code)
		}
	}
}

// BenchmarkNodeCreate is POST /v1/nodes alone.
func BenchmarkNodeCreate(b *testing.B) {
	s := NewSetup(b)
	body := `{"driver": "fake-hardware", "resource_class": "bench", "properties": {"cpus": 8}, "driver_info": {"ipmi_address": "192.0.2.1"}}`
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("POST", "/v1/nodes", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-OpenStack-Ironic-API-Version", s.Version)
		w := &discard{h: http.Header{}, code: 200}
		s.API.ServeHTTP(w, req)
		if w.code != http.StatusCreated {
			b.Fatal(w.code)
		}
	}
}
