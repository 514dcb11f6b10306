package authz_test

// Lifetime and freshness (Section 26, P-022, P-023), the Section 31
// issuance-to-validation table and the maximum-evaluation-age obligation
// (Section 27, Section 39).

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/authz"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/policy"
)

// validateAt validates a against w's independent expectations at s.
func (w *world) validateAt(tb testing.TB, a *authz.Authorization, s uint64) (*authz.Result, error) {
	tb.Helper()
	return authz.Validate(w.s.B, a, w.expect(tb), timeAt(s))
}

// resultSummary is the observable content of a Validation result.
type resultSummary struct {
	Binding, AuthorizationID, ReplayID, ConsumptionID string
	Capabilities, Resources                           []string
	ExpiresAt                                         uint64
	Contract, BindingContract                         string
}

func summarize(r *authz.Result) resultSummary {
	b := r.Binding()
	return resultSummary{
		Binding: b.Digest().String(), AuthorizationID: b.AuthorizationID().String(),
		ReplayID: b.ReplayID().String(), ConsumptionID: b.ConsumptionID().String(),
		Capabilities: capabilityTokens(b.Capabilities()), Resources: resourceTokens(b.Resources()),
		ExpiresAt: b.ExpiresAt().Seconds(),
		Contract:  r.Contract().String(), BindingContract: b.Contract().String(),
	}
}

