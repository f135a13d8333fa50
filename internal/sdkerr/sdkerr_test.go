package sdkerr_test

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/udnkit/udnkit/internal/sdkerr"
)

func TestNew(t *testing.T) {
	errX := sdkerr.New(sdkerr.Conflict, "pkg: x taken")
	if got := errX.Error(); got != "pkg: x taken" {
		t.Errorf("Error() = %q, want the message unchanged", got)
	}
	wrapped := fmt.Errorf("object %q: %w", "a", errX)
	for _, c := range sdkerr.Classes() {
		if got, want := errors.Is(wrapped, c), c == sdkerr.Conflict; got != want {
			t.Errorf("errors.Is(wrapped, %v) = %v, want %v", c, got, want)
		}
	}
	if !errors.Is(wrapped, errX) {
		t.Error("the sentinel is no longer matched by identity")
	}
	if errors.Is(errX, sdkerr.New(sdkerr.Conflict, "pkg: x taken")) {
		t.Error("two sentinels of one class and message match each other")
	}
	if got := sdkerr.Of(wrapped); got != sdkerr.Conflict {
		t.Errorf("Of = %v, want conflict", got)
	}
}

func TestErrorf(t *testing.T) {
	err := sdkerr.Errorf(sdkerr.NotFound, "file %s: %w", "a", fs.ErrNotExist)
	if got := err.Error(); got != "file a: file does not exist" {
		t.Errorf("Error() = %q, want fmt.Errorf's", got)
	}
	if !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, sdkerr.NotFound) {
		t.Errorf("%v: want both the wrapped error and the class", err)
	}
	if errors.Is(err, sdkerr.Invalid) {
		t.Error("matches a class it was not given")
	}
	plain := sdkerr.Errorf(sdkerr.Unavailable, "no %s", "server")
	if plain.Error() != "no server" || sdkerr.Of(plain) != sdkerr.Unavailable {
		t.Errorf("%v: class %v", plain, sdkerr.Of(plain))
	}
}

func TestClasses(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range sdkerr.Classes() {
		if seen[c.Error()] {
			t.Errorf("class name %q twice", c)
		}
		seen[c.Error()] = true
		if sdkerr.Of(c) != c {
			t.Errorf("Of(%v) = %v", c, sdkerr.Of(c))
		}
		for _, d := range sdkerr.Classes() {
			if c != d && errors.Is(c, d) {
				t.Errorf("class %v matches class %v", c, d)
			}
		}
	}
	if len(seen) != 8 {
		t.Errorf("%d classes, want 8", len(seen))
	}
	if sdkerr.Of(nil) != nil || sdkerr.Of(errors.New("x")) != nil {
		t.Error("Of of nil or a foreign error is not nil")
	}
}

func ExampleErrorf() {
	err := fmt.Errorf("network %q: %w", "blue", sdkerr.Errorf(sdkerr.Exhausted, "pool %s: no free address", "10.0.0.0/30"))
	fmt.Println(err)
	fmt.Println(errors.Is(err, sdkerr.Exhausted), sdkerr.Of(err))
	// Output:
	// network "blue": pool 10.0.0.0/30: no free address
	// true exhausted
}

func TestOfPrefersTheMoreTelling(t *testing.T) {
	errX := sdkerr.New(sdkerr.Invalid, "pkg: invalid change")
	both := fmt.Errorf("%w: %w: already exists", errX, sdkerr.New(sdkerr.Conflict, "conflict"))
	if got := sdkerr.Of(both); got != sdkerr.Conflict {
		t.Errorf("Of(%v) = %v, want conflict over invalid", both, got)
	}
	unknown := sdkerr.Errorf(sdkerr.OutcomeUnknown, "commit: %w", sdkerr.Errorf(sdkerr.Refused, "reply"))
	if got := sdkerr.Of(unknown); got != sdkerr.OutcomeUnknown {
		t.Errorf("Of(%v) = %v, want outcome unknown", unknown, got)
	}
}

func TestWith(t *testing.T) {
	if sdkerr.With(sdkerr.Invalid, nil) != nil {
		t.Error("With of nil is not nil")
	}
	inner := fmt.Errorf("spec: %w", fs.ErrInvalid)
	err := sdkerr.With(sdkerr.Invalid, inner)
	if err.Error() != inner.Error() {
		t.Errorf("message %q, want %q", err, inner)
	}
	if !errors.Is(err, fs.ErrInvalid) || !errors.Is(err, inner) || sdkerr.Of(err) != sdkerr.Invalid {
		t.Errorf("%v: want the wrapped chain and class invalid (got %v)", err, sdkerr.Of(err))
	}
}
