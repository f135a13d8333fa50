package podnetwork

// DefaultPodNetwork returns the cluster default PodNetwork as the KEP's
// controller creates it: named "default", enabled, no parameters.
func DefaultPodNetwork() *PodNetwork {
	pn := &PodNetwork{}
	pn.Kind, pn.APIVersion, pn.Name = KindPodNetwork, APIVersion, DefaultPodNetworkName
	SetPodNetworkDefaults(pn)
	return pn
}

// SetPodNetworkDefaults sets spec.enabled to true when it is unset.
func SetPodNetworkDefaults(pn *PodNetwork) {
	if pn.Spec.Enabled == nil {
		t := true
		pn.Spec.Enabled = &t
	}
}

// SetPodDefaults attaches a pod that lists no networks and is not on the
// host network to the default PodNetwork: networks [{podNetworkName:
// default}]. A pod that lists networks is left as it is.
func SetPodDefaults(p *PodNetworks) {
	if len(p.Networks) == 0 && !p.HostNetwork {
		p.Networks = []Network{{PodNetworkName: DefaultPodNetworkName}}
	}
}
