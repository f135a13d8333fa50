package udnkit_test

import (
	"slices"
	"testing"

	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/podnetwork"
)

// FuzzParseErrorClasses: whatever bytes the SDK's decoders and parsers are
// given, an error they return is invalid (a chained NetConf list also not
// supported), never of no class and never of another.
func FuzzParseErrorClasses(f *testing.F) {
	for _, s := range []string{
		"kind: UserDefinedNetwork\nspec:\n  topology: Layer2\n  layer2:\n    role: Primary\n    subnets: [10.0.0.0/24]\n",
		`{"kind":"ClusterUserDefinedNetwork","spec":{"namespaceSelector":{},"network":{"topology":"Layer3"}}}`,
		`{"cniVersion":"1.1.0","name":"x","type":"ovn-k8s-cni-overlay","topology":"layer2","netAttachDefName":"a/b","subnets":"10.0.0.0/24"}`,
		`{"cniVersion":"1.1.0","name":"x","plugins":[{"type":"ovn-k8s-cni-overlay"},{"type":"tuning"}]}`,
		`{"a/b":{"ip_addresses":["10.0.0.5/24"],"mac_address":"0a:58:0a:00:00:05","gateway_ips":["10.0.0.1"]}}`,
		"kind: ClusterNetworkConnect\nspec:\n  connectivity: [ServiceNetwork]\n",
		"kind: PodNetwork\nmetadata: {name: x}\n",
		`{"kind":"Pod","spec":{"networks":[{"podNetworkName":"x"}]}}`,
		"10.128.0.0/16/24", "{", "", "null", "[]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		only := func(what string, err error, allowed ...string) {
			t.Helper()
			if err == nil {
				return
			}
			got := classesOf(err)
			if len(got) == 0 {
				t.Fatalf("%s: %v: no class", what, err)
			}
			for _, c := range got {
				if !slices.Contains(allowed, c) {
					t.Fatalf("%s: %v: classes %v, want only %v", what, err, got, allowed)
				}
			}
		}
		_, err := netconf.DecodeUDN(data)
		only("DecodeUDN", err, "invalid")
		_, err = netconf.DecodeCUDN(data)
		only("DecodeCUDN", err, "invalid")
		_, err = netconf.ParseNetConf(data)
		only("ParseNetConf", err, "not supported", "invalid")
		_, err = netconf.ParsePodNetworks(string(data))
		only("ParsePodNetworks", err, "invalid")
		_, err = netconf.ParseSubnets(string(data), netconf.TopologyLayer3)
		only("ParseSubnets", err, "invalid")
		_, err = connect.Decode(data)
		only("connect.Decode", err, "invalid")
		_, err = connect.ParseAnnotations(map[string]string{connect.AnnotationTunnelKey: string(data), connect.SubnetsAnnotation(0): string(data)})
		only("connect.ParseAnnotations", err, "invalid")
		_, err = podnetwork.Decode(data)
		only("podnetwork.Decode", err, "invalid")
	})
}
