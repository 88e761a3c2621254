package redfish

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// poolKey identifies a cached connection as Ironic's SessionCache does:
// the BMC's address, the user, the certificate verification and (hashed)
// the password, so that changed credentials make a new session.
type poolKey struct {
	address, username, verify, password string
}

func keyOf(info *Info) poolKey {
	sum := sha256.Sum256([]byte(info.Address + "\x00" + info.Password))
	return poolKey{address: info.Address, username: info.Username, verify: fmt.Sprint(info.VerifyCA),
		password: hex.EncodeToString(sum[:])}
}

// pool is Ironic's SessionCache: authenticated connections reused across
// operations, at most size of them, the oldest dropped (and its session
// closed) when a new one would exceed the bound; size 0 caches none.
type pool struct {
	size    int
	dial    func(ctx context.Context, info *Info) (*bmc, error)
	timeout time.Duration
	log     *slog.Logger

	mu    sync.Mutex
	conns map[poolKey]*poolEntry
	order []poolKey // oldest first
	// closing counts the sessions being closed in the background.
	closing sync.WaitGroup
}

// poolEntry is one cached connection, or one being dialled: ready is
// closed once b or err is set.
type poolEntry struct {
	ready chan struct{}
	b     *bmc
	err   error
}

func newPool(size int, timeout time.Duration, log *slog.Logger, dial func(context.Context, *Info) (*bmc, error)) *pool {
	return &pool{size: size, dial: dial, timeout: timeout, log: log, conns: map[poolKey]*poolEntry{}}
}

// get returns the node's cached connection or dials a new one (one dial
// per key at a time: concurrent callers share it). release must be called
// when the caller is done with the connection: an uncached connection's
// session is then closed.
func (p *pool) get(ctx context.Context, info *Info) (b *bmc, release func(), err error) {
	if p.size <= 0 {
		b, err := p.dial(ctx, info)
		if err != nil {
			return nil, nil, err
		}
		return b, func() { p.closeLater(b) }, nil
	}
	key := keyOf(info)
	p.mu.Lock()
	e, ok := p.conns[key]
	if !ok {
		e = &poolEntry{ready: make(chan struct{})}
		p.conns[key] = e
		p.mu.Unlock()
		e.b, e.err = p.dial(ctx, info)
		p.mu.Lock()
		if e.err != nil {
			if p.conns[key] == e {
				delete(p.conns, key)
			}
		} else {
			p.order = append(p.order, key)
			for len(p.order) > p.size {
				oldest := p.order[0]
				p.order = p.order[1:]
				if old, ok := p.conns[oldest]; ok {
					delete(p.conns, oldest)
					p.closeLater(old.b)
				}
			}
		}
		close(e.ready)
		p.mu.Unlock()
	} else {
		p.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, nil, connectionError(info.Address, ctx.Err())
		}
	}
	if e.err != nil {
		return nil, nil, e.err
	}
	return e.b, func() {}, nil
}

// drop forgets the connection b of info, if it is still the cached one
// (Ironic's SessionCache.__exit__ after a connection or access error).
func (p *pool) drop(info *Info, b *bmc) {
	if p.size <= 0 {
		return
	}
	key := keyOf(info)
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.conns[key]
	if !ok || e.b != b {
		return
	}
	delete(p.conns, key)
	for i, k := range p.order {
		if k == key {
			p.order = append(p.order[:i], p.order[i+1:]...)
			break
		}
	}
}

// closeLater closes b's session in the background, bounded by the
// request timeout.
func (p *pool) closeLater(b *bmc) {
	if b == nil {
		return
	}
	p.closing.Add(1)
	go func() {
		defer p.closing.Done()
		ctx, cancel := context.WithTimeout(context.Background(), p.timeout)
		defer cancel()
		b.close(ctx)
	}()
}

// Close closes every cached session and waits for the closing to end.
func (p *pool) Close() {
	p.mu.Lock()
	for k, e := range p.conns {
		delete(p.conns, k)
		select {
		case <-e.ready:
			p.closeLater(e.b)
		default:
		}
	}
	p.order = nil
	p.mu.Unlock()
	p.closing.Wait()
}
