package netconf

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestCRDFormUDN: a UDN in the reference CRD's form (spec.layer2,
// spec.layer3, spec.localnet) and the same UDN in the seeds' flat form
// decode to the same spec, network and NAD.
func TestCRDFormUDN(t *testing.T) {
	const head = "apiVersion: k8s.ovn.org/v1\nkind: UserDefinedNetwork\nmetadata: {name: net, namespace: ns, uid: u1}\n"
	for _, tc := range []struct{ name, flat, crd string }{
		{"layer3 dual-stack",
			"spec: {topology: Layer3, role: Primary, mtu: 1300, subnets: [10.128.0.0/16/24, 2001:db8::/60/64], joinSubnets: [100.66.0.0/16, fd97::/64]}",
			"spec:\n  topology: Layer3\n  layer3:\n    role: Primary\n    mtu: 1300\n    subnets:\n    - {cidr: 10.128.0.0/16, hostSubnet: 24}\n    - {cidr: 2001:db8::/60, hostSubnet: 64}\n    joinSubnets: [100.66.0.0/16, fd97::/64]\n"},
		{"layer3 default host subnet",
			"spec: {topology: Layer3, role: Secondary, subnets: [10.200.0.0/16]}",
			"spec: {topology: Layer3, layer3: {role: Secondary, subnets: [{cidr: 10.200.0.0/16}]}}"},
		{"layer2 persistent",
			"spec: {topology: Layer2, role: Primary, subnets: [10.100.0.0/16], ipam: {lifecycle: Persistent}}",
			"spec: {topology: Layer2, layer2: {role: Primary, subnets: [10.100.0.0/16], ipam: {lifecycle: Persistent}}}"},
		{"layer2 legacy lifecycle",
			"spec: {topology: Layer2, role: Secondary, subnets: [10.100.0.0/16], ipamLifecycle: Persistent}",
			"spec: {topology: Layer2, layer2: {role: Secondary, subnets: [10.100.0.0/16], ipamLifecycle: Persistent}}"},
		{"layer2 ipam disabled",
			"spec: {topology: Layer2, role: Secondary, ipam: {mode: Disabled}}",
			"spec: {topology: Layer2, layer2: {role: Secondary, ipam: {mode: Disabled}}}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flat, err := DecodeUDN([]byte(head + tc.flat))
			if err != nil {
				t.Fatalf("flat: %v", err)
			}
			crd, err := DecodeUDN([]byte(head + tc.crd))
			if err != nil {
				t.Fatalf("CRD form: %v", err)
			}
			if !reflect.DeepEqual(flat.Spec, crd.Spec) {
				t.Fatalf("specs differ:\nflat %+v\nCRD  %+v", flat.Spec, crd.Spec)
			}
			rf, err := RenderUDN(flat)
			if err != nil {
				t.Fatal(err)
			}
			rc, err := RenderUDN(crd)
			if err != nil {
				t.Fatal(err)
			}
			if !rf.Network.Equal(rc.Network) || !reflect.DeepEqual(rf.NADs, rc.NADs) {
				t.Errorf("networks or NADs differ:\n%+v\n%+v\n%s\n%s", rf.Network, rc.Network, rf.NADs[0].Spec.Config, rc.NADs[0].Spec.Config)
			}
		})
	}
}

