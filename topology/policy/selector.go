package policy

import (
	"slices"
	"strings"

	"github.com/udnkit/udnkit/internal/labelsel"
)

// Matches reports whether labels satisfy every label and expression of s.
func (s *Selector) Matches(labels Labels) bool {
	for k, v := range s.MatchLabels {
		if w, ok := labels[k]; !ok || w != v {
			return false
		}
	}
	for _, r := range s.MatchExpressions {
		v, ok := labels[r.Key]
		if !labelsel.Meets(string(r.Operator), r.Values, v, ok) {
			return false
		}
	}
	return true
}

// Empty reports whether s selects everything.
func (s *Selector) Empty() bool { return len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0 }

// String returns the reference's short form of a selector, the same for
// equivalent selectors: "LS{ML:{app: db,},}", "LS{ME:{LSR{Key:k,Operator:In,Values:[a b],}},}",
// "LS{}" for the empty one, "nil" for none.
func (s *Selector) String() string {
	if s == nil {
		return "nil"
	}
	var b strings.Builder
	b.WriteString("LS{")
	if len(s.MatchLabels) > 0 {
		keys := make([]string, 0, len(s.MatchLabels))
		for k := range s.MatchLabels {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteString("ML:{")
		for _, k := range keys {
			b.WriteString(k)
			b.WriteString(": ")
			b.WriteString(s.MatchLabels[k])
			b.WriteByte(',')
		}
		b.WriteString("},")
	}
	if len(s.MatchExpressions) > 0 {
		rs := make([]string, len(s.MatchExpressions))
		for i, r := range s.MatchExpressions {
			vs := slices.Clone(r.Values)
			slices.Sort(vs)
			rs[i] = "LSR{Key:" + r.Key + ",Operator:" + string(r.Operator) + ",Values:[" + strings.Join(vs, " ") + "],}"
		}
		slices.Sort(rs)
		b.WriteString("ME:{")
		b.WriteString(strings.Join(rs, ","))
		b.WriteString("},")
	}
	b.WriteByte('}')
	return b.String()
}

// peerKey returns the key of a selector peer's address set, as the
// reference builds it: "<namespace>_<pod selector>" for a pod selector
// alone, "<namespace selector>_<pod selector>" with a namespace selector,
// the empty pod selector and "_LNM" (no host-network pods) for a namespace
// selector alone.
func peerKey(namespace string, p *Peer) string {
	if p.NamespaceSelector == nil {
		return namespace + "_" + p.PodSelector.String()
	}
	if p.PodSelector == nil {
		return p.NamespaceSelector.String() + "_" + (&Selector{}).String() + "_LNM"
	}
	return p.NamespaceSelector.String() + "_" + p.PodSelector.String()
}
