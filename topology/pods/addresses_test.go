package pods_test

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology/pods"
)

func pool(t *testing.T, cidr string) *ipam.PodIPAllocator {
	t.Helper()
	a, err := ipam.NewPodIPAllocator([]netip.Prefix{netip.MustParsePrefix(cidr)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestReleasePod: a pod that goes gives back exactly its addresses; a
// pod with a claim keeps them in the claim, and its next incarnation gets
// the same; an exhausted pool says ipam.ErrExhausted.
func TestReleasePod(t *testing.T) {
	p := pool(t, "10.128.1.0/29")
	claims := ipam.NewClaimAllocator("ns1_blue", p)
	plain := pods.Source{Pool: p}
	vm := pods.Source{Pool: p, Claims: claims, Claim: ipam.ClaimKey{Namespace: "ns1", Name: "vm-a"}}
	a, err := plain.Allocate()
	if err != nil {
		t.Fatal(err)
	}
	b, err := plain.Allocate()
	if err != nil {
		t.Fatal(err)
	}
	v, err := vm.Allocate()
	if err != nil {
		t.Fatal(err)
	}
	ann := func(ips []netip.Prefix) netconf.PodNetworks {
		return netconf.PodNetworks{"ns1/blue": {IPs: ips}, "default": {IPs: []netip.Prefix{netip.MustParsePrefix("10.244.0.9/24")}}}
	}
	if err := pods.ReleasePod(ann(a), map[string]pods.Source{"ns1/blue": plain}); err != nil {
		t.Fatal(err)
	}
	if p.IsAllocated(a[0].Addr()) || !p.IsAllocated(b[0].Addr()) || !p.IsAllocated(v[0].Addr()) {
		t.Errorf("after releasing pod a (%v): a %v, b %v, vm %v allocated", a, p.IsAllocated(a[0].Addr()), p.IsAllocated(b[0].Addr()), p.IsAllocated(v[0].Addr()))
	}
	if err := pods.ReleasePod(ann(v), map[string]pods.Source{"ns1/blue": vm}); err != nil {
		t.Fatal(err)
	}
	if !p.IsAllocated(v[0].Addr()) {
		t.Error("the VM's claimed address was released with its pod")
	}
	again, err := vm.Allocate()
	if err != nil || again[0] != v[0] {
		t.Errorf("the VM's next pod got %v (%v), want %v", again, err, v)
	}
	for {
		if _, err = plain.Allocate(); err != nil {
			break
		}
	}
	if !errors.Is(err, ipam.ErrExhausted) {
		t.Errorf("exhausted pool: %v, want ipam.ErrExhausted", err)
	}
}

// TestChoosePrimary is seed 002's selection: the requested network, an
// error for one that is not the namespace's, the next network when one is
// exhausted, the default network in a namespace without primaries.
func TestChoosePrimary(t *testing.T) {
	full := pool(t, "10.128.0.0/30")
	for {
		if _, err := full.Allocate(); err != nil {
			break
		}
	}
	green := pool(t, "10.129.0.0/24")
	prims := []pods.Primary{
		{Network: &udn.Network{Name: "ns1_blue"}, NAD: "ns1/blue", Source: pods.Source{Pool: full}},
		{Network: &udn.Network{Name: "ns1_green"}, NAD: "ns1/green", Source: pods.Source{Pool: green}},
	}
	pod := pods.Pod{Namespace: "ns1", Name: "web", Node: "n1"}
	p, ips, err := pods.ChoosePrimary(pod, nil, prims)
	if err != nil || p.NAD != "ns1/green" || !netip.MustParsePrefix("10.129.0.0/24").Contains(ips[0].Addr()) {
		t.Errorf("blue exhausted: got %v %v %v, want green", p, ips, err)
	}
	p, _, err = pods.ChoosePrimary(pod, map[string]string{pods.AnnotationRequestedPrimaryUDN: "green"}, prims)
	if err != nil || p.NAD != "ns1/green" {
		t.Errorf("requested green: %v %v", p, err)
	}
	_, _, err = pods.ChoosePrimary(pod, map[string]string{pods.AnnotationRequestedPrimaryUDN: "blue"}, prims)
	if !errors.Is(err, ipam.ErrExhausted) {
		t.Errorf("requested blue, exhausted: %v", err)
	}
	_, _, err = pods.ChoosePrimary(pod, map[string]string{pods.AnnotationRequestedPrimaryUDN: "ns2/red"}, prims)
	if !errors.Is(err, pods.ErrNoPrimary) {
		t.Errorf("requested a network of another namespace: %v", err)
	}
	if p, ips, err := pods.ChoosePrimary(pod, map[string]string{pods.AnnotationRequestedPrimaryUDN: "green"}, nil); p != nil || ips != nil || err != nil {
		t.Errorf("a namespace on the default network: %v %v %v", p, ips, err)
	}
	_, _, err = pods.ChoosePrimary(pod, nil, prims[:1])
	if !errors.Is(err, pods.ErrNoPrimary) || !errors.Is(err, ipam.ErrExhausted) {
		t.Errorf("every primary exhausted: %v", err)
	}
}
