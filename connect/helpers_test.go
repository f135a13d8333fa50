package connect

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

func pfx(s string) netip.Prefix { return netip.MustParsePrefix(s) }

// seedSample is the seed's sample ClusterNetworkConnect.
const seedSample = `
apiVersion: k8s.ovn.org/v1
kind: ClusterNetworkConnect
metadata:
  name: colored-enterprise
spec:
  networkSelectors:
    - networkSelectionType: ClusterUserDefinedNetworks
      clusterUserDefinedNetworkSelector:
        networkSelector:
          matchExpressions:
          - key: kubernetes.io/metadata.name
            operator: In
            values:
            - blue-network
            - green-network
    - networkSelectionType: PrimaryUserDefinedNetworks
      primaryUserDefinedNetworkSelector:
        namespaceSelector:
          matchExpressions:
          - key: kubernetes.io/metadata.name
            operator: In
            values:
            - yellow
            - red
  connectSubnets:
  - cidr: "192.168.0.0/16"
    networkPrefix: 24
  - cidr: "fd01::/64"
    networkPrefix: 96
  connectivityEnabled:
    - PodNetwork
    - ClusterIPServiceNetwork
`

func mustDecode(t testing.TB, doc string) *ClusterNetworkConnect {
	t.Helper()
	c, err := Decode([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// seedNodes are the seed listings' three nodes, in one zone each.
func seedNodes() []topology.Node {
	var out []topology.Node
	for i, name := range []string{"ovn-control-plane", "ovn-worker", "ovn-worker2"} {
		id := ipam.MinNodeID + i
		out = append(out, topology.Node{Name: name, ID: id, Chassis: "chassis-" + name,
			Addresses: []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{172, 18, 0, byte(id)}), 16)},
			NextHops:  []netip.Addr{netip.MustParseAddr("172.18.0.1")}})
	}
	return out
}

// l3 returns a primary Layer3 network with one IPv4 /16 (x.0.0.0/16, /24
// per node) and the given ID.
func l3(name string, id int, first byte) *udn.Network {
	return &udn.Network{Name: name, ID: id, Topology: udn.TopologyLayer3, Role: udn.RolePrimary,
		Subnets:     []udn.Subnet{{CIDR: netip.PrefixFrom(netip.AddrFrom4([4]byte{10, first, 0, 0}), 16), HostPrefix: 24}},
		JoinSubnets: ipam.DefaultJoinSubnets()[:1], TransitSubnets: ipam.DefaultTransitSubnets()[:1]}
}

// l2 returns a primary Layer2 network with one IPv4 /16.
func l2(name string, id int, first byte) *udn.Network {
	return &udn.Network{Name: name, ID: id, Topology: udn.TopologyLayer2, Role: udn.RolePrimary,
		Subnets:     []udn.Subnet{{CIDR: netip.PrefixFrom(netip.AddrFrom4([4]byte{10, first, 0, 0}), 16)}},
		JoinSubnets: ipam.DefaultJoinSubnets()[:1], TransitSubnets: ipam.DefaultTransitSubnets()[:1]}
}

// hostSubnets gives node i (0-based) of nodes the /24 number i+1 of each
// Layer3 network.
func hostSubnets(nets []*udn.Network, nodes []topology.Node) map[string]map[string][]netip.Prefix {
	out := map[string]map[string][]netip.Prefix{}
	for _, n := range nets {
		if n.Topology != udn.TopologyLayer3 {
			continue
		}
		out[n.Name] = map[string][]netip.Prefix{}
		for i, nd := range nodes {
			a := n.Subnets[0].CIDR.Addr().As4()
			out[n.Name][nd.Name] = []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{a[0], a[1], byte(i + 1), 0}), 24)}
		}
	}
	return out
}

// v4Connect returns a CNC connecting by pod network with 192.168.0.0/16,
// networkPrefix 24.
func v4Connect(name string, types ...ConnectivityType) *ClusterNetworkConnect {
	if len(types) == 0 {
		types = []ConnectivityType{PodNetwork}
	}
	c := &ClusterNetworkConnect{Spec: ClusterNetworkConnectSpec{
		NetworkSelectors: []NetworkSelector{{NetworkSelectionType: PrimaryUserDefinedNetworks,
			PrimaryUserDefinedNetworkSelector: &PrimaryUserDefinedNetworkSelector{}}},
		ConnectSubnets:      []ConnectSubnet{{CIDR: "192.168.0.0/16", NetworkPrefix: 24}},
		ConnectivityEnabled: types,
	}}
	c.Name, c.Kind, c.APIVersion = name, Kind, APIVersion
	return c
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return v
}

func netconfNamespace(name string) netconf.Namespace { return netconf.Namespace{Name: name} }
