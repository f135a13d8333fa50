package kernel

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/nftables"
	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"

	"github.com/udnkit/udnkit/vrf"

	"github.com/udnkit/udnkit/internal/sdkerr"
)

// markMaps are the verdict maps of service marking: their key types.
var markMaps = map[string][]nftables.SetDatatype{
	"udn-mark-nodeports":       {nftables.TypeInetProto, nftables.TypeInetService},
	"udn-mark-external-ips-v4": {nftables.TypeIPAddr, nftables.TypeInetProto, nftables.TypeInetService},
	"udn-mark-external-ips-v6": {nftables.TypeIP6Addr, nftables.TypeInetProto, nftables.TypeInetService},
}

const (
	markChainPrefix = "udn-mark-0x"
	serviceMark     = "udn-service-mark"
)

// ApplyServiceMarking applies the service-marking part of plan in table
// inet vrf.NFTTable through c, in one batch: one udn-mark-0x<mark> chain per
// network setting its packet mark, the udn-mark-nodeports and
// udn-mark-external-ips verdict maps (element by element) that jump to
// them, the udn-service-mark chain that looks them up, and the prerouting
// and output base chains that jump to it. udn-mark-0x chains of networks no
// longer planned are deleted; nothing else of the table is touched.
func ApplyServiceMarking(c *nftables.Conn, plan vrf.NFT) (NFTResult, error) {
	var res NFTResult
	table := c.AddTable(&nftables.Table{Family: nftables.TableFamilyINet, Name: vrf.NFTTable})
	chains, err := c.ListChainsOfTableFamily(nftables.TableFamilyINet)
	if err != nil {
		return res, sdkerr.Errorf(sdkerr.Refused, "kernel: nftables: list chains: %w", err)
	}
	have := map[string]*nftables.Chain{}
	for _, ch := range chains {
		if ch.Table.Name == vrf.NFTTable {
			have[ch.Name] = ch
		}
	}
	planned := map[string]vrf.Chain{}
	for _, ch := range plan.Chains {
		planned[ch.Name] = ch
	}
	// Per-network marking chains first: the maps jump to them.
	for _, ch := range plan.Chains {
		if !strings.HasPrefix(ch.Name, markChainPrefix) {
			continue
		}
		mark, err := strconv.ParseUint(strings.TrimPrefix(ch.Name, markChainPrefix), 16, 32)
		if err != nil {
			return res, sdkerr.Errorf(sdkerr.Invalid, "kernel: nftables: chain %s: %w", ch.Name, err)
		}
		v := make([]byte, 4)
		binary.NativeEndian.PutUint32(v, uint32(mark))
		changed, err := syncChain(c, table, have[ch.Name], &nftables.Chain{Name: ch.Name, Table: table}, ch.Rules,
			func(string) ([]expr.Any, error) {
				return []expr.Any{&expr.Immediate{Register: reg1, Data: v}, &expr.Meta{Key: expr.MetaKeyMARK, SourceRegister: true, Register: reg1}}, nil
			})
		if err != nil {
			return res, err
		}
		res.ChainRewritten = res.ChainRewritten || changed
	}
	existing, err := c.GetSets(table)
	if err != nil && !isNotExist(err) {
		return res, sdkerr.Errorf(sdkerr.Refused, "kernel: nftables: list sets: %w", err)
	}
	maps := map[string]*nftables.Set{}
	for _, s := range plan.Sets {
		types, ok := markMaps[s.Name]
		if !ok {
			continue
		}
		want, err := mapElements(s, types)
		if err != nil {
			return res, err
		}
		i := slices.IndexFunc(existing, func(e *nftables.Set) bool { return e.Name == s.Name })
		if i < 0 {
			m := newSet(table, s.Name, types)
			m.IsMap, m.DataType = true, nftables.TypeVerdict
			if err := c.AddSet(m, want); err != nil {
				return res, sdkerr.Errorf(sdkerr.Refused, "kernel: nftables: map %s: %w", s.Name, err)
			}
			res.SetsCreated++
			res.ElementsAdded += len(want)
			maps[s.Name] = m
			continue
		}
		m := existing[i]
		maps[s.Name] = m
		cur, err := c.GetSetElements(m)
		if err != nil {
			return res, sdkerr.Errorf(sdkerr.Refused, "kernel: nftables: map %s: %w", s.Name, err)
		}
		add, del := mapDiff(cur, want)
		if len(del) > 0 {
			if err := c.SetDeleteElements(m, del); err != nil {
				return res, sdkerr.Errorf(sdkerr.Refused, "kernel: nftables: map %s: %w", s.Name, err)
			}
		}
		if len(add) > 0 {
			if err := c.SetAddElements(m, add); err != nil {
				return res, sdkerr.Errorf(sdkerr.Refused, "kernel: nftables: map %s: %w", s.Name, err)
			}
		}
		res.ElementsAdded, res.ElementsDeleted = res.ElementsAdded+len(add), res.ElementsDeleted+len(del)
	}
	if ch, ok := planned[serviceMark]; ok {
		changed, err := syncChain(c, table, have[serviceMark], &nftables.Chain{Name: serviceMark, Table: table}, ch.Rules,
			func(text string) ([]expr.Any, error) { return markRule(text, maps) })
		if err != nil {
			return res, err
		}
		res.ChainRewritten = res.ChainRewritten || changed
	}
	policy := nftables.ChainPolicyAccept
	for name, hook := range map[string]*nftables.ChainHook{"udn-service-prerouting": nftables.ChainHookPrerouting, "udn-service-output": nftables.ChainHookOutput} {
		ch, ok := planned[name]
		if !ok {
			continue
		}
		changed, err := syncChain(c, table, have[name], &nftables.Chain{Name: name, Table: table, Type: nftables.ChainTypeFilter,
			Hooknum: hook, Priority: nftables.ChainPriorityMangle, Policy: &policy}, ch.Rules, jumpRule)
		if err != nil {
			return res, err
		}
		res.ChainRewritten = res.ChainRewritten || changed
	}
	// Marking chains of networks gone, after the map elements that jumped
	// to them.
	for name, ch := range have {
		if _, ok := planned[name]; !ok && strings.HasPrefix(name, markChainPrefix) {
			c.FlushChain(ch)
			c.DelChain(ch)
			res.ChainRewritten = true
		}
	}
	if err := c.Flush(); err != nil {
		return res, sdkerr.Errorf(sdkerr.Refused, "kernel: nftables: apply: %w", err)
	}
	return res, nil
}

