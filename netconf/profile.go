package netconf

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/netconf/udn"
)

// Wire constants of udn.ProfileReference.
const (
	// CNIVersionReference is the cniVersion the reference implementation
	// renders (its config.CNISpecVersion).
	CNIVersionReference = "1.1.0"
	// DefaultClusterMTU is the reference implementation's default network
	// MTU (config.Default.MTU), used when RenderOptions.ClusterMTU is 0.
	DefaultClusterMTU = 1400
	// ovnK8sPrefix starts the annotations the reference does not copy from
	// a UDN/CUDN to its NADs (types.OvnK8sPrefix).
	ovnK8sPrefix = "k8s.ovn.org"
)

// RenderOptions selects the wire format of the NADs a render writes. The
// zero value renders the seeds' format (RenderUDN, RenderCUDN).
type RenderOptions struct {
	// Profile is udn.ProfileSeeds (the default) or udn.ProfileReference,
	// under which a NAD's spec.config is byte for byte what the reference
	// implementation's template (net-attach-def-template.go) writes for the
	// same UDN/CUDN, and the NAD carries the UDN/CUDN's labels and its
	// annotations outside k8s.ovn.org.
	Profile udn.Profile
	// ClusterMTU is the default network's MTU; 0 means DefaultClusterMTU.
	// Under ProfileReference a Localnet network without mtu is rendered
	// with ClusterMTU+100 (the underlay carries no overlay overhead).
	ClusterMTU int
}

// RenderUDN validates u and renders its NAD in o's format.
func (o RenderOptions) RenderUDN(u *UserDefinedNetwork) (*Rendered, error) {
	n, err := NetworkFromUDN(u)
	if err != nil {
		return nil, err
	}
	return o.renderUDN(u, n)
}

// renderUDN renders the NAD of n, u's valid network, in o's format.
func (o RenderOptions) renderUDN(u *UserDefinedNetwork, n *Network) (*Rendered, error) {
	if o.Profile != udn.ProfileReference {
		return renderUDN(u, n)
	}
	nad, err := o.renderReferenceNAD(&u.Spec, n, &u.ObjectMeta, u.Namespace, KindUDN)
	if err != nil {
		return nil, err
	}
	return &Rendered{Network: n, NADs: []*nadv1.NetworkAttachmentDefinition{nad}}, nil
}

// RenderCUDN validates c and renders its NADs in o's format (see the
// package function RenderCUDN).
func (o RenderOptions) RenderCUDN(c *ClusterUserDefinedNetwork, networkID int, namespaces []string) (*Rendered, error) {
	n, err := NetworkFromCUDN(c, networkID)
	if err != nil {
		return nil, err
	}
	return o.renderCUDN(c, n, namespaces)
}

// renderCUDN renders the NADs of n, c's valid network with its ID set, in
// o's format.
func (o RenderOptions) renderCUDN(c *ClusterUserDefinedNetwork, n *Network, namespaces []string) (*Rendered, error) {
	if o.Profile != udn.ProfileReference {
		return renderCUDN(c, n, namespaces)
	}
	nss, err := cudnNamespaces(c, n, namespaces)
	if err != nil {
		return nil, err
	}
	r := &Rendered{Network: n}
	for _, ns := range nss {
		nad, err := o.renderReferenceNAD(&c.Spec.Template.Spec, n, &c.ObjectMeta, ns, KindCUDN)
		if err != nil {
			return nil, err
		}
		r.NADs = append(r.NADs, nad)
	}
	return r, nil
}

