package udnkit

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"

	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/pods"
	"github.com/udnkit/udnkit/topology/policy"
)

// PolicyOptions are the cluster's network policy settings.
type PolicyOptions struct {
	// AllowICMP lets ICMP through every default deny (the reference's
	// allow-icmp-network-policy).
	AllowICMP bool
	// Multicast plans the reference's multicast ACLs (its
	// enable-multicast).
	Multicast bool
	// ACLLoggingRate is the acl-logging meter's rate in packets per
	// second (0: the reference's 20), the meter planned while a
	// namespace's k8s.ovn.org/acl-logging asks for logging.
	ACLLoggingRate int
	// ExternalACLLoggingMeter leaves the acl-logging meter to another
	// controller: where the reference's default network controller runs,
	// it creates the meter at start-up (without external_ids, so the SDK
	// would refuse to write a row of its name); the ACLs name it all the
	// same.
	ExternalACLLoggingMeter bool
	// DefaultNetworkIsolation plans the default network's isolation of
	// primary-UDN pods (policy.DefaultNetwork) on their default-network
	// ports "<namespace>_<pod>", which the default network's controller
	// creates: the SDK owns the port group and its ACLs, never the
	// default network's switches and ports. Leave it off where the
	// reference's default network controller writes the same rows.
	DefaultNetworkIsolation bool
}

// Pod is a pod as the Cluster takes it: who and where it is, the
// annotations that choose or record its networks
// (k8s.v1.cni.cncf.io/networks, k8s.ovn.org/requested-primary-udn,
// k8s.ovn.org/pod-networks) and what network policies select it by (its
// labels and its containers' named ports). topology/pods/kube reads one
// from a corev1.Pod.
type Pod struct {
	pods.Pod
	Annotations map[string]string
	Labels      map[string]string
	Ports       []policy.ContainerPort
}

// SetNetworkPolicy adds or updates a NetworkPolicy: it is planned on every
// primary network of its namespace (seed 002), with peers in every network
// a ClusterNetworkConnect of PodNetwork connectivity joins to them (seed
// 001), by the reference's rules (package policy).
func (s *Cluster) SetNetworkPolicy(p policy.Policy) (Event, error) {
	if err := checkName(p.Namespace); err != nil {
		return Event{}, fmt.Errorf("network policy: namespace: %w", err)
	}
	if err := checkName(p.Name); err != nil {
		return Event{}, fmt.Errorf("network policy %s: name: %w", p.Namespace, err)
	}
	key := p.Namespace + "/" + p.Name
	s.mu.Lock()
	defer s.mu.Unlock()
	old, had := s.policies[key]
	s.policies[key] = p
	if _, err := s.policyPlanner(s.nodeList(true), ""); err != nil { // what is set must plan
		if had {
			s.policies[key] = old
		} else {
			delete(s.policies, key)
		}
		return Event{}, err
	}
	return Event{Kind: EventPolicySet, Policy: key, Namespace: p.Namespace}, nil
}

// RemoveNetworkPolicy forgets a NetworkPolicy.
func (s *Cluster) RemoveNetworkPolicy(namespace, name string) Event {
	key := namespace + "/" + name
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.policies[key]; !ok {
		return Event{}
	}
	delete(s.policies, key)
	return Event{Kind: EventPolicyRemoved, Policy: key, Namespace: namespace}
}

