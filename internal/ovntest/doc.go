// Package ovntest runs OVN for tests: a real OVN 25.03 (NB and SB ovsdb-server
// plus ovn-northd, from the root filesystem that scripts/ovn-env prepares).
// Fast tests that need no real OVN use ovnnb.StartEmbedded instead.
//
// Real OVN needs root (chroot, mount namespaces) and a prepared root
// filesystem. When either is missing, Start skips the test with a message
// saying what to run, unless the environment variable CI is "true": then the
// test fails, because CI must run every test.
//
// The ovn-nbctl, ovn-sbctl and ovn-trace runners execute the tools inside the
// root filesystem with chroot and reach the databases over TCP on 127.0.0.1.
// Every Env is independent; its methods are safe for concurrent use.
//
// # Clustered Northbound
//
// StartCluster runs the Northbound database as a three-member RAFT cluster
// (Cluster), the way production OVN does, in a directory under the root
// filesystem's /tmp (so no mount namespace is needed). By hand, inside the
// root filesystem (chroot ROOT), with six free ports:
//
//	ovsdb-tool create-cluster nb1.db /usr/share/ovn/ovn-nb.ovsschema tcp:127.0.0.1:R1
//	ovsdb-tool join-cluster nb2.db OVN_Northbound tcp:127.0.0.1:R2 tcp:127.0.0.1:R1
//	ovsdb-tool join-cluster nb3.db OVN_Northbound tcp:127.0.0.1:R3 tcp:127.0.0.1:R1
//	ovsdb-server --detach --pidfile=nbN.pid --log-file=nbN.log --unixctl=nbN.ctl \
//		--remote=ptcp:CN:127.0.0.1 nbN.db                    # N = 1, 2, 3
//	ovsdb-tool create sb.db /usr/share/ovn/ovn-sb.ovsschema  # and serve it
//	ovn-northd --ovnnb-db=tcp:127.0.0.1:C1,tcp:127.0.0.1:C2,tcp:127.0.0.1:C3 --ovnsb-db=...
//	ovs-appctl -t nbN.ctl cluster/status OVN_Northbound      # Role, Term, Leader
//
// A client given the three endpoints (ovnnb.Config.Endpoints) talks to the
// leader only. Cluster.Kill kills a member with SIGKILL, Cluster.Restart
// starts it again on its ports with its database file and waits until it
// has rejoined, Cluster.Leader and Cluster.Status read cluster/status, and
// Cluster.MemberRSS lets a test time a kill while a large transaction is
// being read. ovn-nbctl given several endpoints gives up when the first it
// reaches is a follower, so Cluster.NBCtl finds the leader and uses it
// alone. Northd's reconnect warnings after a member's death are expected;
// any other warning fails the test as with Start.
//
// # Hosts (nodes of a zone)
//
// StartHost runs a node for an Env's zone: a network namespace
// (ip netns) in which ovs-vswitchd runs with the userspace datapath
// (--disable-system; bridges of datapath_type netdev), and, in the test's
// namespace, the node's OVS database and an ovn-controller registered in
// the zone's SB as chassis NAME with a Geneve encap at the given address.
// By hand, with the root filesystem at ROOT and a directory D under its
// /tmp:
//
//	ip netns add NS
//	chroot ROOT ovsdb-tool create D/conf.db /usr/share/openvswitch/vswitch.ovsschema
//	chroot ROOT ovsdb-server --detach --remote=punix:D/db.sock D/conf.db
//	chroot ROOT ovs-vsctl --db=unix:D/db.sock --no-wait init -- set Open_vSwitch . \
//		external_ids:system-id=NAME external_ids:ovn-remote=SB external_ids:ovn-encap-type=geneve \
//		external_ids:ovn-encap-ip=IP external_ids:ovn-bridge-datapath-type=netdev
//	ip netns exec NS unshare -m sh -c 'mount --make-rprivate / && mount --bind /dev ROOT/dev &&
//		exec chroot ROOT env OVS_RUNDIR=D ovs-vswitchd --detach --disable-system unix:D/db.sock'
//	chroot ROOT env OVS_RUNDIR=D ovn-controller --detach unix:D/db.sock
//
// The root filesystem's /dev is empty, and the netdev datapath opens
// /dev/net/tun: hence the bind mount, in a mount namespace that lives as
// long as ovs-vswitchd. OVS_RUNDIR puts br-int.mgmt, which ovn-controller
// opens, in D. The hosts also set ovn-is-interconn=true, as OVN-Kubernetes
// does on every node of an interconnect cluster.
//
// Underlay joins two hosts by a veth pair whose ends are ports of a netdev
// bridge br-phy in each host, the host's encap address on br-phy's kernel
// interface: userspace Geneve routes and resolves its outer packets there.
// TCPCheck (Host.In runs code in a host's namespace) proves the path.
//
// TestTwoZonesTCP carries TCP both ways between two zones (each its own
// NB, SB, northd, ovn-controller and userspace Open vSwitch) over Geneve:
// an interconnect switch written by hand in each zone's NB, the zone's
// own port bound to an internal port of br-int, the other zone's port a
// remote port on the other node; the same port keys in both zones.
// ovn-controller builds the Geneve port to a remote chassis only once a
// logical datapath spans both (a bare remote chassis gets none). A remote
// port bound to a wrong chassis makes it fail. When one host stops, its
// Underlay peer's ovs-vswitchd logs the veth's end going away; Errors
// ignores what a peer's Stop caused.
//
// Every warning or error ovs-vswitchd and ovn-controller log fails the
// test, as northd's do, but for the few a correct host logs (ovn-controller
// starting before br-int exists, meeting a remote port before the tunnel
// it creates for it has an OpenFlow port; no hardware representors; a slow
// machine; Stop's SIGTERM); a test that plans something wrong on purpose
// allows what it expects with Host.AllowLog.
//
// # Two zones planned by the SDK
//
// StartZones starts the two zones of an interconnect cluster, node1's and
// node2's, each an Env and a Host whose chassis is the node's Chassis, the
// hosts joined by Underlay on the nodes' first addresses, which are also
// their Geneve encap addresses. Everything in the zones' NBs comes from
// one udnkit.Cluster holding both nodes: Plan("node1") synced to node1's
// NB, Plan("node2") to node2's (TestTwoZonesPlanned). What the SDK does
// not plan, the harness does as the rest of OVN-Kubernetes would:
//
//   - each zone's SB holds the other node's chassis as a remote chassis
//     (AddRemoteChassis: chassis-add with a Geneve encap at the node's
//     address, then other_config:is-remote=true), as ovnkube-controller's
//     zone chassis handler writes it (ovn-ic does the same);
//   - each host's OVS says ovn-is-interconn=true (StartHost), as
//     ovnkube-node sets it; without it ovn-controller makes no tunnel to a
//     remote chassis;
//   - a pod is what the CNI plugin makes of the Cluster's pod-networks
//     annotation (Host.AddPod): a network namespace whose eth0, one end of
//     a veth pair, has the annotation's MAC, addresses, gateway and
//     routes, and MTU 1400; the other end is a port of br-int with
//     external_ids:iface-id (the port's name, pods.PortName) and
//     iface-id-ver (the pod's UID, which the port's options hold).
//
// The plan supplies the rest: the transit switches and the Layer2 transit
// router with their tunnel keys, the other node's ports on them as remote
// ports bound to its chassis (requested-chassis), the other zone's pods of
// a Layer2 network as remote ports, the connect router's ports, the
// Services' load balancers. Northd's warning about a port bound to a
// chassis the SB does not hold fails the test here (Env.RequireChassis).
//
// Zone.Sync waits until northd has compiled the NB (ovn-nbctl --wait=hv
// sync: and ovn-controller installed it) and until ovs-vswitchd has
// revalidated the flows its datapath cached (ovs-appctl
// revalidator/wait): before that, a packet may take a path the NB no
// longer has. Ping sends ICMP echo requests from Go (the root filesystem
// has no ping) on a raw socket in the pod's namespace; Listen and Ask
// carry TCP and say which pod answered, so two tenants with one subnet
// show which of two pods with the same address a connection reached.
//
// The pod's eth0 has transmit checksum offload off (ethtool -K eth0 tx
// off, done with the ioctl: no ethtool in the root filesystem): the
// userspace datapath reads the veth's packets with the TCP checksum left
// to the device and sends them on unfilled, and the receiving pod drops
// them (ICMP, whose checksum the kernel computes, passes either way).
//
// By hand, as root, with the two zones and hosts of the sections above
// (ovn-env start D1 and D2; hosts chassis-1 and chassis-2 with encap
// addresses 172.31.0.1 and 172.31.0.2 joined by br-phy over a veth pair),
// a manifest cluster.yaml whose nodes carry k8s.ovn.org/node-chassis-id
// chassis-1 and chassis-2 and those addresses, and ROOT the root
// filesystem:
//
//	chroot ROOT ovn-sbctl --db=SB1 chassis-add chassis-2 geneve 172.31.0.2 -- \
//		set Chassis chassis-2 other_config:is-remote=true      # and chassis-1 in SB2
//	udnkit apply -f cluster.yaml --zone node1 --nb NB1         # and node2 into NB2
//	udnkit plan -f cluster.yaml -o stored                      # the pods' pod-networks
//	ip netns add POD; ip link add name vPOD netns HOSTNS mtu 1400 type veth peer name eth0 netns POD
//	ip -n POD link set eth0 address MAC mtu 1400 up; ip -n POD addr add IP/LEN dev eth0
//	ip -n POD route add default via GATEWAY                    # and the annotation's routes
//	ip -n HOSTNS link set vPOD up
//	chroot ROOT ovs-vsctl --db=unix:D/db.sock add-port br-int vPOD -- set Interface vPOD \
//		external_ids:iface-id=PORT external_ids:iface-id-ver=UID
//	chroot ROOT ovn-nbctl --db=NB1 wait-until Logical_Switch_Port PORT up=true
//
// One pair of zones serves every subtest of TestTwoZonesPlanned (3 to 5 s
// to start and wire on a loaded 2-vCPU machine; an exchange across takes
// milliseconds, so a check that must get no answer waits 2 s;
// BENCHMARKS.md has the figures). Its last subtest plans node2's chassis
// wrong in node1's zone only (the remote ports on chassis-3, a registered
// remote chassis that is no host): no packet crosses until the right plan
// is synced again.
package ovntest
