package udnkit_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/nftables"
	"github.com/vishvananda/netlink"

	"github.com/udnkit/udnkit/backend/kernel"
	"github.com/udnkit/udnkit/backend/ovs"
	"github.com/udnkit/udnkit/flows"
	"github.com/udnkit/udnkit/vrf"
)

// TestErrorClassesNode classifies the errors of the node-side adapters: an
// ovs-ofctl that fails or prints what the adapter cannot read, changes that
// do not validate, a flow file that cannot be written, this process's
// network namespace (read only) and an nftables connection the kernel
// refuses.
func TestErrorClassesNode(t *testing.T) {
	ctx := context.Background()
	notNS, err := os.Create(filepath.Join(t.TempDir(), "not-a-netns"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { notNS.Close() })
	// The kernel refuses to enter a file that is not a network namespace.
	refusing, err := nftables.New(nftables.WithNetNSFd(int(notNS.Fd())))
	if err != nil {
		t.Fatal(err)
	}
	h, err := netlink.NewHandle()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)

	current, err := nftables.New()
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.New(kernel.Config{Netlink: h, NFT: current})
	if err != nil {
		t.Fatal(err)
	}
	refusingKernel, err := kernel.New(kernel.Config{Netlink: h, NFT: refusing})
	if err != nil {
		t.Fatal(err)
	}
	// bridge returns an adapter whose ovs-ofctl prints out and fails with
	// err.
	bridge := func(out string, err error) *ovs.Bridge {
		b, nerr := ovs.New(ovs.Config{Bridge: "breth0", Run: func(context.Context, []byte, ...string) ([]byte, error) {
			return []byte(out), err
		}})
		if nerr != nil {
			t.Fatal(nerr)
		}
		return b
	}
	flow := flows.Flow{Table: 0, Priority: 10, Match: "ip", Actions: "drop"}

	cases := []struct {
		name string
		run  func() error
		want []string
	}{
		{"ovs.New: no bridge", func() error { _, err := ovs.New(ovs.Config{}); return err }, []string{"invalid"}},
		{"ovs.Bridge.Observe: ovs-ofctl fails", func() error {
			_, err := bridge("", errors.New("exit status 1")).Observe(ctx, nil)
			return err
		}, []string{"refused"}},
		{"ovs.Bridge.Observe: a dumped flow without actions", func() error {
			_, err := bridge("-table=0 priority=10,ip cookie=0xdeff105 idle_age=1\n", nil).Observe(ctx, nil)
			return err
		}, []string{"refused"}},
		{"ovs.Bridge.Observe: diff-flows prints a scope flow it was not given", func() error {
			_, err := bridge("+table=0 priority=10,ip cookie=0x7 actions=drop\n", nil).Observe(ctx, []flows.Flow{flow})
			return err
		}, []string{"refused"}},
		{"ovs.Bridge.Apply: a flow that could carry a command", func() error {
			bad := flow
			bad.Actions = "drop\nadd table=1 actions=drop"
			_, err := bridge("", nil).Apply(ctx, flows.Changes{Add: []flows.Flow{bad}})
			return err
		}, []string{"invalid"}},
		{"ovs.Bridge.Apply: no directory for the bundle file", func() error {
			b, err := ovs.New(ovs.Config{Bridge: "breth0", Dir: filepath.Join(t.TempDir(), "missing"), Run: func(context.Context, []byte, ...string) ([]byte, error) {
				return nil, nil
			}})
			if err != nil {
				return err
			}
			_, err = b.Apply(ctx, flows.Changes{Add: []flows.Flow{flow}})
			return err
		}, []string{"unavailable"}},
		{"kernel.New: no netlink handle", func() error { _, err := kernel.New(kernel.Config{}); return err }, []string{"invalid"}},
		{"kernel.Kernel.Apply: a management port that does not exist", func() error {
			_, err := k.Apply(ctx, vrf.Changes{AddLinks: []vrf.Link{{Kind: vrf.LinkManagementPort, Name: "udnkit-none0", MTU: 1400}}})
			return err
		}, []string{"not found"}},
		{"kernel.CgroupID: a cgroup that does not exist", func() error {
			_, err := kernel.CgroupID(t.TempDir())("kubepods.slice/missing")
			return err
		}, []string{"not found"}},
		{"kernel.CgroupID: a path that leaves the root", func() error {
			_, err := kernel.CgroupID(t.TempDir())("../etc")
			return err
		}, []string{"invalid"}},
		{"kernel.Kernel.Observe: the kernel refuses nftables", func() error {
			_, err := refusingKernel.Observe(ctx, vrf.State{NFT: vrf.NFT{Sets: []vrf.Set{{Name: "udn-test", Key: []vrf.DataType{vrf.TypeIPv4Addr}}}}})
			return err
		}, []string{"refused"}},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			checkClasses(t, tt.run(), tt.want)
		})
	}
}
