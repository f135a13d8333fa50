package kernel

import (
	"errors"
	"net"
	"net/netip"
	"syscall"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netlink/nl"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/vrf"
)

// ifaProto is IFA_PROTO (linux/if_addr.h, kernel 5.18): the attribute
// holding an address's protocol, which the netlink library's Addr does not
// carry; the adapter speaks it on a route netlink socket of its own.
const ifaProto = 11

// routeRequest returns a route netlink request of type typ sent on a socket
// of the adapter's namespace, and the socket to close after it.
func (k *Kernel) routeRequest(typ uint16, flags uint16) (*nl.NetlinkRequest, *nl.NetlinkSocket, error) {
	s, err := nl.GetNetlinkSocketAt(k.netns, netns.None(), unix.NETLINK_ROUTE)
	if err != nil {
		return nil, nil, sdkerr.Errorf(sdkerr.Refused, "kernel: route netlink socket: %w", err)
	}
	req := &nl.NetlinkRequest{
		NlMsghdr: unix.NlMsghdr{Len: unix.SizeofNlMsghdr, Type: typ, Flags: unix.NLM_F_REQUEST | flags},
		Sockets:  map[int]*nl.SocketHandle{unix.NETLINK_ROUTE: {Socket: s}},
	}
	return req, s, nil
}

// listAddresses returns the addresses of protocol vrf.AddressProtocol on
// the device of index dev, named by names (link names by index).
func (k *Kernel) listAddresses(dev int, names map[int]string) ([]vrf.Address, error) {
	req, s, err := k.routeRequest(unix.RTM_GETADDR, unix.NLM_F_DUMP)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	req.AddData(nl.NewIfAddrmsg(unix.AF_UNSPEC))
	msgs, err := req.Execute(unix.NETLINK_ROUTE, unix.RTM_NEWADDR)
	if err != nil {
		return nil, sdkerr.Errorf(sdkerr.Refused, "kernel: list addresses: %w", err)
	}
	var out []vrf.Address
	for _, m := range msgs {
		if a, ok := ownAddress(m, names); ok && int(nl.DeserializeIfAddrmsg(m).Index) == dev {
			out = append(out, a)
		}
	}
	return out, nil
}

// ownAddress decodes one RTM_NEWADDR message: the address, when its
// protocol is vrf.AddressProtocol.
func ownAddress(m []byte, names map[int]string) (vrf.Address, bool) {
	if len(m) < unix.SizeofIfAddrmsg {
		return vrf.Address{}, false
	}
	msg := nl.DeserializeIfAddrmsg(m)
	attrs, err := nl.ParseRouteAttr(m[msg.Len():])
	if err != nil {
		return vrf.Address{}, false
	}
	var proto int
	var local, address []byte
	for _, a := range attrs {
		switch a.Attr.Type {
		case ifaProto:
			if len(a.Value) > 0 {
				proto = int(a.Value[0])
			}
		case unix.IFA_LOCAL:
			local = a.Value
		case unix.IFA_ADDRESS:
			address = a.Value
		}
	}
	if proto != vrf.AddressProtocol {
		return vrf.Address{}, false
	}
	if local == nil {
		local = address
	}
	ip, ok := netip.AddrFromSlice(local)
	if !ok || int(msg.Prefixlen) != ip.BitLen() {
		// Not an address the SDK writes (not full length): not reported,
		// so neither deleted nor taken for the plan's; planned, the
		// full-length one is added beside it (IPv4) or refused as existing
		// (IPv6, whose addresses the kernel keys without their length).
		return vrf.Address{}, false
	}
	return vrf.Address{Dev: names[int(msg.Index)], Addr: ip}, true
}

// addAddress puts a on its device, full length, scope global, protocol
// vrf.AddressProtocol (IPv6 without duplicate address detection). An
// address that is there already without the SDK's protocol is another
// owner's: refused, not taken.
func (k *Kernel) addAddress(a vrf.Address) error {
	link, err := k.h.LinkByName(a.Dev)
	if err != nil {
		return sdkerr.Errorf(sdkerr.NotFound, "kernel: address %s: device: %w", a, err)
	}
	req, s, err := k.routeRequest(unix.RTM_NEWADDR, unix.NLM_F_CREATE|unix.NLM_F_EXCL|unix.NLM_F_ACK)
	if err != nil {
		return err
	}
	defer s.Close()
	family := unix.AF_INET
	if a.Addr.Is6() {
		family = unix.AF_INET6
	}
	msg := nl.NewIfAddrmsg(family)
	msg.Index = uint32(link.Attrs().Index)
	msg.Prefixlen = uint8(a.Addr.BitLen())
	msg.Scope = unix.RT_SCOPE_UNIVERSE
	req.AddData(msg)
	b := a.Addr.AsSlice()
	req.AddData(nl.NewRtAttr(unix.IFA_LOCAL, b))
	req.AddData(nl.NewRtAttr(unix.IFA_ADDRESS, b))
	if a.Addr.Is6() {
		req.AddData(nl.NewRtAttr(unix.IFA_FLAGS, nl.Uint32Attr(unix.IFA_F_NODAD)))
	}
	req.AddData(nl.NewRtAttr(ifaProto, []byte{vrf.AddressProtocol}))
	if _, err := req.Execute(unix.NETLINK_ROUTE, 0); err != nil {
		if errors.Is(err, syscall.EEXIST) {
			return sdkerr.Errorf(sdkerr.Conflict, "kernel: address %s: %w: it exists without protocol %d (another owner's): not taken", a, err, vrf.AddressProtocol)
		}
		return sdkerr.Errorf(sdkerr.Refused, "kernel: address %s: %w", a, err)
	}
	return nil
}

// deleteAddress removes a (one of the SDK's, as Observe read it).
func (k *Kernel) deleteAddress(a vrf.Address) error {
	link, err := k.h.LinkByName(a.Dev)
	if err != nil {
		return nil // gone with its device
	}
	ad := &netlink.Addr{IPNet: &net.IPNet{IP: a.Addr.AsSlice(), Mask: net.CIDRMask(a.Addr.BitLen(), a.Addr.BitLen())}}
	if err := k.h.AddrDel(link, ad); err != nil && !errors.Is(err, syscall.EADDRNOTAVAIL) && !errors.Is(err, syscall.ENOENT) {
		return sdkerr.Errorf(sdkerr.Refused, "kernel: delete address %s: %w", a, err)
	}
	return nil
}
