package conf

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/goironic/ironic/internal/certpool"
	"github.com/goironic/ironic/option"
)

// DatabaseURL is an SQLAlchemy connection URL ([database]connection)
// translated for Go's database drivers.
type DatabaseURL struct {
	// Driver is "sqlite" or "mysql".
	Driver string
	// DSN is the data source name for the driver:
	//   - sqlite (github.com/glebarez/sqlite, modernc.org/sqlite): the file
	//     path, relative to the working directory unless absolute, or
	//     ":memory:". Query parameters of the URL are not passed on.
	//   - mysql (github.com/go-sql-driver/mysql):
	//     user:password@tcp(host:port)/dbname?params or
	//     user:password@unix(/path/to/socket)/dbname?params.
	//     Params always include parseTime=true and loc=UTC: Ironic stores
	//     naive UTC DATETIMEs, which are then read as UTC time.Time values.
	//     The URL's charset is kept; connect_timeout, read_timeout and
	//     write_timeout (seconds) become timeout, readTimeout and
	//     writeTimeout. [database]mysql_sql_mode is not part of the URL;
	//     the caller applies it.
	DSN string
	// Database is the MySQL database name, or the SQLite path.
	Database string
	// Memory is true for an in-memory SQLite database. Every connection
	// to ":memory:" sees a different database, so use one connection.
	Memory bool
	// Host and Port are the MySQL server ("" and 0 for a unix socket).
	Host string
	Port int
	// Socket is the MySQL unix socket path, if any.
	Socket string
	// User is the MySQL user name.
	User string
	// IgnoredParams lists URL query parameters that have no meaning here
	// and were dropped (e.g. "plugin"), so the caller can log them.
	IgnoredParams []string
	// TLS is the connection's TLS as the URL asks for it (SQLAlchemy's
	// ssl_ca, ssl_cert, ssl_key and ssl_check_hostname, which it hands
	// PyMySQL as its ssl dict); nil is none.
	TLS *DatabaseTLS
}

// DatabaseTLS is what PyMySQL's ssl dict says: the CA file that verifies
// the server (none: the server's certificate is not verified, as PyMySQL
// does without a CA), the client's certificate and key, and whether the
// server's name is checked (with a CA only; default true).
type DatabaseTLS struct {
	CAFile, CertFile, KeyFile string
	CheckHostname             bool
}

// ParseDatabaseURL translates an SQLAlchemy URL into driver settings.
// Accepted forms:
//
//	sqlite://                                   in-memory
//	sqlite:///:memory:                          in-memory
//	sqlite:///relative/path.db                  relative to the working directory
//	sqlite:////absolute/path.db                 absolute
//	mysql://user:pass@host[:port]/db?charset=utf8
//	mysql+pymysql://user:pass@host[:port]/db    (also +mysqldb, +mysqlconnector)
//	mysql+pymysql://user:pass@/db?unix_socket=/path/to/socket
//
// User names and passwords may be percent-encoded ("p%40ss" is "p@ss").
// IPv6 hosts are written in brackets. Other databases (PostgreSQL, ...)
// are not supported and return an error.
func ParseDatabaseURL(u string) (DatabaseURL, error) {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok || scheme == "" {
		return DatabaseURL{}, fmt.Errorf("conf: invalid database URL %q: want dialect://host/database", redactURL(u))
	}
	dialect, _, _ := strings.Cut(strings.ToLower(scheme), "+")
	switch dialect {
	case "sqlite":
		return parseSQLiteURL(rest)
	case "mysql", "mariadb":
		return parseMySQLURL(u, rest)
	}
	return DatabaseURL{}, fmt.Errorf("conf: unsupported database %q in [database]connection: only sqlite and mysql are supported", scheme)
}

func parseSQLiteURL(rest string) (DatabaseURL, error) {
	rest, _, _ = strings.Cut(rest, "?")
	host, path, _ := strings.Cut(rest, "/")
	if host != "" {
		return DatabaseURL{}, fmt.Errorf("conf: invalid sqlite URL: want sqlite:///path (relative) or sqlite:////path (absolute), got host %q", host)
	}
	if path == "" || path == ":memory:" {
		return DatabaseURL{Driver: "sqlite", DSN: ":memory:", Database: ":memory:", Memory: true}, nil
	}
	return DatabaseURL{Driver: "sqlite", DSN: path, Database: path}, nil
}

