package argpred

import "strings"

// This file holds the value rules of the string predicates: pure functions
// over validated printable-ASCII text (Section 10) that either read the
// value exactly or refuse it (docs/policy-arguments.md, invariants A7 and
// A8). A refusal is never a normalization: nothing is cleaned, decoded or
// case-folded.

// validPath reports whether s is "/" followed by '/'-separated segments,
// each nonempty, neither "." nor "..", with no backslash or NUL. A root may
// also be "/" alone (root is true).
func validPath(s string, root bool) bool {
	if s == "/" {
		return root
	}
	if len(s) < 2 || s[0] != '/' || strings.ContainsAny(s, "\\\x00") {
		return false
	}
	for seg := range strings.SplitSeq(s[1:], "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// within reports whether the path value v lies under root (a valid root):
// v is v itself a valid path and equals root or continues it after a '/'.
// ok is false when v is refused.
func within(root, v string) (in, ok bool) {
	if !validPath(v, false) {
		return false, false
	}
	if root == "/" {
		return true, true
	}
	return v == root || (strings.HasPrefix(v, root) && v[len(root)] == '/'), true
}

// validDNSName reports whether s is a lowercase DNS name: 1–253 octets of
// dot-separated labels of a–z, 0–9 and '-', each 1–63 octets without a
// leading or trailing '-'. No trailing dot, no empty label. A name whose
// last label is all digits is not a DNS name (it is read as an IPv4 form).
func validDNSName(s string) bool {
	if len(s) == 0 || len(s) > 253 {
		return false
	}
	last := ""
	for label := range strings.SplitSeq(s, ".") {
		if len(label) == 0 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
				return false
			}
		}
		last = label
	}
	return !allDigits(last)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// canonicalDecimal reports whether s is a decimal without a leading zero
// (or "0") whose value is at most max.
func canonicalDecimal(s string, max uint64) (uint64, bool) {
	if s == "" || len(s) > 20 || (len(s) > 1 && s[0] == '0') || !allDigits(s) {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		d := uint64(s[i] - '0')
		if n > (max-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// validIPv4 reports whether s is a canonical dotted quad: four decimal
// octets 0–255 without leading zeros.
func validIPv4(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if _, ok := canonicalDecimal(p, 255); !ok {
			return false
		}
	}
	return true
}

// validHost reports whether s is a lowercase DNS name or a canonical IPv4
// address.
func validHost(s string) bool { return validDNSName(s) || validIPv4(s) }

// validHostPort reports whether s is host or host:port with a canonical
// port 1–65535.
func validHostPort(s string) bool {
	host, port, hasPort := strings.Cut(s, ":")
	if !validHost(host) {
		return false
	}
	if hasPort {
		n, ok := canonicalDecimal(port, 65535)
		return ok && n > 0
	}
	return true
}

// validScheme reports whether s is a lowercase URL scheme: a–z, then a–z,
// 0–9, '+', '.', '-'.
func validScheme(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '+' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

// splitURL reads v as scheme://host[:port][/path][?query][#fragment] and
// returns the scheme and the host with its port as written; ok is false
// when v is refused: no "://", an invalid scheme, userinfo ('@' in the
// authority), an invalid host or port (uppercase, '%', a trailing dot, an
// IPv6 literal, a non-canonical numeric host), or a backslash or space
// anywhere.
func splitURL(v string) (scheme, hostPort string, ok bool) {
	if !visibleASCII(v) || strings.Contains(v, "\\") || !validEscapes(v) {
		return "", "", false
	}
	scheme, rest, found := strings.Cut(v, "://")
	if !found || !validScheme(scheme) {
		return "", "", false
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	hostPort = rest[:end]
	if !validHostPort(hostPort) {
		return "", "", false
	}
	return scheme, hostPort, true
}

// validEscapes reports whether every '%' in s starts a two-hex-digit
// escape: a stray '%' is read differently by different URL parsers.
func validEscapes(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		}
	}
	return true
}

// visibleASCII reports whether s has only octets 0x21–0x7E (a validated
// string is printable ASCII already; the space is refused here).
func visibleASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// emailDomain returns the domain of the address v: the suffix after its
// only '@'. ok is false when v does not have exactly one '@', the local
// part is empty, or the domain is not a lowercase DNS name.
func emailDomain(v string) (string, bool) {
	local, domain, found := strings.Cut(v, "@")
	if !found || local == "" || strings.Contains(domain, "@") || !validDNSName(domain) {
		return "", false
	}
	return domain, true
}
