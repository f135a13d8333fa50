package manifest

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/topology/egressip"
	egressipkube "github.com/udnkit/udnkit/topology/egressip/kube"
	egressqoskube "github.com/udnkit/udnkit/topology/egressqos/kube"
)

// Kinds of the k8s.ovn.org/v1 egress custom resources the Set holds.
const (
	KindEgressIP  = egressipkube.Kind
	KindEgressQoS = egressqoskube.Kind
)

func (s *Set) addEgressIP(o Object) error {
	e, err := egressipkube.Decode(o.JSON)
	if err != nil {
		return err
	}
	s.EgressIPs = append(s.EgressIPs, e)
	return nil
}

func (s *Set) addEgressQoS(o Object) error {
	q, err := egressqoskube.Decode(o.JSON)
	if err != nil {
		return err
	}
	s.EgressQoSes = append(s.EgressQoSes, q)
	return nil
}

func (s *Set) sortEgress() {
	slices.SortFunc(s.EgressIPs, func(a, b *egressipkube.EgressIP) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(s.EgressQoSes, func(a, b *egressqoskube.EgressQoS) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
}

// validateEgress adds what the egress adapters refuse, and a mark
// annotation an earlier EgressIP (by name) holds already, which Restore
// would refuse.
func (s *Set) validateEgress(add func(group, kind, ns, name string, errs field.ErrorList)) {
	marks := map[int]string{}
	for _, e := range s.EgressIPs {
		eip, err := egressipkube.EgressIPFrom(e)
		errs := fieldErrors(err)
		if err == nil && eip.Mark != 0 {
			if other, dup := marks[eip.Mark]; dup {
				errs = append(errs, field.Invalid(field.NewPath("metadata", "annotations").Key(egressip.AnnotationMark),
					egressip.FormatMark(eip.Mark), "EgressIP "+other+" holds this mark"))
			} else {
				marks[eip.Mark] = e.Name
			}
		}
		add(egressipkube.Group, KindEgressIP, "", e.Name, errs)
	}
	for _, q := range s.EgressQoSes {
		_, _, err := egressqoskube.EgressQoSFrom(q)
		add(egressqoskube.Group, KindEgressQoS, q.Namespace, q.Name, fieldErrors(err))
	}
}

// fieldErrors returns the field errors an adapter aggregated into err, or
// err at spec when it holds none.
func fieldErrors(err error) field.ErrorList {
	if err == nil {
		return nil
	}
	var out field.ErrorList
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) {
		for _, e := range agg.Errors() {
			var fe *field.Error
			if errors.As(e, &fe) {
				out = append(out, fe)
			}
		}
	}
	if len(out) == 0 {
		out = field.ErrorList{field.Invalid(field.NewPath("spec"), field.OmitValueType{}, err.Error())}
	}
	return out
}

// loadEgressNodes marks the nodes labelled k8s.ovn.org/egress-assignable
// as egress nodes.
func (s *Set) loadEgressNodes(c *udnkit.Cluster) error {
	for _, n := range s.Nodes {
		if _, ok := n.Labels[egressip.LabelEgressAssignable]; !ok {
			continue
		}
		if _, err := c.SetEgressAssignable(n.Name, true); err != nil {
			return fmt.Errorf("%s: %s %s: metadata.labels[%s]: %w", s.Source(KindNode, n.Name), KindNode, n.Name, egressip.LabelEgressAssignable, err)
		}
	}
	return nil
}

// loadEgress sets the EgressIPs (their marks as Restore read them, their
// status items kept where still valid) and the EgressQoS named "default"
// of each namespace; it returns notes on the others and on the egress IPs
// no node could take.
func (s *Set) loadEgress(c *udnkit.Cluster) ([]string, error) {
	var notes []string
	for _, e := range s.EgressIPs {
		eip, err := egressipkube.EgressIPFrom(e)
		if err == nil {
			_, err = c.SetEgressIP(eip)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s %s: %w", s.Source(KindEgressIP, e.Name), KindEgressIP, e.Name, err)
		}
	}
	for _, q := range s.EgressQoSes {
		key := q.Namespace + "/" + q.Name
		eq, ok, err := egressqoskube.EgressQoSFrom(q)
		if err == nil && !ok {
			notes = append(notes, fmt.Sprintf("%s %s: not named %q: ignored, as the reference does", KindEgressQoS, key, "default"))
			continue
		}
		if err == nil {
			_, err = c.SetEgressQoS(eq)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s %s: %w", s.Source(KindEgressQoS, key), KindEgressQoS, key, err)
		}
	}
	for _, e := range s.EgressIPs {
		st, _ := c.EgressIPStatus(e.Name)
		for _, u := range st.Unassigned {
			notes = append(notes, fmt.Sprintf("%s %s: %s not assigned: %s", KindEgressIP, e.Name, u.IP, u.Reason))
		}
	}
	return notes, nil
}

// storedEgressIPs returns the EgressIPs' annotations, what Restore reads
// their marks from.
func (s *Set) storedEgressIPs() []udnkit.Object {
	var out []udnkit.Object
	for _, e := range s.EgressIPs {
		out = append(out, udnkit.Object{Name: e.Name, Annotations: maps.Clone(e.Annotations)})
	}
	return out
}

// egressStatus returns the status.items of an EgressIP the Cluster
// holds, as the reference writes them, and false for one it does not.
func egressStatus(c *udnkit.Cluster, name string) ([]egressipkube.EgressIPStatusItem, bool) {
	st, ok := c.EgressIPStatus(name)
	if !ok {
		return nil, false
	}
	return egressipkube.StatusFrom(egressip.Status{EgressIP: name, Items: st.Items}).Items, true
}
