package wire

import (
	"log/slog"
	"net/http"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/apiv1"
	"github.com/goironic/ironic/apiv1/auth"
	"github.com/goironic/ironic/apiv1/policy"
	"github.com/goironic/ironic/conductor"
	"github.com/goironic/ironic/conf"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/agent"
	"github.com/goironic/ironic/drivers/bootiso"
	"github.com/goironic/ironic/drivers/configdrive"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/drivers/generic"
	"github.com/goironic/ironic/drivers/inspector"
	"github.com/goironic/ironic/drivers/inspector/inspectorclient"
	"github.com/goironic/ironic/drivers/ipmi"
	"github.com/goironic/ironic/drivers/pxe"
	"github.com/goironic/ironic/drivers/redfish"
	"github.com/goironic/ironic/internal/novaclient"
	"github.com/goironic/ironic/option"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/rpc/none"
)

// Registry builds the driver registry from the enabled_* options with
// every implementation this build has, each configured by the options it
// binds.
func Registry(cfg *conf.Config, log *slog.Logger) (*drivers.Registry, error) {
	b := cfg.Binder()
	dc := bound[drivers.Config](b, compDrivers)
	fc := bound[fake.Config](b, compFake)
	rc := bound[redfish.Config](b, compRedfish)
	ic := bound[ipmi.Config](b, compIPMI)
	ic.Log = log.With("component", "conductor")
	rc.Log = log.With("component", "redfish")
	rc.Images = redfish.NewFetcher(imageHTTP(b), glanceClient(b, log), rc.FileURLAllowedPaths)
	rc.Swift = swiftClient(b, log)
	rc.ISO = bootiso.New(bound[bootiso.Config](b, compBootISO), log.With("component", "bootiso"))
	pc := bound[pxe.Config](b, compPXE)
	pc.Log = log
	ac := bound[agent.Config](b, compAgent)
	ac.Client = agent.NewClient(bound[agent.ClientConfig](b, compAgentClient))
	ac.ImageHTTP = imageHTTP(b)
	ac.Glance = glanceClient(b, log)
	pc.ImageHTTP, pc.Glance = ac.ImageHTTP, ac.Glance
	ac.Log = log
	inc := bound[inspector.Config](b, compInspector)
	inc.Client = inspectorclient.New(bound[inspectorclient.Config](b, compInspectorClient), log.With("component", "inspector"))
	inc.Log = log.With("component", "conductor")
	network := networkImplementations(b, log)
	storage := storageImplementations(b, log)
	if err := b.Err(); err != nil {
		return nil, err
	}
	var impls []drivers.Implementation
	impls = append(impls, fake.Implementations(fc)...)
	impls = append(impls, generic.Implementations()...)
	impls = append(impls, ipmi.Implementations(ic)...)
	impls = append(impls, redfish.Implementations(rc)...)
	impls = append(impls, pxe.Implementations(pc)...)
	impls = append(impls, agent.Implementations(ac)...)
	impls = append(impls, inspector.Implementations(inc)...)
	impls = append(impls, network...)
	impls = append(impls, storage...)
	reg, err := drivers.NewRegistry(dc, impls...)
	if err != nil {
		return nil, err
	}
	sc := bound[pxe.ScriptConfig](b, compIPXE)
	if err := b.Err(); err != nil {
		return nil, err
	}
	ipxe, err := pxe.NewIPXEConfig(sc, log.With("component", "conductor"))
	if err != nil {
		return nil, err
	}
	return reg, reg.RegisterDriverMethod(ipxe)
}

// imageHTTP is the client that checks http(s) image URLs, configured by
// the conductor's [DEFAULT]webserver_verify_ca and
// webserver_connection_timeout.
func imageHTTP(b *option.Binder) *http.Client {
	cc := bound[conductor.Config](b, compConductor)
	return conductor.ImageHTTPClient(cc.WebserverVerifyCA, cc.WebserverConnectionTimeout)
}

// Conductor builds the conductor of this host.
func Conductor(cfg *conf.Config, store *db.Store, reg *drivers.Registry, log *slog.Logger) *conductor.Manager {
	b := cfg.Binder()
	clog := log.With("component", "conductor")
	if sc := bound[pxe.ScriptConfig](b, compIPXE); sc.IPXEUseSwift {
		log.Warn("[pxe]ipxe_use_swift is set, but the boot interfaces of this service don't ask Glance for Swift temporary URLs: iPXE scripts cannot name them for deploy and rescue images given as Glance images, " +
			"and such nodes get a script that reports it; give those images as http(s) URLs")
	}
	cc := bound[conductor.Config](b, compConductor)
	cc.ObjectStore = swiftClient(b, log)
	cc.Images = glanceClient(b, log)
	cc.Configdrive = configdrive.Builder{Log: clog}
	cc.Nova = novaclient.New(bound[novaclient.Config](b, compNova), log.With("component", "nova"))
	return conductor.New(cc, store, reg, ironic.SystemClock{}, clog)
}

// rpcClient is the API's view of the conductors: calls plus routing.
type rpcClient struct {
	rpc.ConductorAPI
	*rpc.Router
}

// Policy builds the policy enforcer from [oslo_policy] and [DEFAULT]
// (auth_strategy, rbac_service_*). Its Watch picks up edited policy
// files.
func Policy(cfg *conf.Config, log *slog.Logger) (*policy.Enforcer, error) {
	b := cfg.Binder()
	pc := bound[policy.Config](b, compPolicy)
	if err := b.Err(); err != nil {
		return nil, err
	}
	pc.ConfigDirs = policy.SearchDirs(nil, cfg.Files())
	return policy.New(pc, log.With("component", "policy"))
}

// API builds the REST API over store, reaching conductors through calls
// and authorizing with pol (nil: everything is allowed).
func API(cfg *conf.Config, store *db.Store, calls rpc.ConductorAPI, pol apiv1.Policy, log *slog.Logger) (*apiv1.API, error) {
	b := cfg.Binder()
	router := rpc.NewRouter(bound[rpc.RouterConfig](b, compRouter), store, ironic.SystemClock{})
	ac := bound[apiv1.Config](b, compAPI)
	if err := b.Err(); err != nil {
		return nil, err
	}
	return apiv1.New(ac, apiv1.Deps{
		Store:     store,
		Conductor: rpcClient{ConductorAPI: calls, Router: router},
		Policy:    pol,
		Log:       log.With("component", "api"),
	})
}

// InProcess is the conductor API of rpc_transport = none: cond serves the
// calls in this process, each one written and read through the
// oslo.messaging codec (see rpc/none).
func InProcess(cond rpc.ConductorAPI, store *db.Store, log *slog.Logger) rpc.ConductorAPI {
	return none.New(cond, store, log.With("component", "rpc"))
}

// Authenticated puts the [DEFAULT]auth_strategy middleware in front of
// the API. Its errors are Ironic's start-up errors (e.g. an unreadable
// http_basic_auth_user_file).
func Authenticated(cfg *conf.Config, api http.Handler, log *slog.Logger) (http.Handler, error) {
	b := cfg.Binder()
	ac := bound[auth.Config](b, compAuth)
	if err := b.Err(); err != nil {
		return nil, err
	}
	m, err := auth.New(ac, auth.Deps{Log: log.With("component", "auth")})
	if err != nil {
		return nil, err
	}
	return m.Handler(api), nil
}
