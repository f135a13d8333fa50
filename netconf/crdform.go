package netconf

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/udnkit/udnkit/internal/names"
)

// The reference CRD's form of a network spec: the topology's settings in a
// sub-object named after it (spec.layer2, spec.layer3, spec.localnet) and
// a CUDN's network under spec.network instead of spec.template. Decoding
// normalises it to the seeds' flat UserDefinedNetworkSpec.

// crdLayer2 is the reference's spec.layer2.
type crdLayer2 struct {
	Role          Role          `json:"role"`
	MTU           int32         `json:"mtu,omitempty"`
	Subnets       []string      `json:"subnets,omitempty"`
	JoinSubnets   []string      `json:"joinSubnets,omitempty"`
	IPAM          *IPAMSpec     `json:"ipam,omitempty"`
	IPAMLifecycle IPAMLifecycle `json:"ipamLifecycle,omitempty"`
}

// crdLayer3Subnet is one of the reference's spec.layer3.subnets.
type crdLayer3Subnet struct {
	CIDR       string `json:"cidr"`
	HostSubnet int    `json:"hostSubnet,omitempty"`
}

// crdLayer3 is the reference's spec.layer3.
type crdLayer3 struct {
	Role        Role              `json:"role"`
	MTU         int32             `json:"mtu,omitempty"`
	Subnets     []crdLayer3Subnet `json:"subnets,omitempty"`
	JoinSubnets []string          `json:"joinSubnets,omitempty"`
}

// crdVLAN is the reference's spec.localnet.vlan.
type crdVLAN struct {
	Mode   string `json:"mode"`
	Access *struct {
		ID int `json:"id"`
	} `json:"access,omitempty"`
}

// crdLocalnet is the reference's spec.localnet.
type crdLocalnet struct {
	Role                Role      `json:"role"`
	PhysicalNetworkName string    `json:"physicalNetworkName"`
	MTU                 int32     `json:"mtu,omitempty"`
	Subnets             []string  `json:"subnets,omitempty"`
	ExcludeSubnets      []string  `json:"excludeSubnets,omitempty"`
	IPAM                *IPAMSpec `json:"ipam,omitempty"`
	VLAN                *crdVLAN  `json:"vlan,omitempty"`
}

// flatSpec decodes the flat form without recursing into UnmarshalJSON.
type flatSpec UserDefinedNetworkSpec

// UnmarshalJSON implements json.Unmarshaler: it decodes the seeds' flat
// form (spec.role, spec.subnets, ...) and the reference CRD's
// (spec.layer2, spec.layer3 or spec.localnet holding role, subnets, ...),
// strictly (an unknown field is an error), to the same flat spec.
func (s *UserDefinedNetworkSpec) UnmarshalJSON(data []byte) error {
	n, err := decodeSpec("spec", data)
	if err != nil {
		return err
	}
	*s = n
	return nil
}

// decodeSpec decodes a network spec at path in either form: the
// reference's when it has no top-level role and one of layer2, layer3 or
// localnet (the flat form's localnet is the underlay beside a role). A
// flat spec's decode error is returned as the decoder gives it.
func decodeSpec(path string, data []byte) (UserDefinedNetworkSpec, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil || keys == nil {
		return UserDefinedNetworkSpec{}, err
	}
	_, l2 := keys["layer2"]
	_, l3 := keys["layer3"]
	_, ln := keys["localnet"]
	if _, role := keys["role"]; role || !l2 && !l3 && !ln {
		var f flatSpec
		err := strictDecode(data, &f)
		if err != nil && path != "spec" {
			err = names.Errorf("%s: %w", path, err)
		}
		return UserDefinedNetworkSpec(f), err
	}
	var n UserDefinedNetworkSpec
	err := n.fromCRD(path, keys, l2, l3, ln)
	return n, err
}

