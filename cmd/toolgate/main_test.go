package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/testutil"
)

// result is what one run of the CLI produced.
type result struct {
	code           int
	stdout, stderr string
}

func runCLI(stdin string, args ...string) result {
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errOut)
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

func samples(t *testing.T) string {
	t.Helper()
	return filepath.Join(testutil.RepoRoot(t), "config", "samples")
}

// writeFile writes content to name in a fresh temporary directory.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeDocs writes each document to a file of its own in a fresh
// temporary directory, which it returns.
func writeDocs(t *testing.T, docs []string) string {
	t.Helper()
	dir := t.TempDir()
	for i, d := range docs {
		if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(i)+".yaml"), []byte(d), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// succeeded fails the test unless r exited 0 with nothing on stderr, and
// returns r's stdout lines.
func succeeded(t *testing.T, r result) []string {
	t.Helper()
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	return strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
}

// oneLine checks that a rejection printed exactly one stderr line
// containing want and nothing on stdout.
func oneLine(t *testing.T, r result, wantCode int, want string) {
	t.Helper()
	if r.code != wantCode {
		t.Errorf("exit code = %d, want %d (stderr %q)", r.code, wantCode, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("stdout = %q, want nothing", r.stdout)
	}
	if n := strings.Count(r.stderr, "\n"); n != 1 || !strings.HasSuffix(r.stderr, "\n") {
		t.Errorf("stderr has %d lines, want exactly one: %q", n, r.stderr)
	}
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr = %q, want it to name %q", r.stderr, want)
	}
}

// TestRegistryValidatePrintsSection50Order: the shipped samples validate
// and the definitions print in Section 50 order.
func TestRegistryValidatePrintsSection50Order(t *testing.T) {
	t.Parallel()
	r := runCLI("", "registry", "validate", samples(t))
	lines := succeeded(t, r)
	if !strings.HasPrefix(lines[0], "registry primary-registry generation 1: valid, 4 definitions, digest sha256:") {
		t.Errorf("summary line = %q", lines[0])
	}
	var tools [][]string
	for _, l := range lines[2:] {
		f := strings.Fields(l)
		tools = append(tools, f[:4])
	}
	want := [][]string{
		{"accounts.lookup", "1", "accounts-lookup-1", "active"},
		{"email.send", "1", "email-send-1", "active"},
		{"payments.refund", "1", "payments-refund-1", "retired"},
		{"payments.submit", "1", "payments-submit-1", "active"},
	}
	if diff := cmp.Diff(want, tools); diff != "" {
		t.Errorf("definition rows (-want +got):\n%s", diff)
	}
}

func TestRegistryValidateRejectsWithoutEcho(t *testing.T) {
	t.Parallel()
	doc := "apiVersion: stk.toolgate.dev/v1alpha1\nkind: ToolRegistry\nmetadata: {name: primary-registry-1}\n" +
		"spec:\n  snapshotID: primary-registry\n  snapshotGeneration: \"1\"\n  secretfield: x\n"
	p := writeFile(t, "bad.yaml", doc)
	r := runCLI("", "registry", "validate", p)
	oneLine(t, r, 1, "bad.yaml:7:3: document 1: is not a valid ToolRegistry document: spec: unknown field")
	if strings.Contains(r.stderr, "secretfield") {
		t.Errorf("stderr echoes the unknown field name: %q", r.stderr)
	}

	const badDefinition = `  definitions:
  - id: Secret-Value
    toolID: a.b
    version: "1"
    lifecycle: active
    risk: low
    sideEffect: readOnly
    reversibility: notApplicable
    capabilities: [data.read]
    title: A tool
    summary: A tool.
    schema: {id: s, version: v1, root: {kind: object}}
`
	r = runCLI("", "registry", "validate", writeFile(t, "bad.yaml", strings.Replace(doc, "  secretfield: x\n", badDefinition, 1)))
	oneLine(t, r, 1, "spec.definitions[0].id: malformed")
	if strings.Contains(r.stderr, "Secret-Value") {
		t.Errorf("stderr echoes the rejected value: %q", r.stderr)
	}
}

var hexRow = regexp.MustCompile(`^  ([0-9a-f]{4})  ([0-9A-F]{2}(?: [0-9A-F]{2})*)$`)

// TestRequestCanonicalizeMatchesTheEngine: the hex dump the CLI prints
// parses back to exactly the bytes the engine builds for the sample
// proposal, and the Resources line lists the derived set.
func TestRequestCanonicalizeMatchesTheEngine(t *testing.T) {
	t.Parallel()
	proposalFile := filepath.Join(testutil.RepoRoot(t), "examples", "proposals", "payments-submit.json")
	r := runCLI("", "request", "canonicalize", "--manifests", samples(t), "--proposal", proposalFile)
	succeeded(t, r)
	var dumped []byte
	resources, octets := "", -1
	for _, l := range strings.Split(r.stdout, "\n") {
		if rest, ok := strings.CutPrefix(l, "  resources        "); ok {
			resources = rest
		}
		if rest, ok := strings.CutPrefix(l, "  canonicalization v1, "); ok {
			octets, _ = strconv.Atoi(strings.TrimSuffix(rest, " octets"))
		}
		m := hexRow.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if off, _ := strconv.ParseUint(m[1], 16, 32); int(off) != len(dumped) {
			t.Fatalf("hex row offset %s, want %04x", m[1], len(dumped))
		}
		b, err := hex.DecodeString(strings.ReplaceAll(m[2], " ", ""))
		if err != nil {
			t.Fatal(err)
		}
		dumped = append(dumped, b...)
	}
	if resources != "acct-1001, acct-2002" {
		t.Errorf("resources line = %q, want %q", resources, "acct-1001, acct-2002")
	}

	want := engineRequest(t, proposalFile).Bytes()
	if diff := cmp.Diff(hex.EncodeToString(want), hex.EncodeToString(dumped)); diff != "" {
		t.Errorf("dumped bytes (-engine +cli):\n%s", diff)
	}
	if octets != len(want) {
		t.Errorf("octet count line = %d, want %d", octets, len(want))
	}
}

// engineRequest builds the sample's Canonical Request directly with the
// engine, reading the proposal with encoding/json (not the CLI's parser).
func engineRequest(t *testing.T, proposalFile string) *request.CanonicalRequest {
	t.Helper()
	set, err := manifest.LoadPaths(samples(t))
	if err != nil {
		t.Fatal(err)
	}
	draft, err := manifest.RegistryDraft(set.ToolRegistries[0].Spec)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := registry.Publish(draft.Draft)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(proposalFile)
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		ProposalID, ToolID, Version string
		Arguments                   json.RawMessage
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	a := testutil.Assess(t, boundary.New("test"), p.ProposalID)
	req, err := request.New(snap, request.Proposal{ProposalID: p.ProposalID, ToolID: p.ToolID, Version: p.Version, Arguments: p.Arguments}, a)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func TestRequestCanonicalizeRejects(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		proposal string
		wantCode int
		wantText string
	}{
		"a retired tool does not resolve": {
			proposal: `{"proposalID":"p-1","toolID":"payments.refund","version":"1","arguments":{}}`,
			wantCode: 1, wantText: "ineligible",
		},
		"a duplicated toolID key cannot smuggle a second tool": {
			proposal: `{"proposalID":"p-1","toolID":"accounts.lookup","version":"1","toolID":"payments.submit","arguments":{"account":"acct-1"}}`,
			wantCode: 1, wantText: "duplicate object member name",
		},
		"an unknown version does not fall back": {
			proposal: `{"proposalID":"p-1","toolID":"accounts.lookup","version":"2","arguments":{"account":"acct-1"}}`,
			wantCode: 1, wantText: "notFound",
		},
		"a proposal without arguments rejects": {
			proposal: `{"proposalID":"p-1","toolID":"accounts.lookup","version":"1"}`,
			wantCode: 1, wantText: "needs all of proposalID, toolID, version and arguments",
		},
		"an unknown proposal key rejects": {
			proposal: `{"proposalID":"p-1","toolID":"accounts.lookup","version":"1","arguments":{"account":"acct-1"},"secretkey":1}`,
			wantCode: 1, wantText: "a proposal has only the keys",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := writeFile(t, "proposal.json", tc.proposal)
			r := runCLI("", "request", "canonicalize", "--manifests", samples(t), "--proposal", p)
			oneLine(t, r, tc.wantCode, tc.wantText)
			if strings.Contains(r.stderr, "secretkey") {
				t.Errorf("stderr echoes input: %q", r.stderr)
			}
		})
	}
}

