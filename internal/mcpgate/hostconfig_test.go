package mcpgate

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/mcpgate/clientauth"
)

func hostSample(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "examples", "mcp-host-mode", "gateway.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// TestTheHostModeSampleConfigurationLoads: the sample maps every tool and
// names what each requests.
func TestTheHostModeSampleConfigurationLoads(t *testing.T) {
	c, err := ParseConfig([]byte(hostSample(t)))
	if err != nil {
		t.Fatal(err)
	}
	if c.Host == nil || len(c.Host.Tools) != len(c.Tools) || c.Host.lifetime() != 30 || c.Host.contextLifetime() != DefaultContextLifetimeSeconds {
		t.Fatalf("unexpected host block: %+v", c.Host)
	}
}

// TestHostModeConfigurationReportsEveryInvalidFieldAtOnce: each edit
// breaks one rule of the host block; all of them together are reported
// in one error, each at its path.
func TestHostModeConfigurationReportsEveryInvalidFieldAtOnce(t *testing.T) {
	edits := []struct {
		rule, from, to, path string
	}{
		{"the registry is named exactly", `registry: {snapshotID: coding-registry, generation: current}`, `registry: {snapshotID: coding-registry}`, "host.registry"},
		{"the policy is named exactly", `policyID: host-mode, `, ``, "host.policy"},
		{"a mapped subject is a protocol identity", `as: alice}`, `as: Alice}`, "host.identity.subjects[0].as"},
		{"exactly one of tenant and tenantGroupPrefix", "    tenant: acme\n", "    tenant: acme\n    tenantGroupPrefix: \"tenant:\"\n", "host.identity"},
		// One edit, two rules: the entry names no mapped tool, and the
		// mapped tool it named has no entry now.
		{"every host tool is a mapped tool", `{name: submit_payment, capabilities: [financial.transfer]}`, `{name: pay, capabilities: [financial.transfer]}`, "host.tools[2].name"},
		{"a host tool requests a capability", `{name: read_text_file, capabilities: [data.read]}`, `{name: read_text_file, capabilities: []}`, "host.tools[0].capabilities"},
		{"the lifetime is bounded", "maxLifetimeSeconds: 30", "maxLifetimeSeconds: 3601", "host.maxLifetimeSeconds"},
	}
	doc := hostSample(t)
	// clientAuth is required in Host mode: cut the block.
	i, j := strings.Index(doc, "clientAuth:\n"), strings.Index(doc, "host:\n")
	if i < 0 || j < i {
		t.Fatal("the sample has no clientAuth block before host")
	}
	doc = doc[:i] + doc[j:]
	want := []string{"clientAuth", "tools[2].name"}
	for _, e := range edits {
		if !strings.Contains(doc, e.from) {
			t.Fatalf("%s: the sample has no %q", e.rule, e.from)
		}
		doc = strings.Replace(doc, e.from, e.to, 1)
		want = append(want, e.path)
	}
	_, err := ParseConfig([]byte(doc))
	var got []string
	for _, e := range flatten(err) {
		var ce *ConfigError
		if !errors.As(e, &ce) {
			t.Fatalf("not a ConfigError: %v", e)
		}
		got = append(got, ce.Path)
	}
	slices.Sort(got)
	slices.Sort(want)
	if d := cmp.Diff(want, slices.Compact(got)); d != "" {
		t.Fatalf("reported paths (-want +got):\n%s", d)
	}
}

// TestHostIdentityMappingRefusesWhatItCannotMapExactly: the mapping is
// the reviewed table or the verified subject as a protocol identity, and
// one tenant; anything else is unmapped, never guessed.
func TestHostIdentityMappingRefusesWhatItCannotMapExactly(t *testing.T) {
	table := IdentityMapping{Subjects: []SubjectMapping{{Issuer: "https://idp", Subject: "user:alice", As: "alice"}}, Tenant: "acme"}
	verbatim := IdentityMapping{TenantGroupPrefix: "tenant:"}
	for _, tc := range []struct {
		rule            string
		m               IdentityMapping
		id              clientauth.Identity
		subject, tenant string
	}{
		{"a client in the table maps to its entry", table, clientauth.Identity{Issuer: "https://idp", Subject: "user:alice"}, "alice", "acme"},
		{"the same subject of another issuer is not in the table", table, clientauth.Identity{Issuer: "https://other", Subject: "user:alice"}, "", ""},
		{"without a table a protocol identity maps to itself", verbatim, clientauth.Identity{Subject: "agent-7", Groups: []string{"tenant:acme"}}, "agent-7", "acme"},
		{"without a table a subject outside the grammar is unmapped", verbatim, clientauth.Identity{Subject: "Agent 7", Groups: []string{"tenant:acme"}}, "", ""},
		{"no tenant group is unmapped", verbatim, clientauth.Identity{Subject: "agent-7"}, "", ""},
		{"two tenant groups are unmapped", verbatim, clientauth.Identity{Subject: "agent-7", Groups: []string{"tenant:acme", "tenant:beta"}}, "", ""},
		{"a tenant group outside the grammar is unmapped", verbatim, clientauth.Identity{Subject: "agent-7", Groups: []string{"tenant:ACME"}}, "", ""},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			s, tn, ok := tc.m.resolve(tc.id)
			if ok != (tc.subject != "") || s != tc.subject || tn != tc.tenant {
				t.Fatalf("got %q %q %v, want %q %q", s, tn, ok, tc.subject, tc.tenant)
			}
		})
	}
}

