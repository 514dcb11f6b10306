package authz

import (
	"slices"

	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// ConsumptionBinding is the complete Authorization Consumption Binding
// (Section 28): the logical value a Host atomic store consumes exactly once.
// Its digest covers the complete content of every bound value, so two
// materially different Authorizations never share a binding even when their
// descriptive identifiers are equal. Like every controlled value it also
// retains its Host authority domain, which has no content: Equal
// compares it, the digest cannot.
type ConsumptionBinding struct {
	domain boundary.Domain

	authorizationID ident.ArtifactID
	generation      ident.Generation
	replayID        ident.ArtifactID
	consumptionID   ident.ArtifactID
	identity        principal.Identity
	capabilities    []vocab.Capability
	resources       []ident.Resource
	issuedAt        epoch.Time
	expiresAt       epoch.Time
	maxLifetime     uint64
	evaluatedAt     epoch.Time
	renewal         ident.Generation

	decision, input, request, definition, host, registry, policy digest.Digest
	replayScope                                                  digest.Digest
	// confirmation is the accepted confirmation's digest
	// (toolgate.confirmations/1), zero for Phase 1–6.
	confirmation digest.Digest

	digest digest.Digest
}

// newBinding returns the unsealed binding of v: every bound value but the
// effective scope (which derive proved equal to v.input's requested scope)
// and the two digests. seal completes it.
func newBinding(b boundary.Boundary, v bound, id ids) ConsumptionBinding {
	in := v.input
	return ConsumptionBinding{
		domain:          b.Domain(),
		authorizationID: id.authorization,
		generation:      v.generation,
		replayID:        id.replay,
		consumptionID:   id.consumption,
		identity:        in.Identity(),
		issuedAt:        v.issuedAt,
		expiresAt:       v.expiresAt,
		maxLifetime:     v.maxLifetime,
		evaluatedAt:     in.EvaluationTime(),
		renewal:         in.RenewalGeneration(),
		decision:        v.decision.Digest(),
		input:           in.Digest(),
		request:         in.Request().Digest(),
		definition:      in.Request().Definition().Digest(),
		host:            in.Host().Digest(),
		registry:        v.registry.Digest(),
		policy:          v.policy.Digest(),
		confirmation:    confirmationDigest(v),
	}
}

func confirmationDigest(v bound) digest.Digest {
	if v.confirmed == nil {
		return digest.Digest{}
	}
	return v.confirmed.Digest()
}

// seal returns the complete binding: c with the effective scope, the
// requested scope of in, and its replay scope and content digests.
func (c ConsumptionBinding) seal(in *evalinput.Input) *ConsumptionBinding {
	// A typical scope fits the inline arrays: the binding and its scope
	// copies are then one allocation instead of three. Either way the
	// binding owns its copies.
	s := new(sealedBinding)
	c.capabilities = copyInto(s.caps[:], in.NumRequestedCapabilities(), in.RequestedCapabilityAt, in.RequestedCapabilities)
	c.resources = copyInto(s.res[:], in.NumRequestedResources(), in.RequestedResourceAt, in.RequestedResources)
	c.replayScope = replayScope(c.authorizationID, c.identity, c.request)
	c.digest = c.computeDigest()
	s.ConsumptionBinding = c
	return &s.ConsumptionBinding
}

// copyInto returns a copy of the n members at(0..n-1): in buf when they
// fit, else in a slice of its own. An empty scope keeps what clone returns
// (the input's own empty or nil slice, without allocating), as a clone of
// it always did.
func copyInto[T any](buf []T, n int, at func(int) T, clone func() []T) []T {
	if n == 0 {
		return clone()
	}
	out := buf[:0:len(buf)]
	if n > len(buf) {
		out = make([]T, 0, n)
	}
	for i := range n {
		out = append(out, at(i))
	}
	return out[:n:n]
}

// sealedBinding is a sealed binding with inline room for a typical
// requested scope (seal).
type sealedBinding struct {
	ConsumptionBinding
	caps [8]vocab.Capability
	res  [4]ident.Resource
}

// matches reports whether the sealed binding a is the unsealed binding c
// derived, with scope, from in: what a.Equal(c.seal(in)) reports, by
// comparing every value the digests cover directly (the replay scope is
// computed from the authorization identity, identity and request digest
// compared here). Validation derives c only to compare it; it is never
// hashed. TestMatchesIsSealedEquality keeps this in step with the digest.
func (c *ConsumptionBinding) matches(a *ConsumptionBinding, in *evalinput.Input) bool {
	if a == nil || !a.domain.Same(c.domain) ||
		a.authorizationID != c.authorizationID || a.generation != c.generation ||
		a.replayID != c.replayID || a.consumptionID != c.consumptionID || !a.identity.Equal(c.identity) ||
		a.issuedAt != c.issuedAt || a.expiresAt != c.expiresAt || a.maxLifetime != c.maxLifetime ||
		a.evaluatedAt != c.evaluatedAt || a.renewal != c.renewal ||
		!a.decision.Equal(c.decision) || !a.input.Equal(c.input) || !a.request.Equal(c.request) ||
		!a.definition.Equal(c.definition) || !a.host.Equal(c.host) || !a.registry.Equal(c.registry) ||
		!a.policy.Equal(c.policy) || !a.confirmation.Equal(c.confirmation) {
		return false
	}
	if len(a.capabilities) != in.NumRequestedCapabilities() || len(a.resources) != in.NumRequestedResources() {
		return false
	}
	for i, x := range a.capabilities {
		if x != in.RequestedCapabilityAt(i) {
			return false
		}
	}
	for i, r := range a.resources {
		if r != in.RequestedResourceAt(i) {
			return false
		}
	}
	return true
}

// replayScope is the limited replay correlation scope (Section 28): the
// Authorization identity, subject, tenant, session, delegation and exact
// Canonical Request.
func replayScope(authz ident.ArtifactID, id principal.Identity, request digest.Digest) digest.Digest {
	b := digest.New("toolgate.replay-scope/1")
	b.String(authz.String())
	id.WriteDigest(b)
	b.Digest(request)
	return b.Sum()
}

func (c *ConsumptionBinding) computeDigest() digest.Digest {
	b := digest.New("toolgate.consumption-binding/1")
	b.String(c.authorizationID.String())
	b.Uint(uint64(vocab.V1))
	b.Uint(c.generation.Uint64())
	b.String(c.replayID.String())
	b.String(c.consumptionID.String())
	c.identity.WriteDigest(b)
	b.Count(len(c.capabilities))
	for _, x := range c.capabilities {
		b.Uint(uint64(x))
	}
	b.Count(len(c.resources))
	for _, r := range c.resources {
		b.String(r.String())
	}
	b.Uint(c.issuedAt.Seconds())
	b.Uint(c.expiresAt.Seconds())
	b.Uint(c.maxLifetime)
	b.Uint(c.evaluatedAt.Seconds())
	b.Uint(c.renewal.Uint64())
	for _, d := range []digest.Digest{c.decision, c.input, c.request, c.definition, c.host, c.registry, c.policy, c.replayScope} {
		b.Digest(d)
	}
	b.Uint(uint64(vocab.AtomicSingleUseRequired))
	// A confirmed binding ends with the confirmation's digest; a Phase 1–6
	// binding's octets are unchanged. The end of the encoding delimits it,
	// so the two never coincide.
	if !c.confirmation.IsZero() {
		b.Digest(c.confirmation)
	}
	return b.Sum()
}

// AuthorizationID returns the Authorization identity.
func (c *ConsumptionBinding) AuthorizationID() ident.ArtifactID { return c.authorizationID }

// ReplayID returns the replay correlation identity.
func (c *ConsumptionBinding) ReplayID() ident.ArtifactID { return c.replayID }

// ConsumptionID returns the future Consumption identity.
func (c *ConsumptionBinding) ConsumptionID() ident.ArtifactID { return c.consumptionID }

// ExpiresAt returns the exclusive expiry after which the binding can never
// validate again (a Consumption record may be deleted then).
func (c *ConsumptionBinding) ExpiresAt() epoch.Time { return c.expiresAt }

// Capabilities returns the effective Capabilities.
func (c *ConsumptionBinding) Capabilities() []vocab.Capability { return slices.Clone(c.capabilities) }

// Resources returns the effective Resources.
func (c *ConsumptionBinding) Resources() []ident.Resource { return slices.Clone(c.resources) }

// Contract returns the mandatory single-use contract.
func (c *ConsumptionBinding) Contract() vocab.ConsumptionContract {
	return vocab.AtomicSingleUseRequired
}

// Digest returns the digest that names the complete binding's content; a
// Consumption store keys on it. The Host authority domain has no content and
// is not part of the digest: a store shared by several domains must
// namespace its keys by domain (Section 28 leaves namespace and collision
// handling to the Host facility).
func (c *ConsumptionBinding) Digest() digest.Digest { return c.digest }

// Equal reports complete equality: the same Host authority domain
// and the same complete content.
func (a *ConsumptionBinding) Equal(b *ConsumptionBinding) bool {
	return a != nil && b != nil && a.domain.Same(b.domain) && a.digest.Equal(b.digest)
}
