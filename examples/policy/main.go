// Command policy gives two tenants one primary network (a
// ClusterUserDefinedNetwork over both namespaces), three pods and
// NetworkPolicies in tenant-a — a default deny, an allow from tenant-b to
// the database, an egress ipBlock with an except for the web pod, its ACLs
// logged (k8s.ovn.org/acl-logging: deny alert, allow notice) — applies
// the zone's plan of one udnkit.Cluster (networks, pods and policies, rows
// of four controllers) to an OVN Northbound database, and prints the
// policy controller's rows and the allowed/denied table they enforce.
//
//	go run ./examples/policy                        # embedded in-memory NB
//	go run ./examples/policy -nb tcp:127.0.0.1:6641 # a real NB
//
// The table is the Cluster's verdict (Cluster.Allows) on the same input;
// topology/policy's real-OVN test proves the rows enforce it with
// ovn-trace.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strings"

	"sigs.k8s.io/yaml"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/pods"
	"github.com/udnkit/udnkit/topology/policy"
	"github.com/udnkit/udnkit/topology/policy/kube"
)

const cudn = `
kind: ClusterUserDefinedNetwork
metadata: {name: shared}
spec:
  namespaceSelector: {matchLabels: {network: shared}}
  template: {spec: {topology: Layer3, role: Primary, subnets: ["10.128.0.0/16/24"]}}
`

const policies = `
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {namespace: tenant-a, name: default-deny}
spec:
  podSelector: {}
  policyTypes: [Ingress, Egress]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {namespace: tenant-a, name: db-from-tenant-b}
spec:
  podSelector: {matchLabels: {app: db}}
  ingress:
  - from: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: tenant-b}}}]
    ports: [{port: 5432}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {namespace: tenant-a, name: web-egress}
spec:
  podSelector: {matchLabels: {app: web}}
  policyTypes: [Egress]
  egress:
  - to: [{ipBlock: {cidr: 192.0.2.0/24, except: [192.0.2.128/25]}}]
`

const zone = "node-a"

func main() {
	nb := flag.String("nb", "", "Northbound endpoints, comma separated; empty starts an embedded in-memory NB")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *nb); err != nil {
		fmt.Fprintln(os.Stderr, "policy:", err)
		os.Exit(1)
	}
}

func nodes() []topology.Node {
	return []topology.Node{{Name: "node-a", ID: ipam.MinNodeID, Chassis: "chassis-a",
		Addresses: []netip.Prefix{netip.MustParsePrefix("172.18.0.2/16")}, NextHops: []netip.Addr{netip.MustParseAddr("172.18.0.1")}}}
}

type podSpec struct{ ns, name, app string }

var podSpecs = []podSpec{{"tenant-a", "web", "web"}, {"tenant-a", "db", "db"}, {"tenant-b", "client", "client"}}

func run(ctx context.Context, w io.Writer, endpoints string) error {
	cluster, err := udnkit.New(udnkit.Config{Nodes: nodes()})
	if err != nil {
		return err
	}
	for _, ns := range []string{"tenant-a", "tenant-b"} {
		n := netconf.Namespace{Name: ns, Labels: map[string]string{"network": "shared"}}
		if ns == "tenant-a" { // its drops logged at alert, its allows at notice
			n.Annotations = map[string]string{policy.AnnotationACLLogging: `{"deny":"alert","allow":"notice"}`}
		}
		if _, err := cluster.SetNamespace(n); err != nil {
			return err
		}
	}
	c, err := netconf.DecodeCUDN([]byte(cudn))
	if err != nil {
		return err
	}
	if _, err := cluster.AddCUDN(c); err != nil {
		return err
	}
	for i, ps := range podSpecs {
		if _, err := cluster.SetPod(udnkit.Pod{Pod: pods.Pod{Namespace: ps.ns, Name: ps.name, UID: fmt.Sprintf("uid-%d", i), Node: "node-a"},
			Labels: map[string]string{"app": ps.app}}); err != nil {
			return err
		}
	}
	for _, doc := range strings.Split(policies, "---") {
		var np networkingv1.NetworkPolicy
		if err := yaml.UnmarshalStrict([]byte(doc), &np); err != nil {
			return err
		}
		p, err := kube.PolicyFrom(&np)
		if err != nil {
			return err
		}
		if _, err := cluster.SetNetworkPolicy(p); err != nil {
			return err
		}
	}
	desired, err := cluster.Plan(zone)
	if err != nil {
		return err
	}

	nb, closeNB, err := ovnnb.Open(ctx, endpoints)
	if err != nil {
		return err
	}
	defer closeNB()
	changes, _, err := nb.Sync(ctx, desired)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "applied %d rows of %v in %v\n", len(changes), desired.Controllers(), desired.Networks())
	observed, err := nb.Observe(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nrows of %s:\n", policy.Controller)
	for o := range observed.Objects() {
		if o.OwnedBy().Controller == policy.Controller {
			fmt.Fprintf(w, "  %s\n", topology.Render(o))
		}
	}
	fmt.Fprintf(w, "\nnew connections (the policies' verdict):\n")
	type probe struct {
		from, to policy.Endpoint
		proto    policy.Protocol
		port     int32
	}
	podEP := func(ns, name string) policy.Endpoint { return policy.Endpoint{Namespace: ns, Name: name} }
	ipEP := func(s string) policy.Endpoint { return policy.Endpoint{IP: netip.MustParseAddr(s)} }
	for _, pr := range []probe{
		{podEP("tenant-b", "client"), podEP("tenant-a", "db"), policy.TCP, 5432},
		{podEP("tenant-b", "client"), podEP("tenant-a", "db"), policy.TCP, 22},
		{podEP("tenant-a", "web"), podEP("tenant-a", "db"), policy.TCP, 5432},
		{podEP("tenant-b", "client"), podEP("tenant-a", "web"), policy.TCP, 80},
		{podEP("tenant-a", "web"), ipEP("192.0.2.10"), policy.TCP, 443},
		{podEP("tenant-a", "web"), ipEP("192.0.2.200"), policy.TCP, 443},
		{podEP("tenant-a", "db"), ipEP("192.0.2.10"), policy.TCP, 443},
		{podEP("tenant-a", "db"), podEP("tenant-b", "client"), policy.TCP, 80},
		{podEP("tenant-a", "web"), podEP("tenant-b", "client"), policy.TCP, 80},
	} {
		allowed, err := cluster.Allows(zone, pr.from, pr.to, pr.proto, pr.port)
		if err != nil {
			return err
		}
		verdict := "denied"
		if allowed {
			verdict = "allowed"
		}
		fmt.Fprintf(w, "  %-16s -> %-16s %s/%-5d %s\n", name(pr.from), name(pr.to), pr.proto, pr.port, verdict)
	}
	again, _, err := nb.Sync(ctx, desired)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\napplying everything again: %d changes\n", len(again))
	return nil
}

func name(e policy.Endpoint) string {
	if e.Name == "" {
		return e.IP.String()
	}
	return e.Namespace + "/" + e.Name
}
