package topology

import (
	"hash/fnv"
	"strconv"
)

// HashName is the reference implementation's name for a row it keys by an
// id (its HashForOVN): "a" and the decimal FNV-1a 64-bit hash of id. Port
// groups and address sets of policies, egress and connects are named so.
func HashName(id string) string {
	h := fnv.New64a()
	h.Write([]byte(id))
	return "a" + strconv.FormatUint(h.Sum64(), 10)
}
