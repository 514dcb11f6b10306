package testutil

// Fixture builders shared by the engine, manifest and CLI tests, in the
// cert-manager gen.X(..., mods...) style: every builder returns a fresh,
// valid value, and a modifier changes one aspect of it.
//
// Import note: this file imports the engine's registry, schema, assessment
// and boundary packages, so only black-box (package x_test) tests of those
// packages, and of the packages they import, can import testutil.

import (
	"bytes"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/schema"
)

// DefinitionModifier changes one aspect of a DefinitionDraft.
type DefinitionModifier func(*registry.DefinitionDraft)

// Definition returns a valid draft of an active, low-risk, read-only tool
// with one capability (data.read), no docRef and the Schema "empty" v1 whose
// root is an object without fields.
func Definition(id, toolID, version string, mods ...DefinitionModifier) registry.DefinitionDraft {
	d := registry.DefinitionDraft{
		ID:            id,
		ToolID:        toolID,
		Version:       version,
		Lifecycle:     "active",
		Risk:          "low",
		SideEffect:    "readOnly",
		Reversibility: "notApplicable",
		Capabilities:  []string{"data.read"},
		Title:         "A reviewed tool",
		Summary:       "A reviewed tool used as a test fixture.",
		Schema:        registry.SchemaDraft{ID: "empty", Version: "v1", Root: schema.Draft{Kind: "object"}},
	}
	for _, m := range mods {
		m(&d)
	}
	return d
}

// WithLifecycle sets the lifecycle token.
func WithLifecycle(l string) DefinitionModifier {
	return func(d *registry.DefinitionDraft) { d.Lifecycle = l }
}

// WithSchema sets the Schema identity and root (version v1).
func WithSchema(id string, root schema.Draft) DefinitionModifier {
	return func(d *registry.DefinitionDraft) {
		d.Schema = registry.SchemaDraft{ID: id, Version: "v1", Root: root}
	}
}

// Capabilities returns n capability set members: the five closed tokens in
// an order that is not ASCII order, followed, past five, by repeats of
// data.read, data.write and resource.delete in turn. The closed vocabulary
// has five tokens, so a set of six or more members can only be reached with
// repeats; the first repeat stands at index 5.
func Capabilities(n int) []string {
	closed := []string{"resource.delete", "financial.transfer", "data.write", "data.read", "communication.external"}
	repeats := []string{"data.read", "data.write", "resource.delete"}
	out := make([]string, 0, n)
	for i := range n {
		if i < len(closed) {
			out = append(out, closed[i])
		} else {
			out = append(out, repeats[(i-len(closed))%len(repeats)])
		}
	}
	return out
}

// Field returns an object field draft.
func Field(name, requirement string, typ schema.Draft) schema.FieldDraft {
	return schema.FieldDraft{Name: name, Requirement: requirement, Type: typ}
}

// PaymentsRoot returns the eight-field payments Schema root of the shipped
// sample config/samples/stk_v1alpha1_toolregistry.yaml.
func PaymentsRoot() schema.Draft {
	str := schema.Draft{Kind: "string"}
	return schema.Draft{Kind: "object", Fields: []schema.FieldDraft{
		Field("amount", "required", schema.Draft{Kind: "unsignedInteger"}),
		Field("currency", "required", schema.Draft{Kind: "enumeration", Cases: []string{"eur", "gbp", "usd"}}),
		Field("debtor-account", "required", schema.Draft{Kind: "resourceID"}),
		Field("creditor-account", "required", schema.Draft{Kind: "resourceID"}),
		Field("memo", "optional", str),
		Field("instant", "optional", schema.Draft{Kind: "bool"}),
		Field("invoice-refs", "optional", schema.Draft{Kind: "array", Items: &str}),
		Field("channel", "optional", schema.Draft{Kind: "object", Fields: []schema.FieldDraft{
			Field("kind", "required", schema.Draft{Kind: "enumeration", Cases: []string{"api", "batch", "portal"}}),
			Field("priority", "optional", schema.Draft{Kind: "signedInteger"}),
		}}),
	}}
}

// PaymentsArguments is a valid argument object for PaymentsRoot that sets
// all eight fields, in an order different from the Schema order.
const PaymentsArguments = `{"currency":"eur","amount":12500,"debtor-account":"acct-2002",` +
	`"creditor-account":"acct-1001","memo":"Invoice 2026-114, thank you","instant":false,` +
	`"invoice-refs":["inv-2026-114","inv-2026-114"],"channel":{"priority":-1,"kind":"api"}}`

// PaymentsDefinition returns the sample's payments.submit version 1
// definition "payments-submit-1" with the PaymentsRoot Schema.
func PaymentsDefinition(mods ...DefinitionModifier) registry.DefinitionDraft {
	base := []DefinitionModifier{
		WithSchema("payments-submit-args", PaymentsRoot()),
		func(d *registry.DefinitionDraft) {
			d.Risk, d.SideEffect, d.Reversibility = "high", "financial", "compensatable"
			d.Capabilities = []string{"financial.transfer", "data.read"}
			d.Title, d.Summary = "Submit a payment", "Submits one payment from a debtor account to a creditor account."
			d.DocRef = "payments.submit-v1"
		},
	}
	return Definition("payments-submit-1", "payments.submit", "1", append(base, mods...)...)
}

