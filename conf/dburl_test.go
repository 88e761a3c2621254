package conf

import (
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/google/go-cmp/cmp"
)

func TestParseDatabaseURL(t *testing.T) {
	tests := []struct {
		url  string
		want DatabaseURL
	}{
		{"sqlite://", DatabaseURL{Driver: "sqlite", DSN: ":memory:", Database: ":memory:", Memory: true}},
		{"sqlite:///:memory:", DatabaseURL{Driver: "sqlite", DSN: ":memory:", Database: ":memory:", Memory: true}},
		{"sqlite:///data/ironic.sqlite", DatabaseURL{Driver: "sqlite", DSN: "data/ironic.sqlite", Database: "data/ironic.sqlite"}},
		{"sqlite:////var/lib/ironic/ironic.sqlite", DatabaseURL{Driver: "sqlite", DSN: "/var/lib/ironic/ironic.sqlite", Database: "/var/lib/ironic/ironic.sqlite"}},
		{"sqlite:////tmp/x.db?timeout=20", DatabaseURL{Driver: "sqlite", DSN: "/tmp/x.db", Database: "/tmp/x.db"}},
		{"SQLite+pysqlite:///x.db", DatabaseURL{Driver: "sqlite", DSN: "x.db", Database: "x.db"}},
		{
			"mysql+pymysql://ironic:secret@db.example.com:3307/ironic?charset=utf8",
			DatabaseURL{Driver: "mysql", DSN: "ironic:secret@tcp(db.example.com:3307)/ironic?charset=utf8&loc=UTC&parseTime=true",
				Database: "ironic", Host: "db.example.com", Port: 3307, User: "ironic"},
		},
		{
			"mysql://root@127.0.0.1/ironic",
			DatabaseURL{Driver: "mysql", DSN: "root@tcp(127.0.0.1:3306)/ironic?loc=UTC&parseTime=true",
				Database: "ironic", Host: "127.0.0.1", Port: 3306, User: "root"},
		},
		{
			"mysql+pymysql://u:p@/ironic?unix_socket=/var/run/mysqld/mysqld.sock&charset=utf8mb4",
			DatabaseURL{Driver: "mysql", DSN: "u:p@unix(/var/run/mysqld/mysqld.sock)/ironic?charset=utf8mb4&loc=UTC&parseTime=true",
				Database: "ironic", Socket: "/var/run/mysqld/mysqld.sock", User: "u"},
		},
		{
			"mysql+pymysql://ironic:p%40ss%3Aw%2Fo%25rd@localhost/ironic",
			DatabaseURL{Driver: "mysql", DSN: "ironic:p@ss:w/o%rd@tcp(localhost:3306)/ironic?loc=UTC&parseTime=true",
				Database: "ironic", Host: "localhost", Port: 3306, User: "ironic"},
		},
		{
			"mysql+pymysql://ironic:pw@[::1]:3306/ironic",
			DatabaseURL{Driver: "mysql", DSN: "ironic:pw@tcp([::1]:3306)/ironic?loc=UTC&parseTime=true",
				Database: "ironic", Host: "::1", Port: 3306, User: "ironic"},
		},
		{
			"mysql+pymysql://ironic:pw@/ironic",
			DatabaseURL{Driver: "mysql", DSN: "ironic:pw@tcp(localhost:3306)/ironic?loc=UTC&parseTime=true",
				Database: "ironic", Host: "localhost", Port: 3306, User: "ironic"},
		},
		{
			"mysql+pymysql://ironic:pw@h/ironic?charset=utf8&plugin=dbcounter&connect_timeout=5&read_timeout=2.5",
			DatabaseURL{Driver: "mysql", DSN: "ironic:pw@tcp(h:3306)/ironic?charset=utf8&loc=UTC&parseTime=true&readTimeout=2.5s&timeout=5s",
				Database: "ironic", Host: "h", Port: 3306, User: "ironic", IgnoredParams: []string{"plugin"}},
		},
		{
			"mariadb+pymysql://u:@h/db",
			DatabaseURL{Driver: "mysql", DSN: "u:@tcp(h:3306)/db?loc=UTC&parseTime=true",
				Database: "db", Host: "h", Port: 3306, User: "u"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			got, err := ParseDatabaseURL(tt.url)
			if err != nil {
				t.Fatalf("ParseDatabaseURL: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if got.Driver != "mysql" {
				return
			}
			// The MySQL driver must read the DSN back as meant.
			cfg, err := mysql.ParseDSN(got.DSN)
			if err != nil {
				t.Fatalf("mysql.ParseDSN(%q): %v", got.DSN, err)
			}
			if cfg.User != got.User || cfg.DBName != got.Database || !cfg.ParseTime || cfg.Loc != time.UTC {
				t.Errorf("mysql.ParseDSN: user %q db %q parseTime %v loc %v", cfg.User, cfg.DBName, cfg.ParseTime, cfg.Loc)
			}
			if got.Socket != "" {
				if cfg.Net != "unix" || cfg.Addr != got.Socket {
					t.Errorf("mysql.ParseDSN: net %q addr %q", cfg.Net, cfg.Addr)
				}
			} else if cfg.Net != "tcp" {
				t.Errorf("mysql.ParseDSN: net %q", cfg.Net)
			}
		})
	}

	// The decoded password survives the DSN.
	got, err := ParseDatabaseURL("mysql+pymysql://ironic:p%40ss%3Aw%2Fo%25rd@localhost/ironic")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := mysql.ParseDSN(got.DSN)
	if err != nil || cfg.Passwd != "p@ss:w/o%rd" || cfg.Addr != "localhost:3306" {
		t.Errorf("password = %q, addr = %q, err = %v", cfg.Passwd, cfg.Addr, err)
	}
}

func TestParseDatabaseURLErrors(t *testing.T) {
	tests := []struct {
		url  string
		want string
	}{
		{"postgresql://u:secret@h/db", `unsupported database "postgresql"`},
		{"postgresql+psycopg2://u@h/db", "only sqlite and mysql"},
		{"ironic.sqlite", "invalid database URL"},
		{"mysql://u:secret@h:notaport/db", "invalid port"},
		{"mysql://u:secret@h", "no database name"},
		{"mysql://u:secret@h/db?ssl_cipher=HIGH", "TLS"},
		{"mysql://u:secret@h/db?ssl_capath=/etc/ssl/certs", "TLS"},
		{"mysql://u:secret@h/db?ssl_disabled=1", "TLS"},
		{"mysql://u:secret@h/db?ssl_check_hostname=false", "ssl_check_hostname without"},
		{"mysql://u:secret@h/db?ssl_ca=/ca.pem&ssl_check_hostname=maybe", "ssl_check_hostname"},
		{"mysql://u:secret@h/db?ssl_key=/k.pem", "ssl_key without ssl_cert"},
		{"mysql://u:secret@h/db?connect_timeout=soon", "connect_timeout"},
		{"sqlite://host/x.db", "sqlite:///path"},
		{"mysql://u:bad%zz@h/db", "password"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			_, err := ParseDatabaseURL(tt.url)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error leaks the password: %v", err)
			}
		})
	}
}

