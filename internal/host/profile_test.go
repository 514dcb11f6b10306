package host_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolgate/toolgate/internal/argprofile"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/testutil"
)

// writeFileProfile is a write_file-like MCP tool: a path under /workspace/
// and free text bound by its digest.
const writeFileProfile = `
profile: toolgate.mcp-arguments/1
tool: write_file
arguments:
  choice: object
  members:
  - json: path
    field: path
    required: true
    value: {choice: string, pattern: "^/workspace/"}
  - json: content
    field: content
    required: true
    value: {choice: text, bind: digest}
`

// scaleProfile takes one number with at most two fraction digits.
const scaleProfile = `
profile: toolgate.mcp-arguments/1
tool: scale
arguments:
  choice: object
  members:
  - {json: a, field: a, required: true, value: {choice: decimal, scale: 2}}
`

func mustProfile(t testing.TB, doc string) *argprofile.Profile {
	t.Helper()
	p, err := argprofile.Parse([]byte(doc))
	if err != nil {
		t.Fatalf("profile: %v", err)
	}
	return p
}

// profiled is the definition of p bound to it: docRef and Schema root are
// the profile's.
func profiled(p *argprofile.Profile, id, toolID string) registry.DefinitionDraft {
	return testutil.Definition(id, toolID, "1", testutil.WithSchema(id+"-args", p.Schema()), func(d *registry.DefinitionDraft) {
		d.DocRef = p.DocRef()
		d.SideEffect, d.Risk, d.Reversibility = "reversibleMutation", "moderate", "compensatable"
		d.Capabilities = []string{"data.write"}
	})
}

// newFilesHost is the payments domain with data.write in its ceiling, a
// registry holding the payments tool and the two profiled tools, and a
// policy that allows both for tenant acme.
func newFilesHost(t testing.TB) *host.Host {
	t.Helper()
	cfg := paymentsConfig()
	cfg.Capabilities = append(cfg.Capabilities, "data.write")
	h, err := host.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	wf, sc := mustProfile(t, writeFileProfile), mustProfile(t, scaleProfile)
	d := host.RegistryDraft{
		Draft: testutil.RegistryDraft(testutil.PaymentsDefinition(),
			profiled(wf, "fs-write-file-1", "fs.write-file"), profiled(sc, "scale-1", "calc.scale")),
		Profiles: []*argprofile.Profile{nil, wf, sc},
	}
	if _, err := h.PublishRegistry(d); err != nil {
		t.Fatal(err)
	}
	pol := paymentsPolicy()
	for _, tool := range []string{"fs.write-file", "calc.scale"} {
		pol.Policies[0].Rules = append(pol.Policies[0].Rules, policy.RuleDraft{
			ID: "allow-" + strings.ReplaceAll(tool, ".", "-"), Effect: "allow", Reason: "allowRuleMatched",
			Condition: policy.ConditionDraft{All: []policy.ConditionDraft{is("exactToolID", tool), is("exactTenant", "acme")}},
			Scope:     &policy.ScopeDraft{Capabilities: []string{"data.write"}},
		})
	}
	if _, err := h.PublishPolicy(admin, pol); err != nil {
		t.Fatal(err)
	}
	return h
}

// call is alice's request for tool with the raw MCP arguments raw.
func call(tool string, raw []byte) host.AuthorizeRequest {
	r := payment()
	r.Proposal.ToolID, r.Proposal.Arguments = tool, raw
	r.Facts.Intent.Capabilities, r.Facts.Intent.Resources = []string{"data.write"}, nil
	r.RequestedCapabilities, r.RequestedResources = []string{"data.write"}, nil
	return r
}

func callExpectations(tool string, raw []byte) host.Expectations {
	exp := expectations()
	exp.ToolID, exp.Arguments = tool, raw
	exp.Capabilities, exp.Resources = []string{"data.write"}, nil
	return exp
}

