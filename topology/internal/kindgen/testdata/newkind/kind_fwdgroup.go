package topology

// ForwardingGroup is a Forwarding_Group, member of Switch: a plain
// boolean column (liveness) beside the Meter's optional one.
//
//udnkit:kind table=Forwarding_Group id=16 order=45
type ForwardingGroup struct {
	Owner      Owner
	Name       string   `nb:"name,key"`
	Switch     string   `nb:",parent=Switch.forwarding_groups"`
	VIP        string   `nb:"vip,required"`
	VMAC       string   `nb:"vmac,required"`
	Liveness   bool     `nb:"liveness"`
	ChildPorts []string `nb:"child_port,required"`
}