// sqlalchemyURL is the parsed form of dialect://user:pass@host:port/db?q.
type sqlalchemyURL struct {
	user, password, host, port, database string
	hasPassword                          bool
	query                                url.Values
}

// splitSQLAlchemyURL parses the part after "://" the way SQLAlchemy's
// make_url does: a user part exists only when the text before the first
// "@" is "name" or "name:password" with no "/" in the name; the password
// runs to that "@".
func splitSQLAlchemyURL(rest string) (sqlalchemyURL, error) {
	var out sqlalchemyURL
	rest, rawQuery, _ := strings.Cut(rest, "?")
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return out, fmt.Errorf("invalid query %q: %w", rawQuery, err)
	}
	out.query = q
	if at := strings.IndexByte(rest, '@'); at >= 0 {
		userinfo := rest[:at]
		name, pass, hasPass := strings.Cut(userinfo, ":")
		if !strings.Contains(name, "/") {
			if out.user, err = url.PathUnescape(name); err != nil {
				return out, fmt.Errorf("invalid user name: %w", err)
			}
			if hasPass {
				if out.password, err = url.PathUnescape(pass); err != nil {
					return out, fmt.Errorf("invalid password encoding")
				}
				out.hasPassword = true
			}
			rest = rest[at+1:]
		}
	}
	hostport, db, _ := strings.Cut(rest, "/")
	out.database = db
	if strings.HasPrefix(hostport, "[") {
		end := strings.IndexByte(hostport, ']')
		if end < 0 {
			return out, fmt.Errorf("unclosed [ in host")
		}
		out.host = hostport[1:end]
		after := hostport[end+1:]
		if after != "" {
			if !strings.HasPrefix(after, ":") {
				return out, fmt.Errorf("invalid host %q", hostport)
			}
			out.port = after[1:]
		}
	} else {
		out.host, out.port, _ = strings.Cut(hostport, ":")
	}
	return out, nil
}

func parseMySQLURL(full, rest string) (DatabaseURL, error) {
	p, err := splitSQLAlchemyURL(rest)
	if err != nil {
		return DatabaseURL{}, fmt.Errorf("conf: invalid database URL %q: %w", redactURL(full), err)
	}
	if p.database == "" {
		return DatabaseURL{}, fmt.Errorf("conf: invalid database URL %q: no database name", redactURL(full))
	}
	out := DatabaseURL{Driver: "mysql", Database: p.database, User: p.user}

	params := url.Values{}
	var checkHostname *bool
	for name, vals := range p.query {
		v := vals[len(vals)-1]
		switch name {
		case "unix_socket":
			out.Socket = v
		case "charset":
			params.Set("charset", v)
		case "connect_timeout", "read_timeout", "write_timeout":
			secs, err := strconv.ParseFloat(v, 64)
			if err != nil || secs < 0 {
				return DatabaseURL{}, fmt.Errorf("conf: invalid database URL %q: %s must be a number of seconds", redactURL(full), name)
			}
			goName := map[string]string{"connect_timeout": "timeout", "read_timeout": "readTimeout", "write_timeout": "writeTimeout"}[name]
			params.Set(goName, strconv.FormatFloat(secs, 'f', -1, 64)+"s")
		case "ssl_ca", "ssl_cert", "ssl_key":
			if out.TLS == nil {
				out.TLS = &DatabaseTLS{CheckHostname: true}
			}
			switch name {
			case "ssl_ca":
				out.TLS.CAFile = v
			case "ssl_cert":
				out.TLS.CertFile = v
			default:
				out.TLS.KeyFile = v
			}
		case "ssl_check_hostname":
			b, err := option.ParseBool(v)
			if err != nil {
				return DatabaseURL{}, fmt.Errorf("conf: invalid database URL %q: ssl_check_hostname: %w", redactURL(full), err)
			}
			checkHostname = &b
		case "ssl", "ssl_capath", "ssl_cipher", "ssl_verify_cert", "ssl_verify_identity", "ssl_disabled":
			// Dropping TLS settings would silently downgrade security.
			return DatabaseURL{}, fmt.Errorf("conf: database URL parameter %q (TLS) is not supported; use ssl_ca, ssl_cert, ssl_key and ssl_check_hostname", name)
		default:
			out.IgnoredParams = append(out.IgnoredParams, name)
		}
	}
	sort.Strings(out.IgnoredParams)
	if checkHostname != nil {
		if out.TLS == nil {
			return DatabaseURL{}, fmt.Errorf("conf: invalid database URL %q: ssl_check_hostname without ssl_ca, ssl_cert or ssl_key", redactURL(full))
		}
		out.TLS.CheckHostname = *checkHostname
	}
	if out.TLS != nil && out.TLS.KeyFile != "" && out.TLS.CertFile == "" {
		return DatabaseURL{}, fmt.Errorf("conf: invalid database URL %q: ssl_key without ssl_cert", redactURL(full))
	}
	params.Set("parseTime", "true")
	params.Set("loc", "UTC")

	var addr string
	if out.Socket != "" {
		addr = "unix(" + out.Socket + ")"
	} else {
		out.Host = p.host
		if out.Host == "" {
			out.Host = "localhost"
		}
		out.Port = 3306
		if p.port != "" {
			n, err := strconv.Atoi(p.port)
			if err != nil || n <= 0 || n > 65535 {
				return DatabaseURL{}, fmt.Errorf("conf: invalid database URL %q: invalid port %q", redactURL(full), p.port)
			}
			out.Port = n
		}
		addr = "tcp(" + net.JoinHostPort(out.Host, strconv.Itoa(out.Port)) + ")"
	}

	var b strings.Builder
	if p.user != "" || p.hasPassword {
		b.WriteString(p.user)
		if p.hasPassword {
			b.WriteByte(':')
			b.WriteString(p.password)
		}
		b.WriteByte('@')
	}
	b.WriteString(addr)
	b.WriteByte('/')
	b.WriteString(p.database)
	b.WriteByte('?')
	b.WriteString(params.Encode())
	out.DSN = b.String()
	return out, nil
}

