package main

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology/egressip"
	egressipkube "github.com/udnkit/udnkit/topology/egressip/kube"
	egressqoskube "github.com/udnkit/udnkit/topology/egressqos/kube"
)

// podEgress prints the EgressIP that serves the pod on its primary
// network (egressip.Select: the first by name of those selecting it),
// with its mark and where its IPs are, and the rules of its namespace's
// EgressQoS that select it. Nothing when neither applies.
func (e explainer) podEgress(p *corev1.Pod, nets map[string]netconf.PodNetwork) {
	var ips []netip.Addr
	for _, nad := range slices.Sorted(maps.Keys(nets)) {
		if nets[nad].Role == "primary" {
			for _, ip := range nets[nad].IPs {
				ips = append(ips, ip.Addr())
			}
		}
	}
	labels := egressipkube.LabelsFrom(p.Labels)
	if len(ips) > 0 {
		if served := e.egressIPOf(p, labels, ips); served != "" {
			st, _ := e.c.EgressIPStatus(served)
			var at []string
			for _, it := range st.Items {
				at = append(at, it.IP.String()+" on "+it.Node)
			}
			for _, u := range st.Unassigned {
				at = append(at, u.IP.String()+" unassigned ("+u.Reason.String()+")")
			}
			e.line(0, "egress IP", fmt.Sprintf("%s (mark %d): %s", served, st.Mark, orNone(strings.Join(at, ", "))))
		}
	}
	for _, q := range e.set.EgressQoSes {
		if q.Namespace != p.Namespace {
			continue
		}
		eq, ok, err := egressqoskube.EgressQoSFrom(q)
		if err != nil || !ok {
			continue
		}
		for _, r := range eq.Rules {
			if !r.Selects(labels) {
				continue
			}
			dst := "any destination"
			if r.DstCIDR.IsValid() {
				dst = r.DstCIDR.String()
			}
			e.line(0, "egress QoS", fmt.Sprintf("DSCP %d to %s", r.DSCP, dst))
		}
	}
}

// egressIPOf returns the name of the EgressIP that serves the pod with
// addresses ips on its primary network, or "".
func (e explainer) egressIPOf(p *corev1.Pod, labels egressip.Labels, ips []netip.Addr) string {
	var eips []egressip.EgressIP
	for _, k := range e.set.EgressIPs {
		if eip, err := egressipkube.EgressIPFrom(k); err == nil {
			eips = append(eips, eip)
		}
	}
	nsLabels := map[string]string{}
	for _, ns := range e.set.Namespaces {
		if ns.Name == p.Namespace {
			maps.Copy(nsLabels, ns.Labels)
		}
	}
	if _, ok := nsLabels[corev1.LabelMetadataName]; !ok {
		nsLabels[corev1.LabelMetadataName] = p.Namespace // the API server sets it on every namespace (the Cluster's rule)
	}
	pod := egressip.Pod{Namespace: p.Namespace, Name: p.Name, Node: p.Spec.NodeName, Labels: labels, IPs: ips}
	served := egressip.Select(eips, []egressip.Namespace{{Name: p.Namespace, Labels: egressipkube.LabelsFrom(nsLabels)}}, []egressip.Pod{pod})
	if len(served) == 0 {
		return ""
	}
	return served[0].EgressIP.Name
}
