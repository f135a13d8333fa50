package netconf

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/udnkit/udnkit/internal/kubename"
	"github.com/udnkit/udnkit/internal/names"
)

// Metadata every rendered NAD carries.
const (
	// LabelUserDefinedNetwork marks a NAD as rendered from a UDN/CUDN (value "").
	LabelUserDefinedNetwork = "k8s.ovn.org/user-defined-network"
	// FinalizerProtection guards UDNs, CUDNs and their NADs against
	// deletion while pods use the network.
	FinalizerProtection = "k8s.ovn.org/user-defined-network-protection"
	// NADAPIVersion and NADKind are the NAD's TypeMeta.
	NADAPIVersion = "k8s.cni.cncf.io/v1"
	NADKind       = "NetworkAttachmentDefinition"
)

// UDNNetworkName returns the OVN network name of the UDN namespace/name:
// "<namespace>_<name>".
func UDNNetworkName(namespace, name string) string { return namespace + "_" + name }

// CUDNNetworkName returns the OVN network name of the CUDN name:
// "cluster_udn_<name>".
func CUDNNetworkName(name string) string { return "cluster_udn_" + name }

// CUDNVRFName returns the VRF device name of a primary CUDN: spec.vrf when
// set, else the CUDN name when it has at most 15 characters, else
// "udn-<networkID>-vrf". The last form needs networkID > 0; without it the
// error wraps ErrNetworkIDRequired. Secondary networks have no VRF ("").
func CUDNVRFName(c *ClusterUserDefinedNetwork, networkID int) (string, error) {
	if c == nil || c.Spec.Template == nil || c.Spec.Template.Spec.Role != RolePrimary {
		return "", nil
	}
	switch {
	case c.Spec.VRF != "":
		return c.Spec.VRF, nil
	case len(c.Name) <= MaxVRFNameLen:
		return c.Name, nil
	case networkID <= 0:
		return "", names.Errorf("%w: ClusterUserDefinedNetwork %q: its name is longer than %d characters, so the VRF name is generated from the network ID",
			ErrNetworkIDRequired, c.Name, MaxVRFNameLen)
	}
	return "udn-" + strconv.Itoa(networkID) + "-vrf", nil
}

// NetworkFromUDN validates u and returns its normalised network (ID 0,
// NADs the one "<namespace>/<name>"). Errors wrap ErrInvalidSpec.
func NetworkFromUDN(u *UserDefinedNetwork) (*Network, error) {
	if u == nil {
		return nil, names.Errorf("%w: %s is nil", ErrInvalidSpec, KindUDN)
	}
	n, errs := udnNetwork(u)
	if len(errs) > 0 {
		return nil, names.Errorf("%w: %s %q: %w", ErrInvalidSpec, KindUDN, u.Namespace+"/"+u.Name, boundedErrors(errs))
	}
	return n, nil
}

// NetworkFromCUDN validates c and returns its normalised network with the
// given ID (0..ipam.MaxNetworkID, 4095; 0 = not yet allocated) and the VRF name of a primary
// network (see CUDNVRFName). NADs is empty: it depends on the namespaces
// selected (see RenderCUDN). Errors wrap ErrInvalidSpec or ErrNetworkIDRequired.
func NetworkFromCUDN(c *ClusterUserDefinedNetwork, networkID int) (*Network, error) {
	if c == nil {
		return nil, names.Errorf("%w: %s is nil", ErrInvalidSpec, KindCUDN)
	}
	n, errs := cudnNetwork(c)
	if len(errs) > 0 {
		return nil, names.Errorf("%w: %s %q: %w", ErrInvalidSpec, KindCUDN, c.Name, boundedErrors(errs))
	}
	return withNetworkID(c, n, networkID)
}

// withNetworkID sets the ID and VRF of n, c's valid network.
func withNetworkID(c *ClusterUserDefinedNetwork, n *Network, networkID int) (*Network, error) {
	if networkID < 0 || networkID > MaxNetworkID {
		return nil, names.Errorf("%w: %s %q: network ID %d out of range 0..%d", ErrInvalidSpec, KindCUDN, c.Name, networkID, MaxNetworkID)
	}
	vrf, err := CUDNVRFName(c, networkID)
	if err != nil {
		return nil, err
	}
	if c.Spec.VRF == "" && vrf != "" {
		if errs := validateVRFName(vrf, nil); len(errs) > 0 {
			return nil, names.Errorf("%w: %s %q: derived VRF name %q: %w", ErrInvalidSpec, KindCUDN, c.Name, vrf, boundedErrors(errs))
		}
	}
	n.VRF = vrf
	n.ID = networkID
	return n, nil
}