// redactURL hides the password of a database URL for error messages.
func redactURL(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	at := strings.IndexByte(rest, '@')
	if at < 0 {
		return u
	}
	name, _, hasPass := strings.Cut(rest[:at], ":")
	if !hasPass || strings.Contains(name, "/") {
		return u
	}
	return scheme + "://" + name + ":***" + rest[at:]
}

// Config loads the files and returns the client TLS configuration
// PyMySQL's _create_ssl_ctx makes of them: with a CA, the server's
// certificate must chain to it and, with CheckHostname, name the host
// (PyMySQL checks server_hostname, the URL's host); without one, the
// connection is encrypted but the server is not verified (CERT_NONE).
// The client certificate is presented when set. A file that cannot be
// read is an error here, at start-up.
func (t *DatabaseTLS) Config() (*tls.Config, error) {
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if t.CertFile != "" {
		key := t.KeyFile
		if key == "" {
			key = t.CertFile // PyMySQL: the key may be in the certificate's file
		}
		cert, err := tls.LoadX509KeyPair(t.CertFile, key)
		if err != nil {
			return nil, fmt.Errorf("database URL ssl_cert, ssl_key: %w", err)
		}
		c.Certificates = []tls.Certificate{cert}
	}
	if t.CAFile == "" {
		// As PyMySQL without ssl_ca: encrypted, not verified.
		c.InsecureSkipVerify = true //nolint:gosec // PyMySQL's CERT_NONE without a CA, kept for compatibility
		return c, nil
	}
	pool, err := certpool.Load(t.CAFile)
	if err != nil {
		return nil, fmt.Errorf("database URL ssl_ca: %w", err)
	}
	c.RootCAs = pool
	if !t.CheckHostname {
		// The chain is verified, the name is not (ssl_check_hostname=false).
		c.InsecureSkipVerify = true //nolint:gosec // the chain is verified below, only the name is not
		c.VerifyPeerCertificate = func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 {
				return errors.New("the database server sent no certificate")
			}
			certs := make([]*x509.Certificate, len(raw))
			for i, r := range raw {
				cert, err := x509.ParseCertificate(r)
				if err != nil {
					return err
				}
				certs[i] = cert
			}
			inter := x509.NewCertPool()
			for _, cert := range certs[1:] {
				inter.AddCert(cert)
			}
			_, err := certs[0].Verify(x509.VerifyOptions{Roots: pool, Intermediates: inter})
			return err
		}
	}
	return c, nil
}
