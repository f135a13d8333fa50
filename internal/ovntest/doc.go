// Package ovntest runs OVN for tests: a real OVN 25.03 (NB and SB ovsdb-server
// plus ovn-northd, from the root filesystem that scripts/ovn-env prepares).
// Fast tests that need no real OVN use ovnnb.StartEmbedded instead.
//
// Real OVN needs root (chroot, mount namespaces) and a prepared root
// filesystem. When either is missing, Start skips the test with a message
// saying what to run, unless the environment variable CI is "true": then the
// test fails, because CI must run every test.
//
// The ovn-nbctl, ovn-sbctl and ovn-trace runners execute the tools inside the
// root filesystem with chroot and reach the databases over TCP on 127.0.0.1.
// Every Env is independent; its methods are safe for concurrent use.
package ovntest
