package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newValidate(s streams) *cobra.Command {
	var in inputs
	c := &cobra.Command{
		Use:   "validate -f FILE|DIR|-",
		Short: "Validate UserDefinedNetworks, ClusterUserDefinedNetworks, ClusterNetworkConnects, PodNetworks, NADs, NetworkPolicies, EgressIPs, EgressQoSes and node annotations",
		Long: `validate checks every object the SDK has a validator for, as the API server and the
controllers would: UserDefinedNetwork, ClusterUserDefinedNetwork, ClusterNetworkConnect,
PodNetwork, PodNetworkAttachment, NetworkPolicy, EgressIP (and its k8s.ovn.org/egressip-mark,
which no two may share), EgressQoS, the NetConf of OVN-Kubernetes NetworkAttachmentDefinitions
and the reference's annotations on Nodes. Errors name the object and the field, the way kubectl
apply prints API errors; the exit code is 1 when any object is invalid or unreadable.`,
		Example: `  udnkit validate -f examples/manifests/invalid.yaml
  udnkit validate -f examples/manifests/egress.yaml
  kubectl get userdefinednetworks -A -o yaml | udnkit validate -f -`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			set, err := in.read(s)
			if err != nil {
				return err
			}
			if err := printInvalid(s, set); err != nil {
				return err
			}
			n := len(set.UDNs) + len(set.CUDNs) + len(set.Connects) + len(set.PodNetworks) + len(set.PodNetworkAttachments) + len(set.NADs) + len(set.Nodes) + len(set.NetworkPolicies) +
				len(set.EgressIPs) + len(set.EgressQoSes)
			fmt.Fprintf(s.out, "%d object(s) valid\n", n)
			return nil
		},
	}
	in.register(c)
	c.Flags().MarkHidden("service-cidr")
	c.Flags().MarkHidden("service-ip")
	c.Flags().MarkHidden("profile")
	return c
}