// Rendered is the result of rendering a UDN or CUDN: its network and the
// NADs that carry it, sorted by namespace.
type Rendered struct {
	Network *Network
	NADs    []*nadv1.NetworkAttachmentDefinition
}

// RenderUDN validates u and renders its NAD: same name and namespace as u,
// labelled, protected by the finalizer, controlled by u.
func RenderUDN(u *UserDefinedNetwork) (*Rendered, error) {
	n, err := NetworkFromUDN(u)
	if err != nil {
		return nil, err
	}
	return renderUDN(u, n)
}

// renderUDN renders the NAD of n, u's valid network.
func renderUDN(u *UserDefinedNetwork, n *Network) (*Rendered, error) {
	nad, err := renderNAD(n, u.Namespace, u.Name, ownerRef(KindUDN, &u.ObjectMeta))
	if err != nil {
		return nil, err
	}
	return &Rendered{Network: n, NADs: []*nadv1.NetworkAttachmentDefinition{nad}}, nil
}

// RenderCUDN validates c and renders one NAD, named like c, in each of
// namespaces (sorted and de-duplicated; selection is the caller's, see
// SelectNamespaces). networkID is as for NetworkFromCUDN.
func RenderCUDN(c *ClusterUserDefinedNetwork, networkID int, namespaces []string) (*Rendered, error) {
	n, err := NetworkFromCUDN(c, networkID)
	if err != nil {
		return nil, err
	}
	return renderCUDN(c, n, namespaces)
}

// renderCUDN renders the NADs of n, c's valid network with its ID set.
func renderCUDN(c *ClusterUserDefinedNetwork, n *Network, namespaces []string) (*Rendered, error) {
	nss, err := cudnNamespaces(c, n, namespaces)
	if err != nil {
		return nil, err
	}
	r := &Rendered{Network: n}
	owner := ownerRef(KindCUDN, &c.ObjectMeta)
	for _, ns := range nss {
		nad, err := renderNAD(n, ns, c.Name, owner)
		if err != nil {
			return nil, err
		}
		r.NADs = append(r.NADs, nad)
	}
	return r, nil
}

// cudnNamespaces checks the namespaces c renders NADs into and returns
// them sorted and unique, with n.NADs filled.
func cudnNamespaces(c *ClusterUserDefinedNetwork, n *Network, namespaces []string) ([]string, error) {
	nss := slices.Clone(namespaces)
	slices.Sort(nss)
	nss = slices.Compact(nss)
	for _, ns := range nss {
		if msgs := kubename.IsDNS1123Label(ns); len(msgs) > 0 {
			return nil, names.Errorf("%w: %s %q: namespace %q: %s", ErrInvalidSpec, KindCUDN, c.Name, ns, strings.Join(msgs, "; "))
		}
		n.NADs = append(n.NADs, ns+"/"+c.Name)
	}
	return nss, nil
}

// ownerRef returns the controller owner reference a NAD gets.
func ownerRef(kind string, m *metav1.ObjectMeta) metav1.OwnerReference {
	t := true
	return metav1.OwnerReference{
		APIVersion:         GroupVersion,
		Kind:               kind,
		Name:               m.Name,
		UID:                m.UID,
		Controller:         &t,
		BlockOwnerDeletion: &t,
	}
}

func renderNAD(n *Network, namespace, name string, owner metav1.OwnerReference) (*nadv1.NetworkAttachmentDefinition, error) {
	cfg, err := json.Marshal(NetConfOf(n, namespace+"/"+name))
	if err != nil {
		return nil, names.Errorf("%w: marshal NetConf of %s: %w", ErrInvalidNetConf, n, err)
	}
	return newNAD(namespace, name, cfg, map[string]string{LabelUserDefinedNetwork: ""}, nil, owner), nil
}

