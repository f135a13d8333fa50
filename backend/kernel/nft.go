package kernel

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/google/nftables"
	"github.com/google/nftables/binaryutil"
	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"

	"github.com/udnkit/udnkit/vrf"

	"github.com/udnkit/udnkit/internal/sdkerr"
)

// NFTResult counts what ApplyIsolation changed.
type NFTResult struct {
	SetsCreated, ElementsAdded, ElementsDeleted int
	// ChainRewritten is set when the isolation chain's rules were
	// (re)written.
	ChainRewritten bool
}

// isolationSets are the sets of host isolation, by name: their key types.
var isolationSets = map[string][]nftables.SetDatatype{
	"udn-open-ports-v4":      {nftables.TypeIPAddr, nftables.TypeInetProto, nftables.TypeInetService},
	"udn-open-ports-v6":      {nftables.TypeIP6Addr, nftables.TypeInetProto, nftables.TypeInetService},
	"udn-open-ports-icmp-v4": {nftables.TypeIPAddr},
	"udn-open-ports-icmp-v6": {nftables.TypeIP6Addr},
	"udn-pod-default-ips-v4": {nftables.TypeIPAddr},
	"udn-pod-default-ips-v6": {nftables.TypeIP6Addr},
}

const isolationChain = "udn-isolation"

// ApplyIsolation makes the host-isolation part of plan (the sets above and
// the udn-isolation output chain) hold in table inet vrf.NFTTable, through
// c (nftables.New(nftables.WithNetNSFd(fd)) for a network namespace), in
// one batch: sets change element by element, the chain's rules are
// rewritten only when they differ (each rule carries its planned text as
// its comment). Nothing else of the table is touched. cgroupID resolves a
// cgroup v2 path of the plan (the kubelet's, host-networked pods') to its
// ID, the directory's inode (CgroupID does it for a cgroup2 mount); nil
// fails a plan that has cgroup rules.
func ApplyIsolation(c *nftables.Conn, plan vrf.NFT, cgroupID func(path string) (uint64, error)) (NFTResult, error) {
	var res NFTResult
	table := c.AddTable(&nftables.Table{Family: nftables.TableFamilyINet, Name: vrf.NFTTable})
	existing, err := c.GetSets(table)
	if err != nil && !isNotExist(err) {
		return res, sdkerr.Errorf(sdkerr.Refused, "kernel: nftables: list sets: %w", err)
	}
	sets := map[string]*nftables.Set{}
	for _, s := range plan.Sets {
		types, ok := isolationSets[s.Name]
		if !ok {
			continue
		}
		want, err := setKeys(s, types)
		if err != nil {
			return res, err
		}
		i := slices.IndexFunc(existing, func(e *nftables.Set) bool { return e.Name == s.Name })
		if i < 0 {
			set := newSet(table, s.Name, types)
			if err := c.AddSet(set, want); err != nil {
				return res, sdkerr.Errorf(sdkerr.Refused, "kernel: nftables: set %s: %w", s.Name, err)
			}
			res.SetsCreated++
			res.ElementsAdded += len(want)
			sets[s.Name] = set
			continue
		}
		set := existing[i]
		sets[s.Name] = set
		have, err := c.GetSetElements(set)
		if err != nil {
			return res, sdkerr.Errorf(sdkerr.Refused, "kernel: nftables: set %s: %w", s.Name, err)
		}
		add, del := elementDiff(have, want)
		if len(add) > 0 {
			if err := c.SetAddElements(set, add); err != nil {
				return res, sdkerr.Errorf(sdkerr.Refused, "kernel: nftables: set %s: %w", s.Name, err)
			}
		}
		if len(del) > 0 {
			if err := c.SetDeleteElements(set, del); err != nil {
				return res, sdkerr.Errorf(sdkerr.Refused, "kernel: nftables: set %s: %w", s.Name, err)
			}
		}
		res.ElementsAdded, res.ElementsDeleted = res.ElementsAdded+len(add), res.ElementsDeleted+len(del)
	}
	var planned *vrf.Chain
	for i := range plan.Chains {
		if plan.Chains[i].Name == isolationChain {
			planned = &plan.Chains[i]
		}
	}
	if planned != nil {
		policy := nftables.ChainPolicyAccept
		chain := c.AddChain(&nftables.Chain{Name: isolationChain, Table: table, Type: nftables.ChainTypeFilter,
			Hooknum: nftables.ChainHookOutput, Priority: nftables.ChainPriorityFilter, Policy: &policy})
		rules, err := c.GetRules(table, chain)
		if err != nil && !isNotExist(err) {
			return res, sdkerr.Errorf(sdkerr.Refused, "kernel: nftables: rules of %s: %w", isolationChain, err)
		}
		var have []string
		for _, r := range rules {
			have = append(have, comment(r.UserData))
		}
		if !slices.Equal(have, planned.Rules) {
			c.FlushChain(chain)
			for _, text := range planned.Rules {
				exprs, err := isolationRule(text, sets, cgroupID)
				if err != nil {
					return res, err
				}
				c.AddRule(&nftables.Rule{Table: table, Chain: chain, Exprs: exprs, UserData: userComment(text)})
			}
			res.ChainRewritten = true
		}
	}
	if err := c.Flush(); err != nil {
		return res, sdkerr.Errorf(sdkerr.Refused, "kernel: nftables: apply: %w", err)
	}
	return res, nil
}

