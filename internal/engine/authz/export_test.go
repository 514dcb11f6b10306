package authz

import (
	"reflect"
	"slices"

	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Unsealed returns a's binding as derive returns it: without its scope and
// digests.
func Unsealed(a *Authorization) *ConsumptionBinding {
	c := *a.binding
	c.capabilities, c.resources, c.replayScope, c.digest = nil, nil, digest.Digest{}, digest.Digest{}
	return &c
}

// Matches is the content comparison Validate uses.
func Matches(unsealed, sealed *ConsumptionBinding, in *evalinput.Input) bool {
	return unsealed.matches(sealed, in)
}

// BindingContentFields lists the fields of ConsumptionBinding that hold
// content of their own (all but the replay scope, computed from the
// authorization identity, identity and request digest, and the digest).
func BindingContentFields() []string {
	var out []string
	t := reflect.TypeFor[ConsumptionBinding]()
	for i := range t.NumField() {
		if n := t.Field(i).Name; n != "replayScope" && n != "digest" {
			out = append(out, n)
		}
	}
	return out
}

// BindingVariants returns, for every content field of a's binding, a sealed
// copy that differs in that field only, with its replay scope and digest
// computed again. other is a domain other than a's, id an identity other
// than a's.
func BindingVariants(a *Authorization, other boundary.Domain, id principal.Identity) map[string]*ConsumptionBinding {
	variant := func(f func(*ConsumptionBinding)) *ConsumptionBinding {
		c := *a.binding
		c.capabilities = slices.Clone(c.capabilities)
		c.resources = slices.Clone(c.resources)
		f(&c)
		c.replayScope = replayScope(c.authorizationID, c.identity, c.request)
		c.digest = c.computeDigest()
		return &c
	}
	otherID, _ := ident.ParseArtifactID("zz-other")
	otherRes, _ := ident.ParseResource("zz-other-resource")
	flip := func(x *digest.Digest) { x[0] ^= 1 }
	later := func(t epoch.Time) epoch.Time { u, _ := epoch.New(t.Seconds() + 1); return u }
	return map[string]*ConsumptionBinding{
		"domain":          variant(func(c *ConsumptionBinding) { c.domain = other }),
		"authorizationID": variant(func(c *ConsumptionBinding) { c.authorizationID = otherID }),
		"generation":      variant(func(c *ConsumptionBinding) { c.generation, _ = ident.NewGeneration(c.generation.Uint64() + 1) }),
		"replayID":        variant(func(c *ConsumptionBinding) { c.replayID = otherID }),
		"consumptionID":   variant(func(c *ConsumptionBinding) { c.consumptionID = otherID }),
		"identity":        variant(func(c *ConsumptionBinding) { c.identity = id }),
		"capabilities":    variant(func(c *ConsumptionBinding) { c.capabilities = append(c.capabilities, vocab.AllCapability()...) }),
		"resources":       variant(func(c *ConsumptionBinding) { c.resources = append(c.resources, otherRes) }),
		"issuedAt":        variant(func(c *ConsumptionBinding) { c.issuedAt = later(c.issuedAt) }),
		"expiresAt":       variant(func(c *ConsumptionBinding) { c.expiresAt = later(c.expiresAt) }),
		"maxLifetime":     variant(func(c *ConsumptionBinding) { c.maxLifetime++ }),
		"evaluatedAt":     variant(func(c *ConsumptionBinding) { c.evaluatedAt = later(c.evaluatedAt) }),
		"renewal":         variant(func(c *ConsumptionBinding) { c.renewal, _ = ident.NewGeneration(c.renewal.Uint64() + 1) }),
		"decision":        variant(func(c *ConsumptionBinding) { flip(&c.decision) }),
		"input":           variant(func(c *ConsumptionBinding) { flip(&c.input) }),
		"request":         variant(func(c *ConsumptionBinding) { flip(&c.request) }),
		"definition":      variant(func(c *ConsumptionBinding) { flip(&c.definition) }),
		"host":            variant(func(c *ConsumptionBinding) { flip(&c.host) }),
		"registry":        variant(func(c *ConsumptionBinding) { flip(&c.registry) }),
		"policy":          variant(func(c *ConsumptionBinding) { flip(&c.policy) }),
		"confirmation":    variant(func(c *ConsumptionBinding) { flip(&c.confirmation) }),
	}
}
