package vrf

import (
	"slices"
)

// Changes turn an observed State into a desired one. A changed link or
// chain is in Add (the backend updates it in place); nftables sets change
// element by element.
type Changes struct {
	AddLinks, DeleteLinks   []Link
	AddRoutes, DeleteRoutes []Route
	AddRules, DeleteRules   []Rule
	// AddAddresses and DeleteAddresses are addresses of AddressProtocol.
	AddAddresses, DeleteAddresses []Address
	// AddChains are new or changed chains (their rules replaced);
	// DeleteChains chains the plan no longer has.
	AddChains, DeleteChains []Chain
	// AddSets are sets and maps to create; AddElements and DeleteElements
	// the elements to add to or remove from a set, by set name.
	AddSets, DeleteSets         []Set
	AddElements, DeleteElements map[string][]Element
}

// Len returns the number of changes, set elements counted one by one.
func (c Changes) Len() int {
	n := len(c.AddLinks) + len(c.DeleteLinks) + len(c.AddRoutes) + len(c.DeleteRoutes) + len(c.AddRules) + len(c.DeleteRules) +
		len(c.AddChains) + len(c.DeleteChains) + len(c.AddSets) + len(c.DeleteSets) + len(c.AddAddresses) + len(c.DeleteAddresses)
	for _, es := range c.AddElements {
		n += len(es)
	}
	for _, es := range c.DeleteElements {
		n += len(es)
	}
	return n
}

// Diff returns the changes from observed to desired (both as Plan returns
// them: sorted). It is pure; warnings and the comments of sets and chains
// (descriptions the kernel backend cannot read back) are not compared.
func Diff(observed, desired State) Changes {
	var c Changes
	c.AddLinks, c.DeleteLinks = diffBy(observed.Links, desired.Links, func(l Link) string { return l.Name }, linksEqual)
	// A route or rule is identified by all it says: one that differs is
	// another (deleted, and the planned one added).
	c.AddRoutes, c.DeleteRoutes = diffBy(observed.Routes, desired.Routes, func(r Route) Route { return r },
		func(a, b Route) bool { return a == b })
	c.AddRules, c.DeleteRules = diffBy(observed.Rules, desired.Rules, func(r Rule) Rule { return r },
		func(a, b Rule) bool { return a == b })
	c.AddAddresses, c.DeleteAddresses = diffBy(observed.Addresses, desired.Addresses, func(a Address) Address { return a },
		func(a, b Address) bool { return a == b })
	c.AddChains, c.DeleteChains = diffBy(observed.NFT.Chains, desired.NFT.Chains, func(ch Chain) string { return ch.Name },
		func(a, b Chain) bool {
			return a.Hook == b.Hook && a.Priority == b.Priority && slices.Equal(a.Rules, b.Rules)
		})
	sameType := func(a, b Set) bool { return slices.Equal(a.Key, b.Key) && a.Map == b.Map }
	c.AddSets, c.DeleteSets = diffBy(observed.NFT.Sets, desired.NFT.Sets, func(s Set) string { return s.Name }, sameType)
	have := map[string]Set{}
	for _, s := range observed.NFT.Sets {
		have[s.Name] = s
	}
	for _, s := range desired.NFT.Sets {
		old := have[s.Name]
		if !sameType(old, s) {
			old = Set{} // created anew: every element is added
		}
		add, del := diffBy(old.Elements, s.Elements, func(e Element) Element { return e }, func(a, b Element) bool { return a == b })
		if len(add) > 0 {
			if c.AddElements == nil {
				c.AddElements = map[string][]Element{}
			}
			c.AddElements[s.Name] = add
		}
		if len(del) > 0 && old.Name != "" {
			if c.DeleteElements == nil {
				c.DeleteElements = map[string][]Element{}
			}
			c.DeleteElements[s.Name] = del
		}
	}
	return c
}

// diffBy returns the elements of desired that observed lacks or holds
// differently, and the elements of observed that desired lacks, in their
// slices' order.
func diffBy[T any, K comparable](observed, desired []T, key func(T) K, equal func(a, b T) bool) (add, del []T) {
	have := make(map[K]T, len(observed))
	for _, o := range observed {
		have[key(o)] = o
	}
	want := make(map[K]bool, len(desired))
	for _, d := range desired {
		k := key(d)
		want[k] = true
		if o, ok := have[k]; !ok || !equal(o, d) {
			add = append(add, d)
		}
	}
	for _, o := range observed {
		if !want[key(o)] {
			del = append(del, o)
		}
	}
	return add, del
}

func linksEqual(a, b Link) bool {
	return a.Kind == b.Kind && a.Name == b.Name && a.Table == b.Table && slices.Equal(a.MAC, b.MAC) &&
		slices.Equal(a.Addresses, b.Addresses) && a.MTU == b.MTU && a.Master == b.Master
}
