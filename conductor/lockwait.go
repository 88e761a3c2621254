package conductor

import "sync"

// lockWaits lets a call waiting for a node lock that this conductor
// holds retry the moment the lock is released, instead of at the next
// [conductor]node_locked_retry_interval tick. Such a retry comes in
// addition to Ironic's attempts (see Manager.reserve): it can end a wait
// sooner, never make a caller give up sooner.
type lockWaits struct {
	mu sync.Mutex
	ch map[string]chan struct{}
}

// watch returns a channel closed at the next release of the node's lock
// by this conductor. Take it before trying the lock, so that a release
// between the try and the wait is not missed.
func (w *lockWaits) watch(uuid string) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ch == nil {
		w.ch = map[string]chan struct{}{}
	}
	c, ok := w.ch[uuid]
	if !ok {
		c = make(chan struct{})
		w.ch[uuid] = c
	}
	return c
}

// released wakes the callers watching the node.
func (w *lockWaits) released(uuid string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if c, ok := w.ch[uuid]; ok {
		close(c)
		delete(w.ch, uuid)
	}
}
