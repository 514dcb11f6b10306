package host_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/host"
)

// shadowPolicy is generation 2 of payments-policy: payments@1 kept (now
// deprecated) and payments@2 active, which decides otherwise — acct-3003
// joins the allowed scope, initech is denied as globex is, and carol
// instead of bob needs a confirmation.
func shadowPolicy() policy.SnapshotDraft {
	d := paymentsPolicy()
	d.Generation = "2"
	v1 := d.Policies[0]
	v1.Lifecycle = "deprecated"
	v2 := paymentsPolicy().Policies[0]
	v2.Generation = "2"
	v2.Rules = []policy.RuleDraft{
		{
			ID: "allow-acme-payments", Effect: "allow", Reason: "allowRuleMatched",
			Condition: policy.ConditionDraft{All: []policy.ConditionDraft{
				is("exactToolID", "payments.submit"), is("exactTenant", "acme"),
			}},
			Scope: &policy.ScopeDraft{
				Capabilities: []string{"data.read", "financial.transfer"},
				Resources:    []string{"acct-1001", "acct-2002", "acct-3003"},
			},
			Obligations: []policy.ObligationDraft{{Kind: "requireSingleUseAuthorization"}},
		},
		{ID: "deny-globex", Effect: "deny", Reason: "tenantMismatch", Condition: is("exactTenant", "globex")},
		{ID: "deny-initech", Effect: "deny", Reason: "tenantMismatch", Condition: is("exactTenant", "initech")},
		{
			ID: "confirm-carol", Effect: "requireConfirmation", Reason: "confirmationRuleMatched",
			Condition: is("exactSubject", "carol"),
			Scope: &policy.ScopeDraft{
				Capabilities: []string{"data.read", "financial.transfer"},
				Resources:    []string{"acct-1001", "acct-2002"},
			},
		},
	}
	d.Policies = []policy.DefinitionDraft{v1, v2}
	return d
}

// shadowedHost is the payments domain with generation 2 held as a shadow.
func shadowedHost(t testing.TB) *host.Host {
	t.Helper()
	h := newPaymentsHost()
	if _, err := h.PublishPolicy(admin, shadowPolicy()); err != nil {
		t.Fatal(err)
	}
	if err := h.MarkShadow("payments-policy", "2"); err != nil {
		t.Fatal(err)
	}
	return h
}

// generated returns n requests varied over identity, tenant, requested
// scope and intent scope, seeded: inputs the two generations decide alike
// and otherwise, and some the Host rejects.
func generated(n int) []host.AuthorizeRequest {
	r := rand.New(rand.NewPCG(29, 3))
	subjects := []string{"alice", "bob", "carol", "dave"}
	tenants := []string{"acme", "globex", "initech", "umbrella"}
	// The tool's maximum capabilities, and the resources its arguments
	// derive (anything else the Host rejects before deciding).
	caps := []string{"data.read", "financial.transfer"}
	res := []string{"acct-1001", "acct-2002"}
	subset := func(all []string) []string {
		var out []string
		for _, x := range all {
			if r.IntN(3) != 0 {
				out = append(out, x)
			}
		}
		if len(out) == 0 {
			out = append(out, all[r.IntN(len(all))])
		}
		return out
	}
	out := make([]host.AuthorizeRequest, n)
	for i := range out {
		q := as(payment(), subjects[r.IntN(len(subjects))], tenants[r.IntN(len(tenants))])
		q.RequestedCapabilities = subset(caps)
		q.Facts.Intent.Capabilities = q.RequestedCapabilities
		if r.IntN(8) == 0 { // an intent narrower than the request, or wider resources
			q.Facts.Intent.Capabilities = subset(caps)
		}
		if r.IntN(4) == 0 {
			q.Facts.Intent.Resources = append(slices.Clone(res), "acct-3003")
		}
		if r.IntN(16) == 0 {
			q.RequestedResources = subset(res)
		}
		out[i] = q
	}
	return out
}

// TestShadowOutcomeIsTheShadowGenerationsOwnDecision: over 2,000 generated
// inputs, AuthorizeShadowed's live Result is exactly Authorize's with the
// live generation selected, and its shadow Decision exactly Authorize's
// Decision with the shadow generation selected (the same digest: the
// same Evaluation Input, content and identity), and Compare reports a
// change exactly when the two direct Decisions differ.
func TestShadowOutcomeIsTheShadowGenerationsOwnDecision(t *testing.T) {
	h := shadowedHost(t)
	var decided, changed, rejected int
	for i, r := range generated(2000) {
		live, liveErr := h.Authorize(r)
		direct := r
		direct.Policy.SnapshotGeneration, direct.Policy.PolicyGeneration = "2", "2"
		want, wantErr := h.Authorize(direct)
		got, sh, err := h.AuthorizeShadowed(r, host.ShadowSelection{SnapshotGeneration: "2", PolicyGeneration: host.Current})
		if fault.CodeOf(err) != fault.CodeOf(liveErr) {
			t.Fatalf("input %d: live error %v, Authorize's %v", i, err, liveErr)
		}
		if liveErr != nil {
			rejected++
			continue
		}
		decided++
		if got.Decision.Digest() != live.Decision.Digest() || (got.Authorization == nil) != (live.Authorization == nil) ||
			string(got.Portable) != string(live.Portable) || fault.CodeOf(got.Ineligible) != fault.CodeOf(live.Ineligible) {
			t.Fatalf("input %d: the live result differs from Authorize's", i)
		}
		if wantErr != nil {
			if sh.Err == nil || fault.CodeOf(sh.Err) != fault.CodeOf(wantErr) {
				t.Fatalf("input %d: shadow error %v, direct %v", i, sh.Err, wantErr)
			}
			continue
		}
		if sh.Err != nil || sh.Decision.Digest() != want.Decision.Digest() {
			t.Fatalf("input %d: the shadow Decision is not the shadow generation's own (err %v)", i, sh.Err)
		}
		d := host.Compare(live.Decision, want.Decision)
		if d.Changed() != !sameDecision(live.Decision, want.Decision) {
			t.Fatalf("input %d: Compare says changed=%v", i, d.Changed())
		}
		if d.Changed() {
			changed++
		}
	}
	// The generator must reach both kinds of input, or the test proves little.
	t.Logf("generated inputs: %d decided, %d changed, %d rejected", decided, changed, rejected)
	if decided < 1000 || changed == 0 || changed == decided {
		t.Fatalf("generated inputs: %d decided, %d changed, %d rejected", decided, changed, rejected)
	}
}

