package serving

import (
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/manifest"
)

// Reason is the closed set of reasons a domain refuses a selection or an
// Authorization on its served state (spec Section 41: current-Snapshot
// enforcement and revocation). The protocol core knows nothing of them:
// they are what a production Host adds on top of exact selection.
type Reason uint8

// Reasons of a RefusalError.
const (
	// NotServed: the selected snapshot generation is not served in the
	// domain (never published, rejected, or its object deleted).
	NotServed Reason = iota + 1
	// Superseded: a later generation of the same snapshot identity is
	// served, and the domain's grace does not cover this one.
	Superseded
	// Revoked: a Revocation in force names the generation, the tool
	// version, the Authorization or the signing key.
	Revoked
)

var reasonNames = [...]string{NotServed: "notServed", Superseded: "superseded", Revoked: "revoked"}

// String returns the reason's stable API code.
func (r Reason) String() string {
	if r == 0 || int(r) >= len(reasonNames) {
		return "unknown"
	}
	return reasonNames[r]
}

// RefusalError is a domain's refusal on its served state: a closed reason and
// the request path it concerns. It never carries a requested value.
type RefusalError struct {
	Reason Reason
	// Path is the request member refused ("registry", "policy",
	// "proposal", "authorizationID", "artifact").
	Path string
}

func (e *RefusalError) Error() string {
	switch e.Reason {
	case Superseded:
		return "a later generation of this snapshot is current: select the current generation"
	case Revoked:
		return "revoked in this domain: nothing issued under it validates or consumes"
	default:
		return "not served in this domain"
	}
}

// Is matches a *RefusalError with the same Reason (any path), so callers can
// write errors.Is(err, &serving.RefusalError{Reason: serving.Revoked}).
func (e *RefusalError) Is(target error) bool {
	t, ok := target.(*RefusalError)
	return ok && t.Reason == e.Reason
}

// ReasonOf returns the Reason of a *RefusalError in err's chain, or 0.
func ReasonOf(err error) Reason {
	var r *RefusalError
	if errors.As(err, &r) {
		return r.Reason
	}
	return 0
}

// Grace bounds how far behind the current generation a new Authorization
// may select (HostAuthority spec.supersededGrace, parsed by
// manifest.GraceOf). The zero value is the default: only the current
// generation.
type Grace manifest.Grace

// covers reports whether a generation behind the current one by behind,
// whose successor was created at succeeded, is selectable at now. With
// both bounds set both must hold; with neither, nothing superseded is.
func (g Grace) covers(behind uint64, succeeded, now time.Time) bool {
	if g.Generations == 0 && g.Seconds == 0 {
		return false
	}
	if g.Generations != 0 && behind > g.Generations {
		return false
	}
	if g.Seconds != 0 && !now.Before(succeeded.Add(time.Duration(g.Seconds)*time.Second)) {
		return false
	}
	return true
}

// Generation is one served generation of a snapshot identity and the
// creation time of the object it was published from.
type Generation struct {
	ID         string
	Generation uint64
	Created    time.Time
}

// GenerationOf is generation gen (canonical decimal text, as published) of
// snapshot id, whose object was created at created. A text that is not a
// canonical generation is generation 0, which no selection names.
func GenerationOf(id, gen string, created time.Time) Generation {
	n, _ := parseGeneration(gen)
	return Generation{ID: id, Generation: n, Created: created}
}

// Served is what one domain serves at one moment: each served registry
// and policy generation, the grace, and the revocations in force. It is
// immutable; a store builds a new one on every change and requests read
// the one in force lock-free.
type Served struct {
	registries, policies map[string][]Generation // by snapshot ID, ascending generation
	grace                Grace
	revoked              *Revocations
	// shadows are the shadow generations held, by snapshot ID (shadow.go):
	// never in policies, so never selectable nor current.
	shadows map[string]Shadow
}

// NewServed returns the served state of a domain. revoked may be nil
// (nothing revoked).
func NewServed(grace Grace, registries, policies []Generation, revoked *Revocations) *Served {
	if revoked == nil {
		revoked = &Revocations{}
	}
	return &Served{registries: index(registries), policies: index(policies), grace: grace, revoked: revoked}
}

