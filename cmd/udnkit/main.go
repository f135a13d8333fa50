// Command udnkit is the SDK's command-line face: it validates, plans,
// diffs, applies, explains, draws and verifies user-defined networks from
// the manifests `kubectl get -o yaml` prints, with no cluster access of its
// own (files or stdin in, the OVN Northbound database for diff, apply and
// verify, the Southbound for verify's ovn-trace).
//
//	udnkit validate -f FILE|DIR|-
//	udnkit plan     -f ... [--zone NODE | --all-zones] [-o text|json|yaml|nbctl|stored|ip|nft|ofctl]
//	udnkit diff     -f ... --nb ENDPOINT [-o text|nbctl]       exit 0 same, 1 differs, 2 error
//	udnkit apply    -f ... [--nb ENDPOINT] [--dry-run]         default: an embedded NB
//	udnkit explain  network|node|pod NAME -f ...
//	udnkit draw     -f ... [-o mermaid|dot|svg|png]
//	udnkit verify   -f ... --nb ENDPOINT --sb ENDPOINT [-o text|json]   exit 0 as meant, 1 surprise, 2 error
//	udnkit completion bash|zsh|fish|powershell
//
// The packages do the work (internal/manifest reads the stream and builds a
// udnkit.Cluster from the objects' annotations, the Cluster plans,
// topology/diagram draws, backend/ovnnb and backend/nbctl apply and
// render, internal/probe traces and judges verify's probes); the command
// parses flags and prints.
//
// Output is plain text unless stderr is a terminal: then validate's (and
// every command's) errors and notes are coloured, unless NO_COLOR is set or
// TERM is dumb, and apply draws a spinner with the elapsed time while it
// plans and syncs. Goldens and pipes see the plain text.
package main

import (
	"context"
	"os"
)

func main() {
	os.Exit(runStreams(context.Background(), os.Args[1:], streams{in: os.Stdin, out: os.Stdout, errOut: os.Stderr,
		term: detectTerminal(os.Stderr, os.Getenv)}))
}
