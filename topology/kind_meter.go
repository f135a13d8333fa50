package topology

// Meter is a Meter: a rate limit that ACLs (ACL.Meter, by name) and
// control-plane protection name. The schema wants at least one band:
// create it with its MeterBands.
//
//udnkit:kind table=Meter id=14 order=5
type Meter struct {
	Owner Owner
	Name  string `nb:"name,key"`
	Unit  string `nb:"unit"` // "kbps" or "pktps"
	Fair  bool   `nb:"fair"` // one bucket shared by the meter's users
}

// MeterBand is a Meter_Band, member of Meter.
//
//udnkit:kind table=Meter_Band id=15 order=6 name=meter_band
type MeterBand struct {
	Owner     Owner
	Meter     string `nb:",parent=Meter.bands"`
	Action    string `nb:"action,key"` // "drop"
	Rate      int    `nb:"rate,key,required"`
	BurstSize int    `nb:"burst_size,key"`
}
