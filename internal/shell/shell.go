// Package shell quotes words for the POSIX shell scripts the SDK prints
// (vrf.State.Script, flows.Script, the ovn-nbctl scripts of
// backend/nbctl): a printed dry run is safe to run whatever the names in
// it hold.
package shell

import "strings"

// Quote returns s as one shell word: unchanged when it holds only
// characters no shell treats specially (letters, digits and "%+,-./:=@_"),
// otherwise in single quotes, each single quote written '\”. The empty
// string is ”.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, special) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func special(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return false
	}
	return !strings.ContainsRune("%+,-./:=@_", r)
}

// Join quotes each word and joins them with spaces: one command line.
func Join(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = Quote(w)
	}
	return strings.Join(q, " ")
}
