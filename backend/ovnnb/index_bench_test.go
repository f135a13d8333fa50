package ovnnb

import (
	"strconv"
	"testing"

	"github.com/ovn-kubernetes/libovsdb/model"

	"github.com/udnkit/udnkit/internal/nbdb"
	"github.com/udnkit/udnkit/internal/nbrow"
	"github.com/udnkit/udnkit/topology"
)

// BenchmarkSnapshotIndex converts the rows of a 100-node x 20-network plan
// to objects as Observe does (snapshot.index), without a server: the rows
// are built from the plan with their members and references filled in.
func BenchmarkSnapshotIndex(b *testing.B) {
	want := monBigPlan(b, 100, 20)
	rows := map[string]map[string]model.Model{}
	uuid := map[[2]string]string{}
	var objs []topology.Object
	for _, k := range topology.Kinds() {
		rows[k.Table()] = map[string]model.Model{}
		for _, o := range want.ObjectsOf(k) {
			m, err := nbrow.ToRow(o, nil)
			if err != nil {
				b.Fatal(err)
			}
			u := "u" + strconv.Itoa(len(objs))
			uuid[[2]string{k.String(), o.Key()}] = u
			rows[k.Table()][u] = m
			objs = append(objs, o)
		}
	}
	for _, o := range objs {
		m := rows[o.Kind().Table()][uuid[[2]string{o.Kind().String(), o.Key()}]]
		for _, r := range nbrow.NameRefs(o) {
			var us []string
			for _, n := range r.Names {
				us = append(us, uuid[[2]string{r.Kind.String(), n}])
			}
			nbrow.SetUUIDs(m, r.Column, us)
		}
		if pk, pn, ok := nbrow.ParentOf(o); ok {
			pm := rows[pk.Kind.Table()][uuid[[2]string{pk.Kind.String(), pn}]]
			nbrow.SetUUIDs(pm, pk.Column, append(nbrow.UUIDs(pm, pk.Column), uuid[[2]string{o.Kind().String(), o.Key()}]))
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		s := newSnapshot()
		s.rows = rows
		if err := s.index(); err != nil {
			b.Fatal(err)
		}
		if len(s.owned) != want.Len() {
			b.Fatalf("%d objects indexed, want %d", len(s.owned), want.Len())
		}
	}
}

// BenchmarkSnapshotDerive indexes the rows of a 100-node x 20-network
// plan after one switch port changed, from the snapshot before the change
// (what a monitored read after an update does), beside the full index of
// the same rows.
func BenchmarkSnapshotDerive(b *testing.B) {
	rows := planRows(b, monBigPlan(b, 100, 20))
	prev := recordedIndex(b, rows)
	if _, err := prev.state(nil); err != nil {
		b.Fatal(err)
	}
	next := cloneRows(rows)
	for u, m := range next[nbdb.LogicalSwitchPortTable] {
		lsp := model.Clone(m).(*nbdb.LogicalSwitchPort)
		lsp.Addresses = []string{"0a:58:0a:00:00:09 10.0.0.9"}
		next[nbdb.LogicalSwitchPortTable][u] = lsp
		break
	}
	b.Run("derive", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s := derived(b, prev, next)
			if _, err := s.state(nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("full", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s := fullIndex(b, next)
			if _, err := s.state(nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	// From scratch with the records (the first derivation from a
	// snapshot index built).
	b.Run("recorded", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s := recordedIndex(b, next)
			if _, err := s.state(nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
