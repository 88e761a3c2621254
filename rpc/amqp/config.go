// Package amqp is the oslo.messaging RabbitMQ transport (rpc_transport =
// oslo): a Client that implements rpc.ConductorAPI by publishing requests
// to the "ironic" topic exchange and waiting on its reply queue, and a
// Server that consumes a conductor's queues and answers through the oslo
// codec. Both reconnect by themselves when the broker goes away, with
// backoff, and declare their exchanges and queues again; calls in flight
// when the connection drops fail at once with TemporaryFailure.
//
// The topology and message properties are oslo.messaging 14's rabbit
// driver defaults (see /work/shared/reference/rpc.md §3).
package amqp

import (
	"crypto/tls"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// Config holds the transport's options (see Bind); zero fields take the
// options' defaults.
type Config struct {
	// TransportURL is [DEFAULT]transport_url, e.g.
	// rabbit://user:pass@host:5672/vhost (several hosts separated by
	// commas are tried in turn).
	TransportURL string
	// Exchange is [DEFAULT]control_exchange ("ironic", Ironic's default).
	Exchange string
	// ResponseTimeout is [DEFAULT]rpc_response_timeout (60 s): how long a
	// call waits for its reply, and the AMQP expiration of the request.
	ResponseTimeout time.Duration
	// RetryInterval, RetryBackoff and IntervalMax are
	// [oslo_messaging_rabbit]rabbit_retry_interval (1 s),
	// rabbit_retry_backoff (2 s) and rabbit_interval_max (30 s): the wait
	// before reconnecting grows by RetryBackoff up to IntervalMax.
	RetryInterval time.Duration
	RetryBackoff  time.Duration
	IntervalMax   time.Duration
	// TransientQueuesTTL is rabbit_transient_queues_ttl (1800 s): the
	// x-expires of reply and fanout queues.
	TransientQueuesTTL time.Duration
	// HeartbeatTimeoutThreshold is
	// [oslo_messaging_rabbit]heartbeat_timeout_threshold (60 s); the
	// AMQP heartbeat interval negotiated with the broker is half of it.
	HeartbeatTimeoutThreshold time.Duration
	// SSL is [oslo_messaging_rabbit]ssl: connect with TLS (amqps, port
	// 5671 unless the transport URL names one), as tlsConfig describes,
	// with ssl_ca_file, ssl_cert_file, ssl_key_file, ssl_version and
	// ssl_enforce_hostname_verification.
	SSL                            bool
	SSLCAFile                      string
	SSLCertFile                    string
	SSLKeyFile                     string
	SSLVersion                     string
	SSLEnforceHostnameVerification bool
	// SSLEnforceFIPSMode is ssl_enforce_fips_mode: with SSL, the process
	// must run Go's FIPS 140-3 module (GODEBUG=fips140=on or only);
	// oslo.messaging turns OpenSSL's FIPS mode on, which a Go process
	// cannot do once started, so its absence stops start-up as Python's
	// lack of FIPS_mode does.
	SSLEnforceFIPSMode bool
	// Executors is [DEFAULT]executor_thread_pool_size (64): how many
	// requests a server runs at once.
	Executors int
}

func (c Config) withDefaults() Config {
	def := DefaultConfig()
	if c.TransportURL == "" {
		c.TransportURL = def.TransportURL
	}
	if c.Exchange == "" {
		c.Exchange = def.Exchange
	}
	if c.ResponseTimeout <= 0 {
		c.ResponseTimeout = def.ResponseTimeout
	}
	if c.RetryInterval <= 0 {
		c.RetryInterval = def.RetryInterval
	}
	if c.RetryBackoff < 0 {
		c.RetryBackoff = 0
	} else if c.RetryBackoff == 0 {
		c.RetryBackoff = def.RetryBackoff
	}
	if c.IntervalMax <= 0 {
		c.IntervalMax = def.IntervalMax
	}
	if c.TransientQueuesTTL <= 0 {
		c.TransientQueuesTTL = def.TransientQueuesTTL
	}
	if c.HeartbeatTimeoutThreshold <= 0 {
		c.HeartbeatTimeoutThreshold = def.HeartbeatTimeoutThreshold
	}
	if c.Executors <= 0 {
		c.Executors = def.Executors
	}
	return c
}

// broker is one host of the transport URL.
type broker struct {
	uri   string
	vhost string
}

// parseTransportURL reads oslo's transport_url into AMQP URIs (amqps
// with ssl). Kombu's rules: no user means guest/guest, no port 5672
// (5671 with ssl), no path or "/" the vhost "/".
func parseTransportURL(s string, ssl bool) ([]broker, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("transport_url: %w", err)
	}
	scheme := u.Scheme
	if i := strings.IndexByte(scheme, '+'); i >= 0 {
		scheme = scheme[i+1:]
	}
	if scheme != "rabbit" && scheme != "amqp" && scheme != "kombu" {
		return nil, fmt.Errorf("transport_url: unsupported transport %q", u.Scheme)
	}
	vhost := strings.TrimPrefix(u.Path, "/")
	if vhost == "" {
		vhost = "/"
	}
	// url.Parse keeps "u:p@h1:5672,u:p@h2:5672" as one host when the
	// userinfo repeats; split the raw authority ourselves.
	authority := strings.TrimPrefix(s, u.Scheme+"://")
	if i := strings.IndexAny(authority, "/?"); i >= 0 {
		authority = authority[:i]
	}
	var out []broker
	for _, part := range strings.Split(authority, ",") {
		user, pass, hostport := "guest", "guest", part
		if at := strings.LastIndexByte(part, '@'); at >= 0 {
			info := part[:at]
			hostport = part[at+1:]
			user, pass, _ = strings.Cut(info, ":")
			if user, err = url.PathUnescape(user); err != nil {
				return nil, err
			}
			if pass, err = url.PathUnescape(pass); err != nil {
				return nil, err
			}
		}
		scheme, port := "amqp", 5672
		if ssl {
			scheme, port = "amqps", 5671
		}
		host := hostport
		if h, p, ok := strings.Cut(hostport, ":"); ok && !strings.Contains(p, ":") {
			host = h
			if port, err = strconv.Atoi(p); err != nil {
				return nil, fmt.Errorf("transport_url: bad port %q", p)
			}
		}
		if host == "" {
			host = "localhost"
		}
		uri := amqp.URI{Scheme: scheme, Host: host, Port: port, Username: user, Password: pass, Vhost: vhost}
		out = append(out, broker{uri: uri.String(), vhost: vhost})
	}
	return out, nil
}

func (c Config) amqpConfig(b broker, tc *tls.Config) amqp.Config {
	if tc != nil {
		tc = tc.Clone() // amqp091 sets its ServerName
	}
	return amqp.Config{
		TLSClientConfig: tc,
		Vhost:           b.vhost,
		Heartbeat:       c.HeartbeatTimeoutThreshold / 2,
		Locale:          "en_US",
		Dial:            amqp.DefaultDial(10 * time.Second),
		Properties: amqp.Table{
			"product":  "goironic",
			"platform": "Go",
		},
	}
}