// TestHostEvidenceWindowEndsAtTheCredentialsExpiry: the validity starts
// before the gateway's clock by the tolerated skew and ends at the
// credential's expiry or the configured bound, whichever is first; an
// expired credential has none.
func TestHostEvidenceWindowEndsAtTheCredentialsExpiry(t *testing.T) {
	h := &HostConfig{}
	now := time.Unix(1_800_000_000, 0)
	for _, tc := range []struct {
		rule   string
		expiry time.Time
		end    uint64
		ok     bool
	}{
		{"a credential without expiry: the configured bound", time.Time{}, 1_800_000_000 + DefaultContextLifetimeSeconds, true},
		{"a credential expiring first: its expiry", now.Add(time.Minute), 1_800_000_060, true},
		{"a credential expiring later: the bound", now.Add(time.Hour), 1_800_000_000 + DefaultContextLifetimeSeconds, true},
		{"an expired credential: none", now.Add(-time.Second), 0, false},
		{"a credential expiring now: none", now, 0, false},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			w, ok := h.window(now, tc.expiry)
			if ok != tc.ok || (ok && (w.ExpiresAt != tc.end || w.IssuedAt != 1_800_000_000-hostClockSkewSeconds || w.NotBefore != w.IssuedAt)) {
				t.Fatalf("got %+v %v", w, ok)
			}
		})
	}
}

// TestHostSessionIsAProtocolIdentityThatRepeatsNoInput: the session of a
// call is a protocol identity, the same for the same MCP session or
// credential, different across them, and holds neither the session id nor
// the subject.
func TestHostSessionIsAProtocolIdentityThatRepeatsNoInput(t *testing.T) {
	alice := clientauth.Identity{Issuer: "https://idp", Subject: "alice", Expiry: time.Unix(1_800_000_000, 0)}
	bob := alice
	bob.Subject = "bob"
	later := alice
	later.Expiry = later.Expiry.Add(time.Hour)
	sessions := map[string]string{
		"mcp session s1":             hostSession("s1-0123456789", alice),
		"mcp session s2":             hostSession("s2-0123456789", alice),
		"alice's credential":         hostSession("", alice),
		"bob's credential":           hostSession("", bob),
		"alice's renewed credential": hostSession("", later),
	}
	seen := map[string]string{}
	for name, s := range sessions {
		if !controlledRe.MatchString(s) {
			t.Errorf("%s: %q is not a protocol identity", name, s)
		}
		if strings.Contains(s, "alice") || strings.Contains(s, "0123456789") {
			t.Errorf("%s: %q repeats an input", name, s)
		}
		if other, ok := seen[s]; ok {
			t.Errorf("%s and %s share the session %q", name, other, s)
		}
		seen[s] = name
	}
	if hostSession("s1-0123456789", bob) != sessions["mcp session s1"] {
		t.Error("the MCP session's digest depends on more than the session id")
	}
	if hostSession("", alice) != sessions["alice's credential"] {
		t.Error("the credential's session is not deterministic")
	}
}