// fromCRD normalises the reference's form.
// path is the spec's field path ("spec", "spec.network").
func (s *UserDefinedNetworkSpec) fromCRD(path string, keys map[string]json.RawMessage, l2, l3, ln bool) error {
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		switch k {
		case "topology", "layer2", "layer3", "localnet":
		default:
			return names.Errorf("%s.%s: a field of the flat form beside %s.layer2, layer3 or localnet: use one form (the topology's settings go in its sub-object)", path, k, path)
		}
	}
	var set []string
	for _, k := range []string{"layer2", "layer3", "localnet"} {
		if map[string]bool{"layer2": l2, "layer3": l3, "localnet": ln}[k] {
			set = append(set, k)
		}
	}
	if len(set) > 1 {
		return names.Errorf("%s: only one of layer2, layer3 and localnet may be set, not %s", path, strings.Join(set, " and "))
	}
	var out UserDefinedNetworkSpec
	if raw, ok := keys["topology"]; ok {
		if err := json.Unmarshal(raw, &out.Topology); err != nil {
			return names.Errorf("%s.topology: %w", path, err)
		}
	}
	want := map[string]Topology{"layer2": TopologyLayer2, "layer3": TopologyLayer3, "localnet": TopologyLocalnet}[set[0]]
	if out.Topology != want {
		return names.Errorf("%s.%s: set with topology %q: it is required when topology is %s, and forbidden otherwise", path, set[0], out.Topology, want)
	}
	raw := keys[set[0]]
	switch set[0] {
	case "layer2":
		var c crdLayer2
		if err := strictDecode(raw, &c); err != nil {
			return names.Errorf("%s.layer2: %w", path, err)
		}
		out.Role, out.MTU, out.Subnets, out.JoinSubnets, out.IPAM, out.IPAMLifecycle = c.Role, c.MTU, c.Subnets, c.JoinSubnets, c.IPAM, c.IPAMLifecycle
	case "layer3":
		var c crdLayer3
		if err := strictDecode(raw, &c); err != nil {
			return names.Errorf("%s.layer3: %w", path, err)
		}
		out.Role, out.MTU, out.JoinSubnets = c.Role, c.MTU, c.JoinSubnets
		for _, sub := range c.Subnets {
			cidr := sub.CIDR
			if sub.HostSubnet != 0 {
				cidr += "/" + strconv.Itoa(sub.HostSubnet)
			}
			out.Subnets = append(out.Subnets, cidr)
		}
	case "localnet":
		var c crdLocalnet
		if err := strictDecode(raw, &c); err != nil {
			return names.Errorf("%s.localnet: %w", path, err)
		}
		out.Role, out.MTU, out.Subnets, out.ExcludeSubnets, out.IPAM = c.Role, c.MTU, c.Subnets, c.ExcludeSubnets, c.IPAM
		out.Localnet = &LocalnetSpec{PhysicalNetworkName: c.PhysicalNetworkName}
		if v := c.VLAN; v != nil {
			switch {
			case v.Mode == "Access" && v.Access != nil:
				out.Localnet.VLANID = v.Access.ID
			case v.Mode == "Access":
				return names.Errorf("%s.localnet.vlan.access: required when mode is Access", path)
			case v.Access != nil:
				return names.Errorf("%s.localnet.vlan.access: set with mode %q: only mode Access takes it", path, v.Mode)
			case v.Mode != "" && v.Mode != "None":
				return names.Errorf("%s.localnet.vlan.mode: %q is neither Access nor None", path, v.Mode)
			}
		}
	}
	*s = out
	return nil
}

// strictDecode decodes JSON into v; an unknown field or trailing data is
// an error.
func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the object")
	}
	return nil
}

// UnmarshalJSON implements json.Unmarshaler: besides the seeds' template
// (spec.template) it takes the reference CRD's spec.network, the network
// spec itself (in either form UserDefinedNetworkSpec decodes), as a
// template's spec.
func (s *ClusterUserDefinedNetworkSpec) UnmarshalJSON(data []byte) error {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return err
	}
	if keys == nil {
		return nil
	}
	type plain ClusterUserDefinedNetworkSpec
	var out struct {
		plain
		Network json.RawMessage `json:"network,omitempty"`
	}
	if err := strictDecode(data, &out); err != nil {
		return err
	}
	cs := ClusterUserDefinedNetworkSpec(out.plain)
	if out.Network != nil && !bytes.Equal(bytes.TrimSpace(out.Network), []byte("null")) {
		if cs.Template != nil {
			return errors.New("spec: use either spec.template or spec.network, not both")
		}
		n, err := decodeSpec("spec.network", out.Network)
		if err != nil {
			return err
		}
		cs.Template = &UserDefinedNetworkTemplateSpec{Spec: n}
	}
	*s = cs
	return nil
}

// IsCRDForm says whether the JSON of a UserDefinedNetwork (cudn false) or
// ClusterUserDefinedNetwork (cudn true; its spec.network) holds its
// network spec in the reference CRD's form.
func IsCRDForm(data []byte, cudn bool) bool {
	var obj struct {
		Spec map[string]json.RawMessage `json:"spec"`
	}
	if json.Unmarshal(data, &obj) != nil {
		return false
	}
	spec := obj.Spec
	if cudn {
		spec = nil
		if raw, ok := obj.Spec["network"]; !ok || json.Unmarshal(raw, &spec) != nil {
			return false
		}
	}
	_, l2 := spec["layer2"]
	_, l3 := spec["layer3"]
	_, ln := spec["localnet"]
	_, role := spec["role"]
	return !role && (l2 || l3 || ln)
}

// CRDFieldPath rewrites path, a validation error's field in the flat form
// (ValidateUDN's "spec.subnets[0]", ValidateCUDN's
// "spec.template.spec.role"), to the field of a spec of topology t written
// in the reference CRD's form ("spec.layer3.subnets[0].cidr",
// "spec.network.layer3.role"); other paths are returned as they are.
func CRDFieldPath(path string, t Topology, cudn bool) string {
	flat, crd := "spec", "spec"
	if cudn {
		flat, crd = "spec.template.spec", "spec.network"
	}
	rest, ok := strings.CutPrefix(path, flat+".")
	if !ok || strings.HasPrefix(rest, "topology") {
		return path
	}
	field, tail, _ := strings.Cut(rest, ".")
	sub := ""
	switch t {
	case TopologyLayer2:
		sub = "layer2"
	case TopologyLayer3:
		sub = "layer3"
	case TopologyLocalnet:
		sub = "localnet"
	default:
		return path
	}
	name := field
	if i := strings.IndexByte(field, '['); i >= 0 {
		name = field[:i]
	}
	switch {
	case name == "localnet" && t == TopologyLocalnet:
		if strings.HasPrefix(tail, "vlanID") {
			return crd + ".localnet.vlan.access.id"
		}
		return crd + "." + rest
	case name == "subnets" && t == TopologyLayer3 && name != field && tail == "":
		return crd + ".layer3." + field + ".cidr"
	case slices.Contains([]string{"role", "mtu", "subnets", "excludeSubnets", "joinSubnets", "ipam", "ipamLifecycle"}, name):
		return crd + "." + sub + "." + rest
	}
	return path
}
