package evidence

import (
	"cmp"
	"slices"

	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// MaxMethods bounds the authentication methods of a Security Context (0–8).
const MaxMethods = 8

// SecurityContextDraft is the untrusted description of a Security Context.
// It contains no credential or secret.
type SecurityContextDraft struct {
	ID        string          // controlled identity
	Identity  principal.Draft // subject, tenant, session state, delegation
	Assurance string          // one Section 48 assurance classification
	Methods   []string        // 0–8 unique authentication methods, any order (Section 48 order)
}

// SecurityContext is controlled authentication evidence (Section 15).
// Assurance is an unordered classification; labels establish no identity
// continuity.
type SecurityContext struct {
	id        ident.ControlledID
	identity  principal.Identity
	assurance vocab.Assurance
	methods   []vocab.AuthMethod // unique, Section 48 order
	attested
}

// NewSecurityContext validates d and has authn, which must hold
// authenticationAuthority, attest it: the attestation (identity
// attestationID, fact securityContext) covers the context's complete content
// and carries its validity.
func NewSecurityContext(authn *authority.RoleAuthority, attestationID string, validity epoch.Validity, d SecurityContextDraft) (*SecurityContext, error) {
	if err := requireRole(authn, vocab.AuthenticationAuthority); err != nil {
		return nil, err
	}
	c := &SecurityContext{}
	var err error
	if c.id, err = ident.ParseControlledID(d.ID); err != nil {
		return nil, fault.Within("id", err)
	}
	if c.identity, err = principal.New(d.Identity); err != nil {
		return nil, fault.Within("identity", err)
	}
	if c.assurance, err = vocab.ParseAssurance(d.Assurance); err != nil {
		return nil, fault.Within("assurance", err)
	}
	if c.methods, err = parseMethods(d.Methods); err != nil {
		return nil, fault.Within("methods", err)
	}
	if err := c.seal("toolgate.security-context/1", authn, attestationID, vocab.FactSecurityContext, validity, c.contentDigest()); err != nil {
		return nil, err
	}
	return c, nil
}

func parseMethods(tokens []string) ([]vocab.AuthMethod, error) {
	// AuthMethod constants follow Section 48 order.
	return ident.ParseSet(tokens, vocab.ParseAuthMethod, cmp.Compare, MaxMethods,
		"a security context carries at most 8 authentication methods", "authentication methods are unique")
}

// ID returns the Security Context identity.
func (c *SecurityContext) ID() ident.ControlledID { return c.id }

// Version returns the Security Context version (always v1).
func (c *SecurityContext) Version() vocab.Version { return vocab.V1 }

// Identity returns the authenticated identity binding.
func (c *SecurityContext) Identity() principal.Identity { return c.identity }

// Assurance returns the assurance classification.
func (c *SecurityContext) Assurance() vocab.Assurance { return c.assurance }

// Methods returns a copy of the authentication methods, in Section 48 order.
func (c *SecurityContext) Methods() []vocab.AuthMethod { return slices.Clone(c.methods) }

// NumMethods returns the number of authentication methods.
func (c *SecurityContext) NumMethods() int { return len(c.methods) }

// MethodAt returns method i in Section 48 order, 0 ≤ i < NumMethods.
func (c *SecurityContext) MethodAt(i int) vocab.AuthMethod { return c.methods[i] }

// Equal reports the same domain and complete content.
func (a *SecurityContext) Equal(b *SecurityContext) bool {
	return a != nil && b != nil && a.same(&b.attested)
}

// contentDigest is the digest of the fact content the attestation covers.
func (c *SecurityContext) contentDigest() digest.Digest {
	b := digest.New("toolgate.security-context-content/1")
	b.Uint(uint64(vocab.V1))
	b.String(c.id.String())
	c.identity.WriteDigest(b)
	b.String(c.assurance.String())
	digest.Strings(b, c.methods)
	return b.Sum()
}

// DelegationDraft is the untrusted description of delegation evidence.
type DelegationDraft struct {
	ID      string // the delegation identity
	Subject string // the subject acting under the delegation
}

// Delegation is controlled evidence, attested by delegationAuthority, that a
// subject acts under one delegation identity.
type Delegation struct {
	id      ident.ControlledID
	subject ident.ControlledID
	attested
}

// NewDelegation validates d and has deleg, which must hold
// delegationAuthority, attest it (identity attestationID, fact delegation).
func NewDelegation(deleg *authority.RoleAuthority, attestationID string, validity epoch.Validity, d DelegationDraft) (*Delegation, error) {
	if err := requireRole(deleg, vocab.DelegationAuthority); err != nil {
		return nil, err
	}
	g := &Delegation{}
	var err error
	if g.id, err = ident.ParseControlledID(d.ID); err != nil {
		return nil, fault.Within("id", err)
	}
	if g.subject, err = ident.ParseControlledID(d.Subject); err != nil {
		return nil, fault.Within("subject", err)
	}
	if err := g.seal("toolgate.delegation/1", deleg, attestationID, vocab.FactDelegation, validity, g.contentDigest()); err != nil {
		return nil, err
	}
	return g, nil
}

// ID returns the delegation identity.
func (g *Delegation) ID() ident.ControlledID { return g.id }

// Subject returns the subject acting under the delegation.
func (g *Delegation) Subject() ident.ControlledID { return g.subject }

// Equal reports the same domain and complete content.
func (a *Delegation) Equal(b *Delegation) bool {
	return a != nil && b != nil && a.same(&b.attested)
}

func (g *Delegation) contentDigest() digest.Digest {
	b := digest.New("toolgate.delegation-content/1")
	b.String(g.id.String())
	b.String(g.subject.String())
	return b.Sum()
}
