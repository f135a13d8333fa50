package connect

import (
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var tenMB = strings.Repeat("a", 10<<20)

// TestValidateBounded: every error of a ClusterNetworkConnect with a 10 MB
// field quotes a bounded prefix and names the field.
func TestValidateBounded(t *testing.T) {
	for _, tc := range []struct {
		name, field string
		edit        func(c *ClusterNetworkConnect)
	}{
		{"name", "metadata.name", func(c *ClusterNetworkConnect) { c.Name = tenMB }},
		{"namespace", "metadata.namespace", func(c *ClusterNetworkConnect) { c.Namespace = tenMB }},
		{"selector type", "networkSelectionType", func(c *ClusterNetworkConnect) {
			c.Spec.NetworkSelectors[0].NetworkSelectionType = NetworkSelectionType(tenMB)
		}},
		{"selector label", "namespaceSelector", func(c *ClusterNetworkConnect) {
			c.Spec.NetworkSelectors[0].PrimaryUserDefinedNetworkSelector.NamespaceSelector =
				metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: tenMB, Operator: "In", Values: []string{tenMB}}}}
		}},
		{"cidr", "connectSubnets[0].cidr", func(c *ClusterNetworkConnect) { c.Spec.ConnectSubnets[0].CIDR = CIDR(tenMB) }},
		{"connectivity", "connectivityEnabled[0]", func(c *ClusterNetworkConnect) {
			c.Spec.ConnectivityEnabled = []ConnectivityType{ConnectivityType(tenMB)}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := v4Connect("cnc")
			tc.edit(c)
			errs := Validate(c)
			if len(errs) == 0 {
				t.Fatal("accepted")
			}
			if m := errs.ToAggregate().Error(); len(m) > 8<<10 || !strings.Contains(m, tc.field) {
				t.Errorf("%d-byte message naming %s: %.300s", len(m), tc.field, m)
			}
		})
	}
	for _, ann := range []map[string]string{
		{AnnotationTunnelKey: tenMB},
		{AnnotationNetworkSubnets: tenMB},
		{AnnotationNetworkSubnets: `{"` + tenMB + `":{"ipv4":"10.0.0.0/24"}}`},
		{AnnotationNetworkSubnets: `{"layer3_1":{"ipv4":"` + tenMB + `"}}`},
	} {
		if _, err := ParseAnnotations(ann); !errors.Is(err, ErrAnnotation) || len(err.Error()) > 8<<10 {
			t.Errorf("ParseAnnotations: %d-byte error %.200v", len(fmtErr(err)), err)
		}
	}
	if _, err := ParseNetworkKey("layer3_" + tenMB); err == nil || len(err.Error()) > 8<<10 {
		t.Errorf("ParseNetworkKey of 10 MB: %d bytes", len(fmtErr(err)))
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestConnectSubnetsReserved: special-purpose ranges and the default
// network's join subnet cannot be connect subnets.
func TestConnectSubnetsReserved(t *testing.T) {
	for _, cidr := range []string{"224.0.0.0/8", "127.0.0.0/8", "100.64.0.0/16", "169.254.0.0/16", "0.0.0.0/8", "240.0.0.0/8",
		"100.64.0.0/10", "fe80::/64", "ff00::/64", "::ffff:0:0/96", "fd98::/64"} {
		c := v4Connect("cnc")
		c.Spec.ConnectSubnets[0] = ConnectSubnet{CIDR: CIDR(cidr), NetworkPrefix: 24}
		if strings.Contains(cidr, ":") {
			c.Spec.ConnectSubnets[0].NetworkPrefix = 112
		}
		errs := Validate(c)
		if len(errs) == 0 || !strings.Contains(errs.ToAggregate().Error(), "must not overlap") {
			t.Errorf("%s: %v", cidr, errs)
		}
	}
	for _, cidr := range []string{"192.168.0.0/16", "10.0.0.0/8", "100.66.0.0/16", "fd00:10::/64"} {
		c := v4Connect("cnc")
		c.Spec.ConnectSubnets[0] = ConnectSubnet{CIDR: CIDR(cidr), NetworkPrefix: 24}
		if strings.Contains(cidr, ":") {
			c.Spec.ConnectSubnets[0].NetworkPrefix = 112
		}
		if errs := Validate(c); len(errs) != 0 {
			t.Errorf("%s refused: %v", cidr, errs)
		}
	}
}

// TestParseNetworkKeyRange: a key's network ID is in 1..4095.
func TestParseNetworkKeyRange(t *testing.T) {
	for _, s := range []string{"layer3_4096", "layer3_99999", "layer2_0", "layer3_-1"} {
		if _, err := ParseNetworkKey(s); !errors.Is(err, ErrAnnotation) {
			t.Errorf("ParseNetworkKey(%q) = %v", s, err)
		}
	}
	if k, err := ParseNetworkKey("layer2_4095"); err != nil || k.NetworkID != 4095 {
		t.Errorf("layer2_4095: %v %v", k, err)
	}
}

// TestStatusTypeEnum: status.status is Success or Failure (the seed's
// CRD enum); anything else is refused.
func TestStatusTypeEnum(t *testing.T) {
	for s, ok := range map[StatusType]bool{"": true, Success: true, Failure: true, "success": false, "Pending": false} {
		c := v4Connect("cnc")
		c.Status.Status = s
		errs := Validate(c)
		if (len(errs) == 0) != ok || !ok && !strings.Contains(errs.ToAggregate().Error(), "status.status") {
			t.Errorf("status %q: %v, want valid %v", s, errs, ok)
		}
	}
}
