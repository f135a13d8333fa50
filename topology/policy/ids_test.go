package policy_test

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/policy"
)

// idsFixture plans every kind of row: policies with selectors, ipBlocks
// and ports, default denies with ICMP, multicast, a dual-stack management
// port, the isolation.
func idsFixture() policy.Input {
	in := isolationFixture()
	in.AllowICMP, in.Multicast = true, true
	in.Namespaces[0].Multicast = true
	in.Policies = []policy.Policy{
		{Namespace: "ns1", Name: "db", PodSelector: *sel("app", "db"), Ingress: []policy.Rule{
			{Peers: []policy.Peer{{PodSelector: sel("app", "web")}}},
			{Peers: []policy.Peer{{NamespaceSelector: sel("team", "b")}, {IPBlock: &policy.IPBlock{CIDR: netip.MustParsePrefix("10.0.0.0/8")}}},
				Ports: []policy.Port{{Number: 5432}, {Protocol: policy.UDP, Number: 53}}}}},
		{Namespace: "ns2", Name: "all", PolicyTypes: []policy.PolicyType{policy.Ingress, policy.Egress}},
	}
	return in
}

// TestReferenceIDs: every row carries the reference's owner-type,
// k8s.ovn.org/name, its type's keys and k8s.ovn.org/id; a port group's and
// an address set's name is the hash of its id (libovsdb/ops/db_object_ids.go,
// util/util.go HashForOVN); the rule and default-deny ACLs' ids are the
// fact sheet's (REFERENCE (e): "<ctrl>:NetworkPolicy:ns1:np1:Ingress:0:tcp:-1",
// type=defaultDeny|arpAllow|icmpAllow).
func TestReferenceIDs(t *testing.T) {
	// REFERENCE (e): ns1_udn1-network-controller:NetworkPolicy:ns1:np1 -> a6720084100384672865.
	if got := policy.PortGroupName("ns1_udn1", "ns1", "np1"); got != "a6720084100384672865" {
		t.Errorf("PortGroupName = %s", got)
	}
	s := plan(t, idsFixture())
	keysOf := map[string][]string{ // owner type -> keys in id order
		"NetworkPolicy":    {policy.IDName, policy.IDDirection, policy.IDGressIndex, policy.IDPortPolicyProtocol, policy.IDIPBlockIndex},
		"NetpolNamespace":  {policy.IDName, policy.IDDirection, policy.IDType},
		"NetpolDefault":    {policy.IDName, policy.IDDirection},
		"NetpolNode":       {policy.IDName, policy.IDIP},
		"MulticastCluster": {policy.IDType, policy.IDDirection},
		"MulticastNS":      {policy.IDName, policy.IDDirection},
		"UDNIsolation":     {policy.IDName, policy.IDDirection},
	}
	pgKeys := map[string][]string{"NetworkPolicy": {policy.IDName}, "NetpolNamespace": {policy.IDName, policy.IDDirection},
		"Cluster": {policy.IDName}, "Namespace": {policy.IDName}, "UDNIsolation": {policy.IDName}}
	check := func(o topology.Object, ids topology.Options, keys map[string][]string) string {
		t.Helper()
		typ, _ := ids.Get(policy.IDOwnerType)
		id, _ := ids.Get(policy.IDPrimary)
		ks, ok := keys[typ]
		if !ok {
			t.Errorf("%s %s: owner type %q", o.Kind(), o.Key(), typ)
			return id
		}
		want := policy.ReferenceController(o.OwnedBy().Network) + ":" + typ
		if o.OwnedBy().Network == policy.DefaultNetworkName {
			want = policy.DefaultNetworkController + ":" + typ
		}
		for _, k := range ks {
			v, ok := ids.Get(k)
			if !ok {
				t.Errorf("%s %s: no %s", o.Kind(), o.Key(), k)
			}
			want += ":" + v
		}
		if id != want {
			t.Errorf("%s %s: id %q, want %q", o.Kind(), o.Key(), id, want)
		}
		if len(ids) != len(ks)+2 {
			t.Errorf("%s %s: external_ids %v beyond owner-type, id and %v", o.Kind(), o.Key(), ids, ks)
		}
		return id
	}
	seen := map[string]int{}
	for o := range s.Objects() {
		switch o := o.(type) {
		case topology.ACL:
			id := check(o, o.ExternalIDs, keysOf)
			typ, _ := o.ExternalIDs.Get(policy.IDOwnerType)
			seen["acl "+typ]++
			if o.Meter != policy.MeterName {
				t.Errorf("ACL %s: meter %q", id, o.Meter)
			}
		case topology.PortGroup:
			id := check(o, o.ExternalIDs, pgKeys)
			typ, _ := o.ExternalIDs.Get(policy.IDOwnerType)
			seen["pg "+typ]++
			if topology.HashName(id) != o.Name {
				t.Errorf("port group %s: id %q hashes to %s", o.Name, id, topology.HashName(id))
			}
		case topology.AddressSet:
			id := check(o, o.ExternalIDs, map[string][]string{"PodSelector": {policy.IDName, policy.IDIPFamily}})
			seen["as"]++
			if topology.HashName(id) != o.Name {
				t.Errorf("address set %s: id %q hashes to %s", o.Name, id, topology.HashName(id))
			}
		}
	}
	for _, k := range []string{"acl NetworkPolicy", "acl NetpolNamespace", "acl NetpolDefault", "acl NetpolNode", "acl MulticastCluster",
		"acl MulticastNS", "acl UDNIsolation", "pg NetworkPolicy", "pg NetpolNamespace", "pg Cluster", "pg Namespace", "pg UDNIsolation", "as"} {
		if seen[k] == 0 {
			t.Errorf("no %s row planned", k)
		}
	}
	ctrl := policy.ReferenceController(blue)
	for _, id := range []string{
		ctrl + ":NetworkPolicy:ns1:db:Ingress:0:None:-1",
		ctrl + ":NetworkPolicy:ns1:db:Ingress:1:tcp:-1",
		ctrl + ":NetworkPolicy:ns1:db:Ingress:1:tcp:-2",
		ctrl + ":NetworkPolicy:ns1:db:Ingress:1:udp:-1",
		ctrl + ":NetworkPolicy:ns1:db:Ingress:1:udp:-2",
		ctrl + ":NetpolNamespace:ns1:Ingress:defaultDeny",
		ctrl + ":NetpolNamespace:ns1:Ingress:arpAllow",
		ctrl + ":NetpolNamespace:ns1:Ingress:icmpAllow",
		ctrl + ":NetpolDefault:allow-hairpinning:Egress",
		ctrl + ":NetpolNode:ns1_blue_node1:10.128.1.2",
		ctrl + ":MulticastCluster:DefaultDeny:Ingress",
		ctrl + ":MulticastCluster:AllowInterNode:Egress",
		ctrl + ":MulticastNS:ns1:Egress",
		"ns2_red-network-controller:NetpolNamespace:ns2:Egress:defaultDeny",
		"ns2_red-network-controller:NetpolNode:ns2_red_ovn_layer2_switch:10.128.0.2",
	} {
		a := aclByID(t, s, id)
		if strings.Contains(id, "NetworkPolicy") && !strings.HasPrefix(a.Name, "NP:") {
			t.Errorf("%s: name %q", id, a.Name)
		}
	}
}
