package jsonrpc

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/goironic/ironic/internal/keystoneauth"
)

// TestTokenRenewedBeforeItExpires: as keystoneauth does, a token that
// expires within MIN_TOKEN_LIFE_SECONDS (120 s) is replaced before it is
// sent; one with longer to live is kept; a refused one is replaced.
func TestTokenRenewedBeforeItExpires(t *testing.T) {
	expires := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	issued := 0
	ks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v3/auth/tokens" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		issued++
		n := issued
		mu.Unlock()
		w.Header().Set("X-Subject-Token", fmt.Sprintf("tok-%d", n))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"token": {"expires_at": %q, "methods": ["password"], "catalog": []}}`, expires.Format("2006-01-02T15:04:05.000000Z"))
	}))
	defer ks.Close()
	now := expires.Add(-time.Hour)
	s := &tokenSource{
		opts: keystoneauth.Options{Section: "json_rpc", AuthType: "password", AuthURL: ks.URL + "/v3",
			Username: "ironic", Password: "secret", UserDomainID: "default", ProjectName: "service", ProjectDomainID: "default"},
		now: func() time.Time { return now },
	}
	step := func(what, refused, want string) {
		t.Helper()
		got, err := s.token(t.Context(), refused)
		if err != nil || got != want {
			t.Fatalf("%s: token %q, %v; want %q", what, got, err, want)
		}
	}
	step("first call", "", "tok-1")
	step("an hour to live", "", "tok-1")
	now = expires.Add(-keystoneauth.MinTokenLife - time.Second)
	step("121 s to live", "", "tok-1")
	now = expires.Add(-keystoneauth.MinTokenLife + time.Second)
	step("119 s to live", "", "tok-2")
	now = expires.Add(-time.Hour)
	step("refused", "tok-2", "tok-3")
	step("another call's refusal of an old token", "tok-2", "tok-3")
}
