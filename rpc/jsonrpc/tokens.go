package jsonrpc

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/goironic/ironic/internal/keystoneauth"
)

// tokenSource is the keystone strategy's token: the password plugin of
// the [json_rpc] options authenticates on first use (Keystone may be down
// when the process starts), again when the token expires within
// keystoneauth's MIN_TOKEN_LIFE_SECONDS, and when the conductor refuses
// it. Safe for concurrent use.
type tokenSource struct {
	opts keystoneauth.Options
	now  func() time.Time // time.Now when nil
	log  *slog.Logger

	mu sync.Mutex
	pc *gophercloud.ProviderClient
}

func (s *tokenSource) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}

// token returns the token to send. refused, if not "", is a token the
// conductor answered 401 to: unless another call renewed it meanwhile, a
// new one is fetched.
func (s *tokenSource) token(ctx context.Context, refused string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pc == nil {
		pc, err := keystoneauth.Authenticate(ctx, s.opts, nil)
		if err != nil {
			return "", err
		}
		s.pc = pc
		return pc.Token(), nil
	}
	if refused != "" && s.pc.Token() == refused {
		if err := s.pc.Reauthenticate(ctx, refused); err != nil {
			return "", err
		}
		return s.pc.Token(), nil
	}
	if exp := s.pc.TokenExpiry(); !exp.IsZero() && s.clock().Add(keystoneauth.MinTokenLife).After(exp) {
		// If renewing fails, the current token is sent: the conductor may
		// still take it, and its 401 renews it again.
		if err := s.pc.Reauthenticate(ctx, s.pc.Token()); err != nil {
			s.log.WarnContext(ctx, "renewing the json-rpc token that expires soon failed", "expires", exp, "error", err)
		}
	}
	return s.pc.Token(), nil
}