// syncChain adds chain when missing and rewrites its rules when their
// planned texts (kept as rule comments) differ; it reports a rewrite.
func syncChain(c *nftables.Conn, table *nftables.Table, existing, chain *nftables.Chain, rules []string,
	build func(string) ([]expr.Any, error)) (bool, error) {
	ch := c.AddChain(chain)
	if existing != nil {
		cur, err := c.GetRules(table, existing)
		if err != nil && !isNotExist(err) {
			return false, sdkerr.Errorf(sdkerr.Refused, "kernel: nftables: chain %s: %w", chain.Name, err)
		}
		var texts []string
		for _, r := range cur {
			texts = append(texts, comment(r.UserData))
		}
		if slices.Equal(texts, rules) {
			return false, nil
		}
		c.FlushChain(ch)
	}
	for _, text := range rules {
		exprs, err := build(text)
		if err != nil {
			return false, err
		}
		c.AddRule(&nftables.Rule{Table: table, Chain: ch, Exprs: exprs, UserData: userComment(text)})
	}
	return true, nil
}

// jumpRule builds `jump udn-service-mark` and
// `iifname != "<dev>" jump udn-service-mark`.
func jumpRule(text string) ([]expr.Any, error) {
	jump := &expr.Verdict{Kind: expr.VerdictJump, Chain: serviceMark}
	if text == "jump "+serviceMark {
		return []expr.Any{jump}, nil
	}
	var dev string
	if _, err := fmt.Sscanf(text, "iifname != %q jump "+serviceMark, &dev); err != nil {
		return nil, sdkerr.Errorf(sdkerr.Invalid, "kernel: nftables: rule %q: not a jump to %s", text, serviceMark)
	}
	name := make([]byte, 16)
	copy(name, dev)
	return []expr.Any{&expr.Meta{Key: expr.MetaKeyIIFNAME, Register: reg1},
		&expr.Cmp{Op: expr.CmpOpNeq, Register: reg1, Data: name}, jump}, nil
}

