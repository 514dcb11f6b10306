package argpred

import (
	"net"
	"net/url"
	"path"
	"strings"
	"testing"
)

// FuzzPathWithin checks pathWithin against the standard library's lexical
// path rules: a value it reads is one path.Clean leaves unchanged (so it
// refused everything cleaning would have rewritten: '.', '..', '//', a
// trailing '/'), and it is within the root exactly when its cleaned form
// lies under the root.
func FuzzPathWithin(f *testing.F) {
	for _, s := range []string{"/workspace/project", "/workspace/project/a", "/workspace/project2", "/workspace/project/../x",
		"/workspace//project", "/workspace/project/", "/./workspace", "workspace", "", "/", "/workspace/project\\a", "/a/\x00"} {
		f.Add("/workspace/project", s)
		f.Add("/", s)
	}
	f.Fuzz(func(t *testing.T, root, v string) {
		if !validPath(root, true) {
			return
		}
		in, ok := within(root, v)
		if !ok {
			if in {
				t.Fatal("a refused value is within the root")
			}
			return
		}
		if path.Clean(v) != v || strings.ContainsAny(v, "\\\x00") {
			t.Fatalf("read %q, which is not a clean path", v)
		}
		under := v == root || root == "/" || strings.HasPrefix(v, strings.TrimSuffix(root, "/")+"/")
		if in != under {
			t.Fatalf("within(%q, %q) = %v, lexically %v", root, v, in, under)
		}
	})
}

// FuzzURLIn checks the URL rule against net/url and net: a value it reads
// parses there with the same scheme and host, without userinfo, with a
// lowercase host that is no IP literal other than a canonical IPv4
// address.
func FuzzURLIn(f *testing.F) {
	for _, s := range []string{"https://api.example.com/x?y#z", "https://user@api.example.com", "https://API.example.com",
		"https://127.1/", "https://10.0.0.1:8443/", "https://[::1]/", "https://a.example.com./", "https://a%2e.com",
		"https://a.com\\@b.com", "http://a.com:0080", "mailto:a@b.com", "https://a.com#@b.com", "https://a.com?@b.com"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		scheme, hostPort, ok := splitURL(v)
		if !ok {
			return
		}
		u, err := url.Parse(v)
		switch {
		case err != nil:
			t.Fatalf("read %q, which net/url rejects: %v", v, err)
		case u.Scheme != scheme || u.Host != hostPort:
			t.Fatalf("read %q as %s %s; net/url reads %s %s", v, scheme, hostPort, u.Scheme, u.Host)
		case u.User != nil || u.Opaque != "":
			t.Fatalf("read %q, which has userinfo or is opaque", v)
		case strings.ToLower(hostPort) != hostPort:
			t.Fatalf("read %q with an uppercase host", v)
		}
		if ip := net.ParseIP(u.Hostname()); ip != nil && (ip.To4() == nil || ip.String() != u.Hostname()) {
			t.Fatalf("read %q with a non-canonical IP host", v)
		}
	})
}
