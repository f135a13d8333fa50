package policy_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/policy"
)

// TestParseACLLogging: the k8s.ovn.org/acl-logging annotation as the
// reference reads it (ovn/base_network_controller_namespace.go
// aclLoggingUpdateNsInfo): empty and {} log nothing, bad JSON logs nothing,
// a bad severity disables its key alone.
func TestParseACLLogging(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     policy.ACLLogging
		err      string
	}{
		{"empty", "", policy.ACLLogging{}, ""},
		{"empty object", "{}", policy.ACLLogging{}, ""},
		{"both", `{"deny":"alert","allow":"notice"}`, policy.ACLLogging{Deny: "alert", Allow: "notice"}, ""},
		{"spaced, as the reference's test writes it", `{ "deny": "debug", "allow": "debug" }`, policy.ACLLogging{Deny: "debug", Allow: "debug"}, ""},
		{"deny alone: allow off", `{"deny":"warning"}`, policy.ACLLogging{Deny: "warning"}, ""},
		{"empty severity is off", `{"deny":"","allow":"info"}`, policy.ACLLogging{Allow: "info"}, ""},
		{"bad JSON", `{"deny":`, policy.ACLLogging{}, "is not a JSON object"},
		{"bad deny keeps allow", `{"deny":"loud","allow":"notice"}`, policy.ACLLogging{Allow: "notice"}, `k8s.ovn.org/acl-logging].deny`},
		{"bad allow keeps deny", `{"deny":"alert","allow":"Notice"}`, policy.ACLLogging{Deny: "alert"}, `k8s.ovn.org/acl-logging].allow`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := policy.ParseACLLogging(tc.in)
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("error %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, policy.ErrInvalid)):
				t.Errorf("error %v, want one holding %q wrapping ErrInvalid", err, tc.err)
			}
		})
	}
}

// loggingACL finds an ACL by its reference id.
func aclByID(t *testing.T, s topology.State, id string) topology.ACL {
	t.Helper()
	for _, a := range acls(t, s) {
		if v, _ := a.ExternalIDs.Get(policy.IDPrimary); v == id {
			return a
		}
	}
	t.Fatalf("no ACL with id %s", id)
	return topology.ACL{}
}