// markRule builds the udn-service-mark rules: the NodePort lookup on local
// destinations and the external-IP lookups of both families.
func markRule(text string, maps map[string]*nftables.Set) ([]expr.Any, error) {
	name := text[strings.Index(text, "@")+1:]
	m, ok := maps[name]
	if !ok {
		return nil, sdkerr.Errorf(sdkerr.Invalid, "kernel: nftables: rule %q: map %s is not planned", text, name)
	}
	lookup := func(sreg uint32) *expr.Lookup {
		return &expr.Lookup{SourceRegister: sreg, SetName: m.Name, SetID: m.ID, IsDestRegSet: true, DestRegister: 0}
	}
	port := func(reg uint32) *expr.Payload {
		return &expr.Payload{DestRegister: reg, Base: expr.PayloadBaseTransportHeader, Offset: 2, Len: 2}
	}
	switch {
	case strings.HasPrefix(text, "fib daddr type local"):
		local := make([]byte, 4)
		binary.NativeEndian.PutUint32(local, unix.RTN_LOCAL)
		return []expr.Any{
			&expr.Fib{Register: reg1, FlagDADDR: true, ResultADDRTYPE: true},
			&expr.Cmp{Op: expr.CmpOpEq, Register: reg1, Data: local},
			&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: reg1},
			port(reg32_0 + 1),
			lookup(reg1),
		}, nil
	case strings.HasPrefix(text, "ip daddr"), strings.HasPrefix(text, "ip6 daddr"):
		fam := fam4
		if strings.HasPrefix(text, "ip6") {
			fam = fam6
		}
		next := uint32(reg32_0 + fam.addrLen/4)
		return []expr.Any{
			&expr.Meta{Key: expr.MetaKeyNFPROTO, Register: reg1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: reg1, Data: []byte{fam.nfproto}},
			&expr.Payload{DestRegister: reg1, Base: expr.PayloadBaseNetworkHeader, Offset: fam.daddrOff, Len: fam.addrLen},
			&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: next},
			port(next + 1),
			lookup(reg1),
		}, nil
	}
	return nil, sdkerr.Errorf(sdkerr.Invalid, "kernel: nftables: rule %q: not a marking lookup", text)
}

// mapElements encodes "key : jump <chain>" elements.
func mapElements(s vrf.Set, types []nftables.SetDatatype) ([]nftables.SetElement, error) {
	var keys []string
	var chains []string
	for _, e := range s.Elements {
		k, v, ok := strings.Cut(e, " : jump ")
		if !ok {
			return nil, sdkerr.Errorf(sdkerr.Invalid, "kernel: nftables: map %s: element %q: want <key> : jump <chain>", s.Name, e)
		}
		keys, chains = append(keys, k), append(chains, v)
	}
	els, err := setKeys(vrf.Set{Name: s.Name, Elements: keys}, types)
	if err != nil {
		return nil, err
	}
	for i := range els {
		els[i].VerdictData = &expr.Verdict{Kind: expr.VerdictJump, Chain: chains[i]}
	}
	return els, nil
}

// mapDiff compares verdict-map elements: have as read back (the library
// leaves the verdict raw in Val), want as planned.
func mapDiff(have, want []nftables.SetElement) (add, del []nftables.SetElement) {
	same := func(h, w nftables.SetElement) bool {
		return bytes.Equal(h.Key, w.Key) && w.VerdictData != nil && bytes.Contains(h.Val, []byte(w.VerdictData.Chain))
	}
	for _, w := range want {
		if !slices.ContainsFunc(have, func(h nftables.SetElement) bool { return same(h, w) }) {
			add = append(add, w)
		}
	}
	for _, h := range have {
		if !slices.ContainsFunc(want, func(w nftables.SetElement) bool { return same(h, w) }) {
			del = append(del, nftables.SetElement{Key: h.Key})
		}
	}
	return add, del
}