func isNotExist(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "no such file") || strings.Contains(err.Error(), "not exist"))
}

func newSet(t *nftables.Table, name string, types []nftables.SetDatatype) *nftables.Set {
	s := &nftables.Set{Table: t, Name: name}
	if len(types) == 1 {
		s.KeyType = types[0]
	} else {
		s.KeyType = nftables.MustConcatSetType(types...)
		s.Concatenation = true
	}
	return s
}

// setKeys encodes a set's planned elements ("10.0.0.5" or
// "10.0.0.5 . tcp . 8080") as nftables keys: each part padded to 4 bytes.
func setKeys(s vrf.Set, types []nftables.SetDatatype) ([]nftables.SetElement, error) {
	var out []nftables.SetElement
	for _, e := range s.Elements {
		parts := strings.Split(e, " . ")
		if len(parts) != len(types) {
			return nil, sdkerr.Errorf(sdkerr.Invalid, "kernel: nftables: set %s: element %q: want %d parts", s.Name, e, len(types))
		}
		var key []byte
		for i, p := range parts {
			var b []byte
			switch types[i].Name {
			case nftables.TypeIPAddr.Name, nftables.TypeIP6Addr.Name:
				a, err := netip.ParseAddr(p)
				if err != nil {
					return nil, sdkerr.Errorf(sdkerr.Invalid, "kernel: nftables: set %s: element %q: %w", s.Name, e, err)
				}
				b = a.AsSlice()
			case nftables.TypeInetProto.Name:
				proto, ok := map[string]byte{"tcp": unix.IPPROTO_TCP, "udp": unix.IPPROTO_UDP, "sctp": unix.IPPROTO_SCTP}[p]
				if !ok {
					return nil, sdkerr.Errorf(sdkerr.Invalid, "kernel: nftables: set %s: element %q: protocol %q", s.Name, e, p)
				}
				b = []byte{proto}
			case nftables.TypeInetService.Name:
				port, err := strconv.ParseUint(p, 10, 16)
				if err != nil {
					return nil, sdkerr.Errorf(sdkerr.Invalid, "kernel: nftables: set %s: element %q: %w", s.Name, e, err)
				}
				b = binaryutil.BigEndian.PutUint16(uint16(port))
			}
			if len(types) > 1 {
				for len(b)%4 != 0 {
					b = append(b, 0)
				}
			}
			key = append(key, b...)
		}
		out = append(out, nftables.SetElement{Key: key})
	}
	return out, nil
}

func elementDiff(have, want []nftables.SetElement) (add, del []nftables.SetElement) {
	has := func(list []nftables.SetElement, k []byte) bool {
		return slices.ContainsFunc(list, func(e nftables.SetElement) bool { return bytes.Equal(e.Key, k) })
	}
	for _, w := range want {
		if !has(have, w.Key) {
			add = append(add, w)
		}
	}
	for _, h := range have {
		if !has(want, h.Key) {
			del = append(del, nftables.SetElement{Key: h.Key})
		}
	}
	return add, del
}

// Rule comments are nftables user data: a TLV of type 0 (comment) holding
// the text and a terminating NUL, as nft writes them.
func userComment(s string) []byte {
	b := append([]byte(s), 0)
	return append([]byte{0, byte(len(b))}, b...)
}

func comment(ud []byte) string {
	for len(ud) >= 2 {
		t, l := ud[0], int(ud[1])
		if len(ud) < 2+l {
			break
		}
		if t == 0 {
			return strings.TrimRight(string(ud[2:2+l]), "\x00")
		}
		ud = ud[2+l:]
	}
	return ""
}

// Kernel registers: reg 1 holds up to 16 bytes and is 32-bit registers 8
// to 11; a concatenation's parts go to consecutive 32-bit registers.
const (
	reg1    = 1
	reg32_0 = 8
)

// family is what a rule of one IP family needs.
type ruleFamily struct {
	nfproto  byte
	daddrOff uint32
	addrLen  uint32
	icmp     byte
}

var (
	fam4 = ruleFamily{unix.NFPROTO_IPV4, 16, 4, unix.IPPROTO_ICMP}
	fam6 = ruleFamily{unix.NFPROTO_IPV6, 24, 16, unix.IPPROTO_ICMPV6}
)

