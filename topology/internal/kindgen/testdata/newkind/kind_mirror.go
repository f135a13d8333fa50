package topology

// Mirror is a port mirror: the one file a new kind takes (TestNewKind adds
// it to the package).
//
//udnkit:kind table=Mirror id=17 order=140
type Mirror struct {
	Owner  Owner
	Name   string       `nb:"name,key"`
	Filter MirrorFilter `nb:"filter,required"`
	Type   MirrorType   `nb:"type,required"`
	Sink   string       `nb:"sink,required"`
	Index  int          `nb:"index"`
}

// MirrorFilter is the traffic a mirror copies.
type MirrorFilter string

// MirrorType is how a mirror sends its copies.
type MirrorType string