// MarshalNetConf encodes c in o's format. Under udn.ProfileSeeds it is
// json.Marshal(c) (keys in NetConf field order). Under
// udn.ProfileReference the keys are the reference template's, in the
// order Go marshals its map (sorted), values verbatim; "vrf" and
// "primaryNetwork" are not written (an empty role with primaryNetwork set
// is written as role "primary"). A NetConf that ParseNetConf read from
// a NAD the reference rendered marshals back to the same bytes.
func (o RenderOptions) MarshalNetConf(c *NetConf) ([]byte, error) {
	if o.Profile != udn.ProfileReference {
		return json.Marshal(c)
	}
	m := map[string]any{
		"cniVersion":       c.CNIVersion,
		"type":             c.Type,
		"name":             c.Name,
		"netAttachDefName": c.NetAttachDefName,
		"topology":         c.Topology,
		"role":             c.Role,
	}
	if c.Role == "" && c.PrimaryNetwork {
		m["role"] = RolePrimary.NetConfValue()
	}
	if c.MTU > 0 {
		m["mtu"] = c.MTU
	}
	if c.JoinSubnet != "" {
		m["joinSubnet"] = c.JoinSubnet
	}
	if c.TransitSubnet != "" {
		m["transitSubnet"] = c.TransitSubnet
	}
	if c.Subnets != "" {
		m["subnets"] = c.Subnets
	}
	if c.AllowPersistentIPs {
		m["allowPersistentIPs"] = true
	}
	if c.PhysicalNetworkName != "" {
		m["physicalNetworkName"] = c.PhysicalNetworkName
	}
	if c.ExcludeSubnets != "" {
		m["excludeSubnets"] = c.ExcludeSubnets
	}
	if c.VLANID != 0 {
		m["vlanID"] = c.VLANID
	}
	return json.Marshal(m)
}

// referenceNetConf is the NetConf the reference template writes for spec:
// the user's strings verbatim (Layer3 subnets without a host prefix stay
// without one, CIDRs keep their spelling), both default join subnets for
// every primary network that sets none, the transit subnets of primary
// Layer2 networks (one per pod subnet, n's), no vrf.
func (o RenderOptions) referenceNetConf(s *UserDefinedNetworkSpec, n *Network, nadKey string) *NetConf {
	c := &NetConf{
		CNIVersion:       CNIVersionReference,
		Name:             n.Name,
		Type:             CNIType,
		Topology:         s.Topology.NetConfValue(),
		Role:             s.Role.NetConfValue(),
		NetAttachDefName: nadKey,
		MTU:              int(s.MTU),
		Subnets:          strings.Join(s.Subnets, ","),
		ExcludeSubnets:   strings.Join(s.ExcludeSubnets, ","),
	}
	if s.Topology != TopologyLayer3 {
		c.AllowPersistentIPs = s.ipamLifecycle() == IPAMPersistent
	}
	if s.Role == RolePrimary {
		c.JoinSubnet = strings.Join(s.JoinSubnets, ",")
		if len(s.JoinSubnets) == 0 {
			c.JoinSubnet = defaultJoin(false).String() + "," + defaultJoin(true).String()
		}
		if s.Topology == TopologyLayer2 {
			c.TransitSubnet = joinPrefixes(n.TransitSubnets)
		}
	}
	if s.Topology == TopologyLocalnet {
		if c.MTU == 0 {
			c.MTU = o.ClusterMTU
			if c.MTU == 0 {
				c.MTU = DefaultClusterMTU
			}
			c.MTU += 100
		}
		c.PhysicalNetworkName, c.VLANID = n.PhysicalNetworkName, n.VLANID
	}
	return c
}

// renderReferenceNAD renders the NAD the reference template writes for
// spec in namespace, with udnkit's TypeMeta and namespace set.
func (o RenderOptions) renderReferenceNAD(s *UserDefinedNetworkSpec, n *Network, m *metav1.ObjectMeta, namespace, kind string) (*nadv1.NetworkAttachmentDefinition, error) {
	cfg, err := o.MarshalNetConf(o.referenceNetConf(s, n, namespace+"/"+m.Name))
	if err != nil {
		return nil, names.Errorf("%w: marshal NetConf of %s: %w", ErrInvalidNetConf, n, err)
	}
	labels := map[string]string{LabelUserDefinedNetwork: ""}
	maps.Copy(labels, m.Labels)
	var annotations map[string]string
	for _, k := range slices.Sorted(maps.Keys(m.Annotations)) {
		if !strings.HasPrefix(k, ovnK8sPrefix) {
			if annotations == nil {
				annotations = map[string]string{}
			}
			annotations[k] = m.Annotations[k]
		}
	}
	return newNAD(namespace, m.Name, cfg, labels, annotations, ownerRef(kind, m)), nil
}
