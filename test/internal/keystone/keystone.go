// Package keystone starts a real, throw-away Keystone for tests: Debian's
// python3-keystone (Zed) served by uwsgi-core as a plain process on
// 127.0.0.1, with SQLite, fernet tokens and the users, projects, roles and
// catalog entries the RBAC tests need.
//
// Start creates the state (configuration, fernet and credential keys, the
// database through keystone-manage db_sync and bootstrap), starts uwsgi in
// its own session and process group and provisions the identities below
// through the identity v3 API. Stop kills that process group (by its pid,
// never by name); Restart starts it again on the same port and state, so
// tokens issued before stay valid.
//
// Identities (region RegionOne; domain Default unless noted):
//
//	admin                admin on project "admin" and on system "all" (AdminPassword)
//	ironic               admin and service on project "service" (ServicePassword):
//	                     the service user that validates tokens
//	system-admin         admin on system "all"         (UserPassword, as all below)
//	system-member        member on system "all"
//	system-reader        reader on system "all"
//	demo-admin           admin on project "demo"
//	demo-member          member on project "demo"
//	demo-reader          reader on project "demo"
//	alt-member           member on project "alt-demo"
//	alt-reader           reader on project "alt-demo"
//	other-domain-member  member on project "other-demo"; user and project are
//	                     in the domain "other-domain"
//
// The pseudo-user "admin-system" is admin with a system-scoped token.
//
// Tests use ForTest, which skips when Keystone is not installed
// (scripts/install-test-deps.sh installs it) unless the environment sets
// IRONIC_TEST_REQUIRE_KEYSTONE=1.
package keystone

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/goironic/ironic/internal/freeport"

	"github.com/gophercloud/gophercloud/v2"
)

// Passwords of the provisioned users.
const (
	AdminPassword   = "admin"  // user "admin"
	ServicePassword = "ironic" // user "ironic"
	UserPassword    = "secret" // every other user
)

// Names shared by every instance.
const (
	Region        = "RegionOne"
	DefaultDomain = "Default"      // name of the domain with ID "default"
	OtherDomain   = "other-domain" // the second domain (other-domain-member, other-demo)
)

// StartTimeout is how long ForTest lets Start take. A start takes about
// 10 s on an idle machine; this leaves room for a busy one.
const StartTimeout = 2 * time.Minute

// Options configure Start. The zero value is a working default.
type Options struct {
	// Port is the port on 127.0.0.1; 0 picks a free one.
	Port int
	// Dir holds the state: keystone.conf, keystone.sqlite, fernet-keys,
	// credential-keys and keystone.log. "" makes a temporary directory,
	// which Close removes. An existing Dir is reused: keys and database
	// are kept and provisioning is idempotent.
	Dir string
	// BaremetalURL, when set, is the "baremetal" service's public, internal
	// and admin endpoint.
	BaremetalURL string
	// NetworkURL, when set, is the "network" service's endpoint.
	NetworkURL string
	// TokenExpiration is [token]expiration, rounded up to whole seconds;
	// 0 keeps Keystone's default (3600 s).
	TokenExpiration time.Duration
	// Log receives the output of keystone-manage and uwsgi in addition to
	// Dir/keystone.log; nil writes the file only. Writes are serialized.
	Log io.Writer
}

// Keystone is a running (or stopped) Keystone. Its methods are safe for
// concurrent use.
type Keystone struct {
	port    int
	dir     string
	tempDir bool // dir was made by Start; Close removes it
	expiry  time.Duration
	log     io.Writer // nil or a serialized Options.Log
	http    *http.Client

	mu   sync.Mutex
	proc *process // the uwsgi master; nil when stopped

	// Set by Start's provisioning, read-only afterwards.
	admin    *gophercloud.ServiceClient // identity v3 as project-scoped admin, re-authenticating
	users    map[string]string          // user name → ID
	projects map[string]string          // project name → ID
}

