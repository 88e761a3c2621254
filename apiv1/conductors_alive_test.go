package apiv1

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/goironic/ironic/db/models"
	mv "github.com/goironic/ironic/microversions"
)

type condTestClock time.Time

func (c condTestClock) Now() time.Time { return time.Time(c) }

// TestConductorAlive checks the heartbeat_timeout boundary of "alive":
// Ironic's not timeutils.is_older_than(updated_at, timeout).
func TestConductorAlive(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a, err := New(Config{HeartbeatTimeout: 60}, Deps{Clock: condTestClock(now)})
	if err != nil {
		t.Fatal(err)
	}
	rq := &Request{HTTP: httptest.NewRequest("GET", "/v1/conductors", nil), Ver: mv.Latest, api: a}
	for _, tc := range []struct {
		updated models.Time
		alive   bool
	}{
		{models.NewTime(now.Add(-59 * time.Second)), true},
		{models.NewTime(now.Add(-60 * time.Second)), true},
		{models.NewTime(now.Add(-61 * time.Second)), false},
		{models.Time{}, false},
	} {
		c := &models.Conductor{Hostname: "h", UpdatedAt: tc.updated}
		alive, _ := a.renderConductor(rq, c).Get("alive")
		if alive != tc.alive {
			t.Errorf("updated %v: alive %v, want %v", tc.updated, alive, tc.alive)
		}
	}
}
