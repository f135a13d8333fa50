package netconf

import (
	"encoding/json"
	"strings"

	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/udnkit/udnkit/internal/kubename"
	"github.com/udnkit/udnkit/internal/names"
)

// NetConf wire constants.
const (
	// CNIVersion is the cniVersion rendered NetConfs carry.
	CNIVersion = "1.1.0"
	// CNIType is the CNI plugin type of every OVN-Kubernetes network.
	CNIType = "ovn-k8s-cni-overlay"
	// ReservedNetworkDefault and ReservedNetworkOVNKubernetes are network
	// names no NetConf may use: the default network's, and one the
	// reference implementation reserves.
	ReservedNetworkDefault       = "default"
	ReservedNetworkOVNKubernetes = "ovn-kubernetes"
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
//
// It reads what the reference implementation's parser reads
// (config.ParseNetConf and util.ValidateNetConf): a single configuration, or
// a configuration list ("plugins") holding exactly one ovn-k8s-cni-overlay
// plugin, whose name and cniVersion are then the list's; cniVersion may be
// missing. It refuses a list and a single configuration in one document, a
// chained plugin (ErrChainingNotSupported), another plugin's configuration
// (ErrNotOVNManaged), the default network's NAD, which has no topology
// (ErrDefaultNetworkNAD), an "ipam" key with a type (OVN-Kubernetes
// allocates addresses itself), and the reserved network names "default"
// and "ovn-kubernetes".
func ParseNetConf(data []byte) (*NetConf, error) {
	c, _, err := parseNetConf(data)
	return c, err
}

// parseNetConf is ParseNetConf, returning the network too.
func parseNetConf(data []byte) (*NetConf, *Network, error) {
	c, err := decodeNetConf(data)
	if err != nil {
		return nil, nil, err
	}
	n, err := c.Network()
	if err != nil {
		return nil, nil, err
	}
	return c, n, nil
}

// decodeNetConf decodes a single configuration or a one-plugin list and
// applies the checks that need the raw document.
func decodeNetConf(data []byte) (*NetConf, error) {
	var head struct {
		Plugins json.RawMessage `json:"plugins"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, names.Errorf("%w: %w", ErrInvalidNetConf, err)
	}
	if head.Plugins != nil {
		return decodeNetConfList(data)
	}
	return decodeNetConfSingle(data)
}

func decodeNetConfSingle(data []byte) (*NetConf, error) {
	var c NetConf
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, names.Errorf("%w: %w", ErrInvalidNetConf, err)
	}
	if err := checkOVNManaged(&c, data); err != nil {
		return nil, err
	}
	return &c, nil
}

// checkOVNManaged refuses another plugin's configuration, the default
// network's and an "ipam" key with a type.
func checkOVNManaged(c *NetConf, data []byte) error {
	if c.Type != CNIType {
		return names.Errorf("%w: %w: network %q (%s): type: Invalid value: %q: must be %s",
			ErrInvalidNetConf, ErrNotOVNManaged, c.Name, c.NetAttachDefName, c.Type, CNIType)
	}
	if c.Topology == "" {
		return names.Errorf("%w: %w: network %q (%s): topology: Required value: a NetConf without topology is the default network's",
			ErrInvalidNetConf, ErrDefaultNetworkNAD, c.Name, c.NetAttachDefName)
	}
	var ipam struct {
		IPAM *struct {
			Type string `json:"type"`
		} `json:"ipam"`
	}
	if err := json.Unmarshal(data, &ipam); err != nil {
		return names.Errorf("%w: network %q (%s): ipam: %w", ErrInvalidNetConf, c.Name, c.NetAttachDefName, err)
	}
	if ipam.IPAM != nil && ipam.IPAM.Type != "" {
		return names.Errorf("%w: network %q (%s): ipam: Forbidden: IPAM key is not supported; OVN-Kubernetes allocates addresses from the subnets key",
			ErrInvalidNetConf, c.Name, c.NetAttachDefName)
	}
	return nil
}

// decodeNetConfList decodes a configuration list, as libcni's
// ConfListFromBytes does, then its one plugin.
func decodeNetConfList(data []byte) (*NetConf, error) {
	var list struct {
		Name       *string           `json:"name"`
		CNIVersion *string           `json:"cniVersion"`
		Plugins    []json.RawMessage `json:"plugins"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, names.Errorf("%w: configuration list: %w", ErrInvalidNetConf, err)
	}
	switch {
	case list.Name == nil:
		return nil, names.Errorf("%w: configuration list: name: Required value", ErrInvalidNetConf)
	case len(list.Plugins) == 0:
		return nil, names.Errorf("%w: configuration list %q: plugins: Required value: no plugins found", ErrInvalidNetConf, *list.Name)
	}
	var c NetConf
	if err := json.Unmarshal(list.Plugins[0], &c); err != nil {
		return nil, names.Errorf("%w: configuration list %q: plugins[0]: %w", ErrInvalidNetConf, *list.Name, err)
	}
	if err := checkOVNManaged(&c, list.Plugins[0]); err != nil {
		return nil, err
	}
	if len(list.Plugins) > 1 {
		return nil, names.Errorf("%w: %w: configuration list %q has %d plugins", ErrInvalidNetConf, ErrChainingNotSupported, *list.Name, len(list.Plugins))
	}
	c.Name = *list.Name
	c.CNIVersion = ""
	if list.CNIVersion != nil {
		c.CNIVersion = *list.CNIVersion
	}
	var top NetConf
	if json.Unmarshal(data, &top) == nil && top.Type == CNIType {
		return nil, names.Errorf("%w: configuration list %q: a CNI config cannot have both a plugin list and a single config", ErrInvalidNetConf, *list.Name)
	}
	return &c, nil
}

// Network returns the normalised network the NetConf describes: ID 0, NADs
// the one netAttachDefName, join and transit defaults applied for primary
// networks. Errors wrap ErrInvalidNetConf and list every problem by key.
func (c *NetConf) Network() (*Network, error) {
	var errs field.ErrorList
	if c.Type != CNIType {
		errs = append(errs, field.Invalid(field.NewPath("type"), c.Type, "must be "+CNIType))
	}
	if c.Name == "" {
		errs = append(errs, field.Required(field.NewPath("name"), "the OVN network name"))
	}
	if c.Name == ReservedNetworkDefault || c.Name == ReservedNetworkOVNKubernetes {
		errs = append(errs, field.Invalid(field.NewPath("name"), c.Name, "reserved network name"))
	}
	errs = append(errs, validateSafe(field.NewPath("name"), c.Name)...)
	errs = append(errs, validateSafe(field.NewPath("vrf"), c.VRF)...)
	errs = append(errs, validateSafe(field.NewPath("physicalNetworkName"), c.PhysicalNetworkName)...)
	errs = append(errs, validateNADKey(c.NetAttachDefName, field.NewPath("netAttachDefName"))...)

	in := specInput{
		mtu:         int64(c.MTU),
		subnets:     splitList(c.Subnets),
		exclude:     splitList(c.ExcludeSubnets),
		join:        splitList(c.JoinSubnet),
		transit:     splitList(c.TransitSubnet),
		vrf:         c.VRF,
		physnet:     c.PhysicalNetworkName,
		vlan:        c.VLANID,
		fromNetConf: true,
	}
	switch c.Topology {
	case "layer2":
		in.topology = TopologyLayer2
	case "layer3":
		in.topology = TopologyLayer3
	case "localnet":
		in.topology = TopologyLocalnet
		if c.JoinSubnet != "" {
			errs = append(errs, field.Forbidden(field.NewPath("joinSubnet"), "localnet topology does not allow specifying join-subnet as services are not supported"))
		}
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
	return names.Errorf("%w: network %q (%s): %s", ErrInvalidNetConf, c.Name, c.NetAttachDefName, errorsMessage(errs))
}

// validateNADKey checks a "<namespace>/<name>" NAD key.
func validateNADKey(key string, p *field.Path) field.ErrorList {
	ns, name, ok := strings.Cut(key, "/")
	if !ok || ns == "" || name == "" {
		return field.ErrorList{field.Invalid(p, key, "must be <namespace>/<name>")}
	}
	var errs field.ErrorList
	for _, msg := range kubename.NamespacedNameErrors(ns, name) {
		errs = append(errs, field.Invalid(p, key, msg))
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

// ParseNAD parses the NetConf of nad as the reference implementation's
// util.ParseNetConf does: ParseNetConf, then its netAttachDefName must be
// the NAD's own "<namespace>/<name>" (else the error wraps ErrNADBinding
// and ErrInvalidNetConf). NetworkFromNAD checks more (CheckNADBinding).
func ParseNAD(nad *nadv1.NetworkAttachmentDefinition) (*NetConf, error) {
	c, _, err := parseNAD(nad)
	if err != nil {
		return nil, err
	}
	if err := checkNADKey(nad, c); err != nil {
		return nil, names.Errorf("%w: %w", ErrInvalidNetConf, err)
	}
	return c, nil
}

// parseNAD is ParseNetConf of nad's config, returning the network too,
// with errors naming the NAD.
func parseNAD(nad *nadv1.NetworkAttachmentDefinition) (*NetConf, *Network, error) {
	if nad == nil {
		return nil, nil, names.Errorf("%w: NetworkAttachmentDefinition is nil", ErrInvalidNetConf)
	}
	c, n, err := parseNetConf([]byte(nad.Spec.Config))
	if err != nil {
		return nil, nil, names.Errorf("NetworkAttachmentDefinition %s/%s: %w", nad.Namespace, nad.Name, err)
	}
	return c, n, nil
}