// newNAD returns a NAD with config cfg that owner controls, protected by
// the finalizer.
func newNAD(namespace, name string, cfg []byte, labels, annotations map[string]string, owner metav1.OwnerReference) *nadv1.NetworkAttachmentDefinition {
	return &nadv1.NetworkAttachmentDefinition{
		TypeMeta: metav1.TypeMeta{APIVersion: NADAPIVersion, Kind: NADKind},
		ObjectMeta: metav1.ObjectMeta{
			Name:            name,
			Namespace:       namespace,
			Labels:          labels,
			Annotations:     annotations,
			Finalizers:      []string{FinalizerProtection},
			OwnerReferences: []metav1.OwnerReference{owner},
		},
		Spec: nadv1.NetworkAttachmentDefinitionSpec{Config: string(cfg)},
	}
}

// NetworkFromNAD parses the NetConf of nad into a network, after checking
// that nad may carry it (CheckNADBinding). The network's NADs is the
// NetConf's netAttachDefName; its ID is 0.
func NetworkFromNAD(nad *nadv1.NetworkAttachmentDefinition) (*Network, error) {
	c, n, err := parseNAD(nad)
	if err != nil {
		return nil, err
	}
	if err := CheckNADBinding(nad, c); err != nil {
		return nil, err
	}
	return n, nil
}

// checkNADKey refuses c unless its netAttachDefName is nad's own
// "<namespace>/<name>", in the reference's words.
func checkNADKey(nad *nadv1.NetworkAttachmentDefinition, c *NetConf) error {
	if key := nad.Namespace + "/" + nad.Name; c.NetAttachDefName != key {
		return names.Errorf("NetworkAttachmentDefinition %s: netAttachDefName: %w: net-attach-def name (%s) is inconsistent with config (%s)",
			key, ErrNADBinding, key, c.NetAttachDefName)
	}
	return nil
}

// CheckNADBinding checks that nad may speak for the network its NetConf c
// names, so that a NAD cannot claim (and a sync then rewrite or delete)
// another tenant's rows: netAttachDefName is the NAD's own
// "<namespace>/<name>"; a UDN's network is "<namespace>_<name>" of the
// NAD's namespace (the reference's rule), and of the UDN that controls the
// NAD when one does; a CUDN's network "cluster_udn_<name>" only in a NAD
// that CUDN controls. Errors wrap ErrNADBinding and name the NAD and key.
func CheckNADBinding(nad *nadv1.NetworkAttachmentDefinition, c *NetConf) error {
	if err := checkNADKey(nad, c); err != nil {
		return err
	}
	key := nad.Namespace + "/" + nad.Name
	var owner *metav1.OwnerReference
	for i, ref := range nad.OwnerReferences {
		if ref.Controller != nil && *ref.Controller {
			owner = &nad.OwnerReferences[i]
		}
	}
	if cudn, ok := strings.CutPrefix(c.Name, "cluster_udn_"); ok {
		if owner == nil || owner.Kind != KindCUDN || owner.Name != cudn {
			return names.Errorf("NetworkAttachmentDefinition %s: name %q: %w: only a NAD controlled by %s %q carries it", key, c.Name, ErrNADBinding, KindCUDN, cudn)
		}
		return nil
	}
	if !strings.HasPrefix(c.Name, nad.Namespace+"_") {
		return names.Errorf("NetworkAttachmentDefinition %s: name %q: %w: a network of namespace %s is named %q", key, c.Name, ErrNADBinding, nad.Namespace, nad.Namespace+"_<name>")
	}
	if owner != nil && owner.Kind == KindUDN && c.Name != UDNNetworkName(nad.Namespace, owner.Name) {
		return names.Errorf("NetworkAttachmentDefinition %s: name %q: %w: the %s %q that controls it has network %q", key, c.Name, ErrNADBinding, KindUDN, owner.Name, UDNNetworkName(nad.Namespace, owner.Name))
	}
	return nil
}

// IsControlledBy reports whether nad has a controller owner reference to
// the object with uid.
func IsControlledBy(nad *nadv1.NetworkAttachmentDefinition, uid string) bool {
	if nad == nil || uid == "" {
		return false
	}
	for _, ref := range nad.OwnerReferences {
		if string(ref.UID) == uid && ref.Controller != nil && *ref.Controller {
			return true
		}
	}
	return false
}