// Start creates (or reuses) the state in o.Dir, starts Keystone on
// 127.0.0.1:o.Port, waits until /v3 answers and provisions the users,
// projects, roles, domains and catalog entries. ctx bounds the start only;
// the process runs until Stop. On error nothing is left running, and a
// temporary Dir is removed (the error carries the end of keystone.log).
func Start(ctx context.Context, o Options) (_ *Keystone, err error) {
	defer wrap(&err, "keystone: start")
	if err := Installed(); err != nil {
		return nil, err
	}
	k, err := newKeystone(o)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = k.Close()
		}
	}()
	if err := k.writeState(); err != nil {
		return nil, err
	}
	// uwsgi loads the application (several seconds) while keystone-manage
	// creates the database: loading touches neither the database nor the
	// keys, and /v3 is only probed after db_sync and bootstrap are done.
	if err := k.startServer(); err != nil {
		return nil, err
	}
	began := time.Now()
	if err := k.manage(ctx); err != nil {
		return nil, err
	}
	k.note("db_sync and bootstrap done after %s", time.Since(began).Round(time.Millisecond))
	if err := k.waitReady(ctx); err != nil {
		return nil, err
	}
	k.note("%s answers after %s", k.AuthURL(), time.Since(began).Round(time.Millisecond))
	if err := k.provision(ctx, o.BaremetalURL, o.NetworkURL); err != nil {
		return nil, err
	}
	k.note("provisioned after %s", time.Since(began).Round(time.Millisecond))
	return k, nil
}

// note appends a line about the start to keystone.log (and Options.Log).
func (k *Keystone) note(format string, args ...any) {
	line := fmt.Sprintf("goironic keystone: "+format+"\n", args...)
	if f, err := os.OpenFile(k.LogPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
		_, _ = f.WriteString(line)
		_ = f.Close()
	}
	if k.log != nil {
		_, _ = io.WriteString(k.log, line)
	}
}

// newKeystone checks o and settles the port and the state directory.
func newKeystone(o Options) (*Keystone, error) {
	if o.Port < 0 || o.Port > 65535 {
		return nil, fmt.Errorf("port %d out of range", o.Port)
	}
	if o.TokenExpiration < 0 {
		return nil, fmt.Errorf("negative token expiration %s", o.TokenExpiration)
	}
	k := &Keystone{
		port:   o.Port,
		expiry: o.TokenExpiration,
		http: &http.Client{
			Timeout:   30 * time.Second,
			Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true},
		},
	}
	if o.Log != nil {
		k.log = &lockedWriter{w: o.Log}
	}
	if k.port == 0 {
		p, err := freeport.TCP()
		if err != nil {
			return nil, err
		}
		k.port = p
	}
	if o.Dir == "" {
		d, err := os.MkdirTemp("", "goironic-keystone-")
		if err != nil {
			return nil, fmt.Errorf("state dir: %w", err)
		}
		k.dir, k.tempDir = d, true
		return k, nil
	}
	d, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("state dir: %w", err)
	}
	if err := os.MkdirAll(d, 0o700); err != nil {
		return nil, fmt.Errorf("state dir: %w", err)
	}
	k.dir = d
	return k, nil
}

// AuthURL is the identity v3 endpoint, "http://127.0.0.1:PORT/v3".
func (k *Keystone) AuthURL() string { return k.baseURL() + "/v3" }

func (k *Keystone) baseURL() string { return "http://127.0.0.1:" + strconv.Itoa(k.port) }

// AuthtokenSection is ironic.conf's [keystone_authtoken] section for a
// server that validates tokens with this Keystone as the ironic service
// user (keystonemiddleware's password plugin).
func (k *Keystone) AuthtokenSection() string {
	return fmt.Sprintf(`[keystone_authtoken]
auth_type = password
auth_url = %[1]s
www_authenticate_uri = %[1]s
username = ironic
password = %[2]s
user_domain_name = Default
project_name = service
project_domain_name = Default
`, k.AuthURL(), ServicePassword)
}

// Port is the port Keystone listens on.
func (k *Keystone) Port() int { return k.port }

// Dir is the state directory.
func (k *Keystone) Dir() string { return k.dir }

// LogPath is the file uwsgi and keystone-manage write to.
func (k *Keystone) LogPath() string { return filepath.Join(k.dir, "keystone.log") }

// UserID is the ID of user who ("admin-system" is admin); "" for an
// unknown user.
func (k *Keystone) UserID(who string) string {
	if who == "admin-system" {
		who = "admin"
	}
	return k.users[who]
}

// ProjectID is the ID of project name (admin, service, demo, alt-demo,
// other-demo); "" for an unknown project.
func (k *Keystone) ProjectID(name string) string { return k.projects[name] }

// Close stops Keystone and removes the state directory if Start made it.
func (k *Keystone) Close() error {
	err := k.Stop()
	if k.tempDir {
		err = errors.Join(err, os.RemoveAll(k.dir))
	}
	return err
}

// wrap prefixes a non-nil *errp with what failed.
func wrap(errp *error, format string, args ...any) {
	if *errp != nil {
		*errp = fmt.Errorf(format+": %w", append(args, *errp)...)
	}
}

// lockedWriter serializes writes from the concurrent child processes.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
