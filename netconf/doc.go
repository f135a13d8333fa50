// Package netconf turns UserDefinedNetwork and ClusterUserDefinedNetwork
// objects into validated networks, NetworkAttachmentDefinitions and the
// status those objects should show.
//
// Its subpackages: udn holds the normalised network every planner takes
// (standard library only); podnetwork implements KEP-3698's PodNetwork,
// PodNetworkAttachment and pod networks, resolving them to the NADs this
// package renders.
//
// # Flow
//
//	UDN / CUDN ──ValidateUDN/ValidateCUDN──► field.ErrorList
//	     │
//	     ├─NetworkFromUDN/NetworkFromCUDN──► *Network (normalised, netip)
//	     ├─RenderUDN/RenderCUDN────────────► NADs whose spec.config is NetConf JSON
//	     └─ReconcileUDN/ReconcileCUDN──────► NAD actions + finalizer op + status
//
//	NetConf JSON ──ParseNetConf──► *NetConf ──Network()──► *Network ──NetConf(nad)──► *NetConf
//
// # Contract
//
// Every function is pure: no I/O, no clock (condition timestamps are
// supplied by the caller), no package state. Equal inputs give equal
// outputs, byte for byte; slices in results are sorted (NADs and actions by
// namespace and name, conditions by type). Values are not shared between
// input and output: reconcile results hold deep copies. All functions are
// safe for concurrent use.
//
// Validation returns a field.ErrorList whose paths name the field to fix
// (spec.subnets[1], spec.template.spec.joinSubnets[0], ...). Conversions
// return errors wrapping ErrInvalidSpec, ErrInvalidNetConf, ErrInvalidSubnet
// or ErrNetworkIDRequired. Conflicts between objects (a foreign NAD, a
// second primary network, a VRF name taken) are not errors: they are
// decisions, reported in the returned status. Every message that echoes
// input quotes at most 128 bytes of a value and 1 KiB of a detail.
//
// A spec holds at most two subnets, of different families (seed 000 lines
// 494-495 and the reference's CRD); a Layer3 NetConf may carry several of
// a family, as the reference's parser allows. Every subnet (a Layer3
// network's host subnet) must hold a pod: beside the network, gateway and
// management port addresses and the IPv4 broadcast, excludeSubnets must
// leave an address (a Layer2 /30, /31, /32, /127, /128 or a Layer3 host
// /30 holds none); a primary network's join subnet must hold the cluster
// router and a node's gateway router (not /31, /32, /128). A Layer3 host
// subnet holds what the reference's allocation leaves of it (network,
// gateway, management port, IPv4 broadcast): an IPv4 /29 four pods. The
// reference's CRD admits an IPv4 hostSubnet of /30 or /31 (under 32),
// which holds no pod (a /31 not even the management port): udnkit refuses
// both, so a Layer3 /29 or /30 cluster subnet never validates (with the
// default /24 its host subnet would not be longer). Its IPv6 host subnets
// are /64, as the reference's parser requires (its CRD admits any length).
// Any node may be given any host subnet, so excludeSubnets must leave a pod
// in every host subnet they touch, not only the first (udnkit's own rule:
// the reference has no excludeSubnets on Layer3).
//
// # Decoding
//
// DecodeUDN and DecodeCUDN (and encoding/json on the types) take two forms
// of a network spec and normalise both to the same UserDefinedNetworkSpec,
// so that equal networks give equal Networks and equal NADs:
//
//   - the seeds' flat form: spec.topology, spec.role, spec.subnets
//     (Layer3 "cidr/hostPrefix"), spec.localnet {physicalNetworkName,
//     vlanID}, ... and a CUDN's spec.template (or spec.template.spec);
//   - the reference CRD's form, what a real OVN-Kubernetes cluster stores:
//     spec.topology beside spec.layer2, spec.layer3 or spec.localnet
//     holding role, mtu, subnets (Layer3: [{cidr, hostSubnet}]),
//     joinSubnets, ipam (Layer2 also ipamLifecycle; Localnet
//     physicalNetworkName, excludeSubnets and vlan {mode: Access|None,
//     access: {id}}), and a CUDN's spec.network in place of its template.
//
// A spec is of the reference's form when it has no top-level role and one
// of those sub-objects. Decoding is strict in both: an unknown field, a
// flat field beside a sub-object, two sub-objects, a sub-object that is not
// the topology's, spec.network beside spec.template are errors naming the
// field. Fields of the reference's newer Layer2 (reservedSubnets,
// infrastructureSubnets, defaultGatewayIPs) are refused as unknown: the
// seeds have nothing to plan them with. Encoding always writes the flat
// form, and ValidateUDN and ValidateCUDN name the flat fields
// (spec.subnets[0]); for an object written in the CRD's form, IsCRDForm
// says so and CRDFieldPath gives the field its author wrote
// (spec.layer3.subnets[0].cidr), as the reference's API server would name
// it (internal/manifest does this for udnkit validate). The value in such
// an error is the flat one ("10.0.0.0/16/24" for cidr and hostSubnet).
//
// # Names
//
// The OVN network name is "<namespace>_<name>" for a UDN and
// "cluster_udn_<name>" for a CUDN. A NAD has the name of its UDN/CUDN, in
// the target namespace; its netAttachDefName is "<namespace>/<name>".
// The design document's examples disagree with each other here (network
// names "demo.network" and "cluster.udn.db-network", NAD names
// "cluster.udn.db-network" and "cluster-db-network"); udnkit follows the
// names above, which the reference implementation uses. Its example NADs
// also show cniVersion "0.3.1", "persistentIPs" as a string and an owner
// apiVersion k8s.ovn.org/v1alpha1; udnkit renders cniVersion "1.1.0" (the
// seed's "0.3.1" is illustrative: the reference decides), the
// boolean "allowPersistentIPs" and k8s.ovn.org/v1.
//
// # NetConf
//
// Keys are rendered in a fixed order (see NetConf). Subnets are written in
// the "cidr/hostPrefix" form for Layer3 with defaults filled (/24, /64).
// Primary networks get a join subnet (default 100.65.0.0/16, fd99::/64,
// one per IP family the network has); primary Layer2 networks also get a
// transit subnet. The transit default is 100.88.0.0/16 and fd97::/64; when
// it overlaps the network's pod or join subnets (or the default network's
// join subnet) it moves to the next free one of its length in its range
// (ipam.SubnetAvoiding): 100.89.0.0/16, 100.90.0.0/16, ... 100.127.0.0/16,
// then round to 100.64.0.0/16, inside the 100.64.0.0/10 shared address
// space for IPv4; fd97:0:0:1::/64 ... fd97:0:0:ff::/64 round to fd97::/64,
// inside fd97::/56, for IPv6. The same
// rule gives Layer3 primary networks their Network.TransitSubnets, which
// the NetConf does not carry. A primary CUDN's NetConf carries "vrf": the
// CUDN's vrf field, else its name when it has at most 15 characters, else
// "udn-<networkID>-vrf".
//
// CIDRs with host bits set ("10.0.0.100/26", as in the design document's
// CUDN example) are read as their masked prefix (10.0.0.64/26), as
// Kubernetes networking has always read them.
//
// # Reconciliation
//
// ReconcileUDN and ReconcileCUDN follow the design document's controller:
// create the NAD where it is missing, update a NAD we control that drifted,
// never touch a NAD we do not control (a "foreign" NAD: same name, no
// controller reference with our UID), refuse to add a second primary
// network to a namespace, keep NADs and the object's finalizer while pods
// use the network. Between two primary CUDNs that want the same namespace
// or VRF name, the older one (creation time, then name) wins.
//
// With MultiplePrimary set in the input, the multiple-primary-networks rules
// replace "one primary network per namespace": primary networks may share a
// namespace when their subnets do not overlap; UDNs only with UDNs, CUDNs
// only with CUDNs whose namespaceSelector is identical (a CUDN whose
// selector differs from an older primary CUDN's over shared namespaces, or
// whose subnets overlap it, fails as a whole); never a UDN with a CUDN; a
// primary NAD no UDN/CUDN controls still blocks. The namespace label those
// rules also require (k8s.ovn.org/primary-user-defined-network) is the
// caller's to check.
//
// # Profiles
//
// RenderOptions.Profile selects whose wire format a render writes; the zero
// value (udn.ProfileSeeds) is what RenderUDN and RenderCUDN write.
// udn.ProfileReference writes what the reference implementation
// (OVN-Kubernetes, clustermanager/userdefinednetwork/template) writes for
// the same object, so that a controller running beside or after it does
// not fight over NADs. Validation is the same under both profiles.
//
//	                     ProfileSeeds (default)            ProfileReference
//	cniVersion           "1.1.0"                           "1.1.0"
//	key order            NetConf field order               sorted (Go's map order)
//	Layer3 subnets       "cidr/hostPrefix", defaults       as the user wrote them
//	                     filled ("10.0.0.0/16/24")         ("10.0.0.0/16")
//	CIDR spelling        masked, canonical                 as the user wrote them
//	joinSubnet           one per family of the network     the user's, else both
//	                                                       100.65.0.0/16,fd99::/64
//	vrf                  primary CUDNs                     never (the host side
//	                                                       derives it)
//	Localnet mtu         omitted when unset                ClusterMTU+100 (1500)
//	excludeSubnets       every topology                    every topology (the
//	                                                       reference's API has
//	                                                       them for Localnet only)
//	NAD labels           k8s.ovn.org/user-defined-network  that, plus the object's
//	NAD annotations      none                              the object's, except
//	                                                       k8s.ovn.org*
//	status               NetworkCreated + NetworkReady,    NetworkCreated only:
//	                     reasons above (Reconcile*)        UDNNetworkCreatedCondition,
//	                                                       CUDNNetworkCreatedCondition
//	NAD update           config compared by content;       config compared byte for
//	(Reconcile*)         label and finalizer ensured       byte; labels set to the
//	                                                       desired ones; annotations
//	                                                       the desired ones plus the
//	                                                       observed k8s.ovn.org*
//
// Reconciliation takes the options in UDNInput.Render / CUDNInput.Render.
// Under the reference profile its decisions are udnkit's (validation,
// conflicts, pods in use); only their spelling is the reference's: every
// failure becomes NetworkCreated=False with reason SyncError (UDN) or
// NetworkAttachmentDefinitionSyncError (CUDN) and udnkit's message. The
// reference's own texts for its sync errors are ForeignNADError,
// PrimaryNetworkExistsError and MissingPrimaryLabelError.
//
// RenderOptions.MarshalNetConf writes a parsed NetConf back in either
// format: a NAD the reference rendered parses (ParseNAD) and marshals back
// byte for byte. Both profiles render TypeMeta and the NAD's namespace,
// which the reference's template leaves to its caller. The transit subnet
// of a primary Layer2 network moves off an overlap as described above; the
// reference's rule (the first subnet after the larger of the two
// overlapping ones, ten tries, no wrap-around) gives the same subnet in
// its tests' cases but can differ, or fail, when the pod or join subnets
// cover most of 100.64.0.0/10 or fd97::/56.
//
// # Parsing
//
// ParseNetConf and ParseNAD are as strict and as liberal as the
// reference's parser, whatever the profile: cniVersion may be missing; a
// configuration list ("plugins") with one ovn-k8s-cni-overlay plugin is
// read with the list's name and cniVersion; a primary network's joinSubnet
// may list a family the network lacks (the reference renders both); a
// chained plugin (ErrChainingNotSupported), another plugin's NetConf
// (ErrNotOVNManaged), an "ipam" key with a type, a joinSubnet on Localnet
// and the names "default" and "ovn-kubernetes" are refused. One
// departure: a NetConf without topology is the default network's, which
// the reference parses and udnkit refuses with ErrDefaultNetworkNAD.
//
// # Several subnets of a family
//
// A Layer3 network may list several non-overlapping subnets of one family
// (a spec two at most, its CRD's bound; a NetConf up to
// MaxLayer3NetConfSubnets); Layer2 and Localnet networks keep one per
// family. The subnets of a family share one host-subnet length, as the
// reference requires: a spec by its CRD's rule (both without a host
// prefix, or both with the same one: HostSubnetMismatchMessage, the
// reference's message, which a spec gets beside "at most one subnet per
// IP family"), a NetConf by its parser's (the same length once the
// defaults are filled, "10.0.0.0/16/24,10.1.0.0/16" included). The
// families of a dual-stack network have lengths of their own.
//
// # Cluster settings
//
// CheckCluster refuses, once a spec is valid, a network the cluster cannot
// carry: subnets of a family the cluster does not run, and pod or join
// subnets overlapping the default network's cluster subnets, the service
// CIDRs, the default join subnets or the masquerade subnets (Cluster; a
// cluster subnet inside the network's excluded subnets does not count), as
// the reference's NetInfo checks do. udnkit.Config.DefaultNetwork applies
// it on the short path.
//
// # CRDs
//
// UserDefinedNetwork and ClusterUserDefinedNetwork (and their List types,
// which the controller's informers need) carry kubebuilder markers from
// which package crds generates the CRDs (go generate ./crds). Their CEL
// rules repeat the checks of ValidateUDN and ValidateCUDN that need no
// address parsing, with the same messages; a template in the inline form
// DecodeCUDN accepts is not in the CRD's schema (the API server prunes
// it): the documented template.spec form is the one to send.
package netconf