// TestLifetime_Section31Table has one subtest per row of the Section 31
// issuance-to-validation table. The default allow rule retains a 300 s
// maximum-evaluation-age obligation; evaluation is at 1500.
func TestLifetime_Section31Table(t *testing.T) {
	t.Parallel()
	const eval = evaluatedAt
	issuedAt := func(issued, expires uint64) func(setup) setup {
		return func(s setup) setup { s.IssuedAt, s.ExpiresAt = issued, expires; return s }
	}
	tests := map[string]func(t *testing.T, b boundary.Boundary){
		"issuance time equals evaluation time: issues, validates at or after issuance and before expiry": func(t *testing.T, b boundary.Boundary) {
			w := build(t, issuedAt(eval, eval+300)(base(b)))
			a := w.issue(t)
			for _, at := range []uint64{eval, eval + 150, eval + 299} {
				if _, err := w.validateAt(t, a, at); err != nil {
					t.Errorf("Validate at %d: %v", at, err)
				}
			}
			_, err := w.validateAt(t, a, eval+300)
			checkFault(t, err, fault.ErrExpired, "validationTime")
		},
		"later issuance within the maximum evaluation age: issues and validates": func(t *testing.T, b boundary.Boundary) {
			w := build(t, issuedAt(eval+100, eval+400)(base(b)))
			if _, err := w.validateAt(t, w.issue(t), eval+100); err != nil {
				t.Errorf("Validate: %v", err)
			}
		},
		"later issuance at the exact maximum-age boundary: issues and validates (inclusive)": func(t *testing.T, b boundary.Boundary) {
			w := build(t, issuedAt(eval+defaultMaxAge, eval+defaultMaxAge+100)(base(b)))
			if _, err := w.validateAt(t, w.issue(t), eval+defaultMaxAge); err != nil {
				t.Errorf("Validate: %v", err)
			}
		},
		"later issuance beyond the maximum age: issuance rejects; any substituted artifact rejects": func(t *testing.T, b boundary.Boundary) {
			w := build(t, issuedAt(eval+defaultMaxAge+1, eval+defaultMaxAge+100)(base(b)))
			a, err := authz.Issue(b, w.issueRequest())
			checkFault(t, err, fault.ErrOutOfRange, "decision.obligations[0]")
			if a != nil {
				t.Error("an Authorization was returned")
			}
			// The Host expects the stale issuance; the only artifact that
			// exists was issued at the boundary.
			boundaryArtifact := build(t, issuedAt(eval+defaultMaxAge, eval+defaultMaxAge+100)(base(b))).issue(t)
			_, err = w.validateAt(t, boundaryArtifact, eval+defaultMaxAge+1)
			checkFault(t, err, fault.ErrMismatch, "issuedAt")
		},
		"issuance before evaluation: issuance rejects; inconsistent state rejects": func(t *testing.T, b boundary.Boundary) {
			w := build(t, issuedAt(eval-1, eval+100)(base(b)))
			a, err := authz.Issue(b, w.issueRequest())
			checkFault(t, err, fault.ErrOutOfRange, "issuedAt")
			if a != nil {
				t.Error("an Authorization was returned")
			}
			valid := build(t, issuedAt(eval, eval+100)(base(b))).issue(t)
			_, err = w.validateAt(t, valid, eval)
			checkFault(t, err, fault.ErrMismatch, "issuedAt")
		},
		"issuance-time mutation: the original issues; the mutated expectation and the mutated artifact reject": func(t *testing.T, b boundary.Boundary) {
			w := build(t, base(b))
			a := w.issue(t)
			ctx := w.expect(t)
			ctx.IssuedAt = timeAt(eval + 1)
			_, err := authz.Validate(b, a, ctx, timeAt(eval+1))
			checkFault(t, err, fault.ErrMismatch, "issuedAt")
			mutated := w.rebuild(t, issuedAt(eval+1, eval+defaultLifetime)).issue(t)
			_, err = w.validateAt(t, mutated, eval+1)
			checkFault(t, err, fault.ErrMismatch, "issuedAt")
		},
		"evaluation-time mutation: the substituted input cannot satisfy decision continuity; validation rejects": func(t *testing.T, b boundary.Boundary) {
			w := build(t, base(b))
			a := w.issue(t)
			other := w.rebuild(t, func(s setup) setup { s.EvaluatedAt = eval - 1; return s })
			r := w.issueRequest()
			r.Input = other.in
			_, err := authz.Issue(b, r)
			checkFault(t, err, fault.ErrMismatch, "decision.input")
			ctx := w.expect(t)
			ctx.Input = other.in
			_, err = authz.Validate(b, a, ctx, timeAt(eval))
			checkFault(t, err, fault.ErrMismatch, "input")
			_, err = w.validateAt(t, other.issue(t), eval)
			checkFault(t, err, fault.ErrMismatch, "decision")
		},
		"freshness-obligation mutation: the substituted policy and decision cannot satisfy issuance continuity; validation rejects": func(t *testing.T, b boundary.Boundary) {
			freshnessSubstitution(t, b, realisticPolicy(singleUse(), maxAge(2*defaultMaxAge)))
		},
		"freshness-obligation removal: the substituted policy and decision cannot satisfy issuance continuity; validation rejects": func(t *testing.T, b boundary.Boundary) {
			freshnessSubstitution(t, b, realisticPolicy(singleUse()))
		},
		"validation exactly at issuance: issues and validates (inclusive)": func(t *testing.T, b boundary.Boundary) {
			w := build(t, issuedAt(eval+10, eval+100)(base(b)))
			a := w.issue(t)
			if _, err := w.validateAt(t, a, eval+10); err != nil {
				t.Errorf("Validate at issuance: %v", err)
			}
			_, err := w.validateAt(t, a, eval+9)
			checkFault(t, err, fault.ErrExpired, "validationTime")
		},
		"validation exactly at expiry: validates before, rejects at expiry (exclusive)": func(t *testing.T, b boundary.Boundary) {
			w := build(t, base(b))
			a := w.issue(t)
			if _, err := w.validateAt(t, a, w.s.ExpiresAt-1); err != nil {
				t.Errorf("Validate one second before expiry: %v", err)
			}
			_, err := w.validateAt(t, a, w.s.ExpiresAt)
			checkFault(t, err, fault.ErrExpired, "validationTime")
		},
		"repeated identical validation: one artifact, every validation returns the same result": func(t *testing.T, b boundary.Boundary) {
			w := build(t, base(b))
			a := w.issue(t)
			var first resultSummary
			for i := range 5 {
				r, err := w.validateAt(t, a, eval+42)
				if err != nil {
					t.Fatalf("Validate #%d: %v", i, err)
				}
				if i == 0 {
					first = summarize(r)
					continue
				}
				if diff := cmp.Diff(first, summarize(r)); diff != "" {
					t.Errorf("Validate #%d differs (-first +got):\n%s", i, diff)
				}
			}
		},
	}
	for name, run := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			run(t, boundary.New("payments host"))
		})
	}
}

