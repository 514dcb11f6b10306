package confirm_test

import (
	"testing"

	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/confirm"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/testutil"
)

// world is one domain with a policy that holds payments.submit back for a
// confirmation.
type world struct {
	f   testutil.InputFixture
	pol *policy.Snapshot
	sel policy.Selection
}

func newWorld(t *testing.T, effect string) *world {
	t.Helper()
	w := &world{f: testutil.BuildInput(t, boundary.New("payments host"), testutil.DefaultInputSpec())}
	p := policy.PredicateDraft{Name: "exactToolID", Identifier: "payments.submit"}
	reason := "confirmationRuleMatched"
	if effect == "allow" {
		reason = "allowRuleMatched"
	}
	var err error
	w.pol, err = policy.Publish(w.f.Admin, policy.SnapshotDraft{ID: "payments-policy", Generation: "1", Policies: []policy.DefinitionDraft{{
		ID: "payments", Generation: "1", Lifecycle: "active", Rules: []policy.RuleDraft{{
			ID: "hold-payments", Effect: effect, Reason: reason, Condition: policy.ConditionDraft{Predicate: &p},
			Scope: &policy.ScopeDraft{Capabilities: []string{"data.read", "financial.transfer"}, Resources: []string{"acct-1001", "acct-2002"}},
		}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	w.sel = policy.Selection{SnapshotID: w.pol.ID(), SnapshotGeneration: w.pol.Generation(),
		PolicyID: mustPolicyID(t, "payments"), PolicyGeneration: mustGen(t, 1)}
	return w
}

func mustPolicyID(t *testing.T, s string) ident.PolicyID {
	t.Helper()
	id, err := ident.ParsePolicyID(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func mustGen(t *testing.T, g uint64) ident.Generation {
	t.Helper()
	gen, err := ident.NewGeneration(g)
	if err != nil {
		t.Fatal(err)
	}
	return gen
}

func at(t *testing.T, s uint64) epoch.Time { t.Helper(); return testutil.EvidenceTimeAt(t, s) }

// decision evaluates the world's input at time s.
func (w *world) decision(t *testing.T, s uint64) *policy.Decision {
	t.Helper()
	d := w.f.Draft
	d.EvaluationTime = at(t, s)
	in, err := evalinput.New(w.f.Boundary, d)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := policy.Evaluate(in, w.pol, w.sel, "decision-1")
	if err != nil {
		t.Fatal(err)
	}
	return dec
}

func (w *world) draft(t *testing.T, dec *policy.Decision) confirm.BindingDraft {
	return confirm.BindingDraft{
		Decision: dec, Requester: "system:serviceaccount:payments:agent-runtime",
		Requirement:     confirm.Requirement{ExcludeRequester: true},
		AuthorizationID: "authz-1", ReplayID: "replay-1", ConsumptionID: "consumption-1",
		MaxLifetime: 60, RequestedAt: at(t, testutil.EvidenceTime), ExpiresAt: at(t, testutil.EvidenceTime+300),
	}
}

func (w *world) binding(t *testing.T, d confirm.BindingDraft) *confirm.Binding {
	t.Helper()
	b, err := confirm.NewBinding(w.f.Boundary, d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBindingLeavesOutOnlyTheEvaluationTime(t *testing.T) {
	w := newWorld(t, "requireConfirmation")
	first := w.binding(t, w.draft(t, w.decision(t, testutil.EvidenceTime)))
	later := w.binding(t, w.draft(t, w.decision(t, testutil.EvidenceTime+100)))
	if !first.Digest().Equal(later.Digest()) {
		t.Fatal("a fresh evaluation of the same input at a later time must give the same binding")
	}
	d := w.draft(t, w.decision(t, testutil.EvidenceTime))
	d.RequestedAt = at(t, testutil.EvidenceTime-1)
	if w.binding(t, d).Digest().Equal(first.Digest()) {
		t.Fatal("requestedAt is bound")
	}
}

func TestBindingOnlyFromARequireConfirmationDecision(t *testing.T) {
	w := newWorld(t, "allow")
	_, err := confirm.NewBinding(w.f.Boundary, w.draft(t, w.decision(t, testutil.EvidenceTime)))
	testutil.CheckFault(t, err, fault.ErrIneligible, "decision.outcome")
	wc := newWorld(t, "requireConfirmation")
	_, err = confirm.NewBinding(boundary.New("another host"), wc.draft(t, wc.decision(t, testutil.EvidenceTime)))
	testutil.CheckFault(t, err, fault.ErrMixedDomain, "domain")
}

func TestBindingDraftIsValidated(t *testing.T) {
	w := newWorld(t, "requireConfirmation")
	d := w.draft(t, w.decision(t, testutil.EvidenceTime))
	d.Requester, d.AuthorizationID, d.MaxLifetime = "", "Not An ID", 0
	d.Requirement.Subjects = []string{"carol", "carol"}
	d.ExpiresAt = d.RequestedAt
	_, err := confirm.NewBinding(w.f.Boundary, d)
	testutil.CheckFaultList(t, err, []string{
		"requester missing", "requirement.subjects[1] duplicate", "authorizationID malformed",
		"maxLifetime outOfRange", "expiresAt outOfRange",
	})
}

func TestAttestAndAccept(t *testing.T) {
	w := newWorld(t, "requireConfirmation")
	pending := w.binding(t, w.draft(t, w.decision(t, testutil.EvidenceTime)))
	fresh := w.binding(t, w.draft(t, w.decision(t, testutil.EvidenceTime+50)))
	a, err := confirm.NewAttester(w.f.Boundary)
	if err != nil {
		t.Fatal(err)
	}
	answer := func(ans confirm.Answer, who string) (*confirm.Confirmation, error) {
		return a.Attest(pending, confirm.AnswerDraft{ID: "confirmation-1", Confirmer: who, Answer: ans,
			At: at(t, testutil.EvidenceTime+10), ExpiresAt: at(t, testutil.EvidenceTime+110)})
	}
	yes, err := answer(confirm.Approve, "carol")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := confirm.Accept(w.f.Boundary, pending, yes, fresh, at(t, testutil.EvidenceTime+50)); err != nil || !ok.Decision().Equal(fresh.Decision()) {
		t.Fatalf("an approval of exactly this binding is accepted for the fresh Decision: %v", err)
	}
	no, _ := answer(confirm.Deny, "carol")
	_, err = confirm.Accept(w.f.Boundary, pending, no, fresh, at(t, testutil.EvidenceTime+50))
	testutil.CheckFault(t, err, fault.ErrIneligible, "confirmation.answer")
	_, err = confirm.Accept(w.f.Boundary, pending, yes, fresh, at(t, testutil.EvidenceTime+110))
	testutil.CheckFault(t, err, fault.ErrExpired, "confirmation.expiresAt")
	_, err = answer(confirm.Approve, "alice") // the Evaluation Input's subject
	testutil.CheckFault(t, err, fault.ErrUnauthorized, "confirmer.requester")

	other := w.draft(t, w.decision(t, testutil.EvidenceTime+50))
	other.ConsumptionID = "consumption-2"
	_, err = confirm.Accept(w.f.Boundary, pending, yes, w.binding(t, other), at(t, testutil.EvidenceTime+50))
	testutil.CheckFault(t, err, fault.ErrMismatch, "binding")
	_, err = confirm.Accept(boundary.New("another host"), pending, yes, fresh, at(t, testutil.EvidenceTime+50))
	testutil.CheckFault(t, err, fault.ErrMixedDomain, "domain")
}

func TestParseAnswerIsClosed(t *testing.T) {
	for s, want := range map[string]confirm.Answer{"approve": confirm.Approve, "deny": confirm.Deny} {
		if got, err := confirm.ParseAnswer(s); err != nil || got != want || got.String() != s {
			t.Errorf("%s: %v %v", s, got, err)
		}
	}
	for _, s := range []string{"", "Approve", "yes"} {
		if _, err := confirm.ParseAnswer(s); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
}