// TestProfiledToolAuthorizesAndValidatesItsMCPArguments: a tool whose
// definition carries an argument profile is authorized with its real MCP
// arguments (free text with newlines and non-ASCII characters) and
// validates, and validates for consumption, with the same bytes; one
// changed octet of the content mismatches.
func TestProfiledToolAuthorizesAndValidatesItsMCPArguments(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		raw    string
		octet  string // the first octet of this is changed, within the content
		change byte
	}{
		"newlines":            {`{"path":"/workspace/a.txt","content":"hello\nworld\n"}`, "world", 'W'},
		"non-ASCII":           {`{"path":"/workspace/gruesse.txt","content":"Grüße, 世界 🌍\n"}`, "\x9fe,", 0x9e}, // ß → Þ
		"escapes and spacing": {"{ \"content\" : \"tab\\there \\u00e9\\ud83c\\udf0d\" ,\n \"path\":\"/workspace/b\" }", "here", 'H'},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newFilesHost(t)
			raw := []byte(tc.raw)
			res, err := h.Authorize(call("fs.write-file", raw))
			if err != nil || res.Authorization == nil {
				t.Fatalf("Authorize: %v (result %+v)", err, res)
			}
			if _, err := h.Validate(executor, res.Authorization, callExpectations("fs.write-file", raw), now+1); err != nil {
				t.Fatalf("Validate with the same bytes: %v", err)
			}
			if _, err := h.ValidateForConsumption(executor, res.Authorization, callExpectations("fs.write-file", raw), now+1); err != nil {
				t.Fatalf("ValidateForConsumption with the same bytes: %v", err)
			}
			changed := bytes.Clone(raw)
			i := bytes.LastIndex(changed, []byte(tc.octet))
			if i < bytes.Index(changed, []byte(`"content"`)) {
				t.Fatal("the octet to change is not in the content")
			}
			changed[i] = tc.change
			if !utf8.Valid(changed) || !json.Valid(changed) {
				t.Fatal("the changed call is no JSON text")
			}
			_, err = h.Validate(executor, res.Authorization, callExpectations("fs.write-file", changed), now+1)
			if !isCode(err, fault.ErrMismatch) {
				t.Fatalf("Validate with one changed octet: %v, want a mismatch", err)
			}
		})
	}
}

// TestProfiledDecimalAuthorizes: a number with a fraction, which the core
// refuses, is authorized under a decimal profile and refused beyond its
// scale.
func TestProfiledDecimalAuthorizes(t *testing.T) {
	t.Parallel()
	h := newFilesHost(t)
	res, err := h.Authorize(call("calc.scale", []byte(`{"a":1.5}`)))
	if err != nil || res.Authorization == nil {
		t.Fatalf("Authorize: %v", err)
	}
	if _, err := h.Validate(executor, res.Authorization, callExpectations("calc.scale", []byte(`{"a":1.50}`)), now+1); err != nil {
		t.Errorf("the same decimal value, spelled 1.50: %v", err)
	}
	_, err = h.Validate(executor, res.Authorization, callExpectations("calc.scale", []byte(`{"a":1.51}`)), now+1)
	if !isCode(err, fault.ErrMismatch) {
		t.Errorf("another value: %v, want a mismatch", err)
	}
	_, err = h.Authorize(call("calc.scale", []byte(`{"a":1.555}`)))
	testutil.CheckFault(t, err, fault.ErrKindMismatch, "proposal.arguments/a")
}

// TestDerivationRefusalIsLocatedAndEchoesNothing: a refusal of the profile
// is a typed fault at the raw arguments' path followed by the JSON pointer
// of the refused value, every refusal at once, and quotes no value.
func TestDerivationRefusalIsLocatedAndEchoesNothing(t *testing.T) {
	t.Parallel()
	h := newFilesHost(t)
	secret := "/etc/secret-value"
	raw := []byte(`{"path":"` + secret + `","extra":"` + secret + `"}`)
	_, err := h.Authorize(call("fs.write-file", raw))
	testutil.CheckFaultList(t, err, []string{
		"proposal.arguments unknownField", "proposal.arguments/content missing", "proposal.arguments/path malformed",
	})
	testutil.CheckNoEcho(t, err, secret)

	r := call("fs.write-file", []byte(`{"path":"`+secret+`","content":""}`))
	_, err = h.Canonicalize(runtime, r.Registry, r.Proposal, "assessment-1")
	testutil.CheckFault(t, err, fault.ErrMalformed, "proposal.arguments/path")

	res, err := h.Authorize(call("fs.write-file", []byte(`{"path":"/workspace/a","content":"x"}`)))
	if err != nil || res.Authorization == nil {
		t.Fatalf("Authorize: %v", err)
	}
	_, err = h.Validate(executor, res.Authorization, callExpectations("fs.write-file", []byte(`{"path":"/workspace/a","content":1}`)), now+1)
	testutil.CheckFault(t, err, fault.ErrKindMismatch, "arguments/content")

	big := []byte(`{"path":"/workspace/a","content":"` + strings.Repeat("x", host.DefaultLimits().MaxArgumentBytes) + `"}`)
	_, err = h.Authorize(call("fs.write-file", big))
	testutil.CheckFault(t, err, fault.ErrLimitExceeded, "proposal.arguments")
}

