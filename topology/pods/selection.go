package pods

import (
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/udnkit/udnkit/internal/kubename"
	"github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/internal/netdev"
)

// AnnotationNetworks is the pod annotation that requests secondary
// networks (Multus' network selection).
const AnnotationNetworks = "k8s.v1.cni.cncf.io/networks"

// Selection is one secondary network a pod requests.
type Selection struct {
	// NAD is the NetworkAttachmentDefinition, "<namespace>/<name>" (the
	// pod's namespace when the request names none).
	NAD string
	// Interface is the requested interface name ("" for the default).
	Interface string
	// IPs are requested static addresses, MAC a requested MAC.
	IPs []netip.Prefix
	MAC net.HardwareAddr
	// IPAMClaim names the IPAMClaim whose persistent addresses the
	// attachment takes (ipam-claim-reference).
	IPAMClaim string
}

// selectionJSON is the JSON form's element (the fields the planner uses).
type selectionJSON struct {
	Name      string   `json:"name"`
	Namespace string   `json:"namespace"`
	Interface string   `json:"interface"`
	IPs       []string `json:"ips"`
	MAC       string   `json:"mac"`
	IPAMClaim string   `json:"ipam-claim-reference"`
}

// Bounds of Secondaries' input: Kubernetes' limit on all of an object's
// annotations, and the kernel's on an interface name (IFNAMSIZ less its
// NUL).
const (
	MaxAnnotationSize = 256 << 10
	MaxInterfaceName  = netdev.MaxName
)

// Secondaries reads a pod's k8s.v1.cni.cncf.io/networks annotation: the
// comma-separated form ("[<namespace>/]<name>[@<interface>]", ...) or the
// JSON list of network selection elements, in its order. A pod without the
// annotation requests none. One NAD requested twice is refused: the
// attachment's port is named by pod and NAD, so a second one would be the
// same port. Names are checked as Kubernetes and the kernel would: a NAD's
// name a DNS-1123 subdomain, its namespace a label, an interface a device
// name of at most MaxInterfaceName bytes, an ipam-claim-reference an
// object name; the value is at most MaxAnnotationSize bytes.
func Secondaries(pod Pod, annotations map[string]string) ([]Selection, error) {
	text, ok := annotations[AnnotationNetworks]
	if !ok || strings.TrimSpace(text) == "" {
		return nil, nil
	}
	where := fmt.Sprintf("pod %s/%s: annotation %s", names.Cut(pod.Namespace), names.Cut(pod.Name), AnnotationNetworks)
	if len(text) > MaxAnnotationSize {
		return nil, names.Errorf("%s: %w: %d bytes, over the %d bytes Kubernetes allows all of a pod's annotations", where, ErrInvalid, len(text), MaxAnnotationSize)
	}
	var elems []selectionJSON
	if strings.ContainsAny(text, "[{\"") {
		if err := json.Unmarshal([]byte(text), &elems); err != nil {
			return nil, names.Errorf("%s: %w: %v", where, ErrInvalid, err)
		}
	} else {
		for _, item := range strings.Split(text, ",") {
			item = strings.TrimSpace(item)
			ns, name, found := strings.Cut(item, "/")
			if !found {
				ns, name = "", item
			} else if strings.Contains(name, "/") {
				return nil, names.Errorf("%s: %w: %q has more than one '/'", where, ErrInvalid, item)
			}
			name, iface, _ := strings.Cut(name, "@")
			if strings.Contains(iface, "@") {
				return nil, names.Errorf("%s: %w: %q has more than one '@'", where, ErrInvalid, item)
			}
			elems = append(elems, selectionJSON{Name: strings.TrimSpace(name), Namespace: strings.TrimSpace(ns), Interface: strings.TrimSpace(iface)})
		}
	}
	out := make([]Selection, 0, len(elems))
	seen := map[string]bool{}
	for i, e := range elems {
		at := fmt.Sprintf("%s[%d]", where, i)
		if e.Name == "" || strings.ContainsAny(e.Name+e.Namespace, "/@ \t\n") {
			return nil, names.Errorf("%s: %w: name %q, namespace %q", at, ErrInvalid, e.Name, e.Namespace)
		}
		if msgs := kubename.IsDNS1123Subdomain(e.Name); len(msgs) > 0 {
			return nil, names.Errorf("%s: name %q: %w: %s", at, e.Name, ErrInvalid, strings.Join(msgs, "; "))
		}
		if msgs := kubename.IsDNS1123Label(e.Namespace); e.Namespace != "" && len(msgs) > 0 {
			return nil, names.Errorf("%s: namespace %q: %w: %s", at, e.Namespace, ErrInvalid, strings.Join(msgs, "; "))
		}
		if e.Interface != "" {
			if err := netdev.Check(e.Interface); err != nil {
				return nil, names.Errorf("%s: interface: %w: %v", at, ErrInvalid, err)
			}
		}
		if msgs := kubename.IsDNS1123Subdomain(e.IPAMClaim); e.IPAMClaim != "" && len(msgs) > 0 {
			return nil, names.Errorf("%s: ipam-claim-reference %q: %w: %s", at, e.IPAMClaim, ErrInvalid, strings.Join(msgs, "; "))
		}
		ns := e.Namespace
		if ns == "" {
			ns = pod.Namespace
		}
		s := Selection{NAD: ns + "/" + e.Name, Interface: e.Interface, IPAMClaim: e.IPAMClaim}
		if seen[s.NAD] {
			return nil, names.Errorf("%s: %w: network %s requested twice", at, ErrInvalid, s.NAD)
		}
		seen[s.NAD] = true
		for j, ip := range e.IPs {
			p, err := netip.ParsePrefix(ip)
			if err != nil {
				a, aerr := netip.ParseAddr(ip)
				if aerr != nil || a.Zone() != "" {
					return nil, names.Errorf("%s: ips[%d]: %w: %q", at, j, ErrInvalid, ip)
				}
				p = netip.PrefixFrom(a, a.BitLen())
			}
			s.IPs = append(s.IPs, p)
		}
		if e.MAC != "" {
			mac, err := net.ParseMAC(e.MAC)
			if err != nil || len(mac) != 6 {
				return nil, names.Errorf("%s: mac: %w: %q", at, ErrInvalid, e.MAC)
			}
			s.MAC = mac
		}
		out = append(out, s)
	}
	return out, nil
}