// TestIntentDigest proves the agent-safe.intent/1 canonical form through the
// CLI: keys sorted, 1e21 printed as JavaScript does, -0 as 0.
func TestIntentDigest(t *testing.T) {
	t.Parallel()
	r := runCLI(`{"b":1,"a":[1e21,-0]}`, "intent", "digest")
	const canonical = `{"a":[1e+21,0],"b":1}`
	sum := sha256.Sum256([]byte(canonical))
	want := canonical + "\nsha256:" + hex.EncodeToString(sum[:]) + "\n"
	succeeded(t, r)
	if diff := cmp.Diff(want, r.stdout); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
}

func TestIntentDigestRejectsWithOneLine(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		stdin    string
		wantText string
	}{
		"invalid JSON":          {stdin: `{"a":`, wantText: "invalid JSON syntax"},
		"a duplicate key":       {stdin: `{"a":1,"a":2}`, wantText: "duplicate key"},
		"a forbidden __proto__": {stdin: `{"__proto__":{"admin":true}}`, wantText: "forbidden key"},
		"empty input":           {stdin: "", wantText: "no JSON value"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			oneLine(t, runCLI(tc.stdin, "intent", "digest"), 1, tc.wantText)
		})
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"no arguments":                       nil,
		"one word":                           {"registry"},
		"an unknown verb":                    {"registry", "delete"},
		"an unknown noun":                    {"consumption", "list"},
		"policy validate without paths":      {"policy", "validate"},
		"the removed --publisher flag":       {"policy", "validate", "--publisher", "release-bot", "x"},
		"registry validate without paths":    {"registry", "validate"},
		"request canonicalize without flags": {"request", "canonicalize"},
		"an unknown flag":                    {"request", "canonicalize", "--latest"},
		"intent digest with an argument":     {"intent", "digest", "file.json"},
		"manager with an unknown flag":       {"manager", "--latest"},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := runCLI("", args...)
			if r.code != 2 {
				t.Errorf("exit code = %d, want 2", r.code)
			}
			if !strings.Contains(r.stderr, "usage:") || r.stdout != "" {
				t.Errorf("stdout %q, stderr %q; want the usage on stderr only", r.stdout, r.stderr)
			}
		})
	}
}