// randomText is a string of 0–40 code points drawn from ASCII, control
// characters, the quote and backslash, Latin-1, CJK and astral planes.
func randomText(rng *rand.Rand) string {
	pools := [][2]rune{{0x20, 0x7e}, {0, 0x1f}, {'"', '"'}, {'\\', '\\'}, {0xa0, 0xff}, {0x4e00, 0x4e40}, {0x1f300, 0x1f340}}
	var b strings.Builder
	for range rng.IntN(41) {
		p := pools[rng.IntN(len(pools))]
		b.WriteRune(p[0] + rune(rng.IntN(int(p[1]-p[0]+1))))
	}
	return b.String()
}

// spell writes s as a JSON string, escaping a random choice of its code
// points as \u escapes (surrogate pairs beyond the BMP): another spelling
// of the same value.
func spell(rng *rand.Rand, s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\' || r < 0x20 || rng.IntN(4) == 0:
			if r > 0xffff {
				r -= 0x10000
				b.WriteString(hex4(0xd800 + r>>10))
				b.WriteString(hex4(0xdc00 + r&0x3ff))
			} else {
				b.WriteString(hex4(r))
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func hex4(r rune) string {
	const digits = "0123456789abcdef"
	return `\u` + string([]byte{digits[r>>12&0xf], digits[r>>8&0xf], digits[r>>4&0xf], digits[r&0xf]})
}

func writeCall(rng *rand.Rand, path, content string) []byte {
	members := []string{`"path":` + spell(rng, path), `"content":` + spell(rng, content)}
	if rng.IntN(2) == 0 {
		members[0], members[1] = members[1], members[0]
	}
	return []byte("{" + members[0] + strings.Repeat(" ", rng.IntN(2)) + "," + members[1] + "}")
}

// TestProfiledCanonicalRequestsAgree (property): for random accepted MCP
// arguments the Canonical Request the Host derives at authorize is the one
// it derives at validate from the same bytes, whatever their spelling;
// another value mismatches.
func TestProfiledCanonicalRequestsAgree(t *testing.T) {
	t.Parallel()
	h := newFilesHost(t)
	rng := rand.New(rand.NewPCG(7, 11))
	sel := host.RegistrySelection{SnapshotID: "primary-registry", Generation: "1"}
	canonical := func(raw []byte) []byte {
		t.Helper()
		p := request.Proposal{ProposalID: "proposal-1", ToolID: "fs.write-file", Version: "1", Arguments: raw}
		r, err := h.Canonicalize(runtime, sel, p, "assessment-1")
		if err != nil {
			t.Fatalf("Canonicalize: %v", err)
		}
		return r.Bytes()
	}
	const rounds = 300
	for i := range rounds {
		path, content := "/workspace/"+randomText(rng), randomText(rng)
		if !utf8.ValidString(path) || strings.ContainsFunc(path, func(r rune) bool { return r < 0x20 || r > 0x7e }) {
			path = "/workspace/f" // the path choice is printable ASCII
		}
		raw, respelled := writeCall(rng, path, content), writeCall(rng, path, content)
		if !bytes.Equal(canonical(raw), canonical(respelled)) {
			t.Fatalf("round %d: two spellings of one value canonicalize differently", i)
		}
		other := content + randomText(rng)
		if other == content {
			other += "x"
		}
		if bytes.Equal(canonical(raw), canonical(writeCall(rng, path, other))) {
			t.Fatalf("round %d: two contents canonicalize alike", i)
		}
		if i%10 != 0 {
			continue // the full authorize–validate round on a tenth of them
		}
		res, err := h.Authorize(call("fs.write-file", raw))
		if err != nil || res.Authorization == nil {
			t.Fatalf("round %d: Authorize: %v", i, err)
		}
		if _, err := h.Validate(executor, res.Authorization, callExpectations("fs.write-file", raw), now+1); err != nil {
			t.Fatalf("round %d: Validate with the same bytes: %v", i, err)
		}
		if _, err := h.Validate(executor, res.Authorization, callExpectations("fs.write-file", writeCall(rng, path, other)), now+1); !isCode(err, fault.ErrMismatch) {
			t.Fatalf("round %d: Validate with another content: %v, want a mismatch", i, err)
		}
	}
}

// TestRebuild_ProfiledDerivesIdentically: the portable record keeps the
// raw MCP arguments (compacted); a replica rebuilds the Authorization from
// it, deriving the same Canonical Request, and it validates there with the
// bytes the executor forwards.
func TestRebuild_ProfiledDerivesIdentically(t *testing.T) {
	t.Parallel()
	raw := []byte("{\n  \"path\": \"/workspace/a.txt\",\n  \"content\": \"hello\\nworld\\n \\u00e9 Zoë\"\n}")
	h, replica := newFilesHost(t), newFilesHost(t)
	res := issue(t, h, call("fs.write-file", raw))
	got, err := replica.Rebuild(verified(res.Portable))
	if err != nil {
		t.Fatalf("rebuild in a replica: %v", err)
	}
	if !got.Binding().Digest().Equal(res.Authorization.Binding().Digest()) {
		t.Error("the replica's rebuild binds another Consumption Binding")
	}
	if _, err := replica.Validate(executor, got, callExpectations("fs.write-file", raw), now+1); err != nil {
		t.Errorf("the rebuilt authorization does not validate in the replica: %v", err)
	}
	changed := bytes.Replace(raw, []byte("Zoë"), []byte("Zoe"), 1)
	if _, err := replica.Validate(executor, got, callExpectations("fs.write-file", changed), now+1); !isCode(err, fault.ErrMismatch) {
		t.Errorf("another content validated the rebuilt authorization: %v", err)
	}
}

// TestPublishRegistry_BindsEveryProfile: the Host refuses a definition and
// profile that could drift apart, every violation at once at its path.
func TestPublishRegistry_BindsEveryProfile(t *testing.T) {
	t.Parallel()
	wf, sc := mustProfile(t, writeFileProfile), mustProfile(t, scaleProfile)
	good := profiled(wf, "fs-write-file-1", "fs.write-file")
	otherRef := profiled(wf, "fs-write-file-1", "fs.write-file")
	otherRef.DocRef = sc.DocRef()
	otherRoot := profiled(wf, "fs-write-file-1", "fs.write-file")
	otherRoot.Schema.Root = sc.Schema()
	prefixOnly := testutil.PaymentsDefinition(func(d *registry.DefinitionDraft) { d.DocRef = wf.DocRef() })
	tests := map[string]struct {
		defs     []registry.DefinitionDraft
		profiles []*argprofile.Profile
		want     []string
	}{
		"a bound profile publishes": {defs: []registry.DefinitionDraft{good}, profiles: []*argprofile.Profile{wf}},
		"a docRef not the profile's": {
			defs: []registry.DefinitionDraft{otherRef}, profiles: []*argprofile.Profile{wf},
			want: []string{"definitions[0].docRef mismatch"},
		},
		"a schema root not the profile's": {
			defs: []registry.DefinitionDraft{otherRoot}, profiles: []*argprofile.Profile{wf},
			want: []string{"definitions[0].schema.root mismatch"},
		},
		"an argprofile. docRef without its profile, and a profile beyond the definitions, all at once": {
			defs:     []registry.DefinitionDraft{otherRoot, prefixOnly},
			profiles: []*argprofile.Profile{wf, nil, sc},
			want:     []string{"profiles outOfRange", "definitions[0].schema.root mismatch", "definitions[1].docRef missing"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h, err := host.New(paymentsConfig())
			if err != nil {
				t.Fatal(err)
			}
			d := host.RegistryDraft{Draft: testutil.RegistryDraft(tc.defs...), Profiles: tc.profiles}
			_, err = h.PublishRegistry(d)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("PublishRegistry: %v", err)
				}
				return
			}
			testutil.CheckFaultList(t, err, tc.want)
			_, err = host.PublishRegistryDraft(d)
			testutil.CheckFaultList(t, err, tc.want)
		})
	}
}

