package auth

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// ipxeRoutes: the ipxe_config driver vendor method is public (iPXE cannot
// authenticate); every other driver route, vendor passthru included,
// still needs credentials.
var ipxeRoutes = struct{ public, private []string }{
	public: []string{
		"/v1/drivers/fake-hardware/vendor_passthru/ipxe_config?port_address=52:54:00:12:34:56",
		"/v1/drivers/ipmi/vendor_passthru/ipxe_config?node_uuid=1be26c0b-03f2-4d2e-ae87-c02d7f33c123",
		"/v1/drivers/ipmi/vendor_passthru/ipxe_config/",
	},
	private: []string{
		"/v1/drivers", "/v1/drivers/ipmi", "/v1/drivers/ipmi/properties",
		"/v1/drivers/ipmi/vendor_passthru/methods", "/v1/drivers/ipmi/vendor_passthru/other",
		"/v1/drivers/ipmi/vendor_passthru?method=ipxe_config", // only the path form is public
		"/v1/drivers/ipmi/vendor_passthru/ipxe_config/x", "/v1/drivers/a/b/vendor_passthru/ipxe_config",
		"/v1/nodes/x/vendor_passthru/ipxe_config",
	},
}

func TestIPXEConfigPublicKeystone(t *testing.T) {
	s := newKSSetup(t)
	for _, p := range ipxeRoutes.public {
		rec, rc := s.get(p)
		if rec.Code != 299 || rc == nil || !rc.IsPublicAPI {
			t.Errorf("%s: %d %+v", p, rec.Code, rc)
		}
	}
	for _, p := range ipxeRoutes.private {
		if rec, _ := s.get(p); rec.Code != 401 {
			t.Errorf("%s without a token: %d, want 401", p, rec.Code)
		}
	}
	if auths, v, _ := s.ks.counts(); v != 0 {
		t.Errorf("Keystone validated %d tokens (%d auths)", v, auths)
	}
}

func TestIPXEConfigPublicBasic(t *testing.T) {
	file := filepath.Join(t.TempDir(), "htpasswd")
	// admin:password, bcrypt.
	if err := os.WriteFile(file, []byte("admin:$2y$05$mCAzXyMlCeqnlW7Mo6N6keCPbZtBGeakPoQg7DB2Q4oUJ0s3G5jIa\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := New(Config{Strategy: HTTPBasic, HTTPBasicAuthUserFile: file}, Deps{Log: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	get := func(p string) (int, bool) {
		rec := httptest.NewRecorder()
		pa := &passed{}
		m.Handler(pa).ServeHTTP(rec, httptest.NewRequest("GET", "http://ironic.test"+p, nil))
		return rec.Code, pa.rc != nil && pa.rc.IsPublicAPI
	}
	for _, p := range ipxeRoutes.public {
		if code, public := get(p); code != 299 || !public {
			t.Errorf("%s: %d public=%v", p, code, public)
		}
	}
	for _, p := range ipxeRoutes.private {
		if code, _ := get(p); code != 401 {
			t.Errorf("%s without credentials: %d, want 401", p, code)
		}
	}
}
