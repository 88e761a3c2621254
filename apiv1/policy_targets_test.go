package apiv1

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/apiv1/policy"
	"github.com/goironic/ironic/db/models"
)

var _ Policy = (*policy.Enforcer)(nil)

func strp(s string) *string { return &s }

// TestPolicyTargets checks the targets against what Ironic's helpers
// add to the caller's policy values: check_owner_policy sets node.owner
// (None when unset) and node.lessee only when set;
// check_port_policy_and_retrieve and check_volume_policy_and_retrieve
// set both; allocations carry allocation.owner.
func TestPolicyTargets(t *testing.T) {
	owned := &models.Node{UUID: "n1", Owner: strp("p1"), Lessee: strp("p2")}
	bare := &models.Node{UUID: "n2", Lessee: strp("")}
	for name, tc := range map[string]struct{ got, want map[string]string }{
		"node owned":         {nodeTarget(owned), map[string]string{"node.owner": "p1", "node.lessee": "p2"}},
		"node unowned":       {nodeTarget(bare), map[string]string{"node.owner": "None"}},
		"node none":          {nodeTarget(nil), map[string]string{"node.owner": "None"}},
		"port owned":         {ownerTarget(owned), map[string]string{"node.owner": "p1", "node.lessee": "p2"}},
		"port unowned":       {ownerTarget(bare), map[string]string{"node.owner": "None", "node.lessee": ""}},
		"port no node":       {ownerTarget(nil), map[string]string{"node.owner": "None", "node.lessee": "None"}},
		"allocation owned":   {allocationTarget(&models.Allocation{Owner: strp("p1")}), map[string]string{"allocation.owner": "p1"}},
		"allocation unowned": {allocationTarget(&models.Allocation{}), map[string]string{"allocation.owner": "None"}},
	} {
		if diff := cmp.Diff(tc.want, tc.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

// TestAuthorizeNodeAndListPolicy runs check_node_policy_and_retrieve's
// and check_list_policy's logic against Ironic's default rules.
func TestAuthorizeNodeAndListPolicy(t *testing.T) {
	e, err := policy.New(policy.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := &API{d: Deps{Policy: e}}
	node := &models.Node{UUID: "n1", Owner: strp("p1")}
	as := func(rc *ironic.RequestContext) context.Context {
		return ironic.WithRequestContext(context.Background(), rc)
	}
	stranger := as(&ironic.RequestContext{ProjectID: "p9", Roles: []string{"member", "reader"}})
	ownerReader := as(&ironic.RequestContext{ProjectID: "p1", Roles: []string{"reader"}})
	ownerMember := as(&ironic.RequestContext{ProjectID: "p1", Roles: []string{"member", "reader"}})
	sysReader := as(&ironic.RequestContext{SystemScope: "all", Roles: []string{"reader"}})

	err = a.authorizeNode(stranger, "baremetal:node:set_power_state", "node-1", node)
	if f := ironic.AsFault(err); f.Class != ironic.NodeNotFound || f.Message != "Node node-1 could not be found." {
		t.Errorf("a project that cannot see the node: %v", err)
	}
	err = a.authorizeNode(ownerReader, "baremetal:node:set_power_state", "n1", node)
	if f := ironic.AsFault(err); f.Class != ironic.HTTPForbidden || f.Message != "Access was denied to the following resource: baremetal:node:set_power_state" {
		t.Errorf("the owner's reader: %v", err)
	}
	if err := a.authorizeNode(ownerMember, "baremetal:node:set_power_state", "n1", node); err != nil {
		t.Errorf("the owner's member: %v", err)
	}

	if p, err := a.checkListPolicy(sysReader, "node", nil); err != nil || p != nil {
		t.Errorf("system reader lists all: %v, %v", p, err)
	}
	if p, err := a.checkListPolicy(ownerReader, "node", nil); err != nil || p == nil || *p != "p1" {
		t.Errorf("project reader lists its project: %v, %v", p, err)
	}
	_, err = a.checkListPolicy(ownerReader, "node", strp("p2"))
	if f := ironic.AsFault(err); f.Class != ironic.HTTPForbidden || f.Message != "Access was denied to the following resource: baremetal:node:list_all" {
		t.Errorf("project reader asking for another project: %v", err)
	}
	if _, err := a.checkListPolicy(as(&ironic.RequestContext{}), "node", nil); !ironic.IsClass(err, ironic.HTTPForbidden) {
		t.Errorf("no project: %v", err)
	}
}
