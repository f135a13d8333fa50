// Package kubename holds the Kubernetes name rules netconf and
// netconf/podnetwork share: object metadata and references to objects by
// name (DNS-1123), with apimachinery's messages.
package kubename

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateObjectName checks a reference to an object by name: required
// (detail says why) and a DNS-1123 subdomain.
func ValidateObjectName(name string, path *field.Path, required string) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(path, required)}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		errs = append(errs, field.Invalid(path, name, msg))
	}
	return errs
}

// ValidateMeta checks the metadata of an object of kind: a name that is a
// DNS-1123 subdomain; for a namespaced object a namespace that is a
// DNS-1123 label (namespaceRequired says why it is needed), for a
// cluster-scoped one no namespace.
func ValidateMeta(m *metav1.ObjectMeta, kind string, namespaced bool, namespaceRequired string) field.ErrorList {
	meta := field.NewPath("metadata")
	errs := ValidateObjectName(m.Name, meta.Child("name"), "the "+kind+" needs a name")
	switch {
	case namespaced && m.Namespace == "":
		errs = append(errs, field.Required(meta.Child("namespace"), namespaceRequired))
	case namespaced:
		for _, msg := range validation.IsDNS1123Label(m.Namespace) {
			errs = append(errs, field.Invalid(meta.Child("namespace"), m.Namespace, msg))
		}
	case m.Namespace != "":
		errs = append(errs, field.Forbidden(meta.Child("namespace"), "a "+kind+" is cluster-scoped"))
	}
	return errs
}

// NamespacedNameErrors says what is wrong with namespace/name as the key
// of a namespaced object: the namespace must be a DNS-1123 label, the name
// a DNS-1123 subdomain. Each message starts "namespace: " or "name: ".
func NamespacedNameErrors(namespace, name string) []string {
	var msgs []string
	for _, msg := range validation.IsDNS1123Label(namespace) {
		msgs = append(msgs, "namespace: "+msg)
	}
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		msgs = append(msgs, "name: "+msg)
	}
	return msgs
}