// TestParseDatabaseURLTLS: SQLAlchemy's ssl_* parameters become
// PyMySQL's ssl dict (ssl_check_hostname defaults to true).
func TestParseDatabaseURLTLS(t *testing.T) {
	for _, tt := range []struct {
		url  string
		want DatabaseTLS
	}{
		{"mysql+pymysql://u:p@h/db?ssl_ca=/ca.pem", DatabaseTLS{CAFile: "/ca.pem", CheckHostname: true}},
		{"mysql+pymysql://u:p@h/db?ssl_ca=/ca.pem&ssl_cert=/c.pem&ssl_key=/k.pem&ssl_check_hostname=false",
			DatabaseTLS{CAFile: "/ca.pem", CertFile: "/c.pem", KeyFile: "/k.pem"}},
		{"mysql://u:p@h/db?ssl_cert=/c.pem", DatabaseTLS{CertFile: "/c.pem", CheckHostname: true}},
	} {
		u, err := ParseDatabaseURL(tt.url)
		if err != nil || u.TLS == nil || *u.TLS != tt.want {
			t.Errorf("%s: %+v, %v; want %+v", tt.url, u.TLS, err, tt.want)
		}
		if strings.Contains(u.DSN, "ssl") || strings.Contains(u.DSN, "tls") {
			t.Errorf("%s: the DSN carries TLS parameters: %s", tt.url, u.DSN)
		}
	}
	if u, err := ParseDatabaseURL("mysql://u:p@h/db"); err != nil || u.TLS != nil {
		t.Errorf("no ssl_*: TLS %+v, %v", u.TLS, err)
	}
}
