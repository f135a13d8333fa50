package sdkerr_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/udnkit/udnkit/internal/sdkerr"
)

var errPool = sdkerr.New(sdkerr.Exhausted, "exhausted")

// BenchmarkOf classifies an error three wraps deep (network, node, pool), as a
// controller does once per failed event; its class is the fifth tried.
func BenchmarkOf(b *testing.B) {
	err := fmt.Errorf("network %q: %w", "blue", fmt.Errorf("node %q: %w", "a", fmt.Errorf("pool: %w: no free address", errPool)))
	b.ReportAllocs()
	for b.Loop() {
		if sdkerr.Of(err) != sdkerr.Exhausted {
			b.Fatal("wrong class")
		}
	}
}

// BenchmarkIsSentinel is errors.Is against a package sentinel, which the
// class must not slow down (planners branch on ipam.ErrExhausted).
func BenchmarkIsSentinel(b *testing.B) {
	err := fmt.Errorf("pool: %w: no free address", errPool)
	b.ReportAllocs()
	for b.Loop() {
		if !errors.Is(err, errPool) {
			b.Fatal("not matched")
		}
	}
}

// BenchmarkErrorf against fmt.Errorf of the same message.
func BenchmarkErrorf(b *testing.B) {
	b.Run("sdkerr", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = sdkerr.Errorf(sdkerr.Invalid, "kernel: nftables: rule %q: no verdict", "ip daddr 10.0.0.1")
		}
	})
	b.Run("fmt", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = fmt.Errorf("kernel: nftables: rule %q: no verdict", "ip daddr 10.0.0.1")
		}
	})
}
