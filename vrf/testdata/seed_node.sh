ip link add name green-vrf type vrf table 1002
ip link set dev green-vrf up
ip link add name udn-1-vrf type vrf table 1001
ip link set dev udn-1-vrf up
ip link set dev ovn-k8s-mp1 address 0a:58:0a:80:01:02 mtu 1400 master udn-1-vrf up
ip addr add 10.128.1.2/24 dev ovn-k8s-mp1
ip link set dev ovn-k8s-mp2 address 0a:58:cb:cb:00:02 mtu 1300 master green-vrf up
ip addr add 203.203.0.2/16 dev ovn-k8s-mp2
ip addr add 2010:100:200::2/60 dev ovn-k8s-mp2
ip route add default via 172.18.0.1 dev breth0 mtu 1400 proto 85 table 1001
ip route add unreachable default metric 4278198272 proto 85 table 1001
ip route add 10.96.0.0/16 via 169.254.0.4 dev breth0 src 169.254.0.2 mtu 1400 proto 85 table 1001
ip route add 10.128.0.0/16 via 10.128.1.1 dev ovn-k8s-mp1 proto 85 table 1001
ip route add 169.254.0.3/32 via 10.128.1.1 dev ovn-k8s-mp1 proto 85 table 1001
ip route add 169.254.0.12/32 dev ovn-k8s-mp1 mtu 1400 proto 85 table 1001
ip route add default via 172.18.0.1 dev breth0 mtu 1300 proto 85 table 1002
ip route add unreachable default metric 4278198272 proto 85 table 1002
ip route add 10.96.0.0/16 via 169.254.0.4 dev breth0 src 169.254.0.2 mtu 1300 proto 85 table 1002
ip route add 169.254.0.3/32 via 203.203.0.1 dev ovn-k8s-mp2 proto 85 table 1002
ip route add 169.254.0.14/32 dev ovn-k8s-mp2 mtu 1300 proto 85 table 1002
ip -6 route add default via fc00::1 dev breth0 mtu 1300 proto 85 table 1002
ip -6 route add unreachable default metric 4278198272 proto 85 table 1002
ip -6 route add fd00:10:96::/112 via fd69::4 dev breth0 src fd69::2 mtu 1300 proto 85 table 1002
ip -6 route add fd69::3/128 via 2010:100:200::1 dev ovn-k8s-mp2 proto 85 table 1002
ip -6 route add fd69::e/128 dev ovn-k8s-mp2 mtu 1300 proto 85 table 1002
ip rule add priority 2000 to 169.254.0.12/32 lookup 1001
ip rule add priority 2000 fwmark 0x1001 lookup 1001
ip rule add priority 2000 to 169.254.0.14/32 lookup 1002
ip -6 rule add priority 2000 to fd69::e/128 lookup 1002
ip rule add priority 2000 fwmark 0x1002 lookup 1002
ip -6 rule add priority 2000 fwmark 0x1002 lookup 1002
nft -f - <<'EOF'
table inet ovn-kubernetes {
	map udn-mark-external-ips-v4 {
		type ipv4_addr . inet_proto . inet_service : verdict
		comment "UDN services External IPs mark (IPv4)"
		elements = { 172.18.0.200 . udp . 53 : jump udn-mark-0x1002 }
	}
	map udn-mark-external-ips-v6 {
		type ipv6_addr . inet_proto . inet_service : verdict
		comment "UDN services External IPs mark (IPv6)"
	}
	map udn-mark-nodeports {
		type inet_proto . inet_service : verdict
		comment "UDN services NodePorts mark"
		elements = { tcp . 30724 : jump udn-mark-0x1001 }
	}
	set udn-open-ports-icmp-v4 {
		type ipv4_addr
		comment "default network IPs of pods in user defined networks that allow ICMP (IPv4)"
		elements = { 10.244.1.5 }
	}
	set udn-open-ports-icmp-v6 {
		type ipv6_addr
		comment "default network IPs of pods in user defined networks that allow ICMP (IPv6)"
	}
	set udn-open-ports-v4 {
		type ipv4_addr . inet_proto . inet_service
		comment "default network open ports of pods in user defined networks (IPv4)"
		elements = { 10.244.1.5 . tcp . 8080 }
	}
	set udn-open-ports-v6 {
		type ipv6_addr . inet_proto . inet_service
		comment "default network open ports of pods in user defined networks (IPv6)"
	}
	set udn-pod-default-ips-v4 {
		type ipv4_addr
		comment "default network IPs of pods in user defined networks (IPv4)"
		elements = { 10.244.1.5 }
	}
	set udn-pod-default-ips-v6 {
		type ipv6_addr
		comment "default network IPs of pods in user defined networks (IPv6)"
		elements = { fd00:10:244:1::5 }
	}
	chain udn-isolation {
		type filter hook output priority filter; policy accept;
		comment "Host isolation for user defined networks"
		ip daddr . meta l4proto . th dport @udn-open-ports-v4 accept
		ip daddr @udn-open-ports-icmp-v4 meta l4proto icmp accept
		socket cgroupv2 level 2 "kubelet.slice/kubelet.service" ip daddr @udn-pod-default-ips-v4 accept
		ip daddr @udn-pod-default-ips-v4 drop
		ip6 daddr . meta l4proto . th dport @udn-open-ports-v6 accept
		ip6 daddr @udn-open-ports-icmp-v6 meta l4proto icmpv6 accept
		socket cgroupv2 level 2 "kubelet.slice/kubelet.service" ip6 daddr @udn-pod-default-ips-v6 accept
		ip6 daddr @udn-pod-default-ips-v6 drop
	}
	chain udn-mark-0x1001 {
		comment "ns1_blue: UDN packet marking"
		meta mark set 0x00001001
	}
	chain udn-mark-0x1002 {
		comment "cluster_udn_green: UDN packet marking"
		meta mark set 0x00001002
	}
	chain udn-service-mark {
		comment "UDN services packet mark"
		fib daddr type local meta l4proto . th dport vmap @udn-mark-nodeports
		ip daddr . meta l4proto . th dport vmap @udn-mark-external-ips-v4
		ip6 daddr . meta l4proto . th dport vmap @udn-mark-external-ips-v6
	}
	chain udn-service-output {
		type filter hook output priority mangle; policy accept;
		comment "UDN services packet mark - Output"
		jump udn-service-mark
	}
	chain udn-service-prerouting {
		type filter hook prerouting priority mangle; policy accept;
		comment "UDN services packet mark - Prerouting"
		iifname != "ovn-k8s-mp0" jump udn-service-mark
	}
}
EOF