// RegistryDraft returns the draft of Registry Snapshot primary-registry
// generation 1 holding defs.
func RegistryDraft(defs ...registry.DefinitionDraft) registry.Draft {
	return registry.Draft{ID: "primary-registry", Generation: "1", Definitions: defs}
}

// Publish publishes d and fails the test if it rejects.
func Publish(tb testing.TB, d registry.Draft) *registry.Snapshot {
	tb.Helper()
	s, err := registry.Publish(d)
	if err != nil {
		tb.Fatalf("registry.Publish: %v", err)
	}
	return s
}

// Assess creates an assessment of proposalID (identity "assessment-1", no
// Provenance or Influence identities) in the Host domain b and fails the
// test if it rejects.
func Assess(tb testing.TB, b boundary.Boundary, proposalID string) *assessment.Assessment {
	tb.Helper()
	a, err := assessment.New(b, assessment.Draft{ProposalID: proposalID, AssessmentID: "assessment-1"})
	if err != nil {
		tb.Fatalf("assessment.New: %v", err)
	}
	return a
}

// Must returns a function that unwraps (v, err), failing the test on err:
// testutil.Must[*lineage.Influence](t)(lineage.NewInfluence(...)).
func Must[T any](tb testing.TB) func(T, error) T {
	return func(v T, err error) T {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
		return v
	}
}

// CheckFault reports a test error unless err is nil when wantErr is nil, or
// matches wantErr with errors.Is and carries a *fault.Error whose Path is
// wantPath.
func CheckFault(tb testing.TB, err, wantErr error, wantPath string) {
	tb.Helper()
	if wantErr == nil {
		if err != nil {
			tb.Errorf("err = %v, want nil", err)
		}
		return
	}
	if !errors.Is(err, wantErr) {
		tb.Errorf("err = %v, want errors.Is %v", err, wantErr)
		return
	}
	var fe *fault.Error
	if !errors.As(err, &fe) {
		tb.Errorf("err = %v (%T), want a *fault.Error", err, err)
		return
	}
	if fe.Path != wantPath {
		tb.Errorf("error path = %q, want %q (err: %v)", fe.Path, wantPath, err)
	}
}

// FaultList returns every fault err carries (fault.All), in order, each as
// "path code".
func FaultList(err error) []string {
	var out []string
	for _, f := range fault.All(err) {
		out = append(out, f.Path+" "+f.Code.String())
	}
	return out
}

// CheckFaultList reports a test error unless err carries exactly the faults
// want, in order, each as "path code" (FaultList).
func CheckFaultList(tb testing.TB, err error, want []string) {
	tb.Helper()
	if diff := cmp.Diff(want, FaultList(err)); diff != "" {
		tb.Errorf("violations (-want +got):\n%s", diff)
	}
}

// RequireFault is CheckFault that stops the test when err is not the
// wanted *fault.Error (a wrong path is reported and the test goes on), and
// also reports a rejection whose Rule is empty: every rejection tells the
// user what to fix.
func RequireFault(tb testing.TB, err, wantErr error, wantPath string) {
	tb.Helper()
	if wantErr == nil {
		if err != nil {
			tb.Fatalf("unexpected rejection: %v", err)
		}
		return
	}
	var fe *fault.Error
	if !errors.Is(err, wantErr) || !errors.As(err, &fe) {
		tb.Fatalf("err = %v (%T), want a *fault.Error matching errors.Is %v", err, err, wantErr)
	}
	CheckFault(tb, err, wantErr, wantPath)
	if fe.Rule == "" {
		tb.Errorf("rejection %v has no rule", err)
	}
}

// CheckNoEcho reports a test error if err's text contains any of values,
// compared without regard to case: a rejection never echoes what it rejected.
// A nil err passes.
func CheckNoEcho(tb testing.TB, err error, values ...string) {
	tb.Helper()
	if err == nil {
		return
	}
	text := strings.ToLower(err.Error())
	for _, v := range values {
		if v != "" && strings.Contains(text, strings.ToLower(v)) {
			tb.Errorf("the rejection echoes a rejected value: %v", err)
			return
		}
	}
}

// CheckVariantsCoverFields fails the test unless variants, one changed
// value per content field of a what, names exactly the fields.
func CheckVariantsCoverFields[V any](tb testing.TB, what string, variants map[string]V, fields []string) {
	tb.Helper()
	covered := slices.Sorted(maps.Keys(variants))
	want := slices.Sorted(slices.Values(fields))
	if !slices.Equal(covered, want) {
		tb.Fatalf("variants cover %v, the %s's content fields are %v", covered, what, want)
	}
}

// SyncBuffer is a bytes.Buffer that goroutines (a server's loggers, a
// child process's output copiers) may write while a test reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// CheckRejectionsDoNotEcho runs each case as a parallel subtest; each must
// reject, and no rejection may echo secret (CheckNoEcho).
func CheckRejectionsDoNotEcho(t *testing.T, secret string, cases map[string]func() error) {
	t.Helper()
	for name, run := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := run()
			if err == nil {
				t.Fatal("want a rejection")
			}
			CheckNoEcho(t, err, secret)
		})
	}
}
