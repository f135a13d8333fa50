package netconf

import (
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// NetConf wire constants.
const (
	// CNIVersion is the cniVersion rendered NetConfs carry.
	CNIVersion = "1.0.0"
	// CNIType is the CNI plugin type of every OVN-Kubernetes network.
	CNIType = "ovn-k8s-cni-overlay"
)

// NetConf is the CNI network configuration JSON of an OVN user-defined
// network, as held in a NAD's spec.config. Its fields are the JSON values
// verbatim (lists comma-joined, enums lowercase); Network gives the typed
// form.
//
// Marshalled keys come in field order: cniVersion, name, type, topology,
// role, netAttachDefName, subnets, excludeSubnets, joinSubnet,
// transitSubnet, mtu, vrf, allowPersistentIPs, physicalNetworkName, vlanID;
// empty optional values are omitted.
type NetConf struct {
	CNIVersion string `json:"cniVersion"`
	// Name is the OVN network name ("<ns>_<name>", "cluster_udn_<name>").
	Name string `json:"name"`
	// Type is always CNIType.
	Type string `json:"type"`
	// Topology is "layer2", "layer3" or "localnet".
	Topology string `json:"topology"`
	// Role is "primary" or "secondary"; empty means secondary.
	Role string `json:"role,omitempty"`
	// NetAttachDefName is the "<namespace>/<name>" of the NAD holding this NetConf.
	NetAttachDefName string `json:"netAttachDefName"`
	// Subnets, e.g. "10.128.0.0/16/24,fd00:10:128::/48/64".
	Subnets        string `json:"subnets,omitempty"`
	ExcludeSubnets string `json:"excludeSubnets,omitempty"`
	// JoinSubnet is set for primary networks.
	JoinSubnet string `json:"joinSubnet,omitempty"`
	// TransitSubnet is set for primary Layer2 networks.
	TransitSubnet string `json:"transitSubnet,omitempty"`
	MTU           int    `json:"mtu,omitempty"`
	// VRF is the host VRF device of a primary CUDN network.
	VRF                string `json:"vrf,omitempty"`
	AllowPersistentIPs bool   `json:"allowPersistentIPs,omitempty"`
	// PhysicalNetworkName and VLANID are Localnet only.
	PhysicalNetworkName string `json:"physicalNetworkName,omitempty"`
	VLANID              int    `json:"vlanID,omitempty"`
	// PrimaryNetwork is the early spelling of role "primary"; read, never
	// rendered.
	PrimaryNetwork bool `json:"primaryNetwork,omitempty"`
}

// ParseNetConf decodes NetConf JSON and checks that it describes a valid
// network (see NetConf.Network). Unknown keys are ignored, as CNI plugins
// do. Errors wrap ErrInvalidNetConf.
func ParseNetConf(data []byte) (*NetConf, error) {
	var c NetConf
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidNetConf, err)
	}
	if _, err := c.Network(); err != nil {
		return nil, err
	}
	return &c, nil
}

