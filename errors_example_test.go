package udnkit_test

import (
	"errors"
	"fmt"
	"net/netip"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/ipam"
)

// A controller classifies any error of the SDK with the root classes, whichever
// package returned it: here an address pool that has run out.
func ExampleErrorClass() {
	pool, _ := ipam.NewIPPool(netip.MustParsePrefix("10.128.1.0/30"))
	var err error
	for err == nil {
		_, err = pool.Allocate()
	}
	fmt.Println(err)
	fmt.Println(errors.Is(err, udnkit.ErrExhausted), udnkit.ErrorClass(err))
	// Output:
	// IP pool 10.128.1.0/30: exhausted: no free address
	// true exhausted
}
