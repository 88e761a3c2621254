package jsonrpc

import (
	"context"
	"sync"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/goironic/ironic/internal/keystoneauth"
)

// tokenSource is the keystone strategy's token: the password plugin of
// the [json_rpc] options authenticates on first use (Keystone may be down
// when the process starts) and again when the conductor refuses the
// token. Safe for concurrent use.
type tokenSource struct {
	opts keystoneauth.Options

	mu sync.Mutex
	pc *gophercloud.ProviderClient
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
	}
	return s.pc.Token(), nil
}
