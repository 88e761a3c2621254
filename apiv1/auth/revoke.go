package auth

import (
	"context"
	"errors"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/pyjson"
)

// revocations keeps cached tokens honest: keystonemiddleware believes a
// cached token for token_cache_time (300 s) even after Keystone revoked
// it. Here a cached token is used only while the revocation list has been
// read within the last interval (GET /v3/OS-REVOKE/events, asking only
// for events since the last read); every new event drops the cached
// tokens it may concern. Keystone stamps events to the second, so each
// read overlaps the previous one by a second and events already applied
// are recognised and skipped.
//
// When Keystone does not offer the list to the service user, or cannot be
// reached, cached tokens are used only within interval of their
// validation; older ones are validated again (so with Keystone down they
// get 503, not the stale answer keystonemiddleware gives).
type revocations struct {
	identity Identity
	cache    *tokenCache
	clock    ironic.Clock
	log      *slog.Logger
	interval time.Duration

	// lastOK is when the list was last read (UnixNano), 0 if never or
	// when the last read failed.
	lastOK atomic.Int64
	// gen counts reads that dropped tokens: a validation that started
	// under an older generation does not cache its result.
	gen atomic.Uint64

	mu          sync.Mutex // one read at a time
	since       string
	latest      time.Time
	seen        map[string]time.Time // applied events -> revoked_at
	unsupported bool
}

func newRevocations(id Identity, cache *tokenCache, clock ironic.Clock, log *slog.Logger, interval time.Duration) *revocations {
	return &revocations{identity: id, cache: cache, clock: clock, log: log, interval: interval, seen: map[string]time.Time{}}
}

// fresh reports whether cached tokens may be trusted now: the list was
// read within interval, or is read now.
func (r *revocations) fresh(ctx context.Context, now time.Time) bool {
	if last := r.lastOK.Load(); last != 0 && now.Sub(time.Unix(0, last)) < r.interval {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.unsupported {
		return false
	}
	if last := r.lastOK.Load(); last != 0 && now.Sub(time.Unix(0, last)) < r.interval {
		return true // another request read it meanwhile
	}
	body, err := r.identity.RevocationEvents(ctx, r.since)
	if err != nil {
		r.lastOK.Store(0)
		if errors.Is(err, ErrNotSupported) {
			r.unsupported = true
			r.log.WarnContext(ctx, "Keystone does not list revocation events to the service user; cached tokens are validated again after the revocation check interval",
				"interval", r.interval, "error", err)
		} else {
			r.log.WarnContext(ctx, "reading Keystone's revocation events", "error", err)
		}
		return false
	}
	r.apply(ctx, body)
	r.lastOK.Store(r.clock.Now().UnixNano())
	return true
}

// revokeEvent is one of Keystone's revocation events (to_dict of
// keystone.models.revoke_model.RevokeEvent).
type revokeEvent struct {
	key                                                 string
	userID, projectID, domainID, roleID, auditID, chain string
	issuedBefore, revokedAt                             time.Time
	hasIssuedBefore                                     bool
}

func (r *revocations) apply(ctx context.Context, body []byte) {
	var doc struct {
		Events []map[string]any `json:"events"`
	}
	if err := pyjson.Unmarshal(body, &doc); err != nil {
		r.log.WarnContext(ctx, "unreadable revocation events; dropping every cached token", "error", err)
		r.cache.removeIf(func(*tokenInfo) bool { return true })
		r.gen.Add(1)
		return
	}
	var fresh []revokeEvent
	for _, m := range doc.Events {
		key, _ := pyjson.Marshal(m) // maps are written with sorted keys
		ev := revokeEvent{
			key: string(key), userID: str(m["user_id"]), projectID: str(m["project_id"]),
			domainID: str(m["domain_id"]), roleID: str(m["role_id"]), auditID: str(m["audit_id"]),
			chain: str(m["audit_chain_id"]),
		}
		if s, ok := m["issued_before"].(string); ok {
			if t, err := parseISOTime(s); err == nil {
				ev.issuedBefore, ev.hasIssuedBefore = t, true
			}
		}
		if s, ok := m["revoked_at"].(string); ok {
			ev.revokedAt, _ = parseISOTime(s)
		}
		if ev.revokedAt.After(r.latest) {
			r.latest = ev.revokedAt
		}
		if _, done := r.seen[ev.key]; done {
			continue
		}
		r.seen[ev.key] = ev.revokedAt
		fresh = append(fresh, ev)
	}
	if !r.latest.IsZero() {
		from := r.latest.Add(-time.Second)
		r.since = from.Format("2006-01-02T15:04:05.000000Z")
		for k, at := range r.seen {
			if at.Before(from) {
				delete(r.seen, k)
			}
		}
	}
	if len(fresh) == 0 {
		return
	}
	sort.Slice(fresh, func(i, j int) bool { return fresh[i].revokedAt.Before(fresh[j].revokedAt) })
	n := r.cache.removeIf(func(t *tokenInfo) bool {
		for i := range fresh {
			if fresh[i].mayRevoke(t) {
				return true
			}
		}
		return false
	})
	r.gen.Add(1)
	if n > 0 {
		r.log.InfoContext(ctx, "revocation events dropped cached tokens", "events", len(fresh), "tokens", n)
	}
}

// mayRevoke is a superset of Keystone's revoke_model.matches: a token
// issued after the event is never revoked by it; otherwise every
// attribute the event names must match the token's, and the attributes
// this service does not track (trusts, OAuth consumers, expiry) count as
// matching.
func (ev *revokeEvent) mayRevoke(t *tokenInfo) bool {
	if ev.hasIssuedBefore && !t.issued.IsZero() && t.issued.After(ev.issuedBefore) {
		return false
	}
	if ev.userID != "" && ev.userID != t.userID && !t.trust {
		return false
	}
	if ev.projectID != "" && ev.projectID != t.projectID {
		return false
	}
	if ev.domainID != "" && ev.domainID != t.userDomainID && ev.domainID != t.projectDomainID && ev.domainID != t.domainID {
		return false
	}
	if ev.roleID != "" && !contains(t.roleIDs, ev.roleID) {
		return false
	}
	if ev.auditID != "" && !contains(t.auditIDs, ev.auditID) {
		return false
	}
	if ev.chain != "" && !contains(t.auditIDs, ev.chain) {
		return false
	}
	return true
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