// policyInput is the policy planner's input for a zone.
func (s *Cluster) policyInput(nodes []topology.Node, zone string) policy.Input {
	in := policy.Input{Nodes: nodes, Zone: zone, MasqueradeSubnets: s.cfg.Cluster.MasqueradeSubnets,
		AllowICMP: s.cfg.Policy.AllowICMP, Multicast: s.cfg.Policy.Multicast, ACLLoggingRate: s.cfg.Policy.ACLLoggingRate, ExternalMeter: s.cfg.Policy.ExternalACLLoggingMeter}
	if s.cfg.Policy.DefaultNetworkIsolation {
		in.DefaultNetwork = &policy.DefaultNetwork{}
		for _, nd := range nodes {
			if zone != "" && nd.InZone() != zone {
				continue
			}
			for _, sub := range s.defaultSubnets[nd.Name] {
				if ip, err := ipam.ManagementIP(sub); err == nil {
					in.DefaultNetwork.ManagementIPs = append(in.DefaultNetwork.ManagementIPs, ip.Addr())
				}
			}
		}
	}
	for _, nw := range s.networkList() {
		if !nw.n.IsPrimary() || nw.n.Topology == udn.TopologyLocalnet {
			continue
		}
		pn := policy.Network{Network: nw.n, Namespaces: slices.Clone(nw.namespaces)}
		if nw.subnets != nil {
			pn.HostSubnets = make(map[string][]netip.Prefix, len(nodes))
			for _, nd := range nodes {
				if sub, ok := nw.hostSubnets[nd.Name]; ok {
					pn.HostSubnets[nd.Name] = sub
				}
			}
		}
		in.Networks = append(in.Networks, pn)
	}
	for _, name := range slices.Sorted(maps.Keys(s.connects)) {
		cn := s.connects[name]
		if cn.alloc == nil || !slices.Contains(cn.c.Spec.ConnectivityEnabled, connect.PodNetwork) {
			continue
		}
		var group []string
		for _, n := range selectedNetworks(cn.acceptance) {
			group = append(group, n.Name)
		}
		in.Connected = append(in.Connected, group)
	}
	for _, ns := range s.namespaceList() {
		pn, _ := policyNamespace(ns) // SetNamespace refused what does not parse
		in.Namespaces = append(in.Namespaces, pn)
	}
	for _, key := range slices.Sorted(maps.Keys(s.pods)) {
		if p, ok := s.policyPod(s.pods[key]); ok {
			in.Pods = append(in.Pods, p)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(s.policies)) {
		in.Policies = append(in.Policies, s.policies[key])
	}
	return in
}

// policyPod is a pod as the policy planner sees it; false for a pod with
// no primary network attachment the planner knows.
func (s *Cluster) policyPod(entry *podEntry) (policy.Pod, bool) {
	p := policy.Pod{Namespace: entry.pod.Namespace, Name: entry.pod.Name, Node: entry.pod.Node,
		Labels: policy.Labels(maps.Clone(entry.labels)), Ports: slices.Clone(entry.ports)}
	for _, a := range entry.atts {
		if a.Role != "primary" {
			continue
		}
		att := policy.Attachment{Network: a.Network.Name, Port: pods.PortName(entry.pod.Namespace, entry.pod.Name, a.NAD)}
		for _, ip := range a.IPs {
			att.IPs = append(att.IPs, ip.Addr())
		}
		p.Networks = append(p.Networks, att)
	}
	if s.cfg.Policy.DefaultNetworkIsolation && len(p.Networks) > 0 {
		// Its infrastructure-locked port on the default network, as the
		// reference's default network controller names it.
		p.DefaultPort = pods.PortName(entry.pod.Namespace, entry.pod.Name, "")
		p.OpenPorts = slices.Clone(entry.openPorts)
	}
	return p, len(p.Networks) > 0
}

// policyNamespace is a namespace as the policy planner sees it: its
// labels with kubernetes.io/metadata.name (the API server labels every
// namespace with its name; selectors rely on it, as
// netconf.SelectNamespaces does), its k8s.ovn.org/multicast-enabled and
// its k8s.ovn.org/acl-logging (an annotation that does not parse is an
// error naming the namespace and key).
func policyNamespace(ns netconf.Namespace) (policy.Namespace, error) {
	labels := policy.Labels(maps.Clone(ns.Labels))
	if _, ok := labels[metadataName]; !ok {
		if labels == nil {
			labels = policy.Labels{}
		}
		labels[metadataName] = ns.Name
	}
	out := policy.Namespace{Name: ns.Name, Labels: labels, Multicast: ns.Annotations[policy.AnnotationMulticast] == "true"}
	logging, err := policy.ParseACLLogging(ns.Annotations[policy.AnnotationACLLogging])
	if err != nil {
		return policy.Namespace{}, fmt.Errorf("namespace %s: %w", ns.Name, err)
	}
	out.Logging = logging
	return out, nil
}

// openPorts reads a pod's k8s.ovn.org/open-default-ports.
func openPorts(key string, annotations map[string]string) ([]policy.OpenPort, error) {
	raw, ok := annotations[policy.AnnotationOpenPorts]
	if !ok {
		return nil, nil
	}
	ports, err := policy.ParseOpenPorts(raw)
	if err != nil {
		return nil, fmt.Errorf("pod %s: %w", key, err)
	}
	return ports, nil
}

// NamespaceAnnotations returns the annotations of a namespace that the
// Cluster reads (k8s.ovn.org/acl-logging, k8s.ovn.org/multicast-enabled),
// nil for none: what a controller hands SetNamespace, so that another
// annotation's change is no event.
func NamespaceAnnotations(all map[string]string) map[string]string {
	var out map[string]string
	for _, k := range []string{policy.AnnotationACLLogging, policy.AnnotationMulticast} {
		if v, ok := all[k]; ok {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

// namespaceChanges are the policy changes of a namespace whose
// annotations alone changed (its logging, its multicast switch).
func (s *Cluster) namespaceChanges(zp *zonePlan, name string) (topology.Changes, error) {
	pn, err := policyNamespace(s.spaces[name])
	if err != nil {
		return nil, err
	}
	return zp.policy.SetNamespace(pn)
}

// policyPlanner plans the policies of a zone ("" only checks they plan).
func (s *Cluster) policyPlanner(nodes []topology.Node, zone string) (*policy.Planner, error) {
	return policy.New(s.policyInput(nodes, zone))
}

// policyState plans the zone's policies and keeps the planner for the
// zone's events.
func (s *Cluster) policyState(zp *zonePlan, zone string, nodes []topology.Node) (topology.State, error) {
	pl, err := s.policyPlanner(nodes, zone)
	if err != nil {
		return topology.State{}, err
	}
	zp.policy = pl
	return pl.State()
}

// Allows is the network policies' verdict on a new connection in a zone
// the Cluster planned (policy.Planner.Allows: what the zone's rows
// enforce).
func (s *Cluster) Allows(zone string, from, to policy.Endpoint, proto policy.Protocol, port int32) (bool, error) {
	return s.verdict(zone, func(p *policy.Planner) bool { return p.Allows(from, to, proto, port) })
}

// AllowsEgress is Allows without the destination's ingress policies
// (policy.Planner.AllowsEgress): what the source's zone enforces for a
// destination pod of another zone.
func (s *Cluster) AllowsEgress(zone string, from, to policy.Endpoint, proto policy.Protocol, port int32) (bool, error) {
	return s.verdict(zone, func(p *policy.Planner) bool { return p.AllowsEgress(from, to, proto, port) })
}

// verdict asks the planner of a zone the Cluster planned.
func (s *Cluster) verdict(zone string, ask func(*policy.Planner) bool) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	zp, ok := s.planned[zone]
	if !ok || zp.policy == nil {
		return false, fmt.Errorf("zone %q: %w: Plan it first", zone, ErrNotPlanned)
	}
	return ask(zp.policy), nil
}

// metadataName is the label the API server gives every namespace.
const metadataName = "kubernetes.io/metadata.name"
