package apiv1

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/goironic/ironic"
)

// ipxeConfigMethod is the driver vendor method answering a booting node's
// iPXE script (drivers/pxe.IPXEConfigMethod).
const ipxeConfigMethod = "ipxe_config"

// isIPXEConfig reports whether a driver vendor passthru request calls
// ipxe_config, by path (/drivers/<driver>/vendor_passthru/ipxe_config) or
// by ?method=.
func isIPXEConfig(rq *Request) bool {
	if rq.Var("driver") == "" {
		return false
	}
	if m, ok := rq.Vars["method"]; ok {
		return m == ipxeConfigMethod
	}
	return rq.Query().Get("method") == ipxeConfigMethod
}

// driverIPXEConfig is GET /v1/drivers/<driver>/vendor_passthru/ipxe_config
// ?node_uuid=<uuid> or ?port_address=<mac>: the iPXE script of the node,
// which the conductor generates from the node's state, as text/plain.
// iPXE can neither authenticate nor send a version header, so the route
// is public (auth.DefaultPublicRoutes) and no policy is checked; the
// query is the method's arguments, and parameters iPXE's URL may carry
// besides them are ignored rather than "Unexpected arguments".
func (a *API) driverIPXEConfig(rq *Request) (*Response, error) {
	if rq.HTTP.Method != http.MethodGet {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "The method %s does not support HTTP %s", ipxeConfigMethod, rq.HTTP.Method)
	}
	ctx := rq.Ctx()
	name := rq.Var("driver")
	topic, err := a.ipxeTopic(ctx, name)
	if err != nil {
		return nil, err
	}
	info := map[string]any{}
	for _, k := range []string{"node_uuid", "port_address"} {
		if v := rq.Query().Get(k); v != "" {
			info[k] = v
		}
	}
	res, err := a.d.Conductor.DriverVendorPassthru(ctx, topic, name, ipxeConfigMethod, http.MethodGet, info)
	if err != nil {
		a.ipxeTopics.forget(name)
		return nil, err
	}
	body, _ := res.Return.(string)
	if !res.Attach || body == "" {
		return nil, ironic.Errorf(ironic.IronicException, "The conductor returned no iPXE script.")
	}
	return &Response{Status: http.StatusOK, Text: body, ContentType: "text/plain; charset=UTF-8"}, nil
}

// ipxeTopicTTL is how long ipxe_config keeps calling the conductor it
// picked for a driver. Ironic picks a random live conductor per call
// (get_topic_for_driver, one query of the conductors' hardware types);
// a fleet booting at once would make that query the endpoint's largest
// cost, so the pick is reused for a second (dropped at once when a call
// fails), and a conductor that dies is out of rotation a second later.
const ipxeTopicTTL = time.Second

// ipxeTopicCache is the per-driver topic ipxe_config calls go to; the
// zero value is empty.
type ipxeTopicCache struct {
	mu sync.Mutex
	m  map[string]ipxeTopicEntry
}

type ipxeTopicEntry struct {
	topic string
	until time.Time
}

func (c *ipxeTopicCache) forget(driver string) {
	c.mu.Lock()
	delete(c.m, driver)
	c.mu.Unlock()
}

// ipxeTopic is topicForDriver, reused for ipxeTopicTTL.
func (a *API) ipxeTopic(ctx context.Context, driver string) (string, error) {
	now := a.d.Clock.Now()
	c := &a.ipxeTopics
	c.mu.Lock()
	e, ok := c.m[driver]
	c.mu.Unlock()
	if ok && now.Before(e.until) {
		return e.topic, nil
	}
	topic, err := a.topicForDriver(ctx, driver)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]ipxeTopicEntry{}
	}
	c.m[driver] = ipxeTopicEntry{topic: topic, until: now.Add(ipxeTopicTTL)}
	c.mu.Unlock()
	return topic, nil
}
