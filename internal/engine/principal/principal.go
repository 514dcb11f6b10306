// Package principal holds the identity binding shared by Host evidence
// (spec Sections 15–17 and 28): subject, tenant where applicable, session
// state and optional delegation identity. Security Context, Intent,
// Provenance, Influence, Evaluation Input and Authorization each carry one
// Identity, and every transition requires them to be exactly equal; nothing
// is inferred or widened (session independence is not a wildcard).
package principal

import (
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Session is the session binding: one exact session, or explicit session
// independence. The zero Session is invalid.
type Session struct {
	binding vocab.SessionBinding
	id      ident.ControlledID
}

// Bound returns the binding to the exact session id.
func Bound(id ident.ControlledID) (Session, error) {
	if id.IsZero() {
		return Session{}, fault.New(fault.Missing, "a bound session needs a session identity")
	}
	return Session{binding: vocab.SessionBound, id: id}, nil
}

// Independent returns explicit session independence.
func Independent() Session { return Session{binding: vocab.SessionIndependent} }

// Binding returns the session binding state.
func (s Session) Binding() vocab.SessionBinding { return s.binding }

// IsIndependent reports explicit session independence.
func (s Session) IsIndependent() bool { return s.binding == vocab.SessionIndependent }

// ID returns the bound session identity; zero when independent.
func (s Session) ID() ident.ControlledID { return s.id }

// IsZero reports whether s is the invalid zero Session.
func (s Session) IsZero() bool { return s.binding == 0 }

// Draft is the untrusted description of an Identity.
type Draft struct {
	Subject            string // required
	Tenant             string // optional; "" when tenancy does not apply
	Session            string // the bound session identity; "" only with SessionIndependent
	SessionIndependent bool   // explicit session independence
	Delegation         string // optional delegation identity
}

// Identity is a validated identity binding.
type Identity struct {
	subject    ident.ControlledID
	tenant     ident.ControlledID
	session    Session
	delegation ident.ControlledID
}

// New validates a Draft. Exactly one of Session and SessionIndependent must
// be given: absence of a session is never read as independence.
func New(d Draft) (Identity, error) {
	var id Identity
	var err error
	if id.subject, err = ident.ParseControlledID(d.Subject); err != nil {
		return Identity{}, fault.Within("subject", err)
	}
	if d.Tenant != "" {
		if id.tenant, err = ident.ParseControlledID(d.Tenant); err != nil {
			return Identity{}, fault.Within("tenant", err)
		}
	}
	switch {
	case d.SessionIndependent && d.Session != "":
		return Identity{}, fault.At("session", fault.Malformed, "give either a session identity or sessionIndependent, not both")
	case d.SessionIndependent:
		id.session = Independent()
	default:
		sid, err := ident.ParseControlledID(d.Session)
		if err != nil {
			return Identity{}, fault.Within("session", err)
		}
		id.session, _ = Bound(sid)
	}
	if d.Delegation != "" {
		if id.delegation, err = ident.ParseControlledID(d.Delegation); err != nil {
			return Identity{}, fault.Within("delegation", err)
		}
	}
	return id, nil
}

// Subject returns the authenticated subject.
func (i Identity) Subject() ident.ControlledID { return i.subject }

// Tenant returns the tenant; IsZero when tenancy does not apply.
func (i Identity) Tenant() ident.ControlledID { return i.tenant }

// Session returns the session binding.
func (i Identity) Session() Session { return i.session }

// Delegation returns the delegation identity; IsZero when absent.
func (i Identity) Delegation() ident.ControlledID { return i.delegation }

// IsZero reports whether i is the invalid zero Identity.
func (i Identity) IsZero() bool { return i.subject.IsZero() }

// Equal reports exact equality of every component.
func (i Identity) Equal(o Identity) bool { return i == o }

// Draft returns the Draft that reproduces i.
func (i Identity) Draft() Draft {
	return Draft{
		Subject:            i.subject.String(),
		Tenant:             i.tenant.String(),
		Session:            i.session.id.String(),
		SessionIndependent: i.session.IsIndependent(),
		Delegation:         i.delegation.String(),
	}
}

// WriteDigest writes the identity to a digest builder.
func (i Identity) WriteDigest(b *digest.Builder) {
	b.String(i.subject.String())
	b.String(i.tenant.String())
	b.Uint(uint64(i.session.binding))
	b.String(i.session.id.String())
	b.String(i.delegation.String())
}