// sameDecision compares what a reviewer reads of two Decisions.
func sameDecision(a, b *policy.Decision) bool {
	s := func(d *policy.Decision) []string {
		var out []string
		out = append(out, d.Outcome().String(), "|")
		for _, x := range d.Reasons() {
			out = append(out, x.String())
		}
		out = append(out, "|")
		for _, x := range d.MatchedRules() {
			out = append(out, x.String())
		}
		out = append(out, "|")
		for _, x := range d.Capabilities() {
			out = append(out, x.String())
		}
		out = append(out, "|")
		for _, x := range d.Resources() {
			out = append(out, x.String())
		}
		out = append(out, "|")
		for _, x := range d.Obligations() {
			out = append(out, x.Key())
		}
		return out
	}
	return slices.Equal(s(a), s(b))
}

// TestCompareNamesWhatDiffers: the difference of one known pair.
func TestCompareNamesWhatDiffers(t *testing.T) {
	h := shadowedHost(t)
	r := as(payment(), "alice", "initech")
	res, sh, err := h.AuthorizeShadowed(r, host.ShadowSelection{SnapshotGeneration: "2", PolicyGeneration: host.Current})
	if err != nil || sh.Err != nil {
		t.Fatal(err, sh.Err)
	}
	got := host.Compare(res.Decision, sh.Decision)
	want := host.Difference{Live: "deny", Shadow: "deny", RulesAdded: []string{"deny-initech"},
		ReasonsAdded: []string{"denyRuleMatched", "tenantMismatch"}, ReasonsRemoved: []string{"noAllowRuleMatched"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Compare (-want +got):\n%s", diff)
	}
}

// TestShadowErrorLeavesTheLiveResult: a shadow generation the Host does
// not hold is the shadow's error only.
func TestShadowErrorLeavesTheLiveResult(t *testing.T) {
	h := newPaymentsHost()
	live, err := h.Authorize(payment())
	if err != nil {
		t.Fatal(err)
	}
	res, sh, err := h.AuthorizeShadowed(payment(), host.ShadowSelection{SnapshotGeneration: "2", PolicyGeneration: host.Current})
	if err != nil || sh.Err == nil || sh.Decision != nil {
		t.Fatalf("err %v, shadow %+v", err, sh)
	}
	if fault.CodeOf(sh.Err) != fault.NotFound || res.Decision.Digest() != live.Decision.Digest() || string(res.Portable) != string(live.Portable) {
		t.Errorf("shadow error %v; the live result must be Authorize's", sh.Err)
	}
}

// TestShadowIsNeverTheHostsCurrent: a generation marked as a shadow is
// held (its successor publishes) but never the highest a Current
// selection finds; its successor, the promotion, is.
func TestShadowIsNeverTheHostsCurrent(t *testing.T) {
	h := shadowedHost(t)
	if g, _ := h.HighestPolicy("payments-policy"); g != "1" {
		t.Fatalf("current %q with generation 2 a shadow, want 1", g)
	}
	r := payment()
	r.Policy.SnapshotGeneration, r.Policy.PolicyGeneration = host.Current, host.Current
	if err := h.SelectCurrent(&r); err != nil || r.Policy.SnapshotGeneration != "1" || r.Policy.PolicyGeneration != "1" {
		t.Fatalf("SelectCurrent: %v, %+v", err, r.Policy)
	}
	promoted := shadowPolicy()
	promoted.Generation = "3"
	if _, err := h.PublishPolicy(admin, promoted); err != nil {
		t.Fatal(err)
	}
	if g, _ := h.HighestPolicy("payments-policy"); g != "3" {
		t.Errorf("current %q after the promotion, want 3", g)
	}
	if err := h.MarkShadow("payments-policy", "9"); fault.CodeOf(err) != fault.NotFound {
		t.Errorf("marking a generation not held: %v", err)
	}
}

func benchmarkAuthorize(b *testing.B, shadowed bool) {
	h := shadowedHost(b)
	r := payment()
	b.ReportAllocs()
	for b.Loop() {
		if shadowed {
			if _, sh, err := h.AuthorizeShadowed(r, host.ShadowSelection{SnapshotGeneration: "2", PolicyGeneration: host.Current}); err != nil || sh.Err != nil {
				b.Fatal(err, sh.Err)
			}
			continue
		}
		if _, err := h.Authorize(r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAuthorizeUnshadowed and BenchmarkAuthorizeShadowed measure
// what evaluating a shadow adds to one authorize (docs/shadow.md,
// "Cost").
func BenchmarkAuthorizeUnshadowed(b *testing.B) { benchmarkAuthorize(b, false) }

// BenchmarkAuthorizeShadowed: see BenchmarkAuthorizeUnshadowed.
func BenchmarkAuthorizeShadowed(b *testing.B) { benchmarkAuthorize(b, true) }
