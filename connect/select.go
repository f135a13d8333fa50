package connect

import (
	"cmp"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/udnkit/udnkit/internal/kubename"
	ucnames "github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
)

// Network is a user-defined network as a ClusterNetworkConnect sees it.
type Network struct {
	// Network is the normalised network, its ID allocated.
	Network *udn.Network
	// CUDN is the name of the ClusterUserDefinedNetwork that defines it;
	// empty for a UserDefinedNetwork.
	CUDN string
	// UDN is "<namespace>/<name>" of the UserDefinedNetwork that defines
	// it; empty for a CUDN.
	UDN string
	// Labels are the CUDN's labels, which it propagates to its NADs: what a
	// ClusterUserDefinedNetworks selector matches. A CUDN is matched as if
	// it carried kubernetes.io/metadata.name=<its name> (the seed's sample
	// selects CUDNs that way).
	Labels map[string]string
	// Namespaces are the namespaces the network serves, sorted: a UDN's
	// own, the namespaces a CUDN selects.
	Namespaces []string
}

// DisplayName is the name the user knows the network by: the CUDN's name,
// or "<namespace>/<name>" of the UDN.
func (n *Network) DisplayName() string {
	if n.CUDN != "" {
		return n.CUDN
	}
	if n.UDN != "" {
		return n.UDN
	}
	return n.Network.Name
}

const metadataNameLabel = "kubernetes.io/metadata.name"

// Select returns the networks c selects among networks, sorted by network
// name, each once: the CUDNs a ClusterUserDefinedNetworks selector matches
// by label, and the primary network of every namespace a
// PrimaryUserDefinedNetworks selector matches. Secondary and Localnet
// networks are returned too (Accept refuses them with
// UnsupportedNetworkType); a namespace without a primary network adds
// nothing. Errors name the selector that does not parse.
func Select(c *ClusterNetworkConnect, networks []Network, namespaces []netconf.Namespace) ([]Network, error) {
	picked := map[string]Network{}
	for i, s := range c.Spec.NetworkSelectors {
		path := fmt.Sprintf("%s %q: spec.networkSelectors[%d]", Kind, c.Name, i)
		switch {
		case s.NetworkSelectionType == ClusterUserDefinedNetworks && s.ClusterUserDefinedNetworkSelector != nil:
			sel, err := selector(&s.ClusterUserDefinedNetworkSelector.NetworkSelector)
			if err != nil {
				return nil, ucnames.Errorf("%s.clusterUserDefinedNetworkSelector.networkSelector: %w", path, err)
			}
			for _, n := range networks {
				if n.CUDN != "" && sel.Matches(withName(n.Labels, n.CUDN)) {
					picked[n.Network.Name] = n
				}
			}
		case s.NetworkSelectionType == PrimaryUserDefinedNetworks && s.PrimaryUserDefinedNetworkSelector != nil:
			sel, err := selector(&s.PrimaryUserDefinedNetworkSelector.NamespaceSelector)
			if err != nil {
				return nil, ucnames.Errorf("%s.primaryUserDefinedNetworkSelector.namespaceSelector: %w", path, err)
			}
			for _, ns := range namespaces {
				if !sel.Matches(withName(ns.Labels, ns.Name)) {
					continue
				}
				for _, n := range networks {
					if n.Network.IsPrimary() && slices.Contains(n.Namespaces, ns.Name) {
						picked[n.Network.Name] = n
					}
				}
			}
		}
	}
	out := make([]Network, 0, len(picked))
	for _, n := range picked {
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b Network) int { return cmp.Compare(a.Network.Name, b.Network.Name) })
	return out, nil
}

func selector(s *metav1.LabelSelector) (labels.Selector, error) {
	sel, err := kubename.SelectorAsSelector(s)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return sel, nil
}

// withName returns the labels with kubernetes.io/metadata.name=name added
// when absent.
func withName(l map[string]string, name string) labels.Set {
	set := make(labels.Set, len(l)+1)
	for k, v := range l {
		set[k] = v
	}
	if _, ok := set[metadataNameLabel]; !ok {
		set[metadataNameLabel] = name
	}
	return set
}
