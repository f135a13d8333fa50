package kernel_test

import (
	"encoding/binary"
	"net"
	"net/netip"
	"testing"

	"github.com/google/nftables"
	"github.com/google/nftables/expr"
	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/udnkit/udnkit/backend/kernel"
	"github.com/udnkit/udnkit/vrf"
)

// TestServiceMarkingTraffic: traffic to one of blue's external IPs is
// marked with blue's packet mark (a test table drops packets carrying it at
// postrouting, so a marked connection fails), while another port of the
// same address still reaches the pod; applying twice changes nothing;
// removing the external IP restores the path.
func TestServiceMarkingTraffic(t *testing.T) {
	freshNetns(t) // root check
	host, pod := newNetns(t), newNetns(t)
	hh, err := netlink.NewHandleAt(host, unix.NETLINK_ROUTE)
	if err != nil {
		t.Fatal(err)
	}
	defer hh.Close()
	ph, err := netlink.NewHandleAt(pod, unix.NETLINK_ROUTE)
	if err != nil {
		t.Fatal(err)
	}
	defer ph.Close()
	if err := hh.LinkAdd(&netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: "to-pod"}, PeerName: "eth0", PeerNamespace: netlink.NsFd(int(pod))}); err != nil {
		t.Fatal(err)
	}
	addr(t, hh, "to-pod", "10.244.1.1/24")
	addr(t, ph, "eth0", "10.244.1.5/24")
	dummy(t, hh, "breth0", "172.18.0.3/16", "169.254.0.2/17")
	dummy(t, hh, "ovn-k8s-mp1")
	var listeners []net.Listener
	inNetns(t, pod, func() {
		for _, port := range []string{"8080", "9090"} {
			l, err := net.Listen("tcp", "10.244.1.5:"+port)
			if err != nil {
				t.Error(err)
				return
			}
			listeners = append(listeners, l)
			go func() {
				for {
					c, err := l.Accept()
					if err != nil {
						return
					}
					c.Close()
				}
			}()
		}
	})
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	reach := func(port string) bool { return dialFrom(t, host, "10.244.1.5:"+port) }
	stateOf := func(external bool) vrf.State {
		b := blue
		if external {
			b.ExternalIPs = []vrf.Endpoint{{Addr: netip.MustParseAddr("10.244.1.5"), L4Port: vrf.L4Port{Protocol: vrf.TCP, Port: 8080}}}
		}
		return plan(t, b)
	}
	k := newKernel(t, hh, host, nil)
	sync(t, k, withoutVRFs(stateOf(false)))
	if !reach("8080") || !reach("9090") {
		t.Fatal("the pod is not reachable before marking")
	}
	conn, err := nftables.New(nftables.WithNetNSFd(int(host)))
	if err != nil {
		t.Fatal(err)
	}
	// The referee: drop what carries blue's mark on its way out.
	tt := conn.AddTable(&nftables.Table{Family: nftables.TableFamilyINet, Name: "udnkit-test"})
	post := conn.AddChain(&nftables.Chain{Name: "post", Table: tt, Type: nftables.ChainTypeFilter,
		Hooknum: nftables.ChainHookPostrouting, Priority: nftables.ChainPriorityFilter})
	mark := make([]byte, 4)
	binary.NativeEndian.PutUint32(mark, 0x1001)
	conn.AddRule(&nftables.Rule{Table: tt, Chain: post, Exprs: []expr.Any{
		&expr.Meta{Key: expr.MetaKeyMARK, Register: 1}, &expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: mark},
		&expr.Verdict{Kind: expr.VerdictDrop}}})
	if err := conn.Flush(); err != nil {
		t.Fatal(err)
	}
	if res := sync(t, k, withoutVRFs(stateOf(true))); res != (kernel.Result{ElementsAdded: 1, Batches: 1}) {
		t.Errorf("adding the external IP: %+v", res)
	}
	if reach("8080") {
		t.Error("blue's external IP is not marked")
	}
	if !reach("9090") {
		t.Error("an unmarked port of the same address does not reach the pod")
	}
	if again := sync(t, k, withoutVRFs(stateOf(true))); again != (kernel.Result{}) {
		t.Errorf("second apply: %+v", again)
	}
	if res := sync(t, k, withoutVRFs(stateOf(false))); res != (kernel.Result{ElementsDeleted: 1, Batches: 1}) {
		t.Errorf("removing the external IP: %+v", res)
	}
	if !reach("8080") {
		t.Error("the external IP is still marked after its removal")
	}
}
