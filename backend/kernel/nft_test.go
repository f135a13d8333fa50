package kernel_test

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"

	"github.com/udnkit/udnkit/backend/kernel"
	"github.com/udnkit/udnkit/vrf"
)

// addr gives dev the address cidr and brings it up.
func addr(t *testing.T, h *netlink.Handle, dev, cidr string) {
	t.Helper()
	l, err := h.LinkByName(dev)
	if err != nil {
		t.Fatal(err)
	}
	p := netip.MustParsePrefix(cidr)
	if err := h.AddrAdd(l, &netlink.Addr{IPNet: &net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}}); err != nil {
		t.Fatal(err)
	}
	if err := h.LinkSetUp(l); err != nil {
		t.Fatal(err)
	}
}

// dialFrom reports whether a TCP connection from ns to target succeeds
// within three attempts of a second each: a fresh veth may take a moment
// to carry traffic, and a dropped SYN fails every attempt.
func dialFrom(t *testing.T, ns netns.NsHandle, target string) bool {
	t.Helper()
	ok := false
	for range 3 {
		inNetns(t, ns, func() {
			if c, err := net.DialTimeout("tcp", target, time.Second); err == nil {
				c.Close()
				ok = true
			}
		})
		if ok {
			return true
		}
	}
	return false
}

// inNetns runs f on an OS thread in ns.
func inNetns(t *testing.T, ns netns.NsHandle, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // the thread dies with the goroutine, never back in the pool in ns
		if err := netns.Set(ns); err != nil {
			t.Error(err)
			return
		}
		f()
	}()
	<-done
}

func newNetns(t *testing.T) netns.NsHandle {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	orig, err := netns.Get()
	if err != nil {
		t.Fatal(err)
	}
	defer orig.Close()
	ns, err := netns.New()
	if err != nil {
		t.Fatal(err)
	}
	if err := netns.Set(orig); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Close() })
	return ns
}

// TestIsolationTraffic: in a host namespace wired by a veth to a pod
// namespace, the planned isolation lets the host reach the pod's open port
// and drops the rest; applying twice changes nothing; closing the port
// closes it.
func TestIsolationTraffic(t *testing.T) {
	freshNetns(t) // root check
	host, pod := newNetns(t), newNetns(t)
	hh, err := netlink.NewHandleAt(host)
	if err != nil {
		t.Fatal(err)
	}
	defer hh.Close()
	ph, err := netlink.NewHandleAt(pod)
	if err != nil {
		t.Fatal(err)
	}
	defer ph.Close()
	if err := hh.LinkAdd(&netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: "to-pod"}, PeerName: "eth0", PeerNamespace: netlink.NsFd(int(pod))}); err != nil {
		t.Fatal(err)
	}
	addr(t, hh, "to-pod", "10.244.1.1/24")
	addr(t, ph, "eth0", "10.244.1.5/24")
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
	if !reach("8080") || !reach("9090") {
		t.Fatal("the pod is not reachable before isolation")
	}
	plan := func(open bool) vrf.State {
		in := vrf.Input{Node: vrf.Node{Name: "n", Bridge: "breth0"},
			Pods: vrf.Pods{DefaultIPs: []netip.Addr{netip.MustParseAddr("10.244.1.5")}}}
		if open {
			in.Pods.OpenPorts = []vrf.Endpoint{{Addr: netip.MustParseAddr("10.244.1.5"), L4Port: vrf.L4Port{Protocol: vrf.TCP, Port: 8080}}}
		}
		s, err := vrf.Plan(in)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	k := newKernel(t, hh, host, nil)
	res := sync(t, k, plan(true))
	if res.SetsCreated != 9 || res.ElementsAdded != 2 || res.ChainsWritten != 4 || res.Batches != 1 {
		t.Errorf("first apply: %+v", res)
	}
	if !reach("8080") {
		t.Error("the open port is dropped")
	}
	if reach("9090") {
		t.Error("the host reaches a port the pod did not open")
	}
	if again := sync(t, k, plan(true)); again != (kernel.Result{}) {
		t.Errorf("second apply: %+v", again)
	}
	checkListing(t, host)
	// Someone adds a rule to udn-isolation: Sync sees a rule it did not
	// plan and rewrites the chain without it.
	if out, err := exec.Command("nsenter", fmt.Sprintf("--net=/proc/%d/fd/%d", os.Getpid(), int(host)),
		"nft", "add", "rule", "inet", vrf.NFTTable, "udn-isolation", "ip", "daddr", "6.6.6.6", "accept").CombinedOutput(); err != nil {
		t.Fatalf("nft add rule: %v\n%s", err, out)
	}
	if res := sync(t, k, plan(true)); res != (kernel.Result{ChainsWritten: 1, Batches: 1}) {
		t.Errorf("after a foreign rule: %+v", res)
	}
	if again := sync(t, k, plan(true)); again != (kernel.Result{}) {
		t.Errorf("after the rewrite: %+v", again)
	}
	if res = sync(t, k, plan(false)); res != (kernel.Result{ElementsDeleted: 1, Batches: 1}) {
		t.Errorf("closing the port: %+v", res)
	}
	if reach("8080") {
		t.Error("a closed port is still reachable")
	}
}

// checkListing lists table inet ovn-kubernetes of ns with nft: the sets
// and maps carry the reference's comments, and the listing loads again
// (nft -c in a fresh namespace): the rules' comments hold nothing that
// breaks nft syntax.
func checkListing(t *testing.T, ns netns.NsHandle) {
	t.Helper()
	nft, err := exec.LookPath("nft")
	if err != nil {
		need(t, "nft is not installed (apt-get install nftables)")
	}
	out, err := exec.Command("nsenter", fmt.Sprintf("--net=/proc/%d/fd/%d", os.Getpid(), int(ns)), nft, "list", "table", "inet", vrf.NFTTable).CombinedOutput()
	if err != nil {
		t.Fatalf("nft list: %v\n%s", err, out)
	}
	for _, want := range []string{
		`comment "default network IPs of pods in user defined networks (IPv4)"`,
		`comment "UDN services NodePorts mark"`,
		`comment "ip daddr . meta l4proto . th dport @udn-open-ports-v4 accept"`,
		`comment "iifname != 'ovn-k8s-mp0' jump udn-service-mark"`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("nft list lacks %s:\n%s", want, out)
		}
	}
	file := filepath.Join(t.TempDir(), "listed.nft")
	if err := os.WriteFile(file, out, 0o644); err != nil {
		t.Fatal(err)
	}
	if again, err := exec.Command("unshare", "-n", nft, "-c", "-f", file).CombinedOutput(); err != nil {
		t.Errorf("the listing does not load again: %v\n%s", err, again)
	}
}
