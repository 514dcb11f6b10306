package authority

import (
	"slices"

	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// HostAuthorityDraft is the untrusted, declarative description of a Host
// Authority, as the Host's bootstrap configuration writes it.
type HostAuthorityDraft struct {
	ID           string   // controlled identity
	Capabilities []string // 1–8 unique Capabilities, any order (normalized to ASCII order)
	Resources    []string // 0–16 unique Resources, any order (ASCII order); empty = no resource authority
	Roles        []string // 1–6 unique role tokens declared in this domain, any order (Section 48 order)
}

// HostAuthority is an immutable entitlement ceiling within exactly one Host
// authority domain (Section 14). It constrains protocol processing but does
// not itself authorize.
type HostAuthority struct {
	domain    boundary.Domain
	id        ident.ControlledID
	caps      []vocab.Capability // unique, ASCII order
	resources []ident.Resource   // unique, ASCII order
	roles     []vocab.Role       // unique, Section 48 order
	digest    digest.Digest
}

// NewHostAuthority validates d completely and returns the Host Authority of
// the domain of b, or rejects. A zero boundary is an unavailable domain and
// rejects: no ceiling exists outside a retained boundary.
func NewHostAuthority(b boundary.Boundary, d HostAuthorityDraft) (*HostAuthority, error) {
	if b.IsZero() {
		return nil, fault.At("domain", fault.Missing, "a host authority is created within a retained host capability boundary")
	}
	h := &HostAuthority{domain: b.Domain()}
	var err error
	if h.id, err = ident.ParseControlledID(d.ID); err != nil {
		return nil, fault.Within("id", err)
	}
	if h.caps, err = ParseCapabilities(d.Capabilities); err != nil {
		return nil, fault.Within("capabilities", err)
	}
	if h.resources, err = ParseResources(d.Resources); err != nil {
		return nil, fault.Within("resources", err)
	}
	if h.roles, err = parseRoles(d.Roles); err != nil {
		return nil, fault.Within("roles", err)
	}
	h.digest = h.computeDigest()
	return h, nil
}

// Domain returns the Host authority domain.
func (h *HostAuthority) Domain() boundary.Domain { return h.domain }

// ID returns the Host Authority identity.
func (h *HostAuthority) ID() ident.ControlledID { return h.id }

// Capabilities returns a copy of the Capability ceiling, in ASCII order.
func (h *HostAuthority) Capabilities() []vocab.Capability { return slices.Clone(h.caps) }

// Resources returns a copy of the Resource ceiling, in ASCII order; empty
// means no Resource authority.
func (h *HostAuthority) Resources() []ident.Resource { return slices.Clone(h.resources) }

// NumCapabilities returns the size of the Capability ceiling; CapabilityAt
// returns its member i (ASCII order), without copying the ceiling.
func (h *HostAuthority) NumCapabilities() int { return len(h.caps) }

// CapabilityAt returns member i of the Capability ceiling, 0 ≤ i < NumCapabilities.
func (h *HostAuthority) CapabilityAt(i int) vocab.Capability { return h.caps[i] }

// NumResources returns the size of the Resource ceiling.
func (h *HostAuthority) NumResources() int { return len(h.resources) }

// ResourceAt returns member i of the Resource ceiling (ASCII order),
// 0 ≤ i < NumResources.
func (h *HostAuthority) ResourceAt(i int) ident.Resource { return h.resources[i] }

// Roles returns a copy of the declared roles, in Section 48 order.
func (h *HostAuthority) Roles() []vocab.Role { return slices.Clone(h.roles) }

// HasRole reports whether r is declared in this domain.
func (h *HostAuthority) HasRole(r vocab.Role) bool { return slices.Contains(h.roles, r) }

// HasCapability reports whether c is within the Capability ceiling.
func (h *HostAuthority) HasCapability(c vocab.Capability) bool { return slices.Contains(h.caps, c) }

// HasResource reports whether r is within the Resource ceiling.
func (h *HostAuthority) HasResource(r ident.Resource) bool { return slices.Contains(h.resources, r) }

// Digest returns the digest of the complete content: identity, Capabilities,
// Resources and roles. The domain has no content; Equal compares it.
func (h *HostAuthority) Digest() digest.Digest { return h.digest }

// Equal reports whether a and b are the same exact entitlement ceiling: the
// same retained domain and the same complete content.
func (a *HostAuthority) Equal(b *HostAuthority) bool {
	return a != nil && b != nil && a.domain.Same(b.domain) && a.digest.Equal(b.digest)
}

func (h *HostAuthority) computeDigest() digest.Digest {
	b := digest.New("toolgate.host-authority/1")
	b.String(h.id.String())
	digest.Strings(b, h.caps)
	digest.Strings(b, h.resources)
	digest.Strings(b, h.roles)
	return b.Sum()
}