// TestReferenceACLLogging ports ovn/policy_test.go "ACL logging for
// network policies reacts to severity updates" (its three entries) and
// "policies created after namespace logging level updates inherit updated
// logging level" (its "emptyPol" lower-cased: Kubernetes names are): the namespace's deny severity on its default-deny drops
// (never on the ARP allow), its allow severity on every rule ACL, meter
// acl-logging on all of them (getDefaultDenyDataHelper,
// getGressACLsAndAddrSets); an update of the annotation changes those
// ACLs' log and severity and nothing else.
func TestReferenceACLLogging(t *testing.T) {
	matchLabels := func(name, peerNS, peerPod string, ingress, egress bool) policy.Policy {
		peer := policy.Peer{NamespaceSelector: sel("name", peerNS)}
		if peerPod != "" {
			peer.PodSelector = sel("name", peerPod)
		}
		p := policy.Policy{Namespace: "ns1", Name: name}
		if ingress {
			p.Ingress = []policy.Rule{{Peers: []policy.Peer{peer}}}
		}
		if egress {
			p.Egress = []policy.Rule{{Peers: []policy.Peer{peer}}}
		}
		return p
	}
	ctrl := policy.ReferenceController(blue)
	for _, tc := range []struct {
		name     string
		policies []policy.Policy
		rules    []string // ids of the rule ACLs
		denies   int      // default-deny drops (both directions, as getDefaultDenyData)
	}{
		{"a network policy with a single rule", []policy.Policy{matchLabels("networkpolicy1", "ns2", "", true, false)},
			[]string{":NetworkPolicy:ns1:networkpolicy1:Ingress:0:None:-1"}, 2},
		{"multiple network policies with a single rule", []policy.Policy{matchLabels("networkpolicy1", "ns2", "", true, false),
			matchLabels("networkpolicy2", "ns1", "", false, true)},
			[]string{":NetworkPolicy:ns1:networkpolicy1:Ingress:0:None:-1", ":NetworkPolicy:ns1:networkpolicy2:Egress:0:None:-1"}, 2},
		{"a network policy with multiple rules", []policy.Policy{matchLabels("networkpolicy1", "ns2", "tiny-winy-pod", true, false)},
			[]string{":NetworkPolicy:ns1:networkpolicy1:Ingress:0:None:-1"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := fixture()
			in.Namespaces[0].Logging = policy.ACLLogging{Deny: topology.SeverityAlert, Allow: topology.SeverityNotice}
			in.Policies = append([]policy.Policy{{Namespace: "ns1", Name: "emptypol"}}, tc.policies...)
			p, err := policy.New(in)
			if err != nil {
				t.Fatal(err)
			}
			s, err := p.State()
			if err != nil {
				t.Fatal(err)
			}
			check := func(s topology.State, deny, allow topology.ACLSeverity) {
				t.Helper()
				for _, dir := range []string{"Ingress", "Egress"} { // getDefaultDenyDataHelper: both log
					d := aclByID(t, s, ctrl+":NetpolNamespace:ns1:"+dir+":defaultDeny")
					if d.Log != (deny != "") || d.Severity != deny || d.Meter != policy.MeterName {
						t.Errorf("default deny %s: log %v severity %q meter %q, want %q", dir, d.Log, d.Severity, d.Meter, deny)
					}
				}
				arp := aclByID(t, s, ctrl+":NetpolNamespace:ns1:Ingress:arpAllow")
				if arp.Log || arp.Severity != "" || arp.Meter != policy.MeterName {
					t.Errorf("ARP allow logs: %+v", arp)
				}
				for _, id := range tc.rules {
					r := aclByID(t, s, ctrl+id)
					if r.Log != (allow != "") || r.Severity != allow || r.Meter != policy.MeterName {
						t.Errorf("rule %s: log %v severity %q meter %q, want %q", id, r.Log, r.Severity, r.Meter, allow)
					}
				}
				// The other namespace's ACLs never log.
				for _, a := range acls(t, s) {
					if a.Log && !strings.HasPrefix(a.Name, "NP:ns1:") {
						t.Errorf("ACL %s of another namespace logs", a.Key())
					}
				}
			}
			check(s, topology.SeverityAlert, topology.SeverityNotice)
			if _, ok := s.Get(topology.KindMeter, policy.MeterName); !ok {
				t.Error("no acl-logging meter while ns1 logs")
			}
			// The namespace's annotation becomes debug/debug.
			ns := in.Namespaces[0]
			ns.Logging = policy.ACLLogging{Deny: topology.SeverityDebug, Allow: topology.SeverityDebug}
			ch, err := p.SetNamespace(ns)
			if err != nil {
				t.Fatal(err)
			}
			if len(ch) != tc.denies+len(tc.rules) {
				t.Errorf("%d changes, want %d (the drops and the rule ACLs):\n%s", len(ch), tc.denies+len(tc.rules), ch)
			}
			for _, c := range ch {
				if c.Op != topology.OpUpdate || c.Kind != topology.KindACL || !slices.Equal(c.Columns, []string{"severity"}) {
					t.Errorf("change %s: want an update of an ACL's severity", c)
				}
			}
			s, err = topology.Apply(s, ch)
			if err != nil {
				t.Fatal(err)
			}
			check(s, topology.SeverityDebug, topology.SeverityDebug)
			// Logging off: log and severity cleared, the meter goes.
			ns.Logging = policy.ACLLogging{}
			ch, err = p.SetNamespace(ns)
			if err != nil {
				t.Fatal(err)
			}
			if s, err = topology.Apply(s, ch); err != nil {
				t.Fatal(err)
			}
			check(s, "", "")
			if _, ok := s.Get(topology.KindMeter, policy.MeterName); ok {
				t.Error("the acl-logging meter outlives the last namespace that logs")
			}
		})
	}
	t.Run("policies created after a logging update inherit it", func(t *testing.T) {
		in := fixture()
		p, err := policy.New(in)
		if err != nil {
			t.Fatal(err)
		}
		ns := in.Namespaces[0]
		ns.Logging = policy.ACLLogging{Deny: topology.SeverityDebug, Allow: topology.SeverityDebug}
		if _, err := p.SetNamespace(ns); err != nil {
			t.Fatal(err)
		}
		if _, err := p.SetPolicy(matchLabels("networkpolicy1", "ns2", "", true, false)); err != nil {
			t.Fatal(err)
		}
		s, err := p.State()
		if err != nil {
			t.Fatal(err)
		}
		if r := aclByID(t, s, ctrl+":NetworkPolicy:ns1:networkpolicy1:Ingress:0:None:-1"); !r.Log || r.Severity != topology.SeverityDebug {
			t.Errorf("rule ACL: log %v severity %q", r.Log, r.Severity)
		}
		if d := aclByID(t, s, ctrl+":NetpolNamespace:ns1:Ingress:defaultDeny"); !d.Log || d.Severity != topology.SeverityDebug {
			t.Errorf("default deny: log %v severity %q", d.Log, d.Severity)
		}
	})
}