func index(gs []Generation) map[string][]Generation {
	m := map[string][]Generation{}
	for _, g := range gs {
		m[g.ID] = append(m[g.ID], g)
	}
	for id := range m {
		slices.SortFunc(m[id], func(a, b Generation) int {
			switch {
			case a.Generation < b.Generation:
				return -1
			case a.Generation > b.Generation:
				return 1
			}
			return 0
		})
	}
	return m
}

// parseGeneration reads a canonical generation text; anything else is not
// a generation any domain serves.
func parseGeneration(s string) (uint64, bool) {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n == 0 || strconv.FormatUint(n, 10) != s {
		return 0, false
	}
	return n, true
}

// current returns the highest generation served under id.
func (s *Served) current(served map[string][]Generation, id string) (string, bool) {
	gs := served[id]
	if len(gs) == 0 || gs[len(gs)-1].Generation == 0 {
		return "", false
	}
	return strconv.FormatUint(gs[len(gs)-1].Generation, 10), true
}

// selectable checks one selection of a new Authorization against the
// generations served under its identity.
func (s *Served) selectable(kind RevocationKind, served map[string][]Generation, id, gen, path string, now time.Time) error {
	n, ok := parseGeneration(gen)
	gs := served[id]
	i := slices.IndexFunc(gs, func(g Generation) bool { return g.Generation == n })
	if !ok || i < 0 {
		return &RefusalError{Reason: NotServed, Path: path}
	}
	if s.revoked.Has(Revocation{Kind: kind, ID: id, Version: gen}) {
		return &RefusalError{Reason: Revoked, Path: path}
	}
	if current := gs[len(gs)-1]; current.Generation != n &&
		!s.grace.covers(current.Generation-n, gs[i+1].Created, now) {
		return &RefusalError{Reason: Superseded, Path: path}
	}
	return nil
}

// Selectable reports whether a new Authorization may select sel at now:
// both generations served, neither revoked, each the current one or
// within the domain's grace. The registry is checked first.
func (s *Served) Selectable(sel Selection, now time.Time) error {
	if err := s.selectable(RevokeRegistry, s.registries, sel.RegistryID, sel.RegistryGeneration, "registry", now); err != nil {
		return err
	}
	return s.selectable(RevokePolicy, s.policies, sel.PolicyID, sel.PolicyGeneration, "policy", now)
}

// Standing reports whether the Authorization a, signed with the key keyID,
// may still validate and consume: its snapshots are served and not
// revoked, and neither its tool version, its identity nor the key is
// revoked. Superseded generations do not matter here: an Authorization
// issued before its generation was superseded stays good until it expires.
func (s *Served) Standing(a *host.Authorization, keyID string) error {
	reg, pol := a.RegistrySnapshot(), a.PolicySnapshot()
	for _, c := range [...]struct {
		kind    RevocationKind
		served  map[string][]Generation
		id, gen string
	}{
		{RevokeRegistry, s.registries, reg.ID().String(), reg.Generation().String()},
		{RevokePolicy, s.policies, pol.ID().String(), pol.Generation().String()},
	} {
		n, _ := parseGeneration(c.gen)
		if !slices.ContainsFunc(c.served[c.id], func(g Generation) bool { return g.Generation == n }) {
			return &RefusalError{Reason: NotServed, Path: "artifact"}
		}
		if s.revoked.Has(Revocation{Kind: c.kind, ID: c.id, Version: c.gen}) {
			return &RefusalError{Reason: Revoked, Path: "artifact"}
		}
	}
	in := a.Input()
	switch {
	case s.revoked.Has(Revocation{Kind: RevokeTool, ID: in.ToolID().String(), Version: in.ToolVersion().String()}),
		s.revoked.Has(Revocation{Kind: RevokeAuthorization, ID: a.ID().String()}),
		s.revoked.Has(Revocation{Kind: RevokeSigningKey, ID: keyID}):
		return &RefusalError{Reason: Revoked, Path: "artifact"}
	}
	return nil
}

// KeyRevoked reports whether the signing key keyID is revoked.
func (s *Served) KeyRevoked(keyID string) bool {
	return s.revoked.Has(Revocation{Kind: RevokeSigningKey, ID: keyID})
}