// TestProfileFaultCodeCoversEveryCode: every refusal code maps onto a
// closed engine code, and the table in docs/arguments.md lists the same
// mapping.
func TestProfileFaultCodeCoversEveryCode(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "docs", "arguments.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, c := range argprofile.Codes() {
		fc := host.ProfileFaultCode(c)
		if !fc.IsValid() {
			t.Errorf("%s maps to no engine code", c)
		}
		if row := "| `" + c.String() + "` | `" + fc.String() + "` |"; !strings.Contains(doc, row) {
			t.Errorf("docs/arguments.md has no row %q", row)
		}
	}
}

// BenchmarkCanonicalizeProfiled is the derivation's share of building a
// Canonical Request: the profiled write_file against the payments tool's
// protocol arguments of a similar size.
func BenchmarkCanonicalizeProfiled(b *testing.B) {
	h := newFilesHost(b)
	sel := host.RegistrySelection{SnapshotID: "primary-registry", Generation: "1"}
	for name, p := range map[string]request.Proposal{
		"profiled write_file": {ProposalID: "proposal-1", ToolID: "fs.write-file", Version: "1",
			Arguments: []byte(`{"path":"/workspace/a.txt","content":"hello\nworld\n` + strings.Repeat("x", 200) + `"}`)},
		"payments (no profile)": {ProposalID: "proposal-1", ToolID: "payments.submit", Version: "1", Arguments: []byte(testutil.PaymentsArguments)},
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := h.Canonicalize(runtime, sel, p, "assessment-1"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
