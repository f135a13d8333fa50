package ovnnb

import (
	"github.com/ovn-kubernetes/libovsdb/model"

	"github.com/udnkit/udnkit/internal/nbrow"
	"github.com/udnkit/udnkit/topology"
)

// The external_ids keys that carry an object's owner. A row is the SDK's
// when it has ExtNetwork; ExtController names the controller that owns it
// (topology.Owner.Controller), absent on rows written before controllers
// existed, which belong to topology.ControllerTopology.
const (
	ExtController = nbrow.ExtController
	ExtNetwork    = nbrow.ExtNetwork
	ExtTopology   = nbrow.ExtTopology
	ExtRole       = nbrow.ExtRole
	ExtNode       = nbrow.ExtNode
)

// Row is the OVN Northbound row an object maps to, as the adapter writes
// it (the mapping lives in internal/nbrow, shared with backend/nbctl).
type Row = nbrow.Row

// Ref is a reference column by names.
type Ref = nbrow.Ref

// RowOf returns the row obj maps to.
func RowOf(obj topology.Object) (Row, error) { return nbrow.RowOf(obj) }

// The adapter's names for the shared mapping.
var (
	ownerIDs        = nbrow.OwnerIDs
	ownerOf         = nbrow.OwnerOf
	fromRow         = nbrow.FromRow
	kindOfTable     = nbrow.KindOfTable
	canonController = nbrow.CanonController
	parentOf        = nbrow.ParentOf
	nameRefs        = nbrow.NameRefs
	attachmentRefs  = nbrow.AttachmentRefs
	describe        = nbrow.Describe
	namedKind       = nbrow.Named
	unindexed       = nbrow.Unindexed
	updatable       = nbrow.Updatable
)

// toRowIDs maps an object to a libovsdb model (see nbrow.ToRow) with the
// external_ids map of o's owner from cache (nil: a new map).
func toRowIDs(o topology.Object, cache *idsCache) (model.Model, error) {
	if cache == nil {
		return nbrow.ToRow(o, nil)
	}
	return nbrow.ToRow(o, cache.ids(o.OwnedBy()))
}

// members lists, for a parent row, its member UUIDs per column.
var members = nbrow.Members

// parentTables are the tables whose rows hold members.
var parentTables = nbrow.ParentTables()

// lbgReferrers are the columns referencing load balancer groups, whose
// owners own a group (it has no external_ids).
var lbgReferrers = func() []tableColumn {
	var out []tableColumn
	for _, k := range topology.Kinds() {
		for _, r := range k.Descriptor().Refs {
			if r.Kind == topology.KindLoadBalancerGroup {
				out = append(out, tableColumn{k.Table(), r.Column})
			}
		}
	}
	return out
}()

// tableColumn is a column of a table.
type tableColumn struct{ table, column string }
