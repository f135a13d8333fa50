package kernel_test

import (
	"context"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"github.com/udnkit/udnkit/backend/kernel"
	"github.com/udnkit/udnkit/vrf"
)

// TestVRFGuest runs inside the QEMU guest TestVRFInQEMU boots (a kernel
// with VRF devices): two networks with the same subnet get their VRFs,
// tables, routes and rules; applying again changes nothing; a connection
// bound to blue's VRF reaches blue's pod behind the management port, the
// same address through red's VRF or the main table does not; removing red
// takes only red's objects.
func TestVRFGuest(t *testing.T) {
	if os.Getenv("udnkit_guest") == "" {
		t.Skip("runs in the QEMU guest of TestVRFInQEMU")
	}
	h, err := netlink.NewHandle(unix.NETLINK_ROUTE)
	if err != nil {
		t.Fatal(err)
	}
	dummy(t, h, "breth0", "172.18.0.3/16", "169.254.0.2/17")
	dummy(t, h, "ovn-k8s-mp1")
	dummy(t, h, "ovn-k8s-mp2")
	// blue's pod sits behind its management port's veth peer.
	pod := newNetns(t)
	peer, err := h.LinkByName("ovn-k8s-mp1-p")
	if err != nil {
		t.Fatal(err)
	}
	if err := h.LinkSetNsFd(peer, int(pod)); err != nil {
		t.Fatal(err)
	}
	ph, err := netlink.NewHandleAt(pod, unix.NETLINK_ROUTE)
	if err != nil {
		t.Fatal(err)
	}
	addr(t, ph, "ovn-k8s-mp1-p", "10.128.1.5/24")

	self, err := netns.Get()
	if err != nil {
		t.Fatal(err)
	}
	k := newKernel(t, h, self, nil)
	// The guest loads no nf_tables modules: plans without their nftables
	// part (the host's tests apply it).
	plan := func(t *testing.T, nets ...vrf.Network) vrf.State {
		s := plan(t, nets...)
		s.NFT = vrf.NFT{}
		return s
	}
	both := plan(t, blue, red)
	res := sync(t, k, both)
	if res.Links == 0 || res.RoutesAdded != len(both.Routes) || res.RulesAdded != len(both.Rules) || res.Batches != 0 {
		t.Errorf("apply: %+v", res)
	}
	if again := sync(t, k, both); again != (kernel.Result{}) {
		t.Errorf("second apply: %+v", again)
	}
	checkObserved(t, k, both)
	for name, table := range map[string]uint32{"udn-1-vrf": 1001, "udn-2-vrf": 1002} {
		l, err := h.LinkByName(name)
		if v, ok := l.(*netlink.Vrf); err != nil || !ok || v.Table != table {
			t.Errorf("VRF %s: %v %v", name, l, err)
		}
	}
	mp1, _ := h.LinkByName("ovn-k8s-mp1")
	v1, _ := h.LinkByName("udn-1-vrf")
	if mp1.Attrs().MasterIndex != v1.Attrs().Index {
		t.Error("ovn-k8s-mp1 is not in udn-1-vrf")
	}

	var listener net.Listener
	inNetns(t, pod, func() {
		if listener, err = net.Listen("tcp", "10.128.1.5:80"); err != nil {
			t.Error(err)
		}
	})
	if listener == nil {
		t.FailNow()
	}
	defer listener.Close()
	go func() {
		for {
			c, err := listener.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	dial := func(device string) error {
		d := net.Dialer{Timeout: time.Second}
		if device != "" {
			d.Control = func(_, _ string, c syscall.RawConn) error {
				var serr error
				err := c.Control(func(fd uintptr) { serr = syscall.BindToDevice(int(fd), device) })
				if err != nil {
					return err
				}
				return serr
			}
		}
		c, err := d.Dial("tcp", "10.128.1.5:80")
		if err == nil {
			c.Close()
		}
		return err
	}
	if err := dial("udn-1-vrf"); err != nil {
		t.Errorf("blue's VRF does not reach blue's pod: %v", err)
	}
	if err := dial("udn-2-vrf"); err == nil {
		t.Error("red's VRF reaches blue's pod (same subnet, other network)")
	}
	if err := dial(""); err == nil {
		t.Error("the main table reaches blue's pod")
	}

	// red goes: only its VRF, routes and rules.
	if err := k.Remove(context.Background(), plan(t, red)); err != nil {
		t.Fatal(err)
	}
	if _, err := h.LinkByName("udn-2-vrf"); err == nil {
		t.Error("red's VRF remains")
	}
	if again := sync(t, k, plan(t, blue)); again != (kernel.Result{}) {
		t.Errorf("blue after red left: %+v", again)
	}
}
