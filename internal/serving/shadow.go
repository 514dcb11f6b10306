package serving

import (
	"maps"
	"slices"

	"time"

	"github.com/toolgate/toolgate/internal/host"
)

// Shadow is one shadow generation a domain holds (docs/shadow.md): policy
// snapshot generation Generation of identity ID, published as a shadow of
// generation Of, evaluated beside Of while Of is current and now is before
// Until. It is not a served generation: no selection names it, explicit or
// current, and nothing is issued under it.
type Shadow struct {
	ID, Generation, Of string
	Until              time.Time
}

// WithShadows returns a copy of s that also holds shadows, the highest
// generation per snapshot identity: a shadow shadows the generation
// before its own, so of two held shadows (one promoted or withdrawn, a
// later one published) only the highest can be beside the current
// generation.
func (s *Served) WithShadows(shadows ...Shadow) *Served {
	c := *s
	c.shadows = maps.Clone(s.shadows)
	if c.shadows == nil {
		c.shadows = map[string]Shadow{}
	}
	for _, sh := range shadows {
		if held, ok := c.shadows[sh.ID]; ok && generationNumber(held.Generation) >= generationNumber(sh.Generation) {
			continue
		}
		c.shadows[sh.ID] = sh
	}
	return &c
}

// shadowOf returns the shadow to evaluate beside policy snapshot
// generation gen of id at now: one whose Of is gen, while gen is the
// current generation and the window is open. A promotion (the next
// generation published) makes gen no longer current, so the shadow stops.
func (s *Served) shadowOf(id, gen string, now time.Time) (Shadow, bool) {
	sh, ok := s.shadows[id]
	if !ok || sh.Of != gen || !now.Before(sh.Until) {
		return Shadow{}, false
	}
	if cur, ok := s.current(s.policies, id); !ok || cur != gen {
		return Shadow{}, false
	}
	if s.revoked.Has(Revocation{Kind: RevokePolicy, ID: id, Version: sh.Generation}) {
		return Shadow{}, false
	}
	return sh, true
}

// ShadowOf returns the shadow generation to evaluate beside a request
// whose policy snapshot sel selected as current (host.Current, resolved
// by Select to sel.PolicyGeneration), or false. A request that names a
// generation explicitly evaluates no shadow: it asked for that generation
// and nothing else (docs/shadow.md).
func (d *Domain) ShadowOf(requested string, sel Selection, now time.Time) (Shadow, bool) {
	return d.served().ShadowOf(requested, sel, now)
}

// ShadowOf is Domain.ShadowOf on the served state s.
func (s *Served) ShadowOf(requested string, sel Selection, now time.Time) (Shadow, bool) {
	if requested != host.Current {
		return Shadow{}, false
	}
	return s.shadowOf(sel.PolicyID, sel.PolicyGeneration, now)
}

// Shadows lists the shadows the domain holds, open or not, by identity.
func (d *Domain) Shadows() []Shadow {
	s := d.served()
	out := make([]Shadow, 0, len(s.shadows))
	for _, id := range slices.Sorted(maps.Keys(s.shadows)) {
		out = append(out, s.shadows[id])
	}
	return out
}

// AuthorizeShadowed is Authorize with the shadow sh evaluated beside the
// live decision over the same Evaluation Input (host.Host.AuthorizeShadowed).
// The live result, envelope and error are exactly Authorize's; the shadow
// outcome never issues and never changes them.
func (d *Domain) AuthorizeShadowed(r host.AuthorizeRequest, sh Shadow, definitionCurrent bool) (res *host.Result, envelope string, shadow host.ShadowResult, err error) {
	signer := d.keys.active
	if signer == nil {
		return nil, "", host.ShadowResult{}, ErrNoSigningKey
	}
	def := r.Policy.PolicyGeneration
	if definitionCurrent {
		def = host.Current
	}
	res, shadow, err = d.host.AuthorizeShadowed(r, host.ShadowSelection{SnapshotGeneration: sh.Generation, PolicyGeneration: def})
	if err != nil {
		return nil, "", shadow, err
	}
	if res.Authorization != nil {
		envelope = signer.Seal(res.Portable)
	}
	return res, envelope, shadow, nil
}

// generationNumber is a generation's number, 0 for a text that is none.
func generationNumber(g string) uint64 {
	n, _ := parseGeneration(g)
	return n
}
