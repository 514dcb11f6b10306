package host

import (
	"errors"
	"math"
	"time"

	"github.com/toolgate/toolgate/internal/agentsafe"

	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/authz"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Expectations are an executor's own, independent expectations for one
// Validation (Section 29), as plain data. Nothing here may be read from the
// Authorization under Validation; each field says where an honest executor
// gets it.
type Expectations struct {
	// AuthorizationID is the identity the executor was told to expect over
	// its own channel with the Host (for example derived from its record of
	// the tool call), never read from the artifact.
	AuthorizationID string
	// ReplayID and ConsumptionID are the identities the Host assigned at
	// issuance and told the executor over the same channel.
	ReplayID, ConsumptionID string
	// ProposalID, ToolID, Version and Arguments are the exact call the
	// executor is about to perform: the raw argument JSON it will execute
	// is canonicalized again here, against the exact registry snapshot, so
	// one changed argument rejects.
	ProposalID string
	ToolID     string
	Version    string
	Arguments  []byte
	// Identity is the subject, tenant, session and delegation the executor
	// acts for, from its own authenticated request context.
	Identity principal.Draft
	// Capabilities and Resources are the scope the side effect needs: sets,
	// any order; a duplicate rejects.
	Capabilities []string
	Resources    []string
	// IntentBinding, when not nil, is the agent-safe.intent/1 binding the
	// executor is about to commit; its digest must equal the one bound into
	// the Intent (fault.Mismatch at "intentBinding"; an Authorization with
	// no bound binding fails the same way).
	IntentBinding []byte
}

// Validate checks a against the executor's expectations at the explicit
// time at (Phase 6, Sections 29–30) and returns the complete Consumption
// Binding that the service must consume atomically before the side effect.
// caller must be one of the domain's executors (fault.Unauthorized).
//
// The values only the Host can know — the Evaluation Input and Decision it
// issued for, the exact snapshots (re-resolved from this Host's own store
// by identity and generation, and compared by complete content) and the
// lifetime it granted — come from its controlled issuance record, which is
// the Authorization itself: only this Host's issuance (or its rebuild of a
// verified portable form) builds one in this domain. Everything the executor
// states is checked against it, and the engine re-derives the complete
// binding. Validation is pure and repeatable; it consumes nothing.
func (h *Host) Validate(caller Caller, a *authz.Authorization, exp Expectations, at uint64) (*authz.ConsumptionBinding, error) {
	return h.validate(caller, a, exp, at, false)
}

// ValidateForConsumption is Validate immediately before a Consumption, with
// the rule that belongs to Consumption only: an Authorization whose Intent
// binds an agent-safe.intent/1 binding is consumed only by an executor that
// presents the binding it is about to commit (fault.Missing at
// "intentBinding", IsIntentBindingRequired; the digest comparison is
// Validate's).
// The executor role is checked first, so a caller without it learns nothing
// about the Authorization, not even whether it binds an intent.
func (h *Host) ValidateForConsumption(caller Caller, a *authz.Authorization, exp Expectations, at uint64) (*authz.ConsumptionBinding, error) {
	return h.validate(caller, a, exp, at, true)
}

// intentBindingPath is where ValidateForConsumption reports a binding the
// executor did not present.
const intentBindingPath = "intentBinding"

// IsIntentBindingRequired reports whether err is ValidateForConsumption's
// rejection of an executor that did not present the agent-safe intent
// binding the Authorization binds. The service reports it as a well-formed
// request the protocol rejects (HTTP 422), although its code is
// fault.Missing, which elsewhere means a request that is not well formed.
func IsIntentBindingRequired(err error) bool {
	var fe *fault.Error
	return errors.As(err, &fe) && fe.Code == fault.Missing && fe.Path == intentBindingPath
}

// CheckExecutor rejects a caller that is not one of the domain's executors
// (fault.Unauthorized at "caller"). The service calls it as soon as the
// artifact's envelope names this domain, before the Authorization is
// rebuilt: a caller without the role makes the Host do no issuance work and
// learns nothing about the artifact.
func (h *Host) CheckExecutor(caller Caller) error {
	if !h.IsExecutor(caller) {
		return fault.At("caller", fault.Unauthorized, "only the domain's executors validate its authorizations")
	}
	return nil
}

func (h *Host) validate(caller Caller, a *authz.Authorization, exp Expectations, at uint64, consuming bool) (*authz.ConsumptionBinding, error) {
	if err := h.CheckExecutor(caller); err != nil {
		return nil, err
	}
	if a == nil {
		return nil, fault.At("authorization", fault.Missing, "an authorization is required")
	}
	if !h.boundary.Holds(a.Domain()) {
		return nil, fault.At("authorization", fault.MixedDomain, "the authorization was not issued in this host domain")
	}
	if consuming && exp.IntentBinding == nil {
		if _, bound := a.Input().Intent().Binding(); bound {
			return nil, fault.At(intentBindingPath, fault.Missing, "the authorization binds an agent-safe intent binding: present the binding you are about to commit")
		}
	}
	t, err := epoch.New(at)
	if err != nil {
		return nil, fault.Within("time", err)
	}
	if exp.IntentBinding != nil {
		// One parse serves the digest and the expiry, so the expiry checked
		// is the one the digest covers.
		v, sum, err := parseBinding(exp.IntentBinding, "intentBinding")
		if err != nil {
			return nil, err
		}
		bound, ok := a.Input().Intent().Binding()
		if !ok || bound.String() != sum {
			return nil, fault.At("intentBinding", fault.Mismatch, "the binding to commit is not the one the user approved")
		}
		if err := bindingLive(v, at); err != nil {
			return nil, err
		}
	}
	rec := a.RegistrySnapshot()
	reg, err := h.Registry(rec.ID().String(), rec.Generation().String())
	if err != nil {
		return nil, fault.Within("registry", err)
	}
	prec := a.PolicySnapshot()
	pol, err := h.Policy(prec.ID().String(), prec.Generation().String())
	if err != nil {
		return nil, fault.Within("policy", err)
	}
	prop, err := h.derived(reg, request.Proposal{
		ProposalID: exp.ProposalID, ToolID: exp.ToolID, Version: exp.Version, Arguments: exp.Arguments,
	}, "arguments")
	if err != nil {
		return nil, err
	}
	req, err := request.NewLimited(reg, prop, a.Input().Assessment(), request.Limits{MaxArgumentBytes: h.limits.MaxArgumentBytes})
	if err != nil {
		return nil, err
	}
	id, err := principal.New(exp.Identity)
	if err != nil {
		return nil, fault.Within("identity", err)
	}
	caps, err := parseCapabilities(exp.Capabilities)
	if err != nil {
		return nil, err
	}
	res, err := parseResources(exp.Resources)
	if err != nil {
		return nil, err
	}
	result, err := authz.Validate(h.boundary, a, authz.ValidationContext{
		AuthorizationID: exp.AuthorizationID,
		Version:         vocab.V1,
		Generation:      a.Input().RenewalGeneration(),
		Decision:        a.Decision(),
		Input:           a.Input(),
		Request:         req,
		Definition:      req.Definition(),
		Registry:        reg,
		Policy:          pol,
		Identity:        id,
		Capabilities:    caps,
		Resources:       res,
		IssuedAt:        a.IssuedAt(),
		ExpiresAt:       a.ExpiresAt(),
		MaxLifetime:     a.MaxLifetime(),
		ReplayID:        exp.ReplayID,
		ConsumptionID:   exp.ConsumptionID,
		// The Host's own record of the confirmation it issued with.
		Confirmed: a.Confirmed(),
	}, t)
	if err != nil {
		return nil, err
	}
	return result.Binding(), nil
}

// parseCapabilities parses an expected Capability set of any order; the
// engine normalizes it and rejects duplicates.
func parseCapabilities(tokens []string) ([]vocab.Capability, error) {
	return parseEach("capabilities", tokens, vocab.ParseCapability)
}

func parseResources(ids []string) ([]ident.Resource, error) {
	if len(ids) > authority.MaxResources {
		return nil, fault.At("resources", fault.LimitExceeded, "a resource set holds at most 16 resources")
	}
	return parseEach("resources", ids, ident.ParseResource)
}

// parseEach parses every token of the list at field; a token parse
// rejects is reported at its index.
func parseEach[T any](field string, tokens []string, parse func(string) (T, error)) ([]T, error) {
	out := make([]T, 0, len(tokens))
	for i, s := range tokens {
		v, err := parse(s)
		if err != nil {
			return nil, fault.Within(field+fault.Index(i), err)
		}
		out = append(out, v)
	}
	return out, nil
}

// bindingLive rejects an agent-safe.intent/1 binding whose own expiry (its
// top-level "expiry", an RFC 3339 time) is not after at: the user's
// approval has lapsed whatever the Authorization's lifetime says, and
// agent-safe.intent/1 asks every executor to refuse expired authority. A
// binding without a readable expiry rejects (fail closed).
func bindingLive(v agentsafe.Value, at uint64) error {
	const path = "intentBinding.expiry"
	member, ok := v.Member("expiry")
	if !ok {
		return fault.At(path, fault.Missing, "the intent binding states no expiry")
	}
	text, ok := member.Text()
	if !ok {
		return fault.At(path, fault.Malformed, "the intent binding's expiry must be an RFC 3339 time string")
	}
	expiry, err := time.Parse(time.RFC3339Nano, text)
	if err != nil {
		return fault.At(path, fault.Malformed, "the intent binding's expiry must be an RFC 3339 time string")
	}
	if at > math.MaxInt64 || !time.Unix(int64(at), 0).Before(expiry) {
		return fault.At(path, fault.Expired, "the intent binding has expired: the user's approval no longer holds")
	}
	return nil
}
