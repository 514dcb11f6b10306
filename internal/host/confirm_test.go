package host_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/host"
)

// Confirmers of the example domain: carol is a User, the approvers a group.
var (
	carol = host.Caller{Name: "carol"}
	bob   = host.Caller{Name: "bob"}
	dave  = host.Caller{Name: "dave", Groups: []string{"payment-approvers"}}
)

func confirmingConfig() host.Config {
	c := paymentsConfig()
	c.Confirmations = &host.ConfirmationConfig{
		Confirmers: []host.Subject{
			{Kind: host.KindUser, Name: "carol"}, {Kind: host.KindUser, Name: "bob"},
			{Kind: host.KindGroup, Name: "payment-approvers"},
		},
		RequestLifetime: 600, AnswerLifetime: 120,
	}
	return c
}

// bobsPayment is decided requireConfirmation (rule confirm-bob).
func bobsPayment() host.AuthorizeRequest { return as(payment(), "bob", "acme") }

// pendingFor asks for a confirmation of r in h.
func pendingFor(t *testing.T, h *host.Host, r host.AuthorizeRequest, named ...string) *host.ConfirmationBinding {
	t.Helper()
	res, err := h.Authorize(r)
	if err != nil {
		t.Fatal(err)
	}
	if !host.IsRequireConfirmation(res.Decision) || res.Authorization != nil {
		t.Fatalf("want a requireConfirmation Decision and no Authorization, got %v", res.Decision.Outcome())
	}
	b, err := h.RequestConfirmation(r, res.Decision, named)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func approve(t *testing.T, h *host.Host, c host.Caller, b *host.ConfirmationBinding, at uint64) *host.Confirmation {
	t.Helper()
	conf, err := h.Confirm(c, b, "confirmation-1", "approve", at)
	if err != nil {
		t.Fatal(err)
	}
	return conf
}

// later is r retried at time at.
func later(r host.AuthorizeRequest, at uint64) host.AuthorizeRequest { r.Time = at; return r }

func refusedAt(t *testing.T, err error, code fault.Code, path string) {
	t.Helper()
	var fe *fault.Error
	if !errors.As(err, &fe) || fe.Code != code || fe.Path != path {
		t.Fatalf("want %v at %q, got %v", code, path, err)
	}
}

func TestConfirmedRequestIssuesOnceFromAFreshEvaluation(t *testing.T) {
	h := publishInto(t, confirmingConfig())
	pending := pendingFor(t, h, bobsPayment())
	conf := approve(t, h, carol, pending, now+30)
	res, err := h.AuthorizeConfirmed(later(bobsPayment(), now+40), pending, conf)
	if err != nil || res.Ineligible != nil || res.Authorization == nil {
		t.Fatalf("want an Authorization, got %v / %v", err, res)
	}
	a := res.Authorization
	if a.IssuedAt().Seconds() != now+40 || a.Input().EvaluationTime().Seconds() != now+40 {
		t.Fatal("the issuance must come from the fresh evaluation at the new time")
	}
	if a.Confirmed() == nil || !a.Confirmed().Digest().Equal(conf.Digest()) {
		t.Fatal("a confirmed Authorization binds its confirmation")
	}
	exp := expectations()
	exp.Identity.Subject = "bob"
	if _, err := h.Validate(executor, a, exp, now+45); err != nil {
		t.Fatalf("the executor validates a confirmed Authorization like any other: %v", err)
	}
}

func TestConfirmationsOffIsPhase1to6(t *testing.T) {
	h := newPaymentsHost()
	res, err := h.Authorize(bobsPayment())
	if err != nil || res.Authorization != nil || !host.IsRequireConfirmation(res.Decision) {
		t.Fatalf("requireConfirmation issues nothing: %v", err)
	}
	_, err = h.RequestConfirmation(bobsPayment(), res.Decision, nil)
	refusedAt(t, err, fault.Unsupported, "confirmations")
	if h.ConfirmationsEnabled() || h.IsConfirmer(carol) {
		t.Fatal("a domain without confirmations has no confirmers")
	}
	// The same request in an opted-in domain is decided the same way and
	// issues nothing without a confirmation.
	on := publishInto(t, confirmingConfig())
	res2, err := on.Authorize(bobsPayment())
	if err != nil || res2.Authorization != nil || res2.Decision.Outcome() != res.Decision.Outcome() ||
		!slices.Equal(res2.Decision.Reasons(), res.Decision.Reasons()) {
		t.Fatal("opting in changes no Decision and issues nothing by itself")
	}
}

func TestBindingOnlyFromRequireConfirmation(t *testing.T) {
	h := publishInto(t, confirmingConfig())
	for name, r := range map[string]host.AuthorizeRequest{"allow": payment(), "deny": as(payment(), "alice", "globex")} {
		res, err := h.Authorize(r)
		if err != nil {
			t.Fatal(err)
		}
		_, err = h.RequestConfirmation(r, res.Decision, nil)
		t.Run(name, func(t *testing.T) { refusedAt(t, err, fault.Ineligible, "decision.outcome") })
	}
}

// Each bound value changed alone, between the confirmation and the retry:
// the fresh evaluation's binding differs, so the confirmation applies to
// nothing (or the retry fails earlier), and no Authorization is issued.
func TestConfirmationNeverAppliesToAnotherBinding(t *testing.T) {
	mutations := map[string]func(*host.AuthorizeRequest){
		"argument": func(r *host.AuthorizeRequest) {
			r.Proposal.Arguments = []byte(strings.Replace(string(r.Proposal.Arguments), "12500", "12501", 1))
		},
		"proposal identity": func(r *host.AuthorizeRequest) {
			r.Proposal.ProposalID = "proposal-2"
			r.Facts.Assessment.ProposalID = "proposal-2"
		},
		"assessment":        func(r *host.AuthorizeRequest) { r.Facts.Assessment.AssessmentID = "assessment-2" },
		"decision identity": func(r *host.AuthorizeRequest) { r.DecisionID = "decision-2" },
		"intent display":    func(r *host.AuthorizeRequest) { r.Facts.Intent.Display = "Pay invoice 2026-115" },
		"intent identity":   func(r *host.AuthorizeRequest) { r.Facts.Intent.ID = "intent-2" },
		"intent validity":   func(r *host.AuthorizeRequest) { r.Facts.IntentValidity.ExpiresAt++ },
		"context assurance": func(r *host.AuthorizeRequest) { r.Facts.SecurityContext.Assurance = "phishingResistant" },
		"context validity":  func(r *host.AuthorizeRequest) { r.Facts.ContextValidity.ExpiresAt++ },
		"session": func(r *host.AuthorizeRequest) {
			r.Facts.SecurityContext.Identity.Session = "session-2"
			r.Facts.Intent.Identity.Session = "session-2"
		},
		"requested scope":  func(r *host.AuthorizeRequest) { r.RequestedCapabilities = []string{"financial.transfer"} },
		"authorization id": func(r *host.AuthorizeRequest) { r.AuthorizationID = "authz-2" },
		"replay id":        func(r *host.AuthorizeRequest) { r.ReplayID = "replay-2" },
		"consumption id":   func(r *host.AuthorizeRequest) { r.ConsumptionID = "consumption-2" },
		"max lifetime":     func(r *host.AuthorizeRequest) { r.MaxLifetime = 119 },
	}
	for name, mutate := range mutations {
		t.Run(name, func(t *testing.T) {
			h := publishInto(t, confirmingConfig())
			pending := pendingFor(t, h, bobsPayment())
			conf := approve(t, h, carol, pending, now+30)
			r := later(bobsPayment(), now+40)
			mutate(&r)
			res, err := h.AuthorizeConfirmed(r, pending, conf)
			if err == nil && res.Authorization != nil {
				t.Fatal("a confirmation issued for a changed call")
			}
			if err != nil && fault.CodeOf(err) != fault.Mismatch {
				t.Logf("refused before the binding comparison: %v", err)
			}
			// And unchanged, the same confirmation still works: the refusal
			// was the mutation's.
			if res, err := h.AuthorizeConfirmed(later(bobsPayment(), now+40), pending, conf); err != nil || res.Authorization == nil {
				t.Fatalf("the unchanged call must still issue: %v", err)
			}
		})
	}
}

// The binding digest moves with each bound value, the evaluation time
// aside.
func TestEachBoundValueChangesTheBinding(t *testing.T) {
	h := publishInto(t, confirmingConfig())
	base := pendingFor(t, h, bobsPayment())
	if again := pendingFor(t, h, bobsPayment()); !again.Digest().Equal(base.Digest()) {
		t.Fatal("the same request must give the same binding")
	}
	if again := pendingFor(t, h, later(bobsPayment(), now+5)); again.Digest().Equal(base.Digest()) {
		t.Fatal("requestedAt is bound")
	}
	variants := map[string]*host.ConfirmationBinding{
		"named confirmer": pendingFor(t, h, bobsPayment(), "carol"),
		"requester": func() *host.ConfirmationBinding {
			r := bobsPayment()
			r.Caller = host.Caller{Name: "system:serviceaccount:payments:agent-runtime", Groups: []string{"x"}}
			return pendingFor(t, h, r)
		}(),
		"decision identity": func() *host.ConfirmationBinding {
			r := bobsPayment()
			r.DecisionID = "decision-9"
			return pendingFor(t, h, r)
		}(),
		"max lifetime": func() *host.ConfirmationBinding { r := bobsPayment(); r.MaxLifetime = 60; return pendingFor(t, h, r) }(),
	}
	for name, v := range variants {
		if name == "requester" {
			// Groups are not bound; the name is.
			if !v.Digest().Equal(base.Digest()) {
				t.Error("groups changed the binding")
			}
			continue
		}
		if v.Digest().Equal(base.Digest()) {
			t.Errorf("%s: the binding digest did not change", name)
		}
	}
}

func TestConfirmationNeverWidensScope(t *testing.T) {
	h := publishInto(t, confirmingConfig())
	pending := pendingFor(t, h, bobsPayment())
	conf := approve(t, h, carol, pending, now+30)
	res, err := h.AuthorizeConfirmed(later(bobsPayment(), now+40), pending, conf)
	if err != nil || res.Authorization == nil {
		t.Fatal(err)
	}
	d := pending.Decision()
	a := res.Authorization
	if !slices.Equal(a.Capabilities(), d.Capabilities()) || !slices.Equal(a.Resources(), d.Resources()) {
		t.Fatalf("scope %v %v, confirmed %v %v", a.Capabilities(), a.Resources(), d.Capabilities(), d.Resources())
	}
	// A retry that asks for more than was confirmed is refused.
	wider := later(bobsPayment(), now+41)
	wider.RequestedResources = append(wider.RequestedResources, "acct-3003")
	wider.Facts.Intent.Resources = append(wider.Facts.Intent.Resources, "acct-3003")
	if res, err := h.AuthorizeConfirmed(wider, pending, conf); err == nil && res.Authorization != nil {
		t.Fatal("a confirmation widened scope")
	}
}

func TestDenyIsFinal(t *testing.T) {
	h := publishInto(t, confirmingConfig())
	pending := pendingFor(t, h, bobsPayment())
	no, err := h.Confirm(carol, pending, "confirmation-1", "deny", now+30)
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.AuthorizeConfirmed(later(bobsPayment(), now+40), pending, no)
	refusedAt(t, err, fault.Ineligible, "confirmation.answer")
}

func TestConfirmationExpires(t *testing.T) {
	h := publishInto(t, confirmingConfig())
	pending := pendingFor(t, h, bobsPayment())
	conf := approve(t, h, carol, pending, now+30) // usable for 120 s
	_, err := h.AuthorizeConfirmed(later(bobsPayment(), now+150), pending, conf)
	refusedAt(t, err, fault.Expired, "confirmation.expiresAt")
	_, err = h.AuthorizeConfirmed(later(bobsPayment(), now+20), pending, conf)
	refusedAt(t, err, fault.Expired, "confirmation.expiresAt")
	// The binding closes for answers at its own expiry (600 s, within the
	// evidence's).
	_, err = h.Confirm(carol, pending, "confirmation-2", "approve", now+600)
	refusedAt(t, err, fault.Expired, "binding.expiresAt")
}

func TestExpiredIntentRefusesAfterConfirmation(t *testing.T) {
	h := publishInto(t, confirmingConfig())
	r := bobsPayment()
	r.Facts.IntentValidity.ExpiresAt = now + 50
	pending := pendingFor(t, h, r)
	if pending.ExpiresAt().Seconds() != now+50 {
		t.Fatal("a binding cannot outlive the Intent it binds")
	}
	conf := approve(t, h, carol, pending, now+10)
	if res, err := h.AuthorizeConfirmed(later(r, now+50), pending, conf); err == nil && res.Authorization != nil {
		t.Fatal("a confirmation replaced an expired Intent")
	}
}

func TestConfirmerWithoutRoleRefused(t *testing.T) {
	h := publishInto(t, confirmingConfig())
	pending := pendingFor(t, h, bobsPayment())
	for _, c := range []host.Caller{stranger, admin, executor, {Name: "mallory", Groups: []string{"payments-approvers"}}} {
		_, err := h.Confirm(c, pending, "confirmation-1", "approve", now+30)
		refusedAt(t, err, fault.Unauthorized, "confirmer")
	}
	if _, err := h.Confirm(dave, pending, "confirmation-1", "approve", now+30); err != nil {
		t.Fatalf("a group member holds the role: %v", err)
	}
}

func TestSelfConfirmationRefused(t *testing.T) {
	cfg := confirmingConfig()
	cfg.Confirmations.Confirmers = append(cfg.Confirmations.Confirmers, host.Subject{Kind: host.KindServiceAccount, Name: "agent-runtime"})
	h := publishInto(t, cfg)
	pending := pendingFor(t, h, bobsPayment())
	_, err := h.Confirm(bob, pending, "confirmation-1", "approve", now+30)
	refusedAt(t, err, fault.Unauthorized, "confirmer.requester")
	_, err = h.Confirm(runtime, pending, "confirmation-1", "approve", now+30)
	refusedAt(t, err, fault.Unauthorized, "confirmer.requester")

	cfg.Confirmations.AllowSelfConfirmation = true
	h = publishInto(t, cfg)
	pending = pendingFor(t, h, bobsPayment())
	if _, err := h.Confirm(bob, pending, "confirmation-1", "approve", now+30); err != nil {
		t.Fatalf("where the domain allows it, the subject may confirm: %v", err)
	}
}

func TestNamedConfirmerOnly(t *testing.T) {
	h := publishInto(t, confirmingConfig())
	pending := pendingFor(t, h, bobsPayment(), "dave")
	_, err := h.Confirm(carol, pending, "confirmation-1", "approve", now+30)
	refusedAt(t, err, fault.Unauthorized, "confirmer")
	if _, err := h.Confirm(dave, pending, "confirmation-1", "approve", now+30); err != nil {
		t.Fatal(err)
	}
}

func TestPolicyGenerationChangedRefuses(t *testing.T) {
	h := publishInto(t, confirmingConfig())
	pending := pendingFor(t, h, bobsPayment())
	conf := approve(t, h, carol, pending, now+30)
	next := paymentsPolicy()
	next.Generation = "2"
	if _, err := h.PublishPolicy(admin, next); err != nil {
		t.Fatal(err)
	}
	r := later(bobsPayment(), now+40)
	r.Policy.SnapshotGeneration = "2"
	_, err := h.AuthorizeConfirmed(r, pending, conf)
	refusedAt(t, err, fault.Mismatch, "binding")
}

func TestConfirmationForAnotherBindingRefused(t *testing.T) {
	h := publishInto(t, confirmingConfig())
	first := pendingFor(t, h, bobsPayment())
	other := func() host.AuthorizeRequest { r := bobsPayment(); r.AuthorizationID = "authz-9"; return r }()
	second := pendingFor(t, h, other)
	conf := approve(t, h, carol, first, now+30)
	_, err := h.AuthorizeConfirmed(later(other, now+40), second, conf)
	refusedAt(t, err, fault.Mismatch, "confirmation.binding")
}

func TestOnlyTheRequesterProceeds(t *testing.T) {
	h := publishInto(t, confirmingConfig())
	pending := pendingFor(t, h, bobsPayment())
	conf := approve(t, h, carol, pending, now+30)
	r := later(bobsPayment(), now+40)
	r.Caller = stranger
	_, err := h.AuthorizeConfirmed(r, pending, conf)
	refusedAt(t, err, fault.Unauthorized, "caller")
}

func TestConfirmedAuthorizationBindsTheConfirmation(t *testing.T) {
	h := publishInto(t, confirmingConfig())
	pending := pendingFor(t, h, bobsPayment())
	c1 := approve(t, h, carol, pending, now+30)
	c2, err := h.Confirm(dave, pending, "confirmation-2", "approve", now+30)
	if err != nil {
		t.Fatal(err)
	}
	r := later(bobsPayment(), now+40)
	a1, err1 := h.AuthorizeConfirmed(r, pending, c1)
	a2, err2 := h.AuthorizeConfirmed(r, pending, c2)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if a1.Authorization.Digest().Equal(a2.Authorization.Digest()) {
		t.Fatal("two confirmations gave the same Consumption Binding")
	}
	// A Phase 1–6 Authorization of the same shape (alice's allow) carries
	// no confirmation.
	plain, _ := h.Authorize(payment())
	if plain.Authorization.Confirmed() != nil {
		t.Fatal("a Phase 1–6 Authorization carries no confirmation")
	}
}

func TestConfirmationConfigIsValidated(t *testing.T) {
	cfg := paymentsConfig()
	cfg.Confirmations = &host.ConfirmationConfig{}
	_, err := host.New(cfg)
	for _, p := range []string{"confirmations.confirmers", "confirmations.requestLifetime", "confirmations.answerLifetime"} {
		found := false
		for _, e := range fault.All(err) {
			var fe *fault.Error
			found = found || (errors.As(e, &fe) && fe.Path == p)
		}
		if !found {
			t.Errorf("no error at %s in %v", p, err)
		}
	}
}

func TestConfirmedAuthorizationRebuilds(t *testing.T) {
	h := publishInto(t, confirmingConfig())
	pending := pendingFor(t, h, bobsPayment(), "carol")
	conf := approve(t, h, carol, pending, now+30)
	res, err := h.AuthorizeConfirmed(later(bobsPayment(), now+40), pending, conf)
	if err != nil || res.Authorization == nil || res.Portable == nil {
		t.Fatalf("issue: %v", err)
	}
	if !strings.HasPrefix(string(res.Portable[1:]), host.PortableConfirmedVersion) {
		t.Fatal("a confirmed Authorization's record is the confirmed version")
	}
	again, err := h.Rebuild(verified(res.Portable))
	if err != nil {
		t.Fatalf("rebuild: %v", err)
	}
	if !again.Equal(res.Authorization) || again.Confirmed() == nil || !again.Confirmed().Digest().Equal(conf.Digest()) {
		t.Fatal("the rebuilt Authorization differs")
	}
	// A domain that does not take confirmations rebuilds none.
	off := publishInto(t, paymentsConfig())
	if _, err := off.Rebuild(verified(res.Portable)); err == nil {
		t.Fatal("a confirmed record rebuilt in another domain")
	}
	// A Phase 1–6 record keeps its version.
	plain, _ := h.Authorize(payment())
	if !strings.HasPrefix(string(plain.Portable[1:]), host.PortableVersion) {
		t.Fatal("a Phase 1–6 record changed version")
	}
}
