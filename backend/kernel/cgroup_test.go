package kernel_test

import (
	"bufio"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/udnkit/udnkit/backend/kernel"
	"github.com/udnkit/udnkit/vrf"
)

// cgroup2Root returns where cgroup v2 is mounted.
func cgroup2Root(t *testing.T) string {
	t.Helper()
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		for i, fld := range fields {
			if fld == "-" && i+1 < len(fields) && fields[i+1] == "cgroup2" {
				return fields[4]
			}
		}
	}
	need(t, "no cgroup2 mount on this machine")
	return ""
}

// TestCgroupRules: in a host namespace wired to a pod, a process in the
// kubelet's cgroup reaches the pod although the host may not, and a
// host-networked pod of a UDN namespace reaches only its allowed cluster
// IP; everyone else is dropped.
func TestCgroupRules(t *testing.T) {
	freshNetns(t) // root check
	root := cgroup2Root(t)
	base := filepath.Join(root, fmt.Sprintf("udnkit-test-%d.slice", os.Getpid()))
	kubelet, allowed, other := filepath.Join(base, "kubelet.service"), filepath.Join(base, "allowed.scope"), filepath.Join(base, "other.scope")
	for _, d := range []string{kubelet, allowed, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			need(t, "cannot create cgroups under "+root+": "+err.Error())
		}
	}
	defer func() {
		for _, d := range []string{kubelet, allowed, other, base} {
			os.Remove(d)
		}
	}()
	rel := func(p string) string { r, _ := filepath.Rel(root, p); return r }

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
	var l net.Listener
	inNetns(t, pod, func() { l, err = net.Listen("tcp", "10.244.1.5:9090") })
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	s, err := vrf.Plan(vrf.Input{Node: vrf.Node{Name: "n", Bridge: "breth0", KubeletCgroup: rel(kubelet)},
		Cluster: vrf.Cluster{ServiceCIDRs: []netip.Prefix{netip.MustParsePrefix("10.244.1.0/24")}}, // the pod stands in for a service
		Pods: vrf.Pods{DefaultIPs: []netip.Addr{netip.MustParseAddr("10.244.1.5")}, HostNetworked: []vrf.HostNetworkedPod{
			{Namespace: "ns", Name: "allowed", Cgroup: rel(allowed), AllowedIPs: []netip.Addr{netip.MustParseAddr("10.244.1.5")}},
			{Namespace: "ns", Name: "other", Cgroup: rel(other)}}}})
	if err != nil {
		t.Fatal(err)
	}
	k := newKernel(t, hh, host, kernel.CgroupID(root))
	sync(t, k, s)
	if again := sync(t, k, s); again != (kernel.Result{}) {
		t.Errorf("second apply: %+v", again)
	}
	// connect from a process in cgroup (none: this test's own) in the host
	// namespace.
	connect := func(cgroup string) bool {
		script := fmt.Sprintf(`exec nsenter --net=/proc/%d/fd/%d timeout 2 bash -c 'echo > /dev/tcp/10.244.1.5/9090'`, os.Getpid(), int(host))
		if cgroup != "" {
			script = "echo $$ > " + filepath.Join(cgroup, "cgroup.procs") + " && " + script
		}
		return exec.Command("sh", "-c", script).Run() == nil
	}
	if connect("") {
		t.Error("a host process reaches a pod of a user-defined network")
	}
	if !connect(kubelet) {
		t.Error("the kubelet does not reach the pod (probes)")
	}
	if !connect(allowed) {
		t.Error("a host-networked pod does not reach its allowed cluster IP")
	}
	if connect(other) {
		t.Error("a host-networked pod reaches a cluster IP it is not allowed")
	}

	// The kubelet restarts: its cgroup is made anew, with a new ID, which
	// the loaded rules do not match. Sync sees it (the rules' comments hold
	// the ID they were resolved to) and rewrites the chain.
	if err := os.Remove(kubelet); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(kubelet, 0o755); err != nil {
		t.Fatal(err)
	}
	if connect(kubelet) {
		t.Fatal("the rules match the kubelet's new cgroup before Sync (its ID did not change?)")
	}
	if res := sync(t, k, s); res.ChainsWritten != 1 || res.Batches != 1 {
		t.Errorf("after the kubelet's restart: %+v", res)
	}
	if !connect(kubelet) {
		t.Error("the restarted kubelet does not reach the pod")
	}
}