// TestRequestCanonicalizeSelectsOneExactSnapshot: with several registry
// generations loaded, the snapshot is selected by exact identity and
// generation; a conflicting second object claiming the same generation is
// an ambiguous selection and fails closed instead of taking the first.
func TestRequestCanonicalizeSelectsOneExactSnapshot(t *testing.T) {
	t.Parallel()
	sample, err := os.ReadFile(filepath.Join(samples(t), "stk_v1alpha1_toolregistry.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	gen2 := strings.NewReplacer(`snapshotGeneration: "1"`, `snapshotGeneration: "2"`, "name: primary-registry-1\n", "name: primary-registry-2\n").Replace(string(sample))
	retitled := strings.Replace(string(sample), "title: Submit a payment\n", "title: Submit a payment (edited)\n", 1)
	if gen2 == string(sample) || retitled == string(sample) {
		t.Fatal("the sample no longer has the text this test edits")
	}
	proposal := filepath.Join(testutil.RepoRoot(t), "examples", "proposals", "payments-submit.json")
	cases := map[string]struct {
		docs     []string
		flags    []string
		wantCode int
		wantText string
	}{
		"two generations need an explicit selection": {
			docs: []string{string(sample), gen2}, wantCode: 1, wantText: "select one with --registry and --generation",
		},
		"an exact identity and generation select one snapshot": {
			docs: []string{string(sample), gen2}, flags: []string{"--registry", "primary-registry", "--generation", "2"},
		},
		"an unknown generation does not fall back": {
			docs: []string{string(sample), gen2}, flags: []string{"--registry", "primary-registry", "--generation", "3"},
			wantCode: 1, wantText: "no loaded registry snapshot has exactly that identity and generation",
		},
		"one generation with two different contents is ambiguous": {
			docs: []string{string(sample), retitled}, flags: []string{"--registry", "primary-registry", "--generation", "1"},
			wantCode: 1, wantText: "different content",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeDocs(t, tc.docs)
			args := append([]string{"request", "canonicalize", "--manifests", dir, "--proposal", proposal}, tc.flags...)
			r := runCLI("", args...)
			if tc.wantCode == 0 {
				if r.code != 0 || !strings.Contains(r.stdout, "registry         primary-registry generation 2") {
					t.Errorf("exit %d, stdout %q, stderr %q; want generation 2 selected", r.code, r.stdout, r.stderr)
				}
				return
			}
			oneLine(t, r, tc.wantCode, tc.wantText)
		})
	}
}
