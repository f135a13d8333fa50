package kernel

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/nftables"
	"github.com/google/nftables/binaryutil"
	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"

	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/vrf"
)

// The SDK's chains besides the planned ones: the marking chains of
// networks no longer planned are found by this prefix and deleted, but
// only those that carry the SDK's own rule (ownedMarkChain): the name
// alone does not make a chain the SDK's.
const markChainPrefix = "udn-mark-0x"

// ownedMarkChain reports whether the unplanned chain c, holding rules, is
// a marking chain the SDK wrote: a regular chain named after a packet mark
// whose rules are all the SDK's rule setting that mark, recognised by the
// comment the SDK writes with it. A chain of that name written by anyone
// else (another comment, no comment, other rules) is left alone.
func ownedMarkChain(c *nftables.Chain, rules []*nftables.Rule) bool {
	if c.Hooknum != nil || len(rules) == 0 {
		return false
	}
	mark, err := strconv.ParseUint(strings.TrimPrefix(c.Name, markChainPrefix), 16, 32)
	if err != nil || vrf.MarkChainName(int(mark)-vrf.PktMarkBase) != c.Name {
		return false
	}
	want := ruleComment(vrf.NFTRule{SetMark: uint32(mark)}, 0)
	for _, r := range rules {
		if comment(r.UserData) != want {
			return false
		}
	}
	return true
}

// maxRuleComment bounds the comment (nftables user data) each rule
// carries: nft's 128-byte comment limit, its terminating NUL included.
const maxRuleComment = 127

