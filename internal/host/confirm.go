package host

import (
	"github.com/toolgate/toolgate/internal/engine/authz"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/confirm"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// The toolgate.confirmations/1 extension's types (docs/confirmation.md).
type (
	// ConfirmationBinding is one pending confirmation request.
	ConfirmationBinding = confirm.Binding
	// Confirmation is one confirmer's answer to one binding.
	Confirmation = confirm.Confirmation
	// ConfirmationAnswer is approve or deny.
	ConfirmationAnswer = confirm.Answer
)

// ConfirmationVersion names the extension.
const ConfirmationVersion = confirm.Version

// ConfirmationConfig opts a domain in to confirmations. It is the
// HostAuthority's: who may confirm is authority, as who may attest Intent is.
type ConfirmationConfig struct {
	// Confirmers hold the extension's confirmer role (not a Section 48
	// role): they, and only they, may answer a binding.
	Confirmers []Subject
	// RequestLifetime is how long a binding stays open for an answer, and
	// AnswerLifetime how long an approval stays usable, 1–3,600 seconds.
	RequestLifetime, AnswerLifetime uint64
	// AllowSelfConfirmation lets the requester (the caller that asked, or
	// the subject it asked for) confirm its own request; false, the
	// default, excludes it.
	AllowSelfConfirmation bool
}

type confirmations struct {
	cfg      ConfirmationConfig
	attester *confirm.Attester
}

func newConfirmations(b boundary.Boundary, cfg *ConfirmationConfig) (*confirmations, error) {
	if cfg == nil {
		return nil, nil
	}
	var errs fault.Errors
	if len(cfg.Confirmers) == 0 {
		errs.Add("", fault.At("confirmers", fault.Missing, "a domain that takes confirmations names at least one confirmer"))
	}
	errs.Add("confirmers", checkSubjects(cfg.Confirmers))
	for _, l := range []struct {
		path string
		v    uint64
	}{{"requestLifetime", cfg.RequestLifetime}, {"answerLifetime", cfg.AnswerLifetime}} {
		if l.v == 0 || l.v > confirm.MaxLifetime {
			errs.Add("", fault.At(l.path, fault.OutOfRange, "a confirmation lifetime is 1–3600 seconds"))
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	a, err := confirm.NewAttester(b)
	if err != nil {
		return nil, err
	}
	c := *cfg
	c.Confirmers = append([]Subject(nil), cfg.Confirmers...)
	return &confirmations{cfg: c, attester: a}, nil
}

func (h *Host) confirmationsOn() error {
	if h.confirm == nil {
		return fault.At("confirmations", fault.Unsupported, "this host authority does not take confirmations")
	}
	return nil
}

// ConfirmationsEnabled reports whether the domain opted in.
func (h *Host) ConfirmationsEnabled() bool { return h.confirm != nil }

// IsConfirmer reports whether c holds the extension's confirmer role.
func (h *Host) IsConfirmer(c Caller) bool {
	if h.confirm == nil {
		return false
	}
	for _, s := range h.confirm.cfg.Confirmers {
		if s.matches(c, h.namespace) {
			return true
		}
	}
	return false
}

// RequestConfirmation builds the binding of dec, the requireConfirmation
// Decision Authorize returned for r, asking for one of named (any confirmer
// when empty). The binding is open from r.Time for the domain's request
// lifetime, shortened to the earliest bound-evidence expiry.
func (h *Host) RequestConfirmation(r AuthorizeRequest, dec *policy.Decision, named []string) (*ConfirmationBinding, error) {
	if err := h.confirmationsOn(); err != nil {
		return nil, err
	}
	at, err := epoch.New(r.Time)
	if err != nil {
		return nil, fault.Within("time", err)
	}
	exp, err := at.Add(h.confirm.cfg.RequestLifetime)
	if err != nil {
		return nil, fault.At("time", fault.OutOfRange, "the binding's lifetime overflows the protocol time range")
	}
	return confirm.NewBinding(h.boundary, confirm.BindingDraft{
		Decision: dec, Requester: r.Caller.Name,
		Requirement:     confirm.Requirement{Subjects: named, ExcludeRequester: !h.confirm.cfg.AllowSelfConfirmation},
		AuthorizationID: r.AuthorizationID, ReplayID: r.ReplayID, ConsumptionID: r.ConsumptionID,
		MaxLifetime: r.MaxLifetime, RequestedAt: at, ExpiresAt: exp,
	})
}

// Confirm records c's answer ("approve" or "deny") to b at the explicit
// time at, as the confirmation id. c must hold the confirmer role; the
// binding's requirement decides the rest (named subjects, requester
// exclusion). The caller's store keeps the answer and refuses a second one.
func (h *Host) Confirm(c Caller, b *ConfirmationBinding, id, answer string, at uint64) (*Confirmation, error) {
	if err := h.confirmationsOn(); err != nil {
		return nil, err
	}
	if !h.IsConfirmer(c) {
		return nil, fault.At("confirmer", fault.Unauthorized, "the caller does not hold the confirmer role")
	}
	ans, err := confirm.ParseAnswer(answer)
	if err != nil {
		return nil, fault.Within("answer", err)
	}
	t, err := epoch.New(at)
	if err != nil {
		return nil, fault.Within("time", err)
	}
	exp, err := t.Add(h.confirm.cfg.AnswerLifetime)
	if err != nil {
		return nil, fault.At("time", fault.OutOfRange, "the confirmation's lifetime overflows the protocol time range")
	}
	return h.confirm.attester.Attest(b, confirm.AnswerDraft{ID: id, Confirmer: c.Name, Answer: ans, At: t, ExpiresAt: exp})
}

// AuthorizeConfirmed is Authorize for a request a confirmation approved: the
// same request r, at its new time, by the same caller. It evaluates afresh,
// recomputes the binding from the fresh Decision and accepts c only when it
// equals pending exactly (docs/confirmation.md), then issues with the fresh
// Decision's scope. Anything that differs — an argument, a policy
// generation, an expired Intent — rejects; a "no" rejects for good. The
// caller's store must let each confirmation issue once.
//
// The Authorization's portable record (Result.Portable) is version
// PortableConfirmedVersion: Rebuild checks the confirmation again.
func (h *Host) AuthorizeConfirmed(r AuthorizeRequest, pending *ConfirmationBinding, c *Confirmation) (*Result, error) {
	if err := h.confirmationsOn(); err != nil {
		return nil, err
	}
	if pending == nil || c == nil {
		return nil, fault.At("confirmation", fault.Missing, "a pending binding and its confirmation are required")
	}
	if r.Caller.Name != pending.Requester() {
		return nil, fault.At("caller", fault.Unauthorized, "only the requester proceeds with its confirmed request")
	}
	p, dec, err := h.evaluate(r)
	if err != nil {
		return nil, err
	}
	return h.issueConfirmed(r, p, dec, pending, c)
}

// evaluate is the fresh evaluation of r.
func (h *Host) evaluate(r AuthorizeRequest) (prepared, *policy.Decision, error) {
	p, err := h.prepare(r)
	if err != nil {
		return p, nil, err
	}
	dec, err := policy.Evaluate(p.in, p.pol, p.sel, r.DecisionID)
	return p, dec, err
}

// issueConfirmed recomputes the binding from the fresh Decision dec with
// what the retry r states itself (requester, identities, lifetime) and what
// only the binding holds (who must confirm, its lifetime), accepts c and
// issues.
func (h *Host) issueConfirmed(r AuthorizeRequest, p prepared, dec *policy.Decision, pending *ConfirmationBinding, c *Confirmation) (*Result, error) {
	res := &Result{Decision: dec}
	draft := pending.Draft(dec)
	draft.AuthorizationID, draft.ReplayID, draft.ConsumptionID = r.AuthorizationID, r.ReplayID, r.ConsumptionID
	draft.MaxLifetime = r.MaxLifetime
	if !r.rebuilding {
		draft.Requester = r.Caller.Name
	}
	fresh, err := confirm.NewBinding(h.boundary, draft)
	if err != nil {
		// A fresh Decision that is no longer requireConfirmation (a new
		// deny, say) has no binding: it differs from what was confirmed.
		return nil, fault.At("binding", fault.Mismatch, "the fresh evaluation differs from what was confirmed")
	}
	ok, err := confirm.Accept(h.boundary, pending, c, fresh, p.at)
	if err != nil {
		return nil, err
	}
	expires, err := p.at.Add(r.MaxLifetime)
	if err != nil || r.MaxLifetime == 0 || r.MaxLifetime > h.maxLife {
		res.Ineligible = fault.At("maxLifetime", fault.OutOfRange, "the requested lifetime is 1 second to the domain's maximum")
		return res, nil
	}
	if e := p.in.Attestations().ExpiresAt(); e.Before(expires) {
		expires = e
	}
	a, err := authz.Issue(h.boundary, authz.IssueRequest{
		Input: p.in, Policy: p.pol, Registry: p.reg, Decision: dec, Selection: p.sel,
		AuthorizationID: r.AuthorizationID, ReplayID: r.ReplayID, ConsumptionID: r.ConsumptionID,
		Generation: p.in.RenewalGeneration(),
		IssuedAt:   p.at, ExpiresAt: expires, MaxLifetime: r.MaxLifetime,
		Confirmed: ok,
	})
	if err != nil {
		res.Ineligible = err
		return res, nil
	}
	req := pending.Requirement()
	cr := &confirmedRecord{
		Requester: pending.Requester(), NamedConfirmers: req.Subjects, ExcludeRequester: req.ExcludeRequester,
		RequestedAt: pending.RequestedAt().Seconds(), BindingExpiresAt: pending.ExpiresAt().Seconds(),
		ID: c.ID().String(), Confirmer: c.Confirmer(),
		ConfirmedAt: c.ConfirmedAt().Seconds(), ConfirmationExpiresAt: c.ExpiresAt().Seconds(),
	}
	if len(cr.NamedConfirmers) == 0 {
		cr.NamedConfirmers = nil // as the reader decodes an empty list
	}
	if res.Portable, err = h.encodeRecord(r, p, a, cr); err != nil {
		return nil, err
	}
	res.Authorization = a
	return res, nil
}

// rebuildConfirmed re-runs a confirmed issuance from its verified record:
// the binding is built again from the re-run Decision with the recorded
// binding fields, the approval is attested again by this domain's confirmer
// attester (named confirmers, requester exclusion and times checked again)
// and accepted.
func (h *Host) rebuildConfirmed(r AuthorizeRequest, cr *confirmedRecord) (*Result, error) {
	if err := h.confirmationsOn(); err != nil {
		return nil, err
	}
	p, dec, err := h.evaluate(r)
	if err != nil {
		return nil, err
	}
	times := make([]epoch.Time, 0, 4)
	for _, s := range []uint64{cr.RequestedAt, cr.BindingExpiresAt, cr.ConfirmedAt, cr.ConfirmationExpiresAt} {
		t, err := epoch.New(s)
		if err != nil {
			return nil, fault.At("record.confirmation", fault.Malformed, "a recorded confirmation time is out of range")
		}
		times = append(times, t)
	}
	pending, err := confirm.NewBinding(h.boundary, confirm.BindingDraft{
		Decision: dec, Requester: cr.Requester,
		Requirement:     confirm.Requirement{Subjects: cr.NamedConfirmers, ExcludeRequester: cr.ExcludeRequester},
		AuthorizationID: r.AuthorizationID, ReplayID: r.ReplayID, ConsumptionID: r.ConsumptionID,
		MaxLifetime: r.MaxLifetime, RequestedAt: times[0], ExpiresAt: times[1],
	})
	if err != nil {
		return nil, fault.Within("record.confirmation", err)
	}
	c, err := h.confirm.attester.Attest(pending, confirm.AnswerDraft{
		ID: cr.ID, Confirmer: cr.Confirmer, Answer: confirm.Approve, At: times[2], ExpiresAt: times[3],
	})
	if err != nil {
		return nil, fault.Within("record.confirmation", err)
	}
	return h.issueConfirmed(r, p, dec, pending, c)
}

// IsRequireConfirmation reports whether d holds a call back for a
// confirmation.
func IsRequireConfirmation(d *policy.Decision) bool {
	return d != nil && d.Outcome() == vocab.RequireConfirmation
}
