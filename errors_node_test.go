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
	"github.com/udnkit/udnkit/vrf"
)

// TestErrorClassesNode classifies the errors of the node-side adapters: an
// ovs-ofctl that fails or prints what the adapter cannot read, this
// process's network namespace (read only) and an nftables connection the
// kernel refuses.
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

	cases := []struct {
		name string
		run  func() error
		want []string
	}{
		{"ovs.New: no bridge", func() error { _, err := ovs.New(ovs.Config{}); return err }, []string{"invalid"}},
		{"ovs.Bridge.Observe: ovs-ofctl fails", func() error {
			b, err := ovs.New(ovs.Config{Bridge: "breth0", Run: func(context.Context, []byte, ...string) ([]byte, error) {
				return nil, errors.New("exit status 1")
			}})
			if err != nil {
				return nil
			}
			_, err = b.Observe(ctx)
			return err
		}, []string{"refused"}},
		{"ovs.Bridge.Observe: a dumped flow without actions", func() error {
			b, _ := ovs.New(ovs.Config{Bridge: "breth0", Run: func(context.Context, []byte, ...string) ([]byte, error) {
				return []byte("cookie=0xdeff105, table=0, priority=10,ip\n"), nil
			}})
			_, err := b.Observe(ctx)
			return err
		}, []string{"refused"}},
		{"kernel.Apply: a management port that does not exist", func() error {
			_, err := kernel.New(h).Apply(vrf.State{Links: []vrf.Link{{Kind: vrf.LinkManagementPort, Name: "udnkit-none0"}}})
			return err
		}, []string{"not found"}},
		{"kernel.ApplyIsolation: the kernel refuses", func() error {
			_, err := kernel.ApplyIsolation(refusing, vrf.NFT{}, nil)
			return err
		}, []string{"refused"}},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			checkClasses(t, tt.run(), tt.want)
		})
	}
}