// Network returns the normalised network the NetConf describes: ID 0, NADs
// the one netAttachDefName, join and transit defaults applied for primary
// networks. Errors wrap ErrInvalidNetConf and list every problem by key.
func (c *NetConf) Network() (*Network, error) {
	var errs field.ErrorList
	if c.CNIVersion == "" {
		errs = append(errs, field.Required(field.NewPath("cniVersion"), ""))
	}
	if c.Type != CNIType {
		errs = append(errs, field.Invalid(field.NewPath("type"), c.Type, "must be "+CNIType))
	}
	if c.Name == "" {
		errs = append(errs, field.Required(field.NewPath("name"), "the OVN network name"))
	}
	errs = append(errs, validateSafe(field.NewPath("name"), c.Name)...)
	errs = append(errs, validateSafe(field.NewPath("vrf"), c.VRF)...)
	errs = append(errs, validateSafe(field.NewPath("physicalNetworkName"), c.PhysicalNetworkName)...)
	errs = append(errs, validateNADKey(c.NetAttachDefName, field.NewPath("netAttachDefName"))...)

	in := specInput{
		mtu:     int64(c.MTU),
		subnets: splitList(c.Subnets),
		exclude: splitList(c.ExcludeSubnets),
		join:    splitList(c.JoinSubnet),
		transit: splitList(c.TransitSubnet),
		vrf:     c.VRF,
		physnet: c.PhysicalNetworkName,
		vlan:    c.VLANID,
	}
	switch c.Topology {
	case "layer2":
		in.topology = TopologyLayer2
	case "layer3":
		in.topology = TopologyLayer3
	case "localnet":
		in.topology = TopologyLocalnet
	default:
		errs = append(errs, field.NotSupported(field.NewPath("topology"), c.Topology, []string{"layer2", "layer3", "localnet"}))
	}
	switch {
	case c.Role == "primary":
		in.role = RolePrimary
	case c.Role == "secondary" && c.PrimaryNetwork:
		errs = append(errs, field.Invalid(field.NewPath("primaryNetwork"), true, `conflicts with role "secondary"`))
	case c.Role == "secondary":
		in.role = RoleSecondary
	case c.Role == "" && c.PrimaryNetwork:
		in.role = RolePrimary
	case c.Role == "":
		in.role = RoleSecondary
	default:
		errs = append(errs, field.NotSupported(field.NewPath("role"), c.Role, []string{"primary", "secondary"}))
	}
	if len(errs) > 0 {
		return nil, netConfError(c, errs)
	}
	if len(in.subnets) == 0 && in.role == RoleSecondary && in.topology != TopologyLayer3 {
		in.mode = IPAMDisabled
	}
	if c.AllowPersistentIPs {
		in.lifecycle = IPAMPersistent
	}
	n, errs := buildNetwork(in, specPaths{
		topology: field.NewPath("topology"), role: field.NewPath("role"), mtu: field.NewPath("mtu"),
		subnets: field.NewPath("subnets"), exclude: field.NewPath("excludeSubnets"),
		join: field.NewPath("joinSubnet"), transit: field.NewPath("transitSubnet"),
		mode: field.NewPath("subnets"), lifecycle: field.NewPath("allowPersistentIPs"),
		vrf: field.NewPath("vrf"), localnet: field.NewPath("physicalNetworkName"),
		physnet: field.NewPath("physicalNetworkName"), vlan: field.NewPath("vlanID"),
	})
	if len(errs) > 0 {
		return nil, netConfError(c, errs)
	}
	n.Name = c.Name
	n.NADs = []string{c.NetAttachDefName}
	return n, nil
}

func netConfError(c *NetConf, errs field.ErrorList) error {
	return fmt.Errorf("%w: network %q (%s): %s", ErrInvalidNetConf, c.Name, c.NetAttachDefName, errorsMessage(errs))
}

// validateNADKey checks a "<namespace>/<name>" NAD key.
func validateNADKey(key string, p *field.Path) field.ErrorList {
	ns, name, ok := strings.Cut(key, "/")
	if !ok || ns == "" || name == "" {
		return field.ErrorList{field.Invalid(p, key, "must be <namespace>/<name>")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(ns) {
		errs = append(errs, field.Invalid(p, key, "namespace: "+msg))
	}
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		errs = append(errs, field.Invalid(p, key, "name: "+msg))
	}
	return errs
}

// NetConfOf returns the NetConf of n for the NAD "<namespace>/<name>"
// nadKey. Join subnets are rendered for primary networks, transit subnets
// for primary Layer2 networks (Layer3 planners derive them, see
// TransitSubnets). For a network n obtained from a spec or a NetConf,
// NetConfOf(n, k).Network() equals n with ID 0 and NADs [k].
func NetConfOf(n *Network, nadKey string) *NetConf {
	c := &NetConf{
		CNIVersion:          CNIVersion,
		Name:                n.Name,
		Type:                CNIType,
		Topology:            n.Topology.NetConfValue(),
		Role:                n.Role.NetConfValue(),
		NetAttachDefName:    nadKey,
		Subnets:             joinSubnets(n.Subnets),
		ExcludeSubnets:      joinPrefixes(n.ExcludeSubnets),
		MTU:                 n.MTU,
		VRF:                 n.VRF,
		AllowPersistentIPs:  n.PersistentIPs,
		PhysicalNetworkName: n.PhysicalNetworkName,
		VLANID:              n.VLANID,
	}
	if n.IsPrimary() {
		c.JoinSubnet = joinPrefixes(n.JoinSubnets)
		if n.Topology == TopologyLayer2 {
			c.TransitSubnet = joinPrefixes(n.TransitSubnets)
		}
	}
	return c
}
