package tlsconf

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql" // the admin connection

	"github.com/goironic/ironic/rpc/amqp/rabbittest"
	"github.com/goironic/ironic/test/internal/cluster"
)

// TestDatabaseTLS runs ironic-dbsync, Python 21.4's and ours, against a
// MariaDB that requires TLS and client certificates (its certificate
// names 127.0.0.2 and localhost, not 127.0.0.1), with the database URLs
// operators write for PyMySQL (SQLAlchemy's ssl_ca, ssl_cert, ssl_key,
// ssl_check_hostname): both must connect, or both be refused, for each
// ([database]max_retries = 1: oslo.db would retry a refused connection
// ten times, 10 s apart; ours does not retry at start-up).
func TestDatabaseTLS(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cluster.Build(t, cluster.DBSync)
	d := t.TempDir()
	p := func(n string) string { return filepath.Join(d, n) }
	ca, caKey, err := rabbittest.NewCert(nil, nil, "db CA", p("ca.pem"), p("ca.key"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, cert, key string }{{"127.0.0.2", "server.pem", "server.key"}, {"ironic", "client.pem", "client.key"}} {
		if _, _, err := rabbittest.NewCert(ca, caKey, c.name, p(c.cert), p(c.key)); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := rabbittest.NewCert(nil, nil, "other CA", p("other.pem"), p("other.key")); err != nil {
		t.Fatal(err)
	}
	srv := cluster.PrivateMariaDB(ctx, t, "--ssl-ca="+p("ca.pem"), "--ssl-cert="+p("server.pem"), "--ssl-key="+p("server.key"),
		"--require-secure-transport=ON")
	admin, err := sql.Open("mysql", srv.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	for _, q := range []string{"CREATE DATABASE ironic CHARACTER SET utf8mb3",
		"CREATE USER 'ironic'@'%' IDENTIFIED BY 'pw' REQUIRE X509", "GRANT ALL ON ironic.* TO 'ironic'@'%'"} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	base := func(host, query string) string {
		return fmt.Sprintf("mysql+pymysql://ironic:pw@%s:%d/ironic?charset=utf8&%s", host, srv.Port, query)
	}
	tlsq := url.Values{"ssl_ca": {p("ca.pem")}, "ssl_cert": {p("client.pem")}, "ssl_key": {p("client.key")}}.Encode()
	cases := []struct{ name, url, want string }{
		{"CA, client certificate, host named by the certificate", base("localhost", tlsq), "ok"},
		{"host not named by the certificate", base("127.0.0.1", tlsq), "refused"},
		{"host not named, ssl_check_hostname=false", base("127.0.0.1", tlsq+"&ssl_check_hostname=false"), "ok"},
		{"another CA", base("localhost", url.Values{"ssl_ca": {p("other.pem")}, "ssl_cert": {p("client.pem")}, "ssl_key": {p("client.key")}}.Encode()), "refused"},
		{"no client certificate", base("localhost", "ssl_ca="+p("ca.pem")), "refused"},
		{"client certificate, no CA (not verified, as PyMySQL)", base("127.0.0.1", url.Values{"ssl_cert": {p("client.pem")}, "ssl_key": {p("client.key")}}.Encode()), "ok"},
		{"no TLS", base("localhost", "a=b"), "refused"},
	}
	progs := []cluster.Program{cluster.Ours(cluster.DBSync)}
	if pythonAvailable() {
		progs = append(progs, cluster.Python(cluster.DBSync))
	} else {
		cluster.RequirePython(t, "ironic.cmd.dbsync", "python3-ironic")
	}
	for _, c := range cases {
		for _, prog := range progs {
			conf := filepath.Join(t.TempDir(), "ironic.conf")
			if err := os.WriteFile(conf, []byte("[database]\nconnection = "+c.url+"\nmax_retries = 1\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			r := cluster.Run(ctx, t, prog, "--config-file", conf, "version")
			got := "ok"
			if r.Code != 0 {
				got = "refused"
			}
			if got != c.want {
				t.Errorf("%s, %s: %s (exit %d), want %s\n%s", c.name, prog, got, r.Code, c.want, tailOf(r.Stderr, 1500))
			} else {
				t.Logf("%s, %s: %s", c.name, prog, got)
			}
			if got == "refused" && !prog.Python {
				// Ours must say why, at start-up.
				if !strings.Contains(r.Stderr, "tls") && !strings.Contains(r.Stderr, "TLS") && !strings.Contains(r.Stderr, "certificate") && !strings.Contains(r.Stderr, "secure transport") {
					t.Errorf("%s: ours refused without naming TLS:\n%s", c.name, tailOf(r.Stderr, 1500))
				}
				for _, l := range strings.Split(r.Stderr, "\n") {
					if strings.Contains(l, "rror") || strings.Contains(l, "x509") || strings.Contains(l, "tls") {
						t.Logf("  %s", tailOf(l, 400))
					}
				}
			}
		}
	}
}

func tailOf(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return strings.TrimSpace(s)
}
