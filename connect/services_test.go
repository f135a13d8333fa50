package connect_test

import (
	"reflect"
	"testing"

	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/netconf/udn"
)

// TestServiceGroups: with ClusterIPServiceNetwork each network's load
// balancers join the other networks' switch groups; without it, none.
func TestServiceGroups(t *testing.T) {
	nets := []*udn.Network{l3net("ns1_blue", 1, 128), l3net("ns3_green", 3, 129), l3net("ns2_red", 2, 130)}
	got := connect.ServiceGroups(newConnect("c", connect.ClusterIPServiceNetwork), nets)
	want := map[string][]string{
		"ns1_blue":  {"ns2_red_clusterSwitchLBGroup", "ns3_green_clusterSwitchLBGroup"},
		"ns3_green": {"ns1_blue_clusterSwitchLBGroup", "ns2_red_clusterSwitchLBGroup"},
		"ns2_red":   {"ns1_blue_clusterSwitchLBGroup", "ns3_green_clusterSwitchLBGroup"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ServiceGroups = %v, want %v", got, want)
	}
	if got := connect.ServiceGroups(newConnect("c", connect.PodNetwork), nets); got != nil {
		t.Errorf("without ClusterIPServiceNetwork: %v", got)
	}
}
