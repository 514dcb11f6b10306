// Package authz implements Authorization issuance and Validation (spec
// Sections 23–32): the controlled issuer that turns one eligible allow
// Policy Decision into a single-use Authorization, and the pure validator
// that compares an Authorization with independently supplied Host
// expectations at an explicit time.
//
// Both transitions share one derivation: from a complete set of bound
// values (Evaluation Input, Policy Snapshot, Registry Snapshot, Policy
// Decision, identities, times) derive re-evaluates the Policy, re-resolves the
// Tool Definition, recomputes the five-way scope intersections, processes
// every obligation and checks lifetime and freshness, then builds the
// complete Authorization Consumption Binding. Issuance derives from the
// issuance request; Validation derives again from the independent context
// and requires the artifact to equal the result exactly. Neither performs a
// side effect; Validation is not Consumption (P-008).
package authz

import (
	"slices"

	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/confirm"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// MaxLifetime is the global Authorization lifetime bound in seconds.
const MaxLifetime = 3600

// IssueRequest is everything controlled issuance binds (Section 23).
type IssueRequest struct {
	Input    *evalinput.Input
	Policy   *policy.Snapshot
	Registry *registry.Snapshot
	Decision *policy.Decision
	// Selection is the Host's own exact policy selection (Section 19); the
	// Decision must have been made for exactly this selection. It is never
	// taken from the Decision.
	Selection policy.Selection

	AuthorizationID string // ArtifactID grammar
	ReplayID        string
	ConsumptionID   string
	// Generation is the renewal-bound Authorization generation; it must
	// equal the Intent renewal generation bound into the input.
	Generation ident.Generation

	IssuedAt  epoch.Time // inclusive
	ExpiresAt epoch.Time // exclusive
	// MaxLifetime is the Host-requested maximum lifetime, 1–3,600 seconds.
	MaxLifetime uint64

	// Confirmed is set only by the toolgate.confirmations/1 extension
	// (docs/confirmation.md): an accepted confirmation of exactly Decision,
	// a requireConfirmation Decision. It is the one satisfaction of that
	// outcome and of the requireConfirmation obligation; nil is Phase 1–6.
	Confirmed *confirm.Confirmed
}

// Authorization is controlled, immutable structural evidence that one
// eligible allow Decision permitted issuance (Section 25). Only Issue builds
// one. It is not execution permission (P-007) and is not cryptographically
// authentic; the service layer signs a portable envelope around it.
type Authorization struct {
	domain  boundary.Domain
	input   *evalinput.Input
	policy  *policy.Snapshot
	reg     *registry.Snapshot
	dec     *policy.Decision
	binding *ConsumptionBinding
	// confirmed is the accepted confirmation a confirmed Authorization was
	// issued with (toolgate.confirmations/1); nil for Phase 1–6.
	confirmed *confirm.Confirmed
}

// Issue is the controlled issuer. b is the Host's independently retained
// boundary. Any failed check rejects without an artifact.
func Issue(b boundary.Boundary, r IssueRequest) (*Authorization, error) {
	bind, err := derive(b, bound{
		input: r.Input, policy: r.Policy, registry: r.Registry, decision: r.Decision, selection: r.Selection,
		authorizationID: r.AuthorizationID, replayID: r.ReplayID, consumptionID: r.ConsumptionID,
		generation: r.Generation, issuedAt: r.IssuedAt, expiresAt: r.ExpiresAt, maxLifetime: r.MaxLifetime,
		confirmed: r.Confirmed,
	})
	if err != nil {
		return nil, err
	}
	sealed := bind.seal(r.Input)
	return &Authorization{domain: b.Domain(), input: r.Input, policy: r.Policy, reg: r.Registry, dec: r.Decision, binding: sealed, confirmed: r.Confirmed}, nil
}

// ID returns the Authorization identity.
func (a *Authorization) ID() ident.ArtifactID { return a.binding.authorizationID }

// Version returns the representation version (v1).
func (a *Authorization) Version() vocab.Version { return vocab.V1 }

// Generation returns the renewal-bound generation.
func (a *Authorization) Generation() ident.Generation { return a.binding.generation }

// Domain returns the Host authority domain.
func (a *Authorization) Domain() boundary.Domain { return a.domain }

// Input returns the bound Evaluation Input.
func (a *Authorization) Input() *evalinput.Input { return a.input }

// Decision returns the bound Policy Decision.
func (a *Authorization) Decision() *policy.Decision { return a.dec }

// PolicySnapshot returns the bound Policy Snapshot.
func (a *Authorization) PolicySnapshot() *policy.Snapshot { return a.policy }

// RegistrySnapshot returns the bound Registry Snapshot.
func (a *Authorization) RegistrySnapshot() *registry.Snapshot { return a.reg }

// Identity returns the bound subject, tenant, session and delegation.
func (a *Authorization) Identity() principal.Identity { return a.binding.identity }

// Capabilities returns the effective Capabilities.
func (a *Authorization) Capabilities() []vocab.Capability {
	return slices.Clone(a.binding.capabilities)
}

// Resources returns the effective Resources; empty means no resource authority.
func (a *Authorization) Resources() []ident.Resource { return slices.Clone(a.binding.resources) }

// IssuedAt returns the inclusive start of the lifetime.
func (a *Authorization) IssuedAt() epoch.Time { return a.binding.issuedAt }

// ExpiresAt returns the exclusive end of the lifetime.
func (a *Authorization) ExpiresAt() epoch.Time { return a.binding.expiresAt }

// MaxLifetime returns the requested maximum lifetime in seconds.
func (a *Authorization) MaxLifetime() uint64 { return a.binding.maxLifetime }

// ReplayID returns the replay correlation identity; it proves nothing about
// uniqueness or use (P-027).
func (a *Authorization) ReplayID() ident.ArtifactID { return a.binding.replayID }

// ConsumptionID returns the future Consumption identity.
func (a *Authorization) ConsumptionID() ident.ArtifactID { return a.binding.consumptionID }

// Obligations returns the obligations retained from the Decision.
func (a *Authorization) Obligations() []policy.Obligation { return a.dec.Obligations() }

// Confirmed returns the accepted confirmation the Authorization was issued
// with (toolgate.confirmations/1), or nil for a Phase 1–6 Authorization.
func (a *Authorization) Confirmed() *confirm.Confirmed { return a.confirmed }

// Binding returns the complete Authorization Consumption Binding.
func (a *Authorization) Binding() *ConsumptionBinding { return a.binding }

// Digest returns the digest of the complete Authorization: its Consumption
// Binding digest, which covers every bound value.
func (a *Authorization) Digest() digest.Digest { return a.binding.digest }

// Equal reports complete structural equality.
func (a *Authorization) Equal(b *Authorization) bool {
	return a != nil && b != nil && a.domain.Same(b.domain) && a.binding.digest.Equal(b.binding.digest)
}

// bound is the complete set of values one derivation consumes.
type bound struct {
	input    *evalinput.Input
	policy   *policy.Snapshot
	registry *registry.Snapshot
	decision *policy.Decision
	// selection is the independently supplied policy selection.
	selection policy.Selection

	authorizationID, replayID, consumptionID string
	generation                               ident.Generation
	issuedAt, expiresAt                      epoch.Time
	maxLifetime                              uint64
	confirmed                                *confirm.Confirmed
}

// derive checks every issuance precondition of Sections 23–28 over the
// bound values and returns the complete Consumption Binding, unsealed: its
// effective scope is the bound input's requested scope (recomputeScope
// proves they are equal) and its digests are computed by seal, for the one
// binding that is kept.
func derive(b boundary.Boundary, v bound) (ConsumptionBinding, error) {
	switch {
	case b.IsZero():
		return ConsumptionBinding{}, fault.At("domain", fault.Missing, "issuance and validation need the host's retained boundary")
	case v.input == nil:
		return ConsumptionBinding{}, fault.At("input", fault.Missing, "an evaluation input is required")
	case v.policy == nil:
		return ConsumptionBinding{}, fault.At("policy", fault.Missing, "the exact policy snapshot is required")
	case v.registry == nil:
		return ConsumptionBinding{}, fault.At("registry", fault.Missing, "the exact registry snapshot is required")
	case v.decision == nil:
		return ConsumptionBinding{}, fault.At("decision", fault.Missing, "the exact policy decision is required")
	}
	if !b.Holds(v.input.Domain()) || !b.Holds(v.policy.Domain()) || !b.Holds(v.decision.Domain()) {
		return ConsumptionBinding{}, fault.At("domain", fault.MixedDomain, "input, policy and decision must belong to the retained boundary's domain")
	}
	if err := checkOutcome(b, v); err != nil {
		return ConsumptionBinding{}, err
	}
	if err := checkDecision(v); err != nil {
		return ConsumptionBinding{}, err
	}
	if err := checkRegistry(v); err != nil {
		return ConsumptionBinding{}, err
	}
	if err := recomputeScope(v); err != nil {
		return ConsumptionBinding{}, err
	}
	ids, err := parseIDs(v)
	if err != nil {
		return ConsumptionBinding{}, err
	}
	if err := checkLifetime(v); err != nil {
		return ConsumptionBinding{}, err
	}
	if err := checkObligations(v); err != nil {
		return ConsumptionBinding{}, err
	}
	return newBinding(b, v, ids), nil
}

// checkOutcome admits an allow Decision, and a requireConfirmation Decision
// only together with the accepted confirmation of exactly that Decision
// (toolgate.confirmations/1); a confirmation for any other Decision rejects.
func checkOutcome(b boundary.Boundary, v bound) error {
	if v.confirmed != nil {
		if !b.Holds(v.confirmed.Domain()) || !v.confirmed.Decision().Equal(v.decision) {
			return fault.At("confirmed", fault.Mismatch, "a confirmation satisfies exactly the decision it was accepted for")
		}
		if v.decision.Outcome() != vocab.RequireConfirmation {
			return fault.At("decision.outcome", fault.Ineligible, "only a requireConfirmation decision is confirmed")
		}
		return nil
	}
	if v.decision.Outcome() != vocab.Allow {
		return fault.At("decision.outcome", fault.Ineligible,
			"only an allow decision is eligible; deny and requireConfirmation never issue")
	}
	return nil
}

// checkDecision compares the supplied Decision with the exact input and
// snapshot and re-evaluates the selected Policy (Sections 22–23): the
// caller's outcome and scope are never trusted.
func checkDecision(v bound) error {
	d := v.decision
	if !d.Input().Equal(v.input) {
		return fault.At("decision.input", fault.Mismatch, "the decision must be for this exact evaluation input")
	}
	if !d.Snapshot().Equal(v.policy) {
		return fault.At("decision.snapshot", fault.Mismatch, "the decision must be for this exact policy snapshot")
	}
	if d.Selection() != v.selection {
		return fault.At("decision.selection", fault.Mismatch,
			"the decision must be for the host's exact snapshot and policy selection")
	}
	same, err := policy.Reproduces(d, v.input, v.policy)
	if err != nil {
		return fault.Within("decision", err)
	}
	if !same {
		return fault.At("decision", fault.Mismatch, "re-evaluating the exact policy does not reproduce the decision")
	}
	return nil
}

// checkRegistry resolves the exact Tool Definition again from the exact
// Registry Snapshot and compares complete content.
func checkRegistry(v bound) error {
	req := v.input.Request()
	if !v.registry.Equal(req.Snapshot()) {
		return fault.At("registry", fault.Mismatch, "the registry snapshot must be the request's exact snapshot")
	}
	def := req.Definition()
	res, err := v.registry.Lookup(def.ToolID(), def.Version())
	if err != nil {
		return fault.Within("registry", err)
	}
	if !res.Definition().Equal(def) {
		return fault.At("registry", fault.Mismatch, "the resolved tool definition must equal the request's exactly")
	}
	return nil
}

// recomputeScope computes the five-way intersections of Section 24 and
// requires them to equal both the Decision's constrained scope and the
// explicit request: a caller can neither broaden nor under-bind scope.
//
// The requested scope is a set in ASCII order, as are the definition's
// Capabilities and the request's Resources, so each intersection (taken in
// that order) equals the request exactly when every requested member is in
// every other set, and equals the Decision's scope exactly when, in
// addition, the Decision's scope has no other member. That is what is
// checked, member by member, without building the intersections.
func recomputeScope(v bound) error {
	in, d := v.input, v.decision
	def, host, intent := in.Request().Definition(), in.Host(), in.Intent()
	n := in.NumRequestedCapabilities()
	capsOK := n > 0 && d.NumCapabilities() == n
	for i := 0; capsOK && i < n; i++ {
		c := in.RequestedCapabilityAt(i)
		capsOK = def.HasCapability(c) && host.HasCapability(c) && intent.HasCapability(c) && d.HasCapability(c)
	}
	if !capsOK {
		return fault.At("capabilities", fault.Mismatch,
			"effective capabilities must equal the five-way intersection, the decision's scope and the request")
	}
	args := in.Request().Arguments()
	n = in.NumRequestedResources()
	resOK := d.NumResources() == n
	for i := 0; resOK && i < n; i++ {
		r := in.RequestedResourceAt(i)
		resOK = args.HasResource(r) && host.HasResource(r) && intent.HasResource(r) && d.HasResource(r)
	}
	if !resOK {
		return fault.At("resources", fault.Mismatch,
			"effective resources must equal the five-way intersection, the decision's scope and the request")
	}
	return nil
}

type ids struct {
	authorization, replay, consumption ident.ArtifactID
}

func parseIDs(v bound) (ids, error) {
	var out ids
	var err error
	if out.authorization, err = ident.ParseArtifactID(v.authorizationID); err != nil {
		return ids{}, fault.Within("authorizationID", err)
	}
	if out.replay, err = ident.ParseArtifactID(v.replayID); err != nil {
		return ids{}, fault.Within("replayID", err)
	}
	if out.consumption, err = ident.ParseArtifactID(v.consumptionID); err != nil {
		return ids{}, fault.Within("consumptionID", err)
	}
	if v.generation.IsZero() || v.generation != v.input.RenewalGeneration() {
		return ids{}, fault.At("generation", fault.Mismatch,
			"the authorization generation must equal the intent's renewal generation")
	}
	return out, nil
}

// checkLifetime applies Section 26. Ordering is verified before any
// subtraction.
func checkLifetime(v bound) error {
	if v.maxLifetime == 0 || v.maxLifetime > MaxLifetime {
		return fault.At("maxLifetime", fault.OutOfRange, "the requested maximum lifetime is 1–3600 seconds")
	}
	if v.issuedAt.Before(v.input.EvaluationTime()) {
		return fault.At("issuedAt", fault.OutOfRange, "issuance must not precede evaluation")
	}
	if !v.issuedAt.Before(v.expiresAt) {
		return fault.At("expiresAt", fault.OutOfRange, "expiry must be later than issuance")
	}
	d, err := v.expiresAt.Since(v.issuedAt)
	if err != nil || d > v.maxLifetime {
		return fault.At("expiresAt", fault.OutOfRange, "the lifetime must not exceed the requested maximum or 3600 seconds")
	}
	in := v.input
	fixed := [3]expiry{
		{"intent", in.Intent().Validity().ExpiresAt()},
		{"security context", in.SecurityContext().Validity().ExpiresAt()},
	}
	bounded := fixed[:2]
	if d := in.Delegation(); d != nil {
		bounded = append(bounded, expiry{"delegation", d.Validity().ExpiresAt()})
	}
	for _, e := range bounded {
		if v.expiresAt.Compare(e.at) > 0 {
			return fault.At("expiresAt", fault.OutOfRange, "expiry must not exceed the "+e.what+" expiry")
		}
	}
	atts := in.Attestations()
	for i := range atts.Len() {
		if v.expiresAt.Compare(atts.AttestationAt(i).Validity().ExpiresAt()) > 0 {
			return fault.At("expiresAt", fault.OutOfRange, "expiry must not exceed the host attestation expiry")
		}
	}
	return nil
}

// expiry is one bound-input expiry an Authorization must not outlive:
// Intent, Security Context, Delegation (and every attestation, checked
// above without a copy of the composition).
type expiry struct {
	what string
	at   epoch.Time
}

// checkObligations applies the Section 27 issuance treatment to every
// obligation retained by the Decision.
func checkObligations(v bound) error {
	d := v.decision
	for i := range d.NumObligations() {
		o := d.ObligationAt(i)
		path := func() string { return "decision.obligations" + fault.Index(i) }
		//exhaustive:enforce
		switch o.Kind() {
		case vocab.ObligationRequireConfirmation:
			// Satisfied only by an accepted confirmation of this exact
			// Decision (checkOutcome), an extension beyond Phase 1–6.
			if v.confirmed == nil {
				return fault.At(path(), fault.Unsupported, "confirmation collection does not exist in this protocol phase")
			}
		case vocab.ObligationRequireAuditEvent:
			return fault.At(path(), fault.Unsupported, "an audit event cannot be proven by the protocol core")
		case vocab.ObligationMaximumEvaluationAge:
			age, err := v.issuedAt.Since(v.input.EvaluationTime())
			if err != nil || o.Seconds() == 0 || o.Seconds() > MaxLifetime || age > o.Seconds() {
				return fault.At(path(), fault.OutOfRange, "issuance exceeds the maximum evaluation age")
			}
		case vocab.ObligationRequireCompleteInfluenceBoundary:
			c, ok := v.input.Influence().Collection(o.Boundary())
			if !ok || c.Completeness() != vocab.CompletenessComplete {
				return fault.At(path(), fault.Ineligible, "the named influence boundary must exist with validated complete status")
			}
		case vocab.ObligationRequireSingleUse:
			// Bound as the mandatory atomic-single-use contract below.
		default:
			return fault.At(path(), fault.Unsupported, "unknown obligation")
		}
	}
	return nil
}
