package request_test

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/canon"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/engine/value"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestNewBuildsTheCanonicalRequest proves Section 11 on a realistic Schema:
// the request binds the exact snapshot, definition and Schema, the typed
// arguments in Schema field order, canonicalization-v1 bytes equal to the
// Section 47 encoding of that envelope, and the unique sorted Resources.
func TestNewBuildsTheCanonicalRequest(t *testing.T) {
	t.Parallel()
	snap := paymentsSnapshot(t)
	a := testutil.Assess(t, boundary.New("host"), "proposal-1")
	r, err := request.New(snap, paymentsProposal(testutil.PaymentsArguments), a)
	if err != nil {
		t.Fatalf("New: %v", err)
	}

	str := func(s string) value.Value { return mustValue(t)(value.String(s)) }
	enum := func(s string) value.Value { return mustValue(t)(value.Enum(mustName(t, s))) }
	res := func(s string) value.Value {
		return mustValue(t)(value.Resource(mustResource(t, s)))
	}
	wantRoot := object(t,
		"amount", value.Unsigned(12500),
		"channel", object(t, "kind", enum("api"), "priority", value.Signed(-1)),
		"creditor-account", res("acct-1001"),
		"currency", enum("eur"),
		"debtor-account", res("acct-2002"),
		"instant", value.Bool(false),
		"invoice-refs", mustValue(t)(value.Array([]value.Value{str("inv-2026-114"), str("inv-2026-114")})),
		"memo", str("Invoice 2026-114, thank you"),
	)
	wantBytes, err := canon.Encode(envelope(t, "payments.submit", "payments-submit-1", "payments-submit-args", wantRoot))
	if err != nil {
		t.Fatalf("canon.Encode: %v", err)
	}
	if diff := cmp.Diff(hex.EncodeToString(wantBytes), hex.EncodeToString(r.Bytes())); diff != "" {
		t.Errorf("Bytes (-want +got):\n%s", diff)
	}
	if !wantRoot.Equal(r.Arguments().Root()) {
		t.Error("Arguments().Root() differs from the expected typed tree")
	}
	if diff := cmp.Diff([]string{"acct-1001", "acct-2002"}, resourceTexts(r)); diff != "" {
		t.Errorf("Resources (-want +got):\n%s", diff)
	}
	if r.Snapshot() != snap {
		t.Error("Snapshot() is not the selected snapshot")
	}
	if r.Definition().ID().String() != "payments-submit-1" || !r.Definition().Equal(snap.Definition(2)) {
		t.Errorf("Definition() = %s, want payments-submit-1 of the snapshot", r.Definition().ID())
	}
	if !r.Schema().Equal(r.Definition().Schema()) {
		t.Error("Schema() is not the definition's Schema")
	}
	if r.CanonicalizationVersion() != vocab.V1 {
		t.Errorf("CanonicalizationVersion = %v, want v1", r.CanonicalizationVersion())
	}
	if r.Assessment() != a {
		t.Error("Assessment() is not the bound assessment")
	}
}

// TestResourcesAreAUniqueSet: a Resource named by two resourceID fields
// counts once (Section 10 and the Section 50 "Resource derivation/set" row),
// and a Resource-looking string field contributes nothing.
func TestResourcesAreAUniqueSet(t *testing.T) {
	t.Parallel()
	snap := paymentsSnapshot(t)
	a := testutil.Assess(t, boundary.New("host"), "proposal-1")
	r, err := request.New(snap, paymentsProposal(
		`{"amount":1,"currency":"usd","debtor-account":"acct-1","creditor-account":"acct-1","memo":"acct-2"}`), a)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if diff := cmp.Diff([]string{"acct-1"}, resourceTexts(r)); diff != "" {
		t.Errorf("Resources (-want +got):\n%s", diff)
	}
	got := r.Resources()
	got[0] = mustResource(t, "acct-9")
	if diff := cmp.Diff([]string{"acct-1"}, resourceTexts(r)); diff != "" {
		t.Errorf("mutating Resources() changed the request (-want +got):\n%s", diff)
	}
}

// TestInputOrderDoesNotChangeTheBytes proves Section 51.1 "The two-field
// object is canonical only for a Schema whose field order is a, then z.
// Reversing the input occurrence order produces the same listed bytes." The
// Schema declares z before a; its field order is still a, then z.
func TestInputOrderDoesNotChangeTheBytes(t *testing.T) {
	t.Parallel()
	want := specTwoFieldObject(t)
	if len(want) != 24 {
		t.Fatalf("spec vector has %d octets, want 24", len(want))
	}
	root := schema.Draft{Kind: "object", Fields: []schema.FieldDraft{
		testutil.Field("z", "required", schema.Draft{Kind: "string"}),
		testutil.Field("a", "required", schema.Draft{Kind: "unsignedInteger"}),
	}}
	snap := testutil.Publish(t, testutil.RegistryDraft(testutil.Definition("pair-1", "test.pair", "1", testutil.WithSchema("pair", root))))
	a := testutil.Assess(t, boundary.New("host"), "proposal-1")
	cases := map[string]string{
		"fields in Schema order":          `{"a":0,"z":"x"}`,
		"fields in reversed input order":  `{"z":"x","a":0}`,
		"insignificant whitespace around": " {\n\t\"z\" : \"x\" ,\r\n \"a\" : 0 } ",
	}
	var first []byte
	for name, args := range cases {
		r, err := request.New(snap, request.Proposal{ProposalID: "proposal-1", ToolID: "test.pair", Version: "1", Arguments: []byte(args)}, a)
		if err != nil {
			t.Fatalf("%s: New: %v", name, err)
		}
		got := r.Bytes()
		if !bytes.HasSuffix(got, want) {
			t.Errorf("%s: bytes % X do not end with the Section 51.1 vector % X", name, got, want)
		}
		if len(got) < len(want)+1 || got[len(got)-len(want)-1] != 0x08 {
			t.Errorf("%s: the vector is not the root value after envelope tag 08", name)
		}
		if first == nil {
			first = got
		} else if !bytes.Equal(first, got) {
			t.Errorf("%s: bytes differ from another input order", name)
		}
	}
}