// TestCRDFormCUDN: a CUDN's spec.network in the reference's form and its
// spec.template in the seeds' give the same template, network and NADs.
func TestCRDFormCUDN(t *testing.T) {
	const head = "apiVersion: k8s.ovn.org/v1\nkind: ClusterUserDefinedNetwork\nmetadata: {name: db, uid: u2}\n"
	const sel = "  namespaceSelector: {matchLabels: {tier: db}}\n"
	for _, tc := range []struct{ name, flat, crd string }{
		{"layer3",
			"spec:\n" + sel + "  template: {topology: Layer3, role: Primary, subnets: [10.20.0.0/16/24]}\n",
			"spec:\n" + sel + "  network: {topology: Layer3, layer3: {role: Primary, subnets: [{cidr: 10.20.0.0/16, hostSubnet: 24}]}}\n"},
		{"layer2 in template.spec",
			"spec:\n" + sel + "  template: {spec: {topology: Layer2, role: Primary, subnets: [10.30.0.0/16], mtu: 1200}}\n",
			"spec:\n" + sel + "  network: {topology: Layer2, layer2: {role: Primary, subnets: [10.30.0.0/16], mtu: 1200}}\n"},
		{"flat spec.network",
			"spec:\n" + sel + "  template: {topology: Layer2, role: Secondary, subnets: [10.31.0.0/16]}\n",
			"spec:\n" + sel + "  network: {topology: Layer2, role: Secondary, subnets: [10.31.0.0/16]}\n"},
		{"localnet vlan",
			"spec:\n" + sel + "  template: {topology: Localnet, role: Secondary, mtu: 1500, subnets: [192.168.100.0/24], excludeSubnets: [192.168.100.0/29], ipam: {lifecycle: Persistent}, localnet: {physicalNetworkName: physnet-db, vlanID: 100}}\n",
			"spec:\n" + sel + "  network:\n    topology: Localnet\n    localnet:\n      role: Secondary\n      physicalNetworkName: physnet-db\n      mtu: 1500\n      subnets: [192.168.100.0/24]\n      excludeSubnets: [192.168.100.0/29]\n      ipam: {lifecycle: Persistent}\n      vlan: {mode: Access, access: {id: 100}}\n"},
		{"localnet untagged",
			"spec:\n" + sel + "  template: {topology: Localnet, role: Secondary, ipam: {mode: Disabled}, localnet: {physicalNetworkName: tenant}}\n",
			"spec:\n" + sel + "  network: {topology: Localnet, localnet: {role: Secondary, physicalNetworkName: tenant, ipam: {mode: Disabled}, vlan: {mode: None}}}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flat, err := DecodeCUDN([]byte(head + tc.flat))
			if err != nil {
				t.Fatalf("flat: %v", err)
			}
			crd, err := DecodeCUDN([]byte(head + tc.crd))
			if err != nil {
				t.Fatalf("CRD form: %v", err)
			}
			if !reflect.DeepEqual(flat.Spec, crd.Spec) {
				t.Fatalf("specs differ:\nflat %+v\nCRD  %+v", flat.Spec.Template, crd.Spec.Template)
			}
			nss := []string{"a", "b"}
			rf, err := RenderCUDN(flat, 5, nss)
			if err != nil {
				t.Fatal(err)
			}
			rc, err := RenderCUDN(crd, 5, nss)
			if err != nil {
				t.Fatal(err)
			}
			if !rf.Network.Equal(rc.Network) || !reflect.DeepEqual(rf.NADs, rc.NADs) || len(rc.NADs) != 2 {
				t.Errorf("networks or NADs differ:\n%+v\n%+v", rf.Network, rc.Network)
			}
		})
	}
}

