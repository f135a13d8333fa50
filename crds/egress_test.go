package crds_test

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	egressipkube "github.com/udnkit/udnkit/topology/egressip/kube"
	egressqoskube "github.com/udnkit/udnkit/topology/egressqos/kube"
)

const (
	validEgressIP = `apiVersion: k8s.ovn.org/v1
kind: EgressIP
metadata:
  name: egress-web
spec:
  egressIPs: ["172.18.0.100", "fc00:f853:ccd:e793::100"]
  namespaceSelector:
    matchLabels: {kubernetes.io/metadata.name: blue}
  podSelector:
    matchExpressions:
    - {key: app, operator: In, values: [web]}
`
	validEgressQoS = `apiVersion: k8s.ovn.org/v1
kind: EgressQoS
metadata:
  name: default
  namespace: default
spec:
  egress:
  - dscp: 46
    dstCIDR: 1.2.3.0/24
    podSelector:
      matchLabels: {app: web}
  - dscp: 20
    dstCIDR: fd00:10::/64
  - dscp: 10
`
)

// admitEgress: an EgressIP and an EgressQoS the SDK accepts are admitted;
// each invalid one is refused by the API server and by the SDK's adapter
// with the same message.
func admitEgress(t *testing.T, c client.Client) {
	ctx := context.Background()
	create := func(doc string) error {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatal(err)
		}
		return c.Create(ctx, &unstructured.Unstructured{Object: m}, client.FieldValidation("Strict"))
	}
	sdk := func(doc string) error {
		if strings.Contains(doc, "kind: EgressIP\n") {
			e, err := egressipkube.Decode([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			_, err = egressipkube.EgressIPFrom(e)
			return err
		}
		q, err := egressqoskube.Decode([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = egressqoskube.EgressQoSFrom(q)
		return err
	}
	for _, doc := range []string{validEgressIP, validEgressQoS} {
		if err := sdk(doc); err != nil {
			t.Fatalf("the SDK refuses a valid object: %v", err)
		}
		if err := create(doc); err != nil {
			t.Errorf("the API server refuses a valid object: %v\n%s", err, doc)
		}
	}
	eip := func(name, ips string) string {
		return strings.NewReplacer("egress-web", name, `["172.18.0.100", "fc00:f853:ccd:e793::100"]`, ips).Replace(validEgressIP)
	}
	qos := func(name, rule string) string {
		return strings.Replace(strings.Replace(validEgressQoS, "  - dscp: 10\n", rule, 1), "namespace: default", "namespace: "+name, 1)
	}
	for _, tc := range []struct{ name, doc, message string }{
		{"eip-not-an-ip", eip("not-an-ip", `["172.18.0.300"]`), "spec.egressIPs[0]: Invalid value"},
		{"eip-not-an-ip-message", eip("not-an-ip-2", `["fc00::1", "x"]`), "not an IP address"},
		{"eip-multicast", eip("multicast", `["224.0.0.1"]`), "not a unicast address"},
		{"eip-duplicate", eip("duplicate", `["172.18.0.100", "172.18.0.100"]`), "Duplicate value"},
		{"eip-duplicate-spelled-apart", eip("duplicate-ipv6", `["fc00::100", "FC00:0::100"]`), "Duplicate value"},
		{"eip-ipv4-mapped", eip("mapped", `["::ffff:172.18.0.1"]`), "not an IP address"},
		{"eip-zone", eip("zone", `["fe80::1%eth0"]`), "not an IP address"},
		{"eip-loopback", eip("loopback", `["127.0.0.1"]`), "not a unicast address"},
		{"eip-link-local", eip("link-local", `["169.254.0.1"]`), "not a unicast address"},
		{"eip-unspecified", eip("unspecified", `["::"]`), "not a unicast address"},
		{"qos-host-bits", qos("default", "  - dscp: 10\n    dstCIDR: 1.2.3.4/24\n"), "not a CIDR without host bits"},
		{"qos-dscp", qos("default", "  - dscp: 64\n"), "must be in 0..63"},
		{"qos-dscp-negative", qos("default", "  - dscp: -1\n"), "must be in 0..63"},
		{"qos-ipv6-host-bits", qos("default", "  - dscp: 10\n    dstCIDR: fd00::1/64\n"), "not a CIDR without host bits"},
		{"qos-not-a-cidr", qos("default", "  - dscp: 10\n    dstCIDR: 1.2.3.0\n"), "not a CIDR without host bits"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := sdk(tc.doc); err == nil || !strings.Contains(err.Error(), tc.message) {
				t.Errorf("SDK: %v, want %q", err, tc.message)
			}
			err := create(tc.doc)
			if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.message) {
				t.Errorf("API server: %v, want Invalid with %q", err, tc.message)
			}
		})
	}
}
