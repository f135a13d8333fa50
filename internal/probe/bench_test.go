package probe_test

import (
	"os"
	"testing"

	"github.com/udnkit/udnkit/internal/probe"
)

// BenchmarkParseTrace parses a real 18 KB ovn-trace output (a probe through
// two routers, a connect router and an ARP request's flood).
func BenchmarkParseTrace(b *testing.B) {
	text, err := os.ReadFile("testdata/trace_dropped_unknown.txt")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		probe.ParseTrace(string(text))
	}
}

// BenchmarkProbes plans seed 001's 36 probes of zone ovn-worker.
func BenchmarkProbes(b *testing.B) {
	c := loadCluster(b, "../../examples/manifests/seed-001.yaml")
	st, err := c.Plan("ovn-worker")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := probe.Probes(c, st, probe.Config{Zone: "ovn-worker", Port: 80}); err != nil {
			b.Fatal(err)
		}
	}
}