// TestCRDFormErrors: what the reference's CRD refuses, and mixing the
// forms, is an error naming the field.
func TestCRDFormErrors(t *testing.T) {
	const udn = "kind: UserDefinedNetwork\nmetadata: {name: net, namespace: ns}\n"
	const cudn = "kind: ClusterUserDefinedNetwork\nmetadata: {name: db}\nspec:\n  namespaceSelector: {}\n"
	for _, tc := range []struct{ name, doc, want string }{
		{"layer3 with topology Layer2", udn + "spec: {topology: Layer2, layer3: {role: Primary, subnets: [{cidr: 10.0.0.0/16}]}}",
			`spec.layer3: set with topology "Layer2": it is required when topology is Layer3`},
		{"both sub-objects", udn + "spec: {topology: Layer2, layer2: {role: Primary}, layer3: {role: Primary}}",
			"spec: only one of layer2, layer3 and localnet may be set, not layer2 and layer3"},
		{"flat field beside", udn + "spec: {topology: Layer2, subnets: [10.0.0.0/16], layer2: {role: Primary}}",
			"spec.subnets: a field of the flat form beside spec.layer2"},
		{"unknown field in layer2", udn + "spec: {topology: Layer2, layer2: {role: Primary, reservedSubnets: [10.0.0.0/29]}}",
			`spec.layer2: json: unknown field "reservedSubnets"`},
		{"hostSubnet not a number", udn + "spec: {topology: Layer3, layer3: {role: Primary, subnets: [{cidr: 10.0.0.0/16, hostSubnet: x}]}}",
			"spec.layer3: json: cannot unmarshal string"},
		{"network and template", cudn + "  template: {topology: Layer2, role: Primary}\n  network: {topology: Layer2, layer2: {role: Primary}}\n",
			"spec: use either spec.template or spec.network, not both"},
		{"network sub-object mismatch", cudn + "  network: {topology: Layer3, layer2: {role: Primary}}\n",
			`spec.network.layer2: set with topology "Layer3"`},
		{"network flat unknown", cudn + "  network: {topology: Layer3, role: Primary, hostSubnet: 24}\n",
			`spec.network: json: unknown field "hostSubnet"`},
		{"vlan access without id", cudn + "  network: {topology: Localnet, localnet: {role: Secondary, physicalNetworkName: p, vlan: {mode: Access}}}\n",
			"spec.network.localnet.vlan.access: required when mode is Access"},
		{"vlan bad mode", cudn + "  network: {topology: Localnet, localnet: {role: Secondary, physicalNetworkName: p, vlan: {mode: Trunk}}}\n",
			`spec.network.localnet.vlan.mode: "Trunk" is neither Access nor None`},
		{"cudn unknown field", cudn + "  networks: {}\n", `unknown field "networks"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if strings.HasPrefix(tc.doc, "kind: UserDefinedNetwork") {
				_, err = DecodeUDN([]byte(tc.doc))
			} else {
				_, err = DecodeCUDN([]byte(tc.doc))
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// crdForm writes a flat spec in the reference CRD's form: the topology's
// settings in its sub-object, a Layer3 subnet's host length as hostSubnet.
// ok is false for what that form cannot say (a flat field the topology's
// sub-object lacks, an unknown topology, a Layer3 subnet that is not
// "CIDR[/N]").
func crdForm(s UserDefinedNetworkSpec) (map[string]any, bool) {
	out := map[string]any{"topology": s.Topology}
	sub := map[string]any{"role": s.Role}
	if s.MTU != 0 {
		sub["mtu"] = s.MTU
	}
	if s.IPAM != nil {
		sub["ipam"] = s.IPAM
	}
	switch s.Topology {
	case TopologyLayer2:
		if len(s.ExcludeSubnets) > 0 || s.Localnet != nil {
			return nil, false
		}
		if s.Subnets != nil {
			sub["subnets"] = s.Subnets
		}
		if s.JoinSubnets != nil {
			sub["joinSubnets"] = s.JoinSubnets
		}
		if s.IPAMLifecycle != "" {
			sub["ipamLifecycle"] = s.IPAMLifecycle
		}
		out["layer2"] = sub
	case TopologyLayer3:
		if len(s.ExcludeSubnets) > 0 || s.Localnet != nil || s.IPAM != nil || s.IPAMLifecycle != "" {
			return nil, false
		}
		var subs []map[string]any
		for _, c := range s.Subnets {
			l := map[string]any{"cidr": c}
			if i := strings.LastIndex(c, "/"); strings.Count(c, "/") == 2 {
				n, err := strconv.Atoi(c[i+1:])
				if err != nil || strconv.Itoa(n) != c[i+1:] || n == 0 {
					return nil, false
				}
				l["cidr"], l["hostSubnet"] = c[:i], n
			}
			subs = append(subs, l)
		}
		if s.Subnets != nil {
			sub["subnets"] = subs
		}
		if s.JoinSubnets != nil {
			sub["joinSubnets"] = s.JoinSubnets
		}
		out["layer3"] = sub
	case TopologyLocalnet:
		if s.JoinSubnets != nil || s.IPAMLifecycle != "" || s.Localnet == nil || s.Localnet.VLANID < 0 {
			return nil, false
		}
		if s.Subnets != nil {
			sub["subnets"] = s.Subnets
		}
		if s.ExcludeSubnets != nil {
			sub["excludeSubnets"] = s.ExcludeSubnets
		}
		sub["physicalNetworkName"] = s.Localnet.PhysicalNetworkName
		if s.Localnet.VLANID != 0 {
			sub["vlan"] = map[string]any{"mode": "Access", "access": map[string]any{"id": s.Localnet.VLANID}}
		}
		out["localnet"] = sub
	default:
		return nil, false
	}
	return out, true
}

// checkCRDForm decodes spec written in the reference's form, as a UDN's
// spec and a CUDN's spec.network, and wants it to decode to spec itself.
func checkCRDForm(t *testing.T, spec UserDefinedNetworkSpec) {
	t.Helper()
	form, ok := crdForm(spec)
	if !ok {
		return
	}
	udn, _ := json.Marshal(map[string]any{"kind": KindUDN, "metadata": map[string]any{"name": "n", "namespace": "ns"}, "spec": form})
	// A value YAML cannot carry (a DEL, which JSON writes raw) fails the
	// decoder in either form.
	flat, _ := json.Marshal(map[string]any{"kind": KindUDN, "metadata": map[string]any{"name": "n", "namespace": "ns"}, "spec": spec})
	if _, err := DecodeUDN(flat); err != nil {
		if _, err := DecodeUDN(udn); err == nil {
			t.Fatalf("the CRD form decodes, the flat form does not:\n%s\n%s", udn, flat)
		}
		return
	}
	u, err := DecodeUDN(udn)
	if err != nil {
		t.Fatalf("CRD form of %+v does not decode: %v\n%s", spec, err, udn)
	}
	// Compared as JSON: encoding replaces invalid UTF-8 and drops empty
	// lists alike in both.
	want, _ := json.Marshal(spec)
	var norm flatSpec
	_ = json.Unmarshal(want, &norm)
	want, _ = json.Marshal(UserDefinedNetworkSpec(norm))
	if got, _ := json.Marshal(u.Spec); string(got) != string(want) {
		t.Fatalf("CRD form decodes to %s, want %s\n%s", got, want, udn)
	}
	cudn, _ := json.Marshal(map[string]any{"kind": KindCUDN, "metadata": map[string]any{"name": "n"},
		"spec": map[string]any{"namespaceSelector": metav1.LabelSelector{}, "network": form}})
	c, err := DecodeCUDN(cudn)
	if err != nil || c.Spec.Template == nil {
		t.Fatalf("CUDN spec.network in CRD form: %v\n%s", err, cudn)
	}
	if got, _ := json.Marshal(c.Spec.Template.Spec); string(got) != string(want) {
		t.Fatalf("CUDN spec.network in CRD form: %v\n%s", err, cudn)
	}
}

// FuzzDecodeUDN decodes UDN documents in either form: what decodes
// encodes (flat) and decodes again to the same spec, and its CRD form
// does too.
func FuzzDecodeUDN(f *testing.F) {
	for _, s := range []string{
		`{"kind":"UserDefinedNetwork","metadata":{"name":"n","namespace":"ns"},"spec":{"topology":"Layer3","layer3":{"role":"Primary","subnets":[{"cidr":"10.0.0.0/16","hostSubnet":24}]}}}`,
		`{"kind":"UserDefinedNetwork","metadata":{"name":"n","namespace":"ns"},"spec":{"topology":"Layer2","layer2":{"role":"Secondary","subnets":["10.0.0.0/16"],"ipam":{"lifecycle":"Persistent"}}}}`,
		`{"kind":"UserDefinedNetwork","metadata":{"name":"n","namespace":"ns"},"spec":{"topology":"Layer2","role":"Primary","subnets":["10.0.0.0/16"]}}`,
		`{"kind":"UserDefinedNetwork","spec":{"topology":"Localnet","localnet":{"role":"Secondary","physicalNetworkName":"p","vlan":{"mode":"Access","access":{"id":3}}}}}`,
		`{"kind":"UserDefinedNetwork","spec":{"topology":"Localnet","role":"Secondary","localnet":{"physicalNetworkName":"p","vlanID":3}}}`,
		`{"spec":{"layer2":{},"layer3":{}}}`, `{"spec":null}`, `{"spec":{"localnet":{"role":1}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		crd := IsCRDForm(data, false)
		for _, p := range []string{string(data), "spec." + string(data)} {
			if got := CRDFieldPath(p, TopologyLayer3, false); got != p && !strings.HasPrefix(got, "spec.layer3.") {
				t.Fatalf("CRDFieldPath(%q) = %q: outside spec.layer3", p, got)
			}
		}
		u, err := DecodeUDN(data)
		if err != nil {
			return
		}
		if crd && u.Spec.Topology == "" {
			t.Fatalf("a spec in the CRD form decoded without its topology")
		}
		b, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		again, err := DecodeUDN(b)
		if err != nil {
			t.Fatalf("flat encoding of a decoded UDN does not decode: %v\n%s", err, b)
		}
		if !reflect.DeepEqual(again.Spec, u.Spec) {
			t.Fatalf("decode(encode) differs:\n%+v\n%+v", u.Spec, again.Spec)
		}
		checkCRDForm(t, u.Spec)
	})
}

// FuzzDecodeCUDN: like FuzzDecodeUDN for CUDNs (spec.template or
// spec.network).
func FuzzDecodeCUDN(f *testing.F) {
	for _, s := range []string{
		`{"kind":"ClusterUserDefinedNetwork","metadata":{"name":"n"},"spec":{"namespaceSelector":{},"network":{"topology":"Layer3","layer3":{"role":"Primary","subnets":[{"cidr":"10.0.0.0/16","hostSubnet":24}]}}}}`,
		`{"kind":"ClusterUserDefinedNetwork","metadata":{"name":"n"},"spec":{"namespaceSelector":{},"template":{"topology":"Layer2","role":"Primary","subnets":["10.0.0.0/16"]}}}`,
		`{"kind":"ClusterUserDefinedNetwork","spec":{"namespaceSelector":{},"network":{"topology":"Localnet","localnet":{"role":"Secondary","physicalNetworkName":"p","vlan":{"mode":"None"}}}}}`,
		`{"spec":{"network":null,"template":null}}`, `{"spec":{"network":{"topology":"Layer2","layer2":{"role":"Primary"}},"template":{}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := DecodeCUDN(data)
		if err != nil {
			return
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		again, err := DecodeCUDN(b)
		if err != nil {
			t.Fatalf("encoding of a decoded CUDN does not decode: %v\n%s", err, b)
		}
		if !reflect.DeepEqual(again.Spec, c.Spec) {
			t.Fatalf("decode(encode) differs:\n%+v\n%+v", c.Spec, again.Spec)
		}
		if c.Spec.Template != nil {
			checkCRDForm(t, c.Spec.Template.Spec)
		}
	})
}

// BenchmarkDecodeUDN decodes one Layer3 dual-stack UDN in each form: the
// CRD form's normalisation costs a second pass over the spec's keys.
func BenchmarkDecodeUDN(b *testing.B) {
	const head = "apiVersion: k8s.ovn.org/v1\nkind: UserDefinedNetwork\nmetadata: {name: net, namespace: ns}\n"
	for _, bc := range []struct{ name, doc string }{
		{"flat", head + "spec: {topology: Layer3, role: Primary, mtu: 1300, subnets: [10.128.0.0/16/24, 2001:db8::/60/64]}"},
		{"crd", head + "spec: {topology: Layer3, layer3: {role: Primary, mtu: 1300, subnets: [{cidr: 10.128.0.0/16, hostSubnet: 24}, {cidr: 2001:db8::/60, hostSubnet: 64}]}}"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			data := []byte(bc.doc)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DecodeUDN(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestCRDFieldPath: validation paths of the flat form name the CRD form's
// fields for a spec written in it.
func TestCRDFieldPath(t *testing.T) {
	for _, tc := range []struct {
		path string
		topo Topology
		cudn bool
		want string
	}{
		{"spec.subnets[0]", TopologyLayer3, false, "spec.layer3.subnets[0].cidr"},
		{"spec.subnets", TopologyLayer3, false, "spec.layer3.subnets"},
		{"spec.subnets[1]", TopologyLayer2, false, "spec.layer2.subnets[1]"},
		{"spec.role", TopologyLayer2, false, "spec.layer2.role"},
		{"spec.ipam.lifecycle", TopologyLayer2, false, "spec.layer2.ipam.lifecycle"},
		{"spec.topology", TopologyLayer2, false, "spec.topology"},
		{"metadata.name", TopologyLayer2, false, "metadata.name"},
		{"spec.template.spec.joinSubnets[0]", TopologyLayer3, true, "spec.network.layer3.joinSubnets[0]"},
		{"spec.template.spec.localnet.vlanID", TopologyLocalnet, true, "spec.network.localnet.vlan.access.id"},
		{"spec.template.spec.localnet.physicalNetworkName", TopologyLocalnet, true, "spec.network.localnet.physicalNetworkName"},
		{"spec.template.spec.excludeSubnets[0]", TopologyLocalnet, true, "spec.network.localnet.excludeSubnets[0]"},
		{"spec.namespaceSelector", TopologyLayer3, true, "spec.namespaceSelector"},
		{"spec.vrf", TopologyLayer3, true, "spec.vrf"},
		{"spec.subnets[0]", "", false, "spec.subnets[0]"},
	} {
		if got := CRDFieldPath(tc.path, tc.topo, tc.cudn); got != tc.want {
			t.Errorf("CRDFieldPath(%q, %s, %v) = %q, want %q", tc.path, tc.topo, tc.cudn, got, tc.want)
		}
	}
	for _, tc := range []struct {
		doc  string
		cudn bool
		want bool
	}{
		{`{"spec":{"topology":"Layer3","layer3":{"role":"Primary"}}}`, false, true},
		{`{"spec":{"topology":"Localnet","role":"Secondary","localnet":{"physicalNetworkName":"p"}}}`, false, false},
		{`{"spec":{"network":{"topology":"Layer2","layer2":{"role":"Primary"}}}}`, true, true},
		{`{"spec":{"template":{"topology":"Layer2","role":"Primary"}}}`, true, false},
		{`not json`, false, false},
	} {
		if got := IsCRDForm([]byte(tc.doc), tc.cudn); got != tc.want {
			t.Errorf("IsCRDForm(%s, %v) = %v", tc.doc, tc.cudn, got)
		}
	}
}
