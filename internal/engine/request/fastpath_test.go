package request_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/canon"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/jsonexact"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestNewMatchesTheReferencePath holds request construction, which takes
// schema's one-pass ValidateJSON for the common request, to the reference
// path it replaced: jsonexact.Decode under the request limits, then
// Schema.Validate, then canon.Encode. For the sample arguments, near
// misses (escapes, non-canonical integers, unknown, repeated and missing
// members, wrong kinds) and 20,000 seeded random octet mutations of them,
// New returns exactly the reference's canonical bytes, or exactly its
// rejection (code, path and rule).
func TestNewMatchesTheReferencePath(t *testing.T) {
	t.Parallel()
	snap := paymentsSnapshot(t)
	a := testutil.Assess(t, boundary.New("host"), "proposal-1")
	tool, err1 := ident.ParseToolID("payments.submit")
	one, err2 := ident.ParseGeneration("1")
	def, err := snap.Lookup(tool, one)
	if err = errors.Join(err1, err2, err); err != nil {
		t.Fatal(err)
	}
	s := def.Definition().Schema()
	lim := request.Limits{MaxArgumentBytes: 400}

	check := func(args []byte) {
		t.Helper()
		var wantBytes []byte
		var wantErr error
		v, err := jsonexact.Decode(args, jsonexact.Limits{MaxDepth: schema.MaxDepth, MaxBytes: lim.MaxArgumentBytes})
		switch {
		case err != nil:
			wantErr = fault.At("arguments", request.JSONFaultCode(err), err.Error())
		default:
			ref, err := s.Validate(v)
			if err != nil {
				wantErr = err
				break
			}
			if wantBytes, err = canon.Encode(envelope(t, "payments.submit", "payments-submit-1", "payments-submit-args", ref.Root())); err != nil {
				wantErr = fault.Within("arguments", err)
			}
		}
		r, err := request.NewLimited(snap, request.Proposal{
			ProposalID: "proposal-1", ToolID: "payments.submit", Version: "1", Arguments: args,
		}, a, lim)
		if wantErr != nil {
			var want, got *fault.Error
			if !errors.As(wantErr, &want) || !errors.As(err, &got) || r != nil ||
				got.Code != want.Code || got.Path != want.Path || got.Rule != want.Rule {
				t.Fatalf("arguments %q: New = %v, %v; the reference rejects with %v", args, r, err, wantErr)
			}
			return
		}
		if err != nil || !bytes.Equal(r.Bytes(), wantBytes) {
			t.Fatalf("arguments %q: New = %v; the reference accepts with other bytes or New rejects", args, err)
		}
	}

	base := []byte(testutil.PaymentsArguments)
	check(base)
	for _, c := range []struct{ old, new string }{
		{`"api"`, `"ap\u0069"`},                 // escape: only the reference path accepts
		{`thank you`, `thank\/you`},             // escape
		{`12500`, `012500`},                     // leading zero
		{`12500`, `-0`},                         // negative zero
		{`12500`, `1.5`},                        // fraction
		{`12500`, `1e4`},                        // exponent
		{`12500`, `-1`},                         // unsigned out of range
		{`12500`, `18446744073709551616`},       // past u64
		{`-1`, `-9223372036854775809`},          // past i64
		{`-1`, `-0`},                            // negative zero, signed
		{`false`, `null`},                       // null
		{`false`, `0`},                          // wrong kind
		{`"eur"`, `"EUR"`},                      // not a case
		{`"acct-2002"`, `"ACCT"`},               // not a Resource
		{`"memo"`, `"memo2"`},                   // unknown member
		{`"memo"`, `"amount"`},                  // repeated member
		{`"currency":"eur",`, ``},               // missing required
		{`Invoice`, "Inv\x7foice"},              // DEL
		{`Invoice`, "Inv\u00e9oice"},            // non-ASCII
		{`}}`, `}} x`},                          // trailing data
		{`"kind":"api"`, `"kind":"api","x":[]`}, // unknown nested member
	} {
		if !bytes.Contains(base, []byte(c.old)) {
			t.Fatalf("case %q not in the sample arguments", c.old)
		}
		check(bytes.Replace(base, []byte(c.old), []byte(c.new), 1))
	}
	check([]byte(strings.Repeat(" ", 401)))
	check([]byte(" " + testutil.PaymentsArguments + "\n"))

	const octets = "{}[],:\"\\ \t\n0123456789-+.eEnulltrfasxyzA\x00\x7f\xc3\xa9\xff"
	r := rand.New(rand.NewPCG(11, 13))
	for range 20000 {
		b := slices.Clone(base)
		for range 1 + r.IntN(3) {
			i := r.IntN(len(b))
			switch r.IntN(4) {
			case 0:
				b[i] = octets[r.IntN(len(octets))]
			case 1:
				b = slices.Insert(b, i, octets[r.IntN(len(octets))])
			case 2:
				b = slices.Delete(b, i, i+1)
			default:
				// Swap two octets: keeps the text well-formed more often.
				j := r.IntN(len(b))
				b[i], b[j] = b[j], b[i]
			}
			if len(b) == 0 {
				break
			}
		}
		check(b)
	}
}
