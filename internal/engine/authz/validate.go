package authz

import (
	"cmp"
	"slices"

	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/confirm"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// ValidationContext is the Host's independent expectation set for one
// Validation (Section 29). None of it may be copied from the artifact under
// Validation ("self-consistency is insufficient"). Each field says where an
// honest Host gets it.
type ValidationContext struct {
	// AuthorizationID is the identity the executor was told to expect by
	// the Host over its own channel (for example derived from the tool-call
	// record it keeps), never read from the artifact (P-024, P-025).
	AuthorizationID string
	// Version is the Authorization representation version the executor
	// implements (v1).
	Version vocab.Version
	// Generation is the Intent renewal generation the Host recorded when it
	// captured the Intent.
	Generation ident.Generation

	// Decision and Input are the Host's own records of what it evaluated:
	// the values it constructed at issuance, or rebuilt from its own
	// verified issuance record by re-running the complete issuance.
	Decision *policy.Decision
	Input    *evalinput.Input
	// Request is the executor's own Canonical Request: the exact tool,
	// version and raw arguments it is about to execute, canonicalized again
	// on the executor's side against Registry.
	Request *request.CanonicalRequest
	// Definition is the Tool Definition the executor resolves itself, by
	// exact tool and version, in Registry.
	Definition *registry.Definition
	// Registry and Policy are the exact snapshots the Host selects by
	// identity and generation from its own store, never "latest".
	Registry *registry.Snapshot
	Policy   *policy.Snapshot

	// Identity is the subject, tenant, session and delegation the executor
	// acts for, from its own authenticated request context.
	Identity principal.Identity
	// Capabilities and Resources are the scope the executor needs for the
	// side effect it will perform. They are sets: any order is accepted
	// and normalized; a duplicate rejects.
	Capabilities []vocab.Capability
	Resources    []ident.Resource

	// IssuedAt, ExpiresAt and MaxLifetime come from the Host's issuance
	// record (the lifetime it granted), not from the artifact.
	IssuedAt    epoch.Time
	ExpiresAt   epoch.Time
	MaxLifetime uint64

	// ReplayID and ConsumptionID are the correlation and Consumption
	// identities the Host assigned at issuance.
	ReplayID      string
	ConsumptionID string

	// Confirmed is the accepted confirmation from the Host's own issuance
	// record, for a confirmed Authorization (toolgate.confirmations/1); nil
	// for Phase 1–6.
	Confirmed *confirm.Confirmed
}

// Result is successful Validation: controlled structural evidence carrying
// the complete Consumption Binding and the mandatory single-use requirement.
// It is not Consumption, replay protection or execution permission.
type Result struct {
	binding *ConsumptionBinding
}

// Binding returns the complete Consumption Binding the Host must consume
// atomically before any protected side effect.
func (r *Result) Binding() *ConsumptionBinding { return r.binding }

// Contract returns the mandatory single-use contract.
func (r *Result) Contract() vocab.ConsumptionContract { return vocab.AtomicSingleUseRequired }

// Validate compares a with the independent expectations in ctx at the
// explicit time at (Section 30). It is pure and repeatable: identical inputs
// give identical results, and nothing is reserved or consumed. Any mismatch
// rejects the whole Validation.
func Validate(b boundary.Boundary, a *Authorization, ctx ValidationContext, at epoch.Time) (*Result, error) {
	if a == nil {
		return nil, fault.At("authorization", fault.Missing, "an authorization is required")
	}
	if b.IsZero() {
		return nil, fault.At("domain", fault.Missing, "validation needs the host's retained boundary")
	}
	if !b.Holds(a.domain) {
		return nil, fault.At("domain", fault.MixedDomain, "the authorization must belong to the retained boundary's domain")
	}
	if err := vocab.CheckVersion(ctx.Version); err != nil {
		return nil, fault.Within("version", err)
	}
	var err error
	if ctx.Capabilities, err = normalizedSet(ctx.Capabilities, cmp.Compare[vocab.Capability]); err != nil {
		return nil, fault.Within("capabilities", err)
	}
	if ctx.Resources, err = normalizedSet(ctx.Resources, ident.Resource.Compare); err != nil {
		return nil, fault.Within("resources", err)
	}
	if err := compareExpectations(a, ctx); err != nil {
		return nil, err
	}
	// Derive everything again from the independent context: re-evaluation,
	// re-resolution, scope recomputation, obligations, lifetime, freshness.
	// The expected Decision was compared with the artifact's above, so its
	// selection is the Host's expected selection.
	var sel policy.Selection
	if ctx.Decision != nil {
		sel = ctx.Decision.Selection()
	}
	want, err := derive(b, bound{
		input: ctx.Input, policy: ctx.Policy, registry: ctx.Registry, decision: ctx.Decision, selection: sel,
		authorizationID: ctx.AuthorizationID, replayID: ctx.ReplayID, consumptionID: ctx.ConsumptionID,
		generation: ctx.Generation, issuedAt: ctx.IssuedAt, expiresAt: ctx.ExpiresAt, maxLifetime: ctx.MaxLifetime,
		confirmed: ctx.Confirmed,
	})
	if err != nil {
		return nil, err
	}
	if !want.matches(a.binding, ctx.Input) {
		return nil, fault.At("binding", fault.Mismatch, "the complete consumption binding differs from the expected one")
	}
	if at.Before(a.binding.issuedAt) {
		return nil, fault.At("validationTime", fault.Expired, "the authorization is not valid before its issuance time")
	}
	if !at.Before(a.binding.expiresAt) {
		return nil, fault.At("validationTime", fault.Expired, "the authorization has expired")
	}
	return &Result{binding: a.binding}, nil
}

// normalizedSet returns xs in sorted order, or rejects the first
// duplicate at its index in xs. xs is not modified: when it is not already
// strictly sorted, the result is a sorted copy. The result is only compared
// within Validate, never retained.
func normalizedSet[T any](xs []T, compare func(a, b T) int) ([]T, error) {
	sorted := true
	for i := 1; sorted && i < len(xs); i++ {
		sorted = compare(xs[i-1], xs[i]) < 0
	}
	if sorted {
		return xs, nil
	}
	out := slices.Clone(xs)
	slices.SortStableFunc(out, compare)
	for i := 1; i < len(out); i++ {
		if compare(out[i-1], out[i]) == 0 {
			j := slices.IndexFunc(xs, func(x T) bool { return compare(x, out[i]) == 0 })
			j += 1 + slices.IndexFunc(xs[j+1:], func(x T) bool { return compare(x, out[i]) == 0 })
			return nil, fault.At(fault.Index(j), fault.Duplicate, "an expected scope is a set: each member once")
		}
	}
	return out, nil
}

// compareExpectations compares every exact expectation of Section 30 with
// the artifact, so that a mismatch names the value that differs.
func compareExpectations(a *Authorization, ctx ValidationContext) error {
	bind := a.binding
	checks := []struct {
		path string
		ok   bool
	}{
		{"authorizationID", ctx.AuthorizationID == bind.authorizationID.String()},
		{"generation", ctx.Generation == bind.generation},
		{"decision", ctx.Decision.Equal(a.dec)},
		{"input", ctx.Input.Equal(a.input)},
		{"request", ctx.Request.Equal(a.input.Request())},
		{"definition", ctx.Definition.Equal(a.input.Request().Definition())},
		{"registry", ctx.Registry.Equal(a.reg)},
		{"policy", ctx.Policy.Equal(a.policy)},
		{"identity", ctx.Identity.Equal(bind.identity)},
		{"capabilities", slices.Equal(ctx.Capabilities, bind.capabilities)},
		{"resources", slices.Equal(ctx.Resources, bind.resources)},
		{"issuedAt", ctx.IssuedAt == bind.issuedAt},
		{"expiresAt", ctx.ExpiresAt == bind.expiresAt},
		{"maxLifetime", ctx.MaxLifetime == bind.maxLifetime},
		{"replayID", ctx.ReplayID == bind.replayID.String()},
		{"consumptionID", ctx.ConsumptionID == bind.consumptionID.String()},
	}
	for _, c := range checks {
		if !c.ok {
			return fault.At(c.path, fault.Mismatch, "the authorization differs from the independent expectation")
		}
	}
	return nil
}
