package authority

import (
	"cmp"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Limits of Section 39 owned by Host, intended and requested scope and by
// attestation composition.
const (
	// MaxCapabilities bounds a Host, intended or requested Capability set (1–8).
	MaxCapabilities = 8
	// MaxResources bounds a Host, intended or requested Resource set (0–16).
	MaxResources = 16
	// MaxAttestations bounds the attestations of one composition (1–16).
	MaxAttestations = 16
	// MaxRoles is the number of closed Role Authority kinds (Section 48).
	MaxRoles = 6
)

// ParseCapabilities parses a Host, intended or requested Capability set:
// 1–8 unique Section 48 Capability tokens in any order, returned in ASCII
// order (Section 50). Error paths are member indices ("[i]").
func ParseCapabilities(tokens []string) ([]vocab.Capability, error) {
	if len(tokens) == 0 {
		return nil, fault.New(fault.Missing, "a capability set holds 1–8 capabilities")
	}
	// Capability constants follow token ASCII order.
	return ident.ParseSet(tokens, vocab.ParseCapability, cmp.Compare, MaxCapabilities,
		"a capability set holds at most 8 capabilities", "capabilities in a set are unique")
}

// ParseResources parses a Host, intended or requested Resource set: 0–16
// unique Resource identifiers in any order, returned in ASCII order. Empty
// means exactly no Resource authority.
func ParseResources(ids []string) ([]ident.Resource, error) {
	return ident.ParseSet(ids, ident.ParseResource, ident.Resource.Compare, MaxResources,
		"a resource set holds at most 16 resources", "resources in a set are unique")
}

// parseRoles parses 1–6 unique role tokens, returned in Section 48 order.
func parseRoles(tokens []string) ([]vocab.Role, error) {
	if len(tokens) == 0 {
		return nil, fault.New(fault.Missing, "a host authority declares 1–6 roles")
	}
	// Role constants follow Section 48 order.
	return ident.ParseSet(tokens, vocab.ParseRole, cmp.Compare, MaxRoles,
		"a host authority declares at most the 6 closed roles", "declared roles are unique")
}
