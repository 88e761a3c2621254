package auth

import (
	"crypto/sha256"
	"sync"
	"time"
)

// tokenKey is the cache key of a token: its SHA-256, as
// keystonemiddleware's "tokens/<sha256 hex>" (the token itself is not
// kept).
type tokenKey [sha256.Size]byte

func keyOf(token string) tokenKey { return sha256.Sum256([]byte(token)) }

// cacheEntry is a validated token and how long it may be reused.
type cacheEntry struct {
	info *tokenInfo
	// until ends the entry's life (token_cache_time after validation).
	until time.Time
	// validated is when Keystone last vouched for the token.
	validated time.Time
}

// tokenCache is keystonemiddleware's in-process token cache, bounded:
// a ring of the last max insertions; an insertion evicts the one max
// insertions older if it is still there.
type tokenCache struct {
	mu    sync.RWMutex
	m     map[tokenKey]*cacheEntry
	order []tokenKey // insertion order, a ring of len max
	next  int
	max   int
}

func newTokenCache(max int) *tokenCache {
	return &tokenCache{m: make(map[tokenKey]*cacheEntry, max), order: make([]tokenKey, max), max: max}
}

func (c *tokenCache) get(k tokenKey) *cacheEntry {
	c.mu.RLock()
	e := c.m[k]
	c.mu.RUnlock()
	return e
}

// put stores e under k, evicting the oldest insertion when full.
func (c *tokenCache) put(k tokenKey, e *cacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; ok {
		c.m[k] = e
		return
	}
	delete(c.m, c.order[c.next])
	c.m[k] = e
	c.order[c.next] = k
	c.next = (c.next + 1) % c.max
}

// remove drops k's entry if it is still e.
func (c *tokenCache) remove(k tokenKey, e *cacheEntry) {
	c.mu.Lock()
	if c.m[k] == e {
		delete(c.m, k)
	}
	c.mu.Unlock()
}

// removeIf drops the entries whose token drop says.
func (c *tokenCache) removeIf(drop func(*tokenInfo) bool) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for k, e := range c.m {
		if drop(e.info) {
			delete(c.m, k)
			n++
		}
	}
	return n
}

func (c *tokenCache) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}