// TestACLLoggingMeter: the meter is the reference's (controller_manager.go
// createACLLoggingMeter: pktps, fair, one drop band at the rate limit,
// default 20), planned once whatever the number of namespaces that log,
// and owned for the default network.
func TestACLLoggingMeter(t *testing.T) {
	in := fixture()
	in.Namespaces[0].Logging = policy.ACLLogging{Deny: topology.SeverityAlert}
	in.Namespaces[1].Logging = policy.ACLLogging{Allow: topology.SeverityInfo}
	s := plan(t, in)
	own := topology.Owner{Controller: policy.Controller, Network: policy.DefaultNetworkName}
	want := []topology.Object{
		topology.Meter{Owner: own, Name: "acl-logging", Unit: "pktps", Fair: true},
		topology.MeterBand{Owner: own, Meter: "acl-logging", Action: "drop", Rate: 20},
	}
	got := append(s.ObjectsOf(topology.KindMeter), s.ObjectsOf(topology.KindMeterBand)...)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("meter rows\n got %v\nwant %v", got, want)
	}
	in.ACLLoggingRate = 100
	if got := plan(t, in).ObjectsOf(topology.KindMeterBand); len(got) != 1 || got[0].(topology.MeterBand).Rate != 100 {
		t.Errorf("rate 100: %v", got)
	}
	// Another controller's meter (the reference's): the same ACLs (they
	// name it), no Meter row.
	in.ExternalMeter = true
	ext := plan(t, in)
	if n := len(ext.ObjectsOf(topology.KindMeter)) + len(ext.ObjectsOf(topology.KindMeterBand)); n != 0 {
		t.Errorf("an external meter planned: %d rows", n)
	}
	if a, b := ext.ObjectsOf(topology.KindACL), plan(t, func() policy.Input { in := in; in.ExternalMeter = false; return in }()).ObjectsOf(topology.KindACL); !reflect.DeepEqual(a, b) {
		t.Error("an external meter changed the ACLs")
	}
	in.ExternalMeter = false
	in.ACLLoggingRate = -1
	if _, err := policy.Plan(in); !errors.Is(err, policy.ErrInvalid) {
		t.Errorf("negative rate: %v", err)
	}
	in.ACLLoggingRate = 0
	in.Namespaces[0].Logging = policy.ACLLogging{Deny: "loud"}
	if _, err := policy.Plan(in); err == nil || !strings.Contains(err.Error(), "namespace ns1: logging") {
		t.Errorf("bad severity: %v", err)
	}
}