// freshnessSubstitution shows that a policy whose freshness obligation was
// mutated or removed under the same identities is another policy: its
// Decision cannot satisfy issuance continuity with the original input and
// snapshot, and neither the substituted snapshot nor the substituted
// Decision validates against the Host's expectations.
func freshnessSubstitution(t *testing.T, b boundary.Boundary, substitute policy.SnapshotDraft) {
	t.Helper()
	w := build(t, base(b))
	a := w.issue(t)
	other := w.rebuild(t, func(s setup) setup { s.Policy = substitute; return s })
	diffStrings(t, "policy identities", policyIDs(w), policyIDs(other))

	r := w.issueRequest()
	r.Decision = other.dec
	_, err := authz.Issue(b, r)
	checkFault(t, err, fault.ErrMismatch, "decision.snapshot")
	r = w.issueRequest()
	r.Policy = other.pol
	_, err = authz.Issue(b, r)
	checkFault(t, err, fault.ErrMismatch, "decision.snapshot")

	ctx := w.expect(t)
	ctx.Policy = other.pol
	_, err = authz.Validate(b, a, ctx, timeAt(evaluatedAt))
	checkFault(t, err, fault.ErrMismatch, "policy")
	ctx = w.expect(t)
	ctx.Decision = other.dec
	_, err = authz.Validate(b, a, ctx, timeAt(evaluatedAt))
	checkFault(t, err, fault.ErrMismatch, "decision")

	// Under the weaker policy an issuance later than the Host's obligation
	// allows succeeds, but it is not the Authorization the Host expects.
	late := other.rebuild(t, func(s setup) setup {
		s.IssuedAt, s.ExpiresAt = evaluatedAt+defaultMaxAge+1, evaluatedAt+defaultMaxAge+100
		return s
	})
	lateA := late.issue(t)
	want := w.rebuild(t, func(s setup) setup {
		s.IssuedAt, s.ExpiresAt = late.s.IssuedAt, late.s.ExpiresAt
		return s
	})
	_, err = want.validateAt(t, lateA, late.s.IssuedAt)
	checkFault(t, err, fault.ErrMismatch, "decision")
}

// TestLifetime_Bounds covers the finite lifetime of Section 26 and the
// Section 39 bound "Authorization maximum lifetime 1–3,600 s": the requested
// maximum, the duration against it, expiry strictly after issuance, and
// expiry within every bound input's expiry (Intent, Security Context,
// Delegation, every Host attestation).
func TestLifetime_Bounds(t *testing.T) {
	t.Parallel()
	lifetime := func(maxLifetime, duration uint64) func(setup) setup {
		return func(s setup) setup {
			s.MaxLifetime, s.ExpiresAt = maxLifetime, s.IssuedAt+duration
			return s
		}
	}
	expiringAt := func(set func(*setup, window), at uint64) func(setup) setup {
		return func(s setup) setup {
			set(&s, window{windowStart, windowStart, at})
			return s
		}
	}
	intentW := func(s *setup, w window) { s.IntentWindow = w }
	contextW := func(s *setup, w window) { s.ContextWindow = w }
	provenanceW := func(s *setup, w window) { s.ProvenanceWindow = w }
	influenceW := func(s *setup, w window) { s.InfluenceWindow = w }
	delegated := func(at uint64) func(setup) setup {
		return func(s setup) setup {
			s = withDelegation(s)
			s.DelegationWindow = window{windowStart, windowStart, at}
			return s
		}
	}
	end := uint64(evaluatedAt + defaultLifetime) // the default expiry, 1800
	runIssueCases(t, map[string]issueCase{
		"a requested maximum of 0 s rejects":      {setup: lifetime(0, 1), wantErr: fault.ErrOutOfRange, wantPath: "maxLifetime"},
		"a requested maximum of 1 s gives 1 s":    {setup: lifetime(1, 1)},
		"a requested maximum of 3,600 s issues":   {setup: func(s setup) setup { return lifetime(3600, 3600)(longWindows(s)) }},
		"a requested maximum of 3,601 s rejects":  {setup: func(s setup) setup { return lifetime(3601, 3600)(longWindows(s)) }, wantErr: fault.ErrOutOfRange, wantPath: "maxLifetime"},
		"a duration equal to the maximum issues":  {setup: lifetime(400, 400)},
		"a duration of the maximum + 1 s rejects": {setup: lifetime(400, 401), wantErr: fault.ErrOutOfRange, wantPath: "expiresAt"},
		"a duration of 3,601 s under the global bound rejects": {
			setup: func(s setup) setup { return lifetime(3600, 3601)(longWindows(s)) }, wantErr: fault.ErrOutOfRange, wantPath: "expiresAt",
		},
		"expiry equal to issuance rejects (empty lifetime)": {setup: lifetime(600, 0), wantErr: fault.ErrOutOfRange, wantPath: "expiresAt"},
		"expiry before issuance rejects before any subtraction": {
			setup:   func(s setup) setup { s.ExpiresAt = s.IssuedAt - 1; return s },
			wantErr: fault.ErrOutOfRange, wantPath: "expiresAt",
		},
		"expiry exactly at the intent's expiry issues":                 {setup: expiringAt(intentW, end)},
		"expiry beyond the intent's expiry rejects":                    {setup: expiringAt(intentW, end-1), wantErr: fault.ErrOutOfRange, wantPath: "expiresAt"},
		"expiry exactly at the security context's expiry issues":       {setup: expiringAt(contextW, end)},
		"expiry beyond the security context's expiry rejects":          {setup: expiringAt(contextW, end-1), wantErr: fault.ErrOutOfRange, wantPath: "expiresAt"},
		"expiry exactly at the delegation's expiry issues":             {setup: delegated(end)},
		"expiry beyond the delegation's expiry rejects":                {setup: delegated(end - 1), wantErr: fault.ErrOutOfRange, wantPath: "expiresAt"},
		"expiry exactly at the provenance attestation's expiry issues": {setup: expiringAt(provenanceW, end)},
		"expiry beyond the provenance attestation's expiry rejects": {
			setup: expiringAt(provenanceW, end-1), wantErr: fault.ErrOutOfRange, wantPath: "expiresAt",
		},
		"expiry exactly at the influence attestation's expiry issues": {setup: expiringAt(influenceW, end)},
		"expiry beyond the influence attestation's expiry rejects": {
			setup: expiringAt(influenceW, end-1), wantErr: fault.ErrOutOfRange, wantPath: "expiresAt",
		},
	})
}

