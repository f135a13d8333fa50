// Package nbdb holds the libovsdb models of the OVN Northbound database,
// schema 7.11.0 as shipped by OVN 25.03.
//
// Everything but this file and ovn-nb.ovsschema is generated: do not edit it.
// The schema is /usr/share/ovn/ovn-nb.ovsschema from the Debian trixie package
// ovn-central 25.03.0-1 (installed with ovn-common 25.03.0-1); scripts/ovn-env
// prepare builds a root filesystem holding it. Run `go generate ./internal/nbdb`
// after replacing the schema.
//
// Only backend/ovnnb imports this package.
package nbdb

//go:generate go tool modelgen -extended -p nbdb -o . ovn-nb.ovsschema