// TestEmptyRootVectorEndToEnd proves the Section 51 complete 99-octet vector
// through registry publication, resolution, decoding, validation and
// encoding: primary-registry generation 1, payments.submit version 1,
// definition payments-submit-1, Schema empty v1, arguments {}.
func TestEmptyRootVectorEndToEnd(t *testing.T) {
	t.Parallel()
	want := specEmptyRootVector(t)
	if len(want) != 99 {
		t.Fatalf("spec vector has %d octets, want 99", len(want))
	}
	snap := testutil.Publish(t, testutil.RegistryDraft(testutil.Definition("payments-submit-1", "payments.submit", "1")))
	a := testutil.Assess(t, boundary.New("host"), "proposal-1")
	r, err := request.New(snap, paymentsProposal(`{}`), a)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if diff := cmp.Diff(hex.EncodeToString(want), hex.EncodeToString(r.Bytes())); diff != "" {
		t.Errorf("Bytes (-want +got):\n%s", diff)
	}
	if r.Resources() != nil {
		t.Errorf("Resources = %v, want none (no Resource authority)", r.Resources())
	}
}

// TestBytesReturnsACopy: the canonical bytes cannot be changed through the
// slice Bytes returns.
func TestBytesReturnsACopy(t *testing.T) {
	t.Parallel()
	snap := paymentsSnapshot(t)
	r, err := request.New(snap, paymentsProposal(testutil.PaymentsArguments), testutil.Assess(t, boundary.New("host"), "proposal-1"))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	want, d := r.Bytes(), r.Digest()
	got := r.Bytes()
	for i := range got {
		got[i] ^= 0xFF
	}
	if !bytes.Equal(want, r.Bytes()) || !d.Equal(r.Digest()) {
		t.Error("mutating the slice returned by Bytes changed the request")
	}
}

// TestCanonicalSizeBound proves the Section 39 row "Canonical Request bytes"
// and Section 47: a request of exactly 65,536 octets is accepted and one
// octet more rejects with no request and no truncation.
func TestCanonicalSizeBound(t *testing.T) {
	t.Parallel()
	snap := testutil.Publish(t, testutil.RegistryDraft(bigDefinition()))
	a := testutil.Assess(t, boundary.New("host"), "proposal-1")
	cases := map[string]struct {
		size     int
		wantErr  error
		wantPath string
	}{
		"exactly 65536 canonical octets are accepted": {size: canon.MaxSize},
		"65537 canonical octets exceed the bound":     {size: canon.MaxSize + 1, wantErr: fault.ErrLimitExceeded, wantPath: "arguments"},
		"far beyond the bound with every string full": {size: -1, wantErr: fault.ErrLimitExceeded, wantPath: "arguments"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var p request.Proposal
			if tc.size < 0 {
				lens := make([]int, bigFieldCount)
				for i := range lens {
					lens[i] = value.MaxStringLen
				}
				p = request.Proposal{ProposalID: "proposal-1", ToolID: "test.big", Version: "1", Arguments: bigArguments(lens)}
			} else {
				p = bigProposal(t, snap, a, tc.size)
			}
			r, err := request.New(snap, p, a)
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
			switch {
			case tc.wantErr != nil && r != nil:
				t.Errorf("New returned a request of %d octets with an error", len(r.Bytes()))
			case tc.wantErr == nil && (r == nil || len(r.Bytes()) != tc.size):
				t.Errorf("New = %v, want a request of exactly %d octets", r, tc.size)
			}
		})
	}
}

func TestRawArgumentBound(t *testing.T) {
	t.Parallel()
	snap := paymentsSnapshot(t)
	a := testutil.Assess(t, boundary.New("host"), "proposal-1")
	pad := func(n int) string {
		return testutil.PaymentsArguments + strings.Repeat(" ", n-len(testutil.PaymentsArguments))
	}
	if _, err := request.New(snap, paymentsProposal(pad(request.MaxArgumentBytes)), a); err != nil {
		t.Errorf("arguments of exactly MaxArgumentBytes: %v", err)
	}
	r, err := request.New(snap, paymentsProposal(pad(request.MaxArgumentBytes+1)), a)
	testutil.CheckFault(t, err, fault.ErrLimitExceeded, "arguments")
	if r != nil {
		t.Error("New returned a request for oversized arguments")
	}
}

func resourceTexts(r *request.CanonicalRequest) []string {
	var out []string
	for _, x := range r.Resources() {
		out = append(out, x.String())
	}
	return out
}