// ruleComment is the comment a rule is written with and recognised by:
// its nft text (quotes made single, so that `nft list ruleset` output
// loads again) and, for a cgroup match, the cgroup ID it was resolved to
// (a kubelet restart gives the cgroup a new ID: the rule is rewritten).
// Longer than maxRuleComment bytes, it is cut and ends with a digest of
// the whole, so that two rules never share a comment.
func ruleComment(r vrf.NFTRule, cgroupID uint64) string {
	s := strings.ReplaceAll(r.String(), `"`, "'")
	if r.Cgroup != "" {
		s += " cgroupid " + strconv.FormatUint(cgroupID, 10)
	}
	if len(s) <= maxRuleComment {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	suffix := " #" + hex.EncodeToString(sum[:8])
	n := maxRuleComment - len(suffix)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + suffix
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

func isNotExist(err error) bool {
	return err != nil && (errors.Is(err, unix.ENOENT) || strings.Contains(err.Error(), "no such file") || strings.Contains(err.Error(), "not exist"))
}

var (
	toNFTType = map[vrf.DataType]nftables.SetDatatype{
		vrf.TypeIPv4Addr: nftables.TypeIPAddr, vrf.TypeIPv6Addr: nftables.TypeIP6Addr,
		vrf.TypeInetProto: nftables.TypeInetProto, vrf.TypeInetService: nftables.TypeInetService,
	}
	fromNFTName = map[string]vrf.DataType{
		nftables.TypeIPAddr.Name: vrf.TypeIPv4Addr, nftables.TypeIP6Addr.Name: vrf.TypeIPv6Addr,
		nftables.TypeInetProto.Name: vrf.TypeInetProto, nftables.TypeInetService.Name: vrf.TypeInetService,
	}
	protoNumber = map[vrf.Protocol]byte{vrf.TCP: unix.IPPROTO_TCP, vrf.UDP: unix.IPPROTO_UDP, vrf.SCTP: unix.IPPROTO_SCTP}
)

// newSet returns the google/nftables set of s (not yet added).
func newSet(t *nftables.Table, s vrf.Set) (*nftables.Set, error) {
	set := &nftables.Set{Table: t, Name: s.Name, Comment: s.Comment}
	var types []nftables.SetDatatype
	for _, k := range s.Key {
		nt, ok := toNFTType[k]
		if !ok {
			return nil, sdkerr.Errorf(sdkerr.Invalid, "kernel: nftables: set %s: key type %s", s.Name, k)
		}
		types = append(types, nt)
	}
	switch len(types) {
	case 0:
		return nil, sdkerr.Errorf(sdkerr.Invalid, "kernel: nftables: set %s: no key type", s.Name)
	case 1:
		set.KeyType = types[0]
	default:
		ct, err := nftables.ConcatSetType(types...)
		if err != nil {
			return nil, sdkerr.Errorf(sdkerr.Invalid, "kernel: nftables: set %s: %w", s.Name, err)
		}
		set.KeyType, set.Concatenation = ct, true
	}
	if s.Map {
		set.IsMap, set.DataType = true, nftables.TypeVerdict
	}
	return set, nil
}

// encode turns typed elements into keys of a set of key types key: each
// part of a concatenation padded to 4 bytes, a map element's verdict a
// jump.
func encode(name string, setKey []vrf.DataType, els []vrf.Element) ([]nftables.SetElement, error) {
	var out []nftables.SetElement
	for _, e := range els {
		key := setKey
		if key == nil {
			key = elementKey(e)
		}
		var k []byte
		for _, t := range key {
			var b []byte
			switch t {
			case vrf.TypeIPv4Addr, vrf.TypeIPv6Addr:
				if !e.Addr.IsValid() || e.Addr.Is4() != (t == vrf.TypeIPv4Addr) {
					return nil, sdkerr.Errorf(sdkerr.Invalid, "kernel: nftables: set %s: element %s: address of the wrong family", name, e.String(key))
				}
				b = e.Addr.AsSlice()
			case vrf.TypeInetProto:
				p, ok := protoNumber[e.Protocol]
				if !ok {
					return nil, sdkerr.Errorf(sdkerr.Invalid, "kernel: nftables: set %s: element %s: protocol %q", name, e.String(key), e.Protocol)
				}
				b = []byte{p}
			case vrf.TypeInetService:
				b = binaryutil.BigEndian.PutUint16(e.Port)
			}
			if len(key) > 1 {
				for len(b)%4 != 0 {
					b = append(b, 0)
				}
			}
			k = append(k, b...)
		}
		el := nftables.SetElement{Key: k}
		if e.Jump != "" {
			el.VerdictData = &expr.Verdict{Kind: expr.VerdictJump, Chain: e.Jump}
		}
		out = append(out, el)
	}
	return out, nil
}

// elementKey is the key type an element's parts make, for a set whose
// key type did not read back (a verdict map: see observeNFT).
func elementKey(e vrf.Element) []vrf.DataType {
	var key []vrf.DataType
	switch {
	case e.Addr.Is4():
		key = append(key, vrf.TypeIPv4Addr)
	case e.Addr.Is6():
		key = append(key, vrf.TypeIPv6Addr)
	}
	if e.Protocol != "" || e.Port != 0 {
		key = append(key, vrf.TypeInetProto, vrf.TypeInetService)
	}
	return key
}

// decode is encode's inverse for the elements read back from the kernel.
func decode(key []vrf.DataType, els []nftables.SetElement) ([]vrf.Element, error) {
	var out []vrf.Element
	for _, el := range els {
		var e vrf.Element
		b := el.Key
		for _, t := range key {
			n := map[vrf.DataType]int{vrf.TypeIPv4Addr: 4, vrf.TypeIPv6Addr: 16, vrf.TypeInetProto: 1, vrf.TypeInetService: 2}[t]
			if len(b) < n {
				return nil, sdkerr.Errorf(sdkerr.Conflict, "element key %x: too short for %v", el.Key, key)
			}
			switch t {
			case vrf.TypeIPv4Addr, vrf.TypeIPv6Addr:
				e.Addr, _ = netip.AddrFromSlice(b[:n])
			case vrf.TypeInetProto:
				for p, num := range protoNumber {
					if num == b[0] {
						e.Protocol = p
					}
				}
				if e.Protocol == "" {
					e.Protocol = vrf.Protocol("proto-" + strconv.Itoa(int(b[0])))
				}
			case vrf.TypeInetService:
				e.Port = binary.BigEndian.Uint16(b[:2])
			}
			if len(key) > 1 {
				n = (n + 3) &^ 3
			}
			b = b[min(n, len(b)):]
		}
		if len(el.Val) > 0 {
			e.Jump = verdictChain(el.Val)
			if e.Jump == "" {
				e.Jump = "?"
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// verdictChain reads the chain of a jump verdict the library leaves raw:
// netlink attributes (length, type, value, padded to 4 bytes)
// NFTA_VERDICT_CODE and NFTA_VERDICT_CHAIN.
func verdictChain(val []byte) string {
	for len(val) >= 4 {
		l, t := int(binary.NativeEndian.Uint16(val)), binary.NativeEndian.Uint16(val[2:])&^0xc000
		if l < 4 || l > len(val) {
			return ""
		}
		if t == unix.NFTA_VERDICT_CHAIN {
			return strings.TrimRight(string(val[4:l]), "\x00")
		}
		val = val[min((l+3)&^3, len(val)):]
	}
	return ""
}

// Kernel registers: reg 1 holds up to 16 bytes and is 32-bit registers 8
// to 11; a concatenation's parts go to consecutive 32-bit registers.
const (
	reg1    = 1
	reg32_0 = 8
)

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

// exprs builds a rule's expressions from its typed value, in the order
// nft would (vrf.NFTRule.String). cgroupID is the rule's resolved cgroup.
func exprs(r vrf.NFTRule, cgroupID uint64) ([]expr.Any, error) {
	var out []expr.Any
	fam := fam4
	if r.IPv6 {
		fam = fam6
	}
	if r.Cgroup != "" {
		b := make([]byte, 8)
		binary.NativeEndian.PutUint64(b, cgroupID)
		out = append(out, &expr.Socket{Key: expr.SocketKeyCgroupv2, Level: uint32(vrf.CgroupLevel(r.Cgroup)), Register: reg1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: reg1, Data: b})
	}
	if r.NotIIFName != "" {
		name := make([]byte, 16)
		copy(name, r.NotIIFName)
		out = append(out, &expr.Meta{Key: expr.MetaKeyIIFNAME, Register: reg1},
			&expr.Cmp{Op: expr.CmpOpNeq, Register: reg1, Data: name})
	}
	if r.LocalDst {
		local := make([]byte, 4)
		binary.NativeEndian.PutUint32(local, unix.RTN_LOCAL)
		out = append(out, &expr.Fib{Register: reg1, FlagDADDR: true, ResultADDRTYPE: true},
			&expr.Cmp{Op: expr.CmpOpEq, Register: reg1, Data: local})
	}
	daddr := &expr.Payload{DestRegister: reg1, Base: expr.PayloadBaseNetworkHeader, Offset: fam.daddrOff, Len: fam.addrLen}
	usesFamily := r.DAddr.IsValid() || r.ICMP || r.Lookup.Key == vrf.LookupDAddr || r.Lookup.Key == vrf.LookupDAddrProtoPort
	if usesFamily {
		out = append(out, &expr.Meta{Key: expr.MetaKeyNFPROTO, Register: reg1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: reg1, Data: []byte{fam.nfproto}})
	}
	if p := r.DAddr; p.IsValid() {
		out = append(out, daddr)
		if p.Bits() < p.Addr().BitLen() {
			out = append(out, &expr.Bitwise{SourceRegister: reg1, DestRegister: reg1, Len: fam.addrLen,
				Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen()), Xor: make([]byte, fam.addrLen)})
		}
		out = append(out, &expr.Cmp{Op: expr.CmpOpEq, Register: reg1, Data: p.Masked().Addr().AsSlice()})
	}
	if l := r.Lookup; l.Set != "" {
		port := func(reg uint32) *expr.Payload {
			return &expr.Payload{DestRegister: reg, Base: expr.PayloadBaseTransportHeader, Offset: 2, Len: 2}
		}
		switch l.Key {
		case vrf.LookupDAddr:
			out = append(out, daddr)
		case vrf.LookupDAddrProtoPort:
			next := reg32_0 + fam.addrLen/4
			out = append(out, daddr, &expr.Meta{Key: expr.MetaKeyL4PROTO, Register: next}, port(next+1))
		case vrf.LookupProtoPort:
			out = append(out, &expr.Meta{Key: expr.MetaKeyL4PROTO, Register: reg1}, port(reg32_0+1))
		default:
			return nil, sdkerr.Errorf(sdkerr.Invalid, "lookup key %d", l.Key)
		}
		lookup := &expr.Lookup{SourceRegister: reg1, SetName: l.Set}
		if l.VMap {
			lookup.IsDestRegSet, lookup.DestRegister = true, 0 // the verdict register
		}
		out = append(out, lookup)
	}
	if r.ICMP {
		out = append(out, &expr.Meta{Key: expr.MetaKeyL4PROTO, Register: reg1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: reg1, Data: []byte{fam.icmp}})
	}
	if r.SetMark != 0 {
		v := make([]byte, 4)
		binary.NativeEndian.PutUint32(v, r.SetMark)
		out = append(out, &expr.Immediate{Register: reg1, Data: v}, &expr.Meta{Key: expr.MetaKeyMARK, SourceRegister: true, Register: reg1})
	}
	switch r.Verdict.Kind {
	case vrf.VerdictAccept:
		out = append(out, &expr.Verdict{Kind: expr.VerdictAccept})
	case vrf.VerdictDrop:
		out = append(out, &expr.Verdict{Kind: expr.VerdictDrop})
	case vrf.VerdictJump:
		out = append(out, &expr.Verdict{Kind: expr.VerdictJump, Chain: r.Verdict.Chain})
	}
	return out, nil
}

// CgroupID returns a resolver of cgroup v2 paths below root (a cgroup2
// mount, "/sys/fs/cgroup" on most nodes): a cgroup's ID is its directory's
// inode number. Paths are relative to root; one that would leave it is
// refused.
func CgroupID(root string) func(string) (uint64, error) {
	return func(path string) (uint64, error) {
		rel := filepath.Clean("/" + path)
		if rel != "/"+strings.Trim(path, "/") {
			return 0, sdkerr.Errorf(sdkerr.Invalid, "cgroup %q is not a clean path below %s", path, root)
		}
		var st unix.Stat_t
		if err := unix.Stat(filepath.Join(root, rel), &st); err != nil {
			return 0, sdkerr.Errorf(sdkerr.NotFound, "%w", err)
		}
		return st.Ino, nil
	}
}

// hookOf and priorityOf translate base chains read back.
func hookOf(c *nftables.Chain) (vrf.Hook, vrf.ChainPriority) {
	if c.Hooknum == nil {
		return "", ""
	}
	var h vrf.Hook
	switch *c.Hooknum {
	case *nftables.ChainHookOutput:
		h = vrf.HookOutput
	case *nftables.ChainHookPrerouting:
		h = vrf.HookPrerouting
	default:
		h = vrf.Hook("hook-" + strconv.Itoa(int(*c.Hooknum)))
	}
	p := vrf.ChainPriority("?")
	if c.Priority != nil {
		switch *c.Priority {
		case *nftables.ChainPriorityFilter:
			p = vrf.PriorityFilter
		case *nftables.ChainPriorityMangle:
			p = vrf.PriorityMangle
		default:
			p = vrf.ChainPriority(strconv.Itoa(int(*c.Priority)))
		}
	}
	return h, p
}

func nftHook(h vrf.Hook) *nftables.ChainHook {
	if h == vrf.HookPrerouting {
		return nftables.ChainHookPrerouting
	}
	return nftables.ChainHookOutput
}

func nftPriority(p vrf.ChainPriority) *nftables.ChainPriority {
	if p == vrf.PriorityMangle {
		return nftables.ChainPriorityMangle
	}
	return nftables.ChainPriorityFilter
}

// keyOf reads a set's key type back: the parts of its (concatenated)
// type's name.
func keyOf(s *nftables.Set) []vrf.DataType {
	var key []vrf.DataType
	for _, part := range strings.Split(s.KeyType.Name, " . ") {
		t, ok := fromNFTName[part]
		if !ok {
			return nil
		}
		key = append(key, t)
	}
	return key
}

// observeNFT reads the SDK's objects of table inet vrf.NFTTable that scope
// names: its sets and maps (elements decoded), its chains and every
// marking chain (udn-mark-0x...), rules given as the scope's rule whose
// comment they carry, or with their comment when none does.
func (k *Kernel) observeNFT(scope vrf.NFT) (vrf.NFT, error) {
	var out vrf.NFT
	table := &nftables.Table{Family: nftables.TableFamilyINet, Name: vrf.NFTTable}
	sets, err := k.nft.GetSets(table)
	if err != nil {
		if isNotExist(err) {
			return out, nil
		}
		return out, sdkerr.Errorf(sdkerr.Refused, "kernel: nftables: list sets: %w", err)
	}
	wanted := map[string]vrf.Set{}
	for _, s := range scope.Sets {
		wanted[s.Name] = s
	}
	for _, s := range sets {
		want, ok := wanted[s.Name]
		if !ok {
			continue
		}
		got := vrf.Set{Name: s.Name, Key: keyOf(s), Map: s.IsMap}
		if s.IsMap && s.KeyType.Name == nftables.TypeVerdict.Name {
			// google/nftables v0.3.0 reads a verdict map's data type into
			// its KeyType: the key type is lost. The planned one is taken;
			// decode checks the elements' keys fit it.
			got.Key = want.Key
		}
		els, err := k.nft.GetSetElements(s)
		if err != nil {
			return out, sdkerr.Errorf(sdkerr.Refused, "kernel: nftables: set %s: %w", s.Name, err)
		}
		if got.Elements, err = decode(got.Key, els); err != nil {
			return out, fmt.Errorf("kernel: nftables: set %s: %w", s.Name, err)
		}
		slices.SortFunc(got.Elements, compareElements)
		out.Sets = append(out.Sets, got)
	}
	planned := map[string]vrf.Chain{}
	for _, c := range scope.Chains {
		planned[c.Name] = c
	}
	chains, err := k.nft.ListChainsOfTableFamily(nftables.TableFamilyINet)
	if err != nil {
		return out, sdkerr.Errorf(sdkerr.Refused, "kernel: nftables: list chains: %w", err)
	}
	for _, c := range chains {
		if c.Table.Name != vrf.NFTTable {
			continue
		}
		p, ok := planned[c.Name]
		if !ok && !strings.HasPrefix(c.Name, markChainPrefix) {
			continue
		}
		rules, err := k.nft.GetRules(table, c)
		if err != nil && !isNotExist(err) {
			return out, sdkerr.Errorf(sdkerr.Refused, "kernel: nftables: rules of %s: %w", c.Name, err)
		}
		if !ok && !ownedMarkChain(c, rules) {
			continue
		}
		got := vrf.Chain{Name: c.Name}
		got.Hook, got.Priority = hookOf(c)
		byComment := map[string]vrf.NFTRule{}
		for _, r := range p.Rules {
			byComment[ruleComment(r, k.cgroupOrZero(r.Cgroup))] = r
		}
		for i, r := range rules {
			text := comment(r.UserData)
			if pr, ok := byComment[text]; ok && text != "" {
				got.Rules = append(got.Rules, pr)
				continue
			}
			if text == "" {
				text = "rule " + strconv.Itoa(i) + " without a comment"
			}
			got.Rules = append(got.Rules, vrf.NFTRule{Comment: text})
		}
		out.Chains = append(out.Chains, got)
	}
	slices.SortFunc(out.Sets, func(a, b vrf.Set) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(out.Chains, func(a, b vrf.Chain) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func compareElements(a, b vrf.Element) int {
	if c := a.Addr.Compare(b.Addr); c != 0 {
		return c
	}
	if c := strings.Compare(string(a.Protocol), string(b.Protocol)); c != 0 {
		return c
	}
	if a.Port != b.Port {
		return int(a.Port) - int(b.Port)
	}
	return strings.Compare(a.Jump, b.Jump)
}

func (k *Kernel) cgroupOrZero(path string) uint64 {
	if path == "" {
		return 0
	}
	id, err := k.cgroupID(path)
	if err != nil {
		return 0
	}
	return id
}

// applyNFT writes the nftables part of c in one batch (one Flush): sets
// created, chains created or flushed, elements deleted then added, the
// chains' rules written, then chains and sets deleted.
func (k *Kernel) applyNFT(c vrf.Changes, res *Result) error {
	nftChanges := len(c.AddSets) + len(c.DeleteSets) + len(c.AddChains) + len(c.DeleteChains) + len(c.AddElements) + len(c.DeleteElements)
	if nftChanges == 0 {
		return nil
	}
	table := k.nft.AddTable(&nftables.Table{Family: nftables.TableFamilyINet, Name: vrf.NFTTable})
	existing, err := k.nft.GetSets(table)
	if err != nil && !isNotExist(err) {
		return sdkerr.Errorf(sdkerr.Refused, "kernel: nftables: list sets: %w", err)
	}
	sets := map[string]*nftables.Set{}
	keys := map[string][]vrf.DataType{}
	for _, s := range existing {
		sets[s.Name], keys[s.Name] = s, keyOf(s)
	}
	chains, err := k.nft.ListChainsOfTableFamily(nftables.TableFamilyINet)
	if err != nil {
		return sdkerr.Errorf(sdkerr.Refused, "kernel: nftables: list chains: %w", err)
	}
	haveChain := map[string]bool{}
	for _, ch := range chains {
		if ch.Table.Name == vrf.NFTTable {
			haveChain[ch.Name] = true
		}
	}
	added, filled := map[string]bool{}, map[string]bool{}
	for _, s := range c.AddSets {
		if old, ok := sets[s.Name]; ok { // of another type: created anew
			k.nft.DelSet(old)
		}
		set, err := newSet(table, s)
		if err != nil {
			return err
		}
		// A map's elements jump to chains that may be created below: they
		// are added after the chains.
		var els []nftables.SetElement
		if !s.Map {
			if els, err = encode(s.Name, s.Key, c.AddElements[s.Name]); err != nil {
				return err
			}
			filled[s.Name] = true
		}
		if err := k.nft.AddSet(set, els); err != nil {
			return sdkerr.Errorf(sdkerr.Refused, "kernel: nftables: set %s: %w", s.Name, err)
		}
		sets[s.Name], keys[s.Name], added[s.Name] = set, s.Key, true
		res.SetsCreated++
		res.ElementsAdded += len(els)
	}
	policy := nftables.ChainPolicyAccept
	written := map[string]*nftables.Chain{}
	for _, ch := range c.AddChains {
		nc := &nftables.Chain{Name: ch.Name, Table: table}
		if ch.Hook != "" {
			nc.Type, nc.Hooknum, nc.Priority, nc.Policy = nftables.ChainTypeFilter, nftHook(ch.Hook), nftPriority(ch.Priority), &policy
		}
		nc = k.nft.AddChain(nc)
		if haveChain[ch.Name] {
			k.nft.FlushChain(nc)
		}
		written[ch.Name] = nc
	}
	for _, name := range sortedKeys(c.DeleteElements) {
		set, ok := sets[name]
		if !ok {
			continue // gone already
		}
		els, err := encode(name, keys[name], c.DeleteElements[name])
		if err != nil {
			return err
		}
		for i := range els {
			els[i].VerdictData = nil
		}
		if err := k.nft.SetDeleteElements(set, els); err != nil {
			return sdkerr.Errorf(sdkerr.Refused, "kernel: nftables: set %s: %w", name, err)
		}
		res.ElementsDeleted += len(els)
	}
	for _, name := range sortedKeys(c.AddElements) {
		if filled[name] {
			continue
		}
		set, ok := sets[name]
		if !ok {
			return fmt.Errorf("kernel: nftables: set %s: %w: elements added to a set that does not exist", name, vrf.ErrInvalid)
		}
		els, err := encode(name, keys[name], c.AddElements[name])
		if err != nil {
			return err
		}
		if err := k.nft.SetAddElements(set, els); err != nil {
			return sdkerr.Errorf(sdkerr.Refused, "kernel: nftables: set %s: %w", name, err)
		}
		res.ElementsAdded += len(els)
	}
	for _, ch := range c.AddChains {
		for i, r := range ch.Rules {
			var id uint64
			if r.Cgroup != "" {
				if id, err = k.cgroupID(r.Cgroup); err != nil {
					err = fmt.Errorf("kernel: nftables: chain %s: rule %d: cgroup %q: %w", ch.Name, i, r.Cgroup, err)
					if sdkerr.Of(err) == nil { // a resolver of the caller's
						err = sdkerr.With(sdkerr.NotFound, err)
					}
					return err
				}
			}
			ex, err := exprs(r, id)
			if err != nil {
				return fmt.Errorf("kernel: nftables: chain %s: rule %d: %w", ch.Name, i, err)
			}
			for _, e := range ex {
				if l, ok := e.(*expr.Lookup); ok && sets[l.SetName] != nil {
					l.SetID = sets[l.SetName].ID // a set of this batch is known by its ID
				}
			}
			k.nft.AddRule(&nftables.Rule{Table: table, Chain: written[ch.Name], Exprs: ex, UserData: userComment(ruleComment(r, id))})
		}
		res.ChainsWritten++
	}
	for _, ch := range c.DeleteChains {
		if !haveChain[ch.Name] {
			continue
		}
		nc := &nftables.Chain{Name: ch.Name, Table: table}
		k.nft.FlushChain(nc)
		k.nft.DelChain(nc)
		res.ChainsDeleted++
	}
	for _, s := range c.DeleteSets {
		if set, ok := sets[s.Name]; ok && !added[s.Name] {
			k.nft.DelSet(set)
			res.SetsDeleted++
		}
	}
	if err := k.nft.Flush(); err != nil {
		return sdkerr.Errorf(sdkerr.Refused, "kernel: nftables: apply: %w", err)
	}
	res.Batches++
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
