package manifest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/netconf"
)

// Annotate returns objs as the cluster stores them once a controller ran
// l's Cluster: each Node's, NAD's, ClusterNetworkConnect's, EgressIP's and
// Pod's annotations merged with what the Cluster allocated (an EgressIP's
// status.items replaced by the Cluster's assignment) (a Node's node-subnets keeps the
// entries of networks the Cluster does not hold, such as "default"), and
// the NADs the UDNs and CUDNs render (netconf.RenderUDN, RenderCUDN)
// appended where objs lacks them. Reading its result again restores
// everything: Load allocates nothing and plans what l plans.
func Annotate(objs []Object, s *Set, l *Loaded) ([]Object, error) {
	ann := l.Cluster.Annotations()
	want := map[string]map[string]string{}
	for _, g := range []struct {
		kind string
		objs []udnkit.Object
	}{{KindNode, ann.Nodes}, {KindNAD, ann.NADs}, {connect.Kind, ann.Connects}, {KindEgressIP, ann.EgressIPs}} {
		for _, o := range g.objs {
			want[g.kind+" "+o.Key()] = o.Annotations
		}
	}
	for _, p := range s.Pods {
		if v, err := l.Cluster.PodAnnotation(p.Namespace, p.Name); err == nil && v != "" {
			want[KindPod+" "+p.Namespace+"/"+p.Name] = map[string]string{netconf.AnnotationPodNetworks: v}
		}
	}
	var out []Object
	for _, o := range objs {
		raw, err := annotate(o.JSON, want[o.Kind+" "+o.Key()])
		if err != nil {
			return nil, fmt.Errorf("%s: %s %s: %w", o.Source, o.Kind, o.Key(), err)
		}
		if o.Kind == KindEgressIP {
			if items, ok := egressStatus(l.Cluster, o.Name); ok {
				if raw, err = withStatusItems(raw, items); err != nil {
					return nil, fmt.Errorf("%s: %s %s: %w", o.Source, o.Kind, o.Key(), err)
				}
			}
		}
		o.JSON = raw
		out = append(out, o)
	}
	var nads []any
	for _, u := range s.UDNs {
		r, err := netconf.RenderUDN(u)
		if err != nil {
			return nil, fmt.Errorf("%s %s/%s: %w", netconf.KindUDN, u.Namespace, u.Name, err)
		}
		for _, n := range r.NADs {
			nads = append(nads, n)
		}
	}
	for _, c := range s.CUDNs {
		n, ok := l.Cluster.Network(netconf.CUDNNetworkName(c.Name))
		if !ok {
			continue
		}
		var namespaces []string
		for _, o := range ann.NADs {
			if o.Name == c.Name && o.Annotations[udnkit.AnnotationNetworkName] == n.Name {
				namespaces = append(namespaces, o.Namespace)
			}
		}
		r, err := netconf.RenderCUDN(c, n.ID, namespaces)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", netconf.KindCUDN, c.Name, err)
		}
		for _, nad := range r.NADs {
			nads = append(nads, nad)
		}
	}
	for i, n := range nads {
		raw, err := json.Marshal(n)
		if err != nil {
			return nil, err
		}
		var h header
		if err := json.Unmarshal(raw, &h); err != nil {
			return nil, err
		}
		key := h.Metadata.Namespace + "/" + h.Metadata.Name
		if s.Source(KindNAD, key) != "" {
			continue
		}
		if raw, err = annotate(raw, want[KindNAD+" "+key]); err != nil {
			return nil, err
		}
		out = append(out, Object{APIVersion: h.APIVersion, Kind: h.Kind, Namespace: h.Metadata.Namespace, Name: h.Metadata.Name,
			Source: fmt.Sprintf("rendered NAD %d", i+1), JSON: raw})
	}
	return out, nil
}

// annotate merges ann into the metadata.annotations of the object raw.
func annotate(raw []byte, ann map[string]string) ([]byte, error) {
	if len(ann) == 0 {
		return raw, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	md, _ := m["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		m["metadata"] = md
	}
	have, _ := md["annotations"].(map[string]any)
	if have == nil {
		have = map[string]any{}
	}
	for _, k := range slices.Sorted(maps.Keys(ann)) {
		v := ann[k]
		if old, ok := have[k].(string); ok && k == udnkit.AnnotationNodeSubnets {
			subs, err := udnkit.ParseNodeSubnets(v)
			if err != nil {
				return nil, err
			}
			if prev, err := udnkit.ParseNodeSubnets(old); err == nil {
				maps.Copy(prev, subs)
				v = udnkit.FormatNodeSubnets(prev)
			}
		}
		have[k] = v
	}
	md["annotations"] = have
	return json.Marshal(m)
}

// withStatusItems sets the status.items of the object raw.
func withStatusItems(raw []byte, items any) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	st, _ := m["status"].(map[string]any)
	if st == nil {
		st = map[string]any{}
	}
	st["items"] = items
	m["status"] = st
	return json.Marshal(m)
}

// List returns objs as one kubectl List, JSON.
func List(objs []Object) ([]byte, error) {
	items := make([]json.RawMessage, len(objs))
	for i, o := range objs {
		items[i] = o.JSON
	}
	return json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{"resourceVersion": ""}, "items": items})
}