// isolationRule builds the expressions of one of the udn-isolation rules
// vrf plans (a closed set of shapes).
func isolationRule(text string, sets map[string]*nftables.Set, cgroupID func(string) (uint64, error)) ([]expr.Any, error) {
	var prefix []expr.Any
	rest := text
	if strings.HasPrefix(text, "socket cgroupv2 level ") {
		var level uint32
		var path string
		if _, err := fmt.Sscanf(text, "socket cgroupv2 level %d %q", &level, &path); err != nil {
			return nil, sdkerr.Errorf(sdkerr.Invalid, "kernel: nftables: rule %q: %w", text, err)
		}
		if cgroupID == nil {
			return nil, sdkerr.Errorf(sdkerr.Invalid, "kernel: nftables: rule %q: no cgroup ID resolver", text)
		}
		id, err := cgroupID(path)
		if err != nil {
			return nil, sdkerr.Errorf(sdkerr.NotFound, "kernel: nftables: rule %q: cgroup %s: %w", text, path, err)
		}
		b := make([]byte, 8)
		binary.NativeEndian.PutUint64(b, id)
		prefix = []expr.Any{&expr.Socket{Key: expr.SocketKeyCgroupv2, Level: level, Register: reg1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: reg1, Data: b}}
		rest = text[strings.Index(text, strconv.Quote(path))+len(strconv.Quote(path))+1:]
	}
	fam := fam4
	if strings.HasPrefix(rest, "ip6 daddr") {
		fam = fam6
	}
	nfproto := []expr.Any{
		&expr.Meta{Key: expr.MetaKeyNFPROTO, Register: reg1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: reg1, Data: []byte{fam.nfproto}},
	}
	daddr := &expr.Payload{DestRegister: reg1, Base: expr.PayloadBaseNetworkHeader, Offset: fam.daddrOff, Len: fam.addrLen}
	out := append(prefix, nfproto...)
	fields := strings.Fields(rest)
	if len(fields) < 3 {
		return nil, sdkerr.Errorf(sdkerr.Invalid, "kernel: nftables: rule %q: unknown shape", text)
	}
	target := fields[2]
	if i := strings.Index(rest, "@"); i >= 0 {
		target = strings.Fields(rest[i:])[0]
	}
	if !strings.HasPrefix(target, "@") { // an address or a prefix
		p, err := netip.ParsePrefix(target)
		if err != nil {
			a, aerr := netip.ParseAddr(target)
			if aerr != nil {
				return nil, sdkerr.Errorf(sdkerr.Invalid, "kernel: nftables: rule %q: %v", text, err)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		out = append(out, daddr)
		if p.Bits() < p.Addr().BitLen() {
			mask := net.CIDRMask(p.Bits(), p.Addr().BitLen())
			out = append(out, &expr.Bitwise{SourceRegister: reg1, DestRegister: reg1, Len: fam.addrLen, Mask: mask, Xor: make([]byte, fam.addrLen)})
		}
		out = append(out, &expr.Cmp{Op: expr.CmpOpEq, Register: reg1, Data: p.Masked().Addr().AsSlice()})
	} else {
		set, ok := sets[strings.TrimPrefix(target, "@")]
		if !ok {
			return nil, sdkerr.Errorf(sdkerr.Invalid, "kernel: nftables: rule %q: set %s is not planned", text, target)
		}
		lookup := &expr.Lookup{SourceRegister: reg1, SetName: set.Name, SetID: set.ID}
		switch {
		case strings.Contains(rest, "meta l4proto . th dport @"): // open ports
			next := uint32(reg32_0 + fam.addrLen/4)
			out = append(out, daddr,
				&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: next},
				&expr.Payload{DestRegister: next + 1, Base: expr.PayloadBaseTransportHeader, Offset: 2, Len: 2},
				lookup)
		case strings.Contains(rest, "meta l4proto icmp"): // ICMP
			out = append(out, daddr, lookup,
				&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: reg1},
				&expr.Cmp{Op: expr.CmpOpEq, Register: reg1, Data: []byte{fam.icmp}})
		default:
			out = append(out, daddr, lookup)
		}
	}
	switch {
	case strings.HasSuffix(text, " accept"):
		out = append(out, &expr.Verdict{Kind: expr.VerdictAccept})
	case strings.HasSuffix(text, " drop"):
		out = append(out, &expr.Verdict{Kind: expr.VerdictDrop})
	default:
		return nil, sdkerr.Errorf(sdkerr.Invalid, "kernel: nftables: rule %q: no verdict", text)
	}
	return out, nil
}

// CgroupID returns a resolver of cgroup v2 paths below root (a cgroup2
// mount, "/sys/fs/cgroup" on most nodes): a cgroup's ID is its directory's
// inode number.
func CgroupID(root string) func(string) (uint64, error) {
	return func(path string) (uint64, error) {
		var st unix.Stat_t
		if err := unix.Stat(filepath.Join(root, path), &st); err != nil {
			return 0, sdkerr.Errorf(sdkerr.NotFound, "%w", err)
		}
		return st.Ino, nil
	}
}
