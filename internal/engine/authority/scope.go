package authority

import (
	"slices"

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
	if len(tokens) > MaxCapabilities {
		return nil, fault.New(fault.LimitExceeded, "a capability set holds at most 8 capabilities")
	}
	caps, err := ident.ParseUnique(tokens, vocab.ParseCapability, "capabilities in a set are unique")
	if err != nil {
		return nil, err
	}
	slices.Sort(caps) // Capability constants follow token ASCII order
	return caps, nil
}

// ParseResources parses a Host, intended or requested Resource set: 0–16
// unique Resource identifiers in any order, returned in ASCII order. Empty
// means exactly no Resource authority.
func ParseResources(ids []string) ([]ident.Resource, error) {
	if len(ids) > MaxResources {
		return nil, fault.New(fault.LimitExceeded, "a resource set holds at most 16 resources")
	}
	res, err := ident.ParseUnique(ids, ident.ParseResource, "resources in a set are unique")
	if err != nil {
		return nil, err
	}
	slices.SortFunc(res, ident.Resource.Compare)
	return res, nil
}

// parseRoles parses 1–6 unique role tokens, returned in Section 48 order.
func parseRoles(tokens []string) ([]vocab.Role, error) {
	if len(tokens) == 0 {
		return nil, fault.New(fault.Missing, "a host authority declares 1–6 roles")
	}
	if len(tokens) > MaxRoles {
		return nil, fault.New(fault.LimitExceeded, "a host authority declares at most the 6 closed roles")
	}
	roles, err := ident.ParseUnique(tokens, vocab.ParseRole, "declared roles are unique")
	if err != nil {
		return nil, err
	}
	slices.Sort(roles) // Role constants follow Section 48 order
	return roles, nil
}