// TestLifetime_MaximumEvaluationAgeObligation covers the obligation's
// Section 39 bound (1–3,600 s, inclusive comparison) at issuance and its
// rejection at publication outside the bound. Every retained age obligation
// is enforced, so the smallest governs.
func TestLifetime_MaximumEvaluationAgeObligation(t *testing.T) {
	t.Parallel()
	aged := func(age uint64, issuedAfter uint64, os ...policy.ObligationDraft) func(setup) setup {
		return func(s setup) setup {
			s = longWindows(s)
			s.Policy = realisticPolicy(append(os, maxAge(age))...)
			s.IssuedAt = s.EvaluatedAt + issuedAfter
			s.ExpiresAt = s.IssuedAt + defaultLifetime
			return s
		}
	}
	runIssueCases(t, map[string]issueCase{
		"1 s: issuance at evaluation issues":           {setup: aged(1, 0)},
		"1 s: issuance 1 s after evaluation issues":    {setup: aged(1, 1)},
		"1 s: issuance 2 s after evaluation rejects":   {setup: aged(1, 2), wantErr: fault.ErrOutOfRange, wantPath: "decision.obligations[0]"},
		"3,600 s: issuance 3,600 s after issues":       {setup: aged(3600, 3600)},
		"3,600 s: issuance 3,601 s after rejects":      {setup: aged(3600, 3601), wantErr: fault.ErrOutOfRange, wantPath: "decision.obligations[0]"},
		"two age obligations: within both issues":      {setup: aged(60, 60, maxAge(300))},
		"two age obligations: the smaller one governs": {setup: aged(60, 61, maxAge(300)), wantErr: fault.ErrOutOfRange, wantPath: "decision.obligations[1]"},
	})

	for name, seconds := range map[string]string{"0 s": "0", "3,601 s": "3601"} {
		t.Run("a "+name+" obligation rejects at publication", func(t *testing.T) {
			t.Parallel()
			s := base(boundary.New("payments host"))
			s.Policy = realisticPolicy(policy.ObligationDraft{Kind: "maximumEvaluationAgeSeconds", Seconds: seconds})
			_, err := assemble(t, s)
			if !errors.Is(err, fault.ErrOutOfRange) {
				t.Errorf("publication: %v, want an out-of-range rejection", err)
			}
		})
	}
}
