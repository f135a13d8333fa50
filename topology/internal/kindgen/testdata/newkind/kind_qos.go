package topology

// QoS is a QoS rule, member of Switch: the one file a new kind takes
// (TestNewKind adds it to the package).
//
//udnkit:kind table=QoS id=13 order=130 name=qos
type QoS struct {
	Owner     Owner
	Switch    string       `nb:",parent=Switch.qos_rules"`
	Direction ACLDirection `nb:"direction,key,required"`
	Priority  int          `nb:"priority,key"`
	Match     string       `nb:"match,key,required,q"`
}
