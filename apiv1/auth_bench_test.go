package apiv1_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/goironic/ironic/apiv1/auth"
)

// benchToken is what Keystone answers for the benchmark's token: a
// project-scoped member with a small catalog, as keystone.sh's users get.
const benchToken = `{"token": {"methods": ["password"], "user": {"domain": {"id": "default", "name": "Default"},
 "id": "6d7c1b4a0c1a4d8f9c2d1e0f3a4b5c6d", "name": "demo-member", "password_expires_at": null},
 "audit_ids": ["E5fm1hjKSqewC50TTeqctA"], "expires_at": "2099-01-01T00:00:00.000000Z",
 "issued_at": "2026-01-01T00:00:00.000000Z", "project": {"domain": {"id": "default", "name": "Default"},
 "id": "0a1b2c3d4e5f60718293a4b5c6d7e8f9", "name": "demo"}, "is_domain": false,
 "roles": [{"id": "r1", "name": "member"}, {"id": "r2", "name": "reader"}],
 "catalog": [{"endpoints": [{"id": "e1", "interface": "public", "region_id": "RegionOne",
 "url": "http://127.0.0.1:6385", "region": "RegionOne"}], "id": "s1", "type": "baremetal", "name": "ironic"},
 {"endpoints": [{"id": "e2", "interface": "public", "region_id": "RegionOne", "url": "http://127.0.0.1:5000/v3",
 "region": "RegionOne"}], "id": "s2", "type": "identity", "name": "keystone"}]}}`

const benchTokenID = "gAAAAABrEO2xA2nUIdvX5BKWeTcf2q7y_cXgVRLY6B-lZ5JX7P2MsvKXUBi3Md9FN_gMIPIySls1QqhzVFfFKMt9RCMDE2lHIycKOuxJ0FWqyHGc11lDpgWun5GdaOp_cetpcIz1vVkTcQqdi98AlUaai-wP1_3jW6rzT_sK4gTVIl_kou-5_XE"

// benchIdentity is Keystone for the benchmark: one valid token.
type benchIdentity struct{ validations int }

func (b *benchIdentity) ValidateToken(_ context.Context, token string, _ bool) ([]byte, error) {
	b.validations++
	if token != benchTokenID {
		return nil, auth.ErrInvalidToken
	}
	return []byte(benchToken), nil
}

func (b *benchIdentity) RevocationEvents(context.Context, string) ([]byte, error) {
	return []byte(`{"events": [], "links": {"next": null, "self": "", "previous": null}}`), nil
}

// BenchmarkNodeGetAuth is GET /v1/nodes/{uuid} through the whole handler
// behind the authentication middleware: noauth against keystone with the
// token already validated (the cache is warm; the revocation list is
// read once a second, from a Keystone that answers at once).
func BenchmarkNodeGetAuth(b *testing.B) {
	s := NewSetup(b)
	uuids := seedNodes(b, s, 50)
	log := slog.New(slog.DiscardHandler)
	noauth, err := auth.New(auth.Config{Strategy: auth.NoAuth}, auth.Deps{Log: log})
	if err != nil {
		b.Fatal(err)
	}
	id := &benchIdentity{}
	ks, err := auth.New(auth.Config{Strategy: auth.Keystone, Keystone: auth.KeystoneConfig{
		AuthType: "password", AuthURL: "http://127.0.0.1:5000/v3", WWWAuthenticateURI: "http://127.0.0.1:5000/v3",
		TokenCacheTime: 300 * time.Second, ServiceTokenRoles: []string{"service"}, ServiceTokenRolesRequired: true,
		IncludeServiceCatalog: true,
	}}, auth.Deps{Log: log, Identity: id})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		h       http.Handler
		headers []string
	}{
		{"none", s.API, nil},
		{"noauth", noauth.Handler(s.API), []string{"X-Auth-Token", benchTokenID}},
		{"keystone", ks.Handler(s.API), []string{"X-Auth-Token", benchTokenID}},
	} {
		b.Run(c.name, func(b *testing.B) {
			serve := func(i int) int {
				req := httptest.NewRequest("GET", "/v1/nodes/"+uuids[i%len(uuids)], nil)
				req.Header.Set("X-OpenStack-Ironic-API-Version", s.Version)
				for j := 0; j+1 < len(c.headers); j += 2 {
					req.Header.Set(c.headers[j], c.headers[j+1])
				}
				w := &discard{h: http.Header{}, code: 200}
				c.h.ServeHTTP(w, req)
				return w.code
			}
			if code := serve(0); code != 200 { // warms the token cache
				b.Fatal(code)
			}
			before := id.validations
			b.ReportAllocs()
			b.ResetTimer()
			i := 0
			for b.Loop() {
				if code := serve(i); code != 200 {
					b.Fatal(code)
				}
				i++
			}
			b.StopTimer()
			if id.validations != before {
				b.Fatalf("%d validations with a warm cache", id.validations-before)
			}
		})
	}
}
