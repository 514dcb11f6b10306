package host_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestCheckExecutor_OnlyTheDomainsExecutors: the role check the service
// runs before it rebuilds anything is the same one Validate runs.
func TestCheckExecutor_OnlyTheDomainsExecutors(t *testing.T) {
	t.Parallel()
	h := newPaymentsHost()
	tests := map[string]struct {
		caller  host.Caller
		wantErr error
	}{
		"the payments executor":                    {caller: executor},
		"the agent runtime holds no executor role": {caller: runtime, wantErr: fault.ErrUnauthorized},
		"a stranger":             {caller: stranger, wantErr: fault.ErrUnauthorized},
		"a policy administrator": {caller: admin, wantErr: fault.ErrUnauthorized},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := h.CheckExecutor(tc.caller)
			if tc.wantErr == nil {
				if err != nil {
					t.Errorf("CheckExecutor = %v, want nil", err)
				}
				return
			}
			testutil.CheckFault(t, err, tc.wantErr, "caller")
		})
	}
}

// TestValidateForConsumption_BoundIntentNeedsTheBinding: the consume rule
// lives in the Host: an Authorization that binds an agent-safe intent
// binding is consumed only with the binding presented; Validate alone does
// not require it; a non-executor is told only that it is not one.
func TestValidateForConsumption_BoundIntentNeedsTheBinding(t *testing.T) {
	t.Parallel()
	const approved = `{"actor":"alice","tenant":"acme","parameters":{"amount":12500,"currency":"eur"},"expiry":"2026-12-01T00:00:00Z","target":"payments.submit"}`
	h := newPaymentsHost()
	r := payment()
	r.Facts.IntentBinding = []byte(approved)
	bound, err := h.Authorize(r)
	if err != nil || bound.Authorization == nil {
		t.Fatalf("Authorize: %v %v", bound, err)
	}
	unbound, err := h.Authorize(payment())
	if err != nil || unbound.Authorization == nil {
		t.Fatalf("Authorize without binding: %v", err)
	}
	tests := map[string]struct {
		caller       host.Caller
		a            *host.Authorization
		binding      string
		consume      bool
		wantErr      error
		wantPath     string
		wantRequired bool
	}{
		"consume a bound intent with its binding":            {caller: executor, a: bound.Authorization, binding: approved, consume: true},
		"consume a bound intent without its binding rejects": {caller: executor, a: bound.Authorization, consume: true, wantErr: fault.ErrMissing, wantPath: "intentBinding", wantRequired: true},
		"validate a bound intent without its binding":        {caller: executor, a: bound.Authorization},
		"consume an unbound intent without a binding":        {caller: executor, a: unbound.Authorization, consume: true},
		"a non-executor learns only that it is not one":      {caller: runtime, a: bound.Authorization, consume: true, wantErr: fault.ErrUnauthorized, wantPath: "caller"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			exp := expectations()
			if tc.binding != "" {
				exp.IntentBinding = []byte(tc.binding)
			}
			validate := h.Validate
			if tc.consume {
				validate = h.ValidateForConsumption
			}
			b, err := validate(tc.caller, tc.a, exp, now+1)
			if tc.wantErr == nil {
				if err != nil || b == nil {
					t.Fatalf("err = %v, want a binding", err)
				}
				return
			}
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
			if got := host.IsIntentBindingRequired(err); got != tc.wantRequired {
				t.Errorf("IsIntentBindingRequired = %v, want %v", got, tc.wantRequired)
			}
		})
	}
	if host.IsIntentBindingRequired(fault.Within("expectations", fault.At("intentBinding", fault.Missing, "x"))) {
		t.Error("a binding required elsewhere than at intentBinding is reported as this rule")
	}
}

// TestCanonicalize_IsAuthorizesRequestStep: the Canonical Request the CLI
// shows is the one Authorize builds from the same Proposal, against only a
// registry generation the Host holds, for a caller that may supply an
// assessment.
func TestCanonicalize_IsAuthorizesRequestStep(t *testing.T) {
	t.Parallel()
	h := newPaymentsHost()
	r := payment()
	got, err := h.Canonicalize(runtime, r.Registry, r.Proposal, r.Facts.Assessment.AssessmentID)
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.Authorize(r)
	if err != nil || res.Authorization == nil {
		t.Fatalf("Authorize: %v %v", res, err)
	}
	want := res.Authorization.Input().Request()
	if diff := cmp.Diff(want.Bytes(), got.Bytes()); diff != "" {
		t.Errorf("canonical bytes (-authorize +canonicalize):\n%s", diff)
	}
	if !want.Digest().Equal(got.Digest()) {
		t.Error("the request digests differ")
	}
	_, err = h.Canonicalize(runtime, host.RegistrySelection{SnapshotID: "primary-registry", Generation: "2"}, r.Proposal, "a-1")
	testutil.CheckFault(t, err, fault.ErrNotFound, "registry")
	_, err = h.Canonicalize(executor, r.Registry, r.Proposal, "a-1")
	testutil.CheckFault(t, err, fault.ErrUnauthorized, "caller")
	p := r.Proposal
	p.Arguments = []byte(`{"amount":"12500"}`)
	if _, err := h.Canonicalize(runtime, r.Registry, p, "a-1"); err == nil {
		t.Error("arguments the schema rejects canonicalized")
	}
}
