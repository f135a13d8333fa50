package kernel

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/google/nftables"
	"github.com/google/nftables/binaryutil"
	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"

	"github.com/udnkit/udnkit/vrf"
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
// its comment). Nothing else of the table is touched. kubeletCgroupID is
// the cgroup v2 ID (the directory's inode) of plan's kubelet cgroup, used
// when the plan has a kubelet rule. The service-marking chains and maps are
// not applied yet.
func ApplyIsolation(c *nftables.Conn, plan vrf.NFT, kubeletCgroupID uint64) (NFTResult, error) {
	var res NFTResult
	table := c.AddTable(&nftables.Table{Family: nftables.TableFamilyINet, Name: vrf.NFTTable})
	existing, err := c.GetSets(table)
	if err != nil && !isNotExist(err) {
		return res, fmt.Errorf("kernel: nftables: list sets: %w", err)
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
				return res, fmt.Errorf("kernel: nftables: set %s: %w", s.Name, err)
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
			return res, fmt.Errorf("kernel: nftables: set %s: %w", s.Name, err)
		}
		add, del := elementDiff(have, want)
		if len(add) > 0 {
			if err := c.SetAddElements(set, add); err != nil {
				return res, err
			}
		}
		if len(del) > 0 {
			if err := c.SetDeleteElements(set, del); err != nil {
				return res, err
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
			return res, fmt.Errorf("kernel: nftables: rules of %s: %w", isolationChain, err)
		}
		var have []string
		for _, r := range rules {
			have = append(have, comment(r.UserData))
		}
		if !slices.Equal(have, planned.Rules) {
			c.FlushChain(chain)
			for _, text := range planned.Rules {
				exprs, err := isolationRule(text, sets, kubeletCgroupID)
				if err != nil {
					return res, err
				}
				c.AddRule(&nftables.Rule{Table: table, Chain: chain, Exprs: exprs, UserData: userComment(text)})
			}
			res.ChainRewritten = true
		}
	}
	if err := c.Flush(); err != nil {
		return res, fmt.Errorf("kernel: nftables: apply: %w", err)
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
			return nil, fmt.Errorf("kernel: nftables: set %s: element %q: want %d parts", s.Name, e, len(types))
		}
		var key []byte
		for i, p := range parts {
			var b []byte
			switch types[i].Name {
			case nftables.TypeIPAddr.Name, nftables.TypeIP6Addr.Name:
				a, err := netip.ParseAddr(p)
				if err != nil {
					return nil, fmt.Errorf("kernel: nftables: set %s: element %q: %w", s.Name, e, err)
				}
				b = a.AsSlice()
			case nftables.TypeInetProto.Name:
				proto, ok := map[string]byte{"tcp": unix.IPPROTO_TCP, "udp": unix.IPPROTO_UDP, "sctp": unix.IPPROTO_SCTP}[p]
				if !ok {
					return nil, fmt.Errorf("kernel: nftables: set %s: element %q: protocol %q", s.Name, e, p)
				}
				b = []byte{proto}
			case nftables.TypeInetService.Name:
				port, err := strconv.ParseUint(p, 10, 16)
				if err != nil {
					return nil, fmt.Errorf("kernel: nftables: set %s: element %q: %w", s.Name, e, err)
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
func isolationRule(text string, sets map[string]*nftables.Set, cgroupID uint64) ([]expr.Any, error) {
	fam := fam4
	if strings.Contains(text, "ip6 daddr") {
		fam = fam6
	}
	setName := text[strings.Index(text, "@")+1:]
	setName = strings.Fields(setName)[0]
	set, ok := sets[setName]
	if !ok {
		return nil, fmt.Errorf("kernel: nftables: rule %q: set %s is not planned", text, setName)
	}
	nfproto := []expr.Any{
		&expr.Meta{Key: expr.MetaKeyNFPROTO, Register: reg1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: reg1, Data: []byte{fam.nfproto}},
	}
	daddr := &expr.Payload{DestRegister: reg1, Base: expr.PayloadBaseNetworkHeader, Offset: fam.daddrOff, Len: fam.addrLen}
	lookup := &expr.Lookup{SourceRegister: reg1, SetName: set.Name, SetID: set.ID}
	var out []expr.Any
	switch {
	case strings.Contains(text, "meta l4proto . th dport @"): // open ports
		next := uint32(reg32_0 + fam.addrLen/4)
		out = append(nfproto, daddr,
			&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: next},
			&expr.Payload{DestRegister: next + 1, Base: expr.PayloadBaseTransportHeader, Offset: 2, Len: 2},
			lookup)
	case strings.Contains(text, "meta l4proto icmp"): // ICMP
		out = append(nfproto, daddr, lookup,
			&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: reg1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: reg1, Data: []byte{fam.icmp}})
	case strings.HasPrefix(text, "socket cgroupv2"): // kubelet probes
		if cgroupID == 0 {
			return nil, fmt.Errorf("kernel: nftables: rule %q: the kubelet cgroup's ID is unknown", text)
		}
		id := make([]byte, 8)
		binary.NativeEndian.PutUint64(id, cgroupID)
		out = append([]expr.Any{
			&expr.Socket{Key: expr.SocketKeyCgroupv2, Level: 2, Register: reg1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: reg1, Data: id},
		}, append(nfproto, daddr, lookup)...)
	default: // the drop
		out = append(nfproto, daddr, lookup)
	}
	switch {
	case strings.HasSuffix(text, " accept"):
		out = append(out, &expr.Verdict{Kind: expr.VerdictAccept})
	case strings.HasSuffix(text, " drop"):
		out = append(out, &expr.Verdict{Kind: expr.VerdictDrop})
	default:
		return nil, fmt.Errorf("kernel: nftables: rule %q: no verdict", text)
	}
	return out, nil
}
