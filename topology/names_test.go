package topology

import "testing"

// TestNamesMatchPlan: the exported names are those of rows Plan writes,
// for a Layer3 and a Layer2 network.
func TestNamesMatchPlan(t *testing.T) {
	for _, in := range []Input{layer3Input(), seed004Input("203.203.0.0/24")} {
		s, err := Plan(in)
		if err != nil {
			t.Fatal(err)
		}
		n := in.Network
		c, sw, r := LoadBalancerGroupNames(n.Name)
		for _, g := range []string{c, sw, r} {
			if _, ok := s.Get(KindLoadBalancerGroup, g); !ok {
				t.Errorf("%s: no load balancer group %q", n.Name, g)
			}
		}
		if _, ok := s.Get(KindRouter, GatewayRouterName(n.Name, in.Zone)); !ok {
			t.Errorf("%s: no gateway router %q", n.Name, GatewayRouterName(n.Name, in.Zone))
		}
		sws, ok := s.Get(KindSwitch, PodSwitchName(n, in.Zone))
		if !ok {
			t.Fatalf("%s: no pod switch %q", n.Name, PodSwitchName(n, in.Zone))
		}
		if groups := sws.(Switch).LoadBalancerGroups; len(groups) != 2 || groups[0] != c || groups[1] != sw {
			t.Errorf("%s: the pod switch holds groups %v, want %s and %s", n.Name, groups, c, sw)
		}
	}
}
