// Package confirm is toolgate's versioned extension toolgate.confirmations/1
// (docs/confirmation.md): one authenticated confirmer's yes or no to exactly
// the call a requireConfirmation Policy Decision held back. Phase 7 is not
// specified; spec Section 42 sets the terms kept here: the binding covers the
// complete versioned request, Evaluation Input, Policy Snapshot, Policy
// Decision, subject, scope, lifetime and Host-domain envelope, and a
// confirmation never replaces Intent or broadens authority.
//
// Nothing here changes Phase 1–6 semantics: Policy evaluation is untouched
// and still yields requireConfirmation. Accept turns a confirmation and the
// binding recomputed from a fresh evaluation into a Confirmed value, which
// authz.Issue accepts as the one satisfaction of that outcome and of the
// requireConfirmation obligation, with the fresh Decision's scope — never a
// wider one. Pure: explicit time, no clock, no storage; single use is the
// Host's store's (the package only makes each use explicit).
package confirm

import (
	"slices"
	"strings"

	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Version names the extension.
const Version = "toolgate.confirmations/1"

// Role is the extension's confirmer role. It is not one of the six roles of
// Section 48 (vocab.Role stays closed); the Host holds its binding apart.
const Role = "confirmer"

// MaxLifetime bounds a binding's and a confirmation's lifetime, in seconds,
// as Section 26 bounds an Authorization's.
const MaxLifetime = 3600

// MaxNamedConfirmers bounds the named subjects of a Requirement.
const MaxNamedConfirmers = 16

// Answer is a confirmer's yes or no.
type Answer uint8

// The closed answers.
const (
	Approve Answer = 1 + iota
	Deny
)

// String returns the answer's token.
func (a Answer) String() string {
	switch a {
	case Approve:
		return "approve"
	case Deny:
		return "deny"
	}
	return ""
}

// ParseAnswer parses "approve" or "deny".
func ParseAnswer(s string) (Answer, error) {
	switch s {
	case "approve":
		return Approve, nil
	case "deny":
		return Deny, nil
	case "":
		return 0, fault.At("", fault.Missing, "an answer is approve or deny")
	}
	return 0, fault.At("", fault.UnknownToken, "an answer is approve or deny")
}

// Requirement says who must confirm: a holder of the confirmer role, one of
// Subjects when there are any, and not the requester when ExcludeRequester.
type Requirement struct {
	Subjects         []string // authenticated names; sorted and unique in a Binding
	ExcludeRequester bool
}

// BindingDraft is what a binding is made of besides the Decision's own
// content.
type BindingDraft struct {
	// Decision is the requireConfirmation Decision; its Evaluation Input is
	// the one bound.
	Decision *policy.Decision
	// Requester is the authenticated name of the caller that asked.
	Requester   string
	Requirement Requirement
	// The identities of the one Authorization the confirmation can lead to.
	AuthorizationID, ReplayID, ConsumptionID string
	// MaxLifetime is the requested maximum Authorization lifetime, seconds.
	MaxLifetime uint64
	// RequestedAt is when confirmation was first asked for (the first
	// evaluation time); ExpiresAt the binding's requested exclusive expiry,
	// shortened to the earliest bound-evidence expiry.
	RequestedAt, ExpiresAt epoch.Time
}

// Binding is one confirmation request: immutable, domain-bound, named by
// its digest.
type Binding struct {
	domain      boundary.Domain
	decision    *policy.Decision
	requester   string
	requirement Requirement
	ids         [3]ident.ArtifactID
	maxLifetime uint64
	requestedAt epoch.Time
	expiresAt   epoch.Time
	digest      digest.Digest
}

// NewBinding builds the binding of d in b's domain, or rejects it with every
// problem at its path. It is also how the binding is recomputed from a fresh
// evaluation: the same draft over the fresh Decision gives the same digest
// exactly when every bound value is the same.
func NewBinding(b boundary.Boundary, d BindingDraft) (*Binding, error) {
	if b.IsZero() {
		return nil, fault.At("domain", fault.Missing, "a binding needs the host's retained boundary")
	}
	if d.Decision == nil || d.Decision.Input() == nil {
		return nil, fault.At("decision", fault.Missing, "a binding is made from a policy decision and its evaluation input")
	}
	in := d.Decision.Input()
	if !b.Holds(d.Decision.Domain()) || !b.Holds(in.Domain()) {
		return nil, fault.At("domain", fault.MixedDomain, "the decision must belong to the retained boundary's domain")
	}
	if d.Decision.Outcome() != vocab.RequireConfirmation {
		return nil, fault.At("decision.outcome", fault.Ineligible, "only a requireConfirmation decision asks for a confirmation")
	}
	var errs fault.Errors
	bind := &Binding{domain: b.Domain(), decision: d.Decision, maxLifetime: d.MaxLifetime, requestedAt: d.RequestedAt}
	if d.Requester == "" {
		errs.Add("", fault.At("requester", fault.Missing, "the requester is the authenticated caller"))
	} else if !printable(d.Requester) {
		errs.Add("", fault.At("requester", fault.Malformed, "a name is printable ASCII"))
	}
	bind.requester = d.Requester
	req, err := normalize(d.Requirement)
	errs.Add("requirement", err)
	bind.requirement = req
	for i, id := range []struct{ path, v string }{
		{"authorizationID", d.AuthorizationID}, {"replayID", d.ReplayID}, {"consumptionID", d.ConsumptionID},
	} {
		a, err := ident.ParseArtifactID(id.v)
		errs.Add(id.path, err)
		bind.ids[i] = a
	}
	if d.MaxLifetime == 0 || d.MaxLifetime > MaxLifetime {
		errs.Add("", fault.At("maxLifetime", fault.OutOfRange, "the requested lifetime is 1–3600 seconds"))
	}
	if !d.RequestedAt.Before(d.ExpiresAt) {
		errs.Add("", fault.At("expiresAt", fault.OutOfRange, "a binding expires after it is requested"))
	} else if life, _ := d.ExpiresAt.Since(d.RequestedAt); life > MaxLifetime {
		errs.Add("", fault.At("expiresAt", fault.OutOfRange, "a binding lives at most 3600 seconds"))
	}
	if in.EvaluationTime().Before(d.RequestedAt) {
		errs.Add("", fault.At("requestedAt", fault.OutOfRange, "a binding is requested no later than the evaluation it binds"))
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	bind.expiresAt = earliest(d.ExpiresAt, in)
	if !d.RequestedAt.Before(bind.expiresAt) {
		return nil, fault.At("expiresAt", fault.Expired, "the bound evidence expires before the binding could be confirmed")
	}
	bind.digest = bind.computeDigest()
	return bind, nil
}

// earliest shortens e to the Intent, Security Context, Delegation and
// attestation expiries: a confirmation cannot outlive what it confirms.
func earliest(e epoch.Time, in *evalinput.Input) epoch.Time {
	shorten := func(t epoch.Time) {
		if t.Before(e) {
			e = t
		}
	}
	shorten(in.Intent().Validity().ExpiresAt())
	shorten(in.SecurityContext().Validity().ExpiresAt())
	if d := in.Delegation(); d != nil {
		shorten(d.Validity().ExpiresAt())
	}
	shorten(in.Attestations().ExpiresAt())
	return e
}

func normalize(r Requirement) (Requirement, error) {
	var errs fault.Errors
	if len(r.Subjects) > MaxNamedConfirmers {
		errs.Add("", fault.At("subjects", fault.LimitExceeded, "at most 16 named confirmers"))
	}
	subjects := slices.Clone(r.Subjects)
	slices.Sort(subjects)
	for i, s := range subjects {
		if s == "" || !printable(s) {
			errs.Add("", fault.At("subjects"+fault.Index(i), fault.Malformed, "a named confirmer is a non-empty printable ASCII name"))
		}
		if i > 0 && subjects[i-1] == s {
			errs.Add("", fault.At("subjects"+fault.Index(i), fault.Duplicate, "each named confirmer is listed once"))
		}
	}
	return Requirement{Subjects: subjects, ExcludeRequester: r.ExcludeRequester}, errs.Err()
}

func printable(s string) bool {
	for i := range len(s) {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// BindingDigestLabel names the binding encoding.
const BindingDigestLabel = "toolgate.confirmation-binding/1"

// computeDigest writes every item docs/confirmation.md lists ("The
// binding"), in that order. The evaluation time is the one Evaluation Input
// component left out: the issuance after a confirmation re-evaluates later.
func (b *Binding) computeDigest() digest.Digest {
	d, in := b.decision, b.decision.Input()
	w := digest.New(BindingDigestLabel)
	w.Uint(1)
	// Host-domain envelope.
	w.Digest(in.Host().Digest())
	// The complete versioned request.
	w.Uint(uint64(in.Version()))
	w.Digest(in.Request().Digest())
	// Evaluation Input, every component but the evaluation time.
	atts := in.Attestations()
	w.Count(atts.Len())
	for i := range atts.Len() {
		w.Digest(atts.AttestationAt(i).Digest())
	}
	w.Digest(in.SecurityContext().Digest())
	w.Digest(in.Intent().Digest())
	if dl := in.Delegation(); dl == nil {
		w.Absent()
	} else {
		w.Digest(dl.Digest())
	}
	w.Digest(in.Provenance().Digest())
	w.Digest(in.Influence().Digest())
	w.Uint(in.RenewalGeneration().Uint64())
	// Policy Snapshot and selection.
	w.Digest(d.Snapshot().Digest())
	if p := d.Policy(); p == nil {
		w.Absent()
	} else {
		w.Digest(p.Digest())
	}
	sel := d.Selection()
	digest.Strings(w, []ident.PolicyID{sel.SnapshotID, sel.PolicyID})
	w.Uint(sel.SnapshotGeneration.Uint64())
	w.Uint(sel.PolicyGeneration.Uint64())
	// Policy Decision, without its input digest (which carries the time).
	w.String(d.ID().String())
	w.Uint(uint64(d.Version()))
	w.Uint(uint64(d.Outcome()))
	writeScope(w, d.Capabilities(), d.Resources())
	reasons := d.Reasons()
	w.Count(len(reasons))
	for _, r := range reasons {
		w.Uint(uint64(r))
	}
	digest.Strings(w, d.MatchedRules())
	obls := d.Obligations()
	w.Count(len(obls))
	for _, o := range obls {
		w.String(o.Key())
	}
	// Subject and requested scope.
	in.Identity().WriteDigest(w)
	writeScope(w, in.RequestedCapabilities(), in.RequestedResources())
	// Lifetime and the one Authorization it can lead to.
	w.Uint(b.maxLifetime)
	w.Uint(b.requestedAt.Seconds())
	w.Uint(b.expiresAt.Seconds())
	digest.Strings(w, b.ids[:])
	// Who asked and who must confirm.
	w.String(b.requester)
	w.String(Role)
	w.Count(len(b.requirement.Subjects))
	for _, s := range b.requirement.Subjects {
		w.String(s)
	}
	w.Bool(b.requirement.ExcludeRequester)
	return w.Sum()
}

func writeScope(w *digest.Builder, caps []vocab.Capability, res []ident.Resource) {
	w.Count(len(caps))
	for _, c := range caps {
		w.Uint(uint64(c))
	}
	digest.Strings(w, res)
}

// Digest names the binding's complete content.
func (b *Binding) Digest() digest.Digest { return b.digest }

// Domain returns the Host authority domain.
func (b *Binding) Domain() boundary.Domain { return b.domain }

// Decision returns the bound requireConfirmation Decision.
func (b *Binding) Decision() *policy.Decision { return b.decision }

// Requester returns the authenticated name of the caller that asked.
func (b *Binding) Requester() string { return b.requester }

// Subject returns the Evaluation Input's subject, tenant, session and
// delegation.
func (b *Binding) Subject() principal.Identity { return b.decision.Input().Identity() }

// Requirement returns a copy of who must confirm.
func (b *Binding) Requirement() Requirement {
	return Requirement{Subjects: slices.Clone(b.requirement.Subjects), ExcludeRequester: b.requirement.ExcludeRequester}
}

// AuthorizationID returns the identity of the one Authorization the binding
// can lead to.
func (b *Binding) AuthorizationID() ident.ArtifactID { return b.ids[0] }

// MaxLifetime returns the requested maximum Authorization lifetime.
func (b *Binding) MaxLifetime() uint64 { return b.maxLifetime }

// RequestedAt returns when confirmation was asked for.
func (b *Binding) RequestedAt() epoch.Time { return b.requestedAt }

// ExpiresAt returns the binding's exclusive expiry.
func (b *Binding) ExpiresAt() epoch.Time { return b.expiresAt }

// Draft returns the draft that recomputes this binding over another
// Decision (a fresh evaluation's). A Host replaces what the retry itself
// states (requester, identities, lifetime) with the retry's values, so that
// a changed one changes the digest.
func (b *Binding) Draft(fresh *policy.Decision) BindingDraft {
	return BindingDraft{
		Decision: fresh, Requester: b.requester, Requirement: b.Requirement(),
		AuthorizationID: b.ids[0].String(), ReplayID: b.ids[1].String(), ConsumptionID: b.ids[2].String(),
		MaxLifetime: b.maxLifetime, RequestedAt: b.requestedAt, ExpiresAt: b.expiresAt,
	}
}

// Attester is the Host's confirmer attester: the only constructor of
// Confirmations in its domain. It is privilege, as a Role Authority is, and
// the Host keeps it unexported.
type Attester struct {
	domain boundary.Domain
}

// NewAttester grants b's domain its confirmer attester.
func NewAttester(b boundary.Boundary) (*Attester, error) {
	if b.IsZero() {
		return nil, fault.At("domain", fault.Missing, "a confirmer attester needs the host's retained boundary")
	}
	return &Attester{domain: b.Domain()}, nil
}

// AnswerDraft is one confirmer's answer. The Host has checked that
// Confirmer holds the confirmer role before it asks for an attestation.
type AnswerDraft struct {
	ID        string // ArtifactID grammar
	Confirmer string // the authenticated name
	Answer    Answer
	At        epoch.Time // confirmedAt
	// ExpiresAt is the confirmation's requested exclusive expiry; it is
	// shortened to the binding's.
	ExpiresAt epoch.Time
}

// Confirmation is one authenticated confirmer's yes or no to exactly one
// binding.
type Confirmation struct {
	domain      boundary.Domain
	binding     digest.Digest
	id          ident.ArtifactID
	confirmer   string
	answer      Answer
	confirmedAt epoch.Time
	expiresAt   epoch.Time
	digest      digest.Digest
}

// Attest records d's answer to bind, or refuses it: a confirmer not among
// the named subjects or who is the requester where that is excluded
// (unauthorized at confirmer), an answer outside the binding's lifetime
// (expired), a malformed draft.
func (a *Attester) Attest(bind *Binding, d AnswerDraft) (*Confirmation, error) {
	if a == nil || bind == nil {
		return nil, fault.At("binding", fault.Missing, "a confirmation answers one binding")
	}
	if !a.domain.Same(bind.domain) {
		return nil, fault.At("domain", fault.MixedDomain, "a confirmation is attested in the binding's domain")
	}
	var errs fault.Errors
	id, err := ident.ParseArtifactID(d.ID)
	errs.Add("id", err)
	if d.Confirmer == "" || !printable(d.Confirmer) {
		errs.Add("", fault.At("confirmer", fault.Malformed, "the confirmer is the authenticated caller's name"))
	}
	if d.Answer != Approve && d.Answer != Deny {
		errs.Add("", fault.At("answer", fault.UnknownToken, "an answer is approve or deny"))
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	if req := bind.requirement; len(req.Subjects) > 0 && !slices.Contains(req.Subjects, d.Confirmer) {
		return nil, fault.At("confirmer", fault.Unauthorized, "the binding names who may confirm it")
	}
	if bind.requirement.ExcludeRequester && isRequester(bind, d.Confirmer) {
		return nil, fault.At("confirmer.requester", fault.Unauthorized, "the requester may not confirm its own request")
	}
	if d.At.Before(bind.requestedAt) || !d.At.Before(bind.expiresAt) {
		return nil, fault.At("binding.expiresAt", fault.Expired, "the binding is not open for an answer at this time")
	}
	exp := d.ExpiresAt
	if bind.expiresAt.Before(exp) {
		exp = bind.expiresAt
	}
	if !d.At.Before(exp) {
		return nil, fault.At("expiresAt", fault.OutOfRange, "a confirmation expires after it is given")
	}
	c := &Confirmation{domain: a.domain, binding: bind.digest, id: id, confirmer: d.Confirmer, answer: d.Answer, confirmedAt: d.At, expiresAt: exp}
	c.digest = c.computeDigest()
	return c, nil
}

// isRequester reports whether name is the binding's requester: the caller
// that asked, or the subject on whose behalf it asked (a user name equal to
// the subject identifier, or ending in ":"+subject as a ServiceAccount's
// does).
func isRequester(b *Binding, name string) bool {
	subject := b.Subject().Subject().String()
	return name == b.requester || name == subject || strings.HasSuffix(name, ":"+subject)
}

// ConfirmationDigestLabel names the confirmation encoding.
const ConfirmationDigestLabel = "toolgate.confirmation/1"

func (c *Confirmation) computeDigest() digest.Digest {
	w := digest.New(ConfirmationDigestLabel)
	w.Digest(c.binding)
	w.String(c.id.String())
	w.String(Role)
	w.String(c.confirmer)
	w.Uint(uint64(c.answer))
	w.Uint(c.confirmedAt.Seconds())
	w.Uint(c.expiresAt.Seconds())
	return w.Sum()
}

// Digest names the confirmation's complete content.
func (c *Confirmation) Digest() digest.Digest { return c.digest }

// BindingDigest returns the digest of the binding it answers.
func (c *Confirmation) BindingDigest() digest.Digest { return c.binding }

// ID returns the confirmation identity.
func (c *Confirmation) ID() ident.ArtifactID { return c.id }

// Confirmer returns the authenticated confirmer's name.
func (c *Confirmation) Confirmer() string { return c.confirmer }

// Answer returns approve or deny.
func (c *Confirmation) Answer() Answer { return c.answer }

// ConfirmedAt returns when it was given.
func (c *Confirmation) ConfirmedAt() epoch.Time { return c.confirmedAt }

// ExpiresAt returns its exclusive expiry.
func (c *Confirmation) ExpiresAt() epoch.Time { return c.expiresAt }

// Confirmed is an accepted confirmation: the fresh requireConfirmation
// Decision it satisfies, and the confirmation it came from. authz.Issue
// takes it as the one satisfaction of that Decision.
type Confirmed struct {
	domain       boundary.Domain
	decision     *policy.Decision
	confirmation digest.Digest
	binding      digest.Digest
}

// Accept checks a confirmation against the pending binding it answers and
// the binding recomputed from a fresh evaluation at the explicit time at.
// It refuses a confirmation for another binding or a fresh binding that
// differs (mismatch), a "no" (ineligible: final), and a time before the
// answer or at or after either expiry (expired).
func Accept(b boundary.Boundary, pending *Binding, c *Confirmation, fresh *Binding, at epoch.Time) (*Confirmed, error) {
	switch {
	case b.IsZero():
		return nil, fault.At("domain", fault.Missing, "acceptance needs the host's retained boundary")
	case pending == nil:
		return nil, fault.At("binding", fault.Missing, "the pending binding is required")
	case c == nil:
		return nil, fault.At("confirmation", fault.Missing, "a confirmation is required")
	case fresh == nil:
		return nil, fault.At("fresh", fault.Missing, "the binding of the fresh evaluation is required")
	}
	if !b.Holds(pending.domain) || !b.Holds(c.domain) || !b.Holds(fresh.domain) {
		return nil, fault.At("domain", fault.MixedDomain, "binding and confirmation must belong to the retained boundary's domain")
	}
	if !c.binding.Equal(pending.digest) {
		return nil, fault.At("confirmation.binding", fault.Mismatch, "the confirmation answers another binding")
	}
	if c.answer != Approve {
		return nil, fault.At("confirmation.answer", fault.Ineligible, "the binding was refused; a no is final")
	}
	if at.Before(c.confirmedAt) || !at.Before(c.expiresAt) {
		return nil, fault.At("confirmation.expiresAt", fault.Expired, "the confirmation is not valid at this time")
	}
	if !at.Before(pending.expiresAt) {
		return nil, fault.At("binding.expiresAt", fault.Expired, "the binding has expired")
	}
	if !fresh.digest.Equal(pending.digest) {
		return nil, fault.At("binding", fault.Mismatch, "the fresh evaluation differs from what was confirmed")
	}
	return &Confirmed{domain: b.Domain(), decision: fresh.decision, confirmation: c.digest, binding: pending.digest}, nil
}

// Domain returns the Host authority domain.
func (c *Confirmed) Domain() boundary.Domain { return c.domain }

// Decision returns the fresh Decision the confirmation satisfies.
func (c *Confirmed) Decision() *policy.Decision { return c.decision }

// Digest returns the confirmation's digest, which a confirmed
// Authorization binds.
func (c *Confirmed) Digest() digest.Digest { return c.confirmation }

// BindingDigest returns the confirmed binding's digest.
func (c *Confirmed) BindingDigest() digest.Digest { return c.binding }
