package evidence

import (
	"slices"

	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Target is what an Intent applies to: one exact Canonical Request, or one
// exact Snapshot-bound Tool Definition. The zero Target is no target.
type Target struct {
	kind       vocab.IntentTarget
	request    *request.CanonicalRequest // exactRequest only
	snapshot   *registry.Snapshot
	definition *registry.Definition
}

// ExactRequest returns the target of one exact Canonical Request. A nil
// request gives a target that NewIntent rejects.
func ExactRequest(r *request.CanonicalRequest) Target {
	t := Target{kind: vocab.TargetExactRequest, request: r}
	if r != nil {
		t.snapshot, t.definition = r.Snapshot(), r.Definition()
	}
	return t
}

// BoundedTool returns the target of one exact Tool Definition within one
// exact Registry Snapshot. d must be part of s: s holds a definition whose
// complete content equals d's (fault.Mismatch otherwise).
func BoundedTool(s *registry.Snapshot, d *registry.Definition) (Target, error) {
	if s == nil {
		return Target{}, fault.At("snapshot", fault.Missing, "a bounded-tool target names an exact registry snapshot")
	}
	if d == nil {
		return Target{}, fault.At("definition", fault.Missing, "a bounded-tool target names an exact tool definition")
	}
	for i := range s.Len() {
		if s.Definition(i).Equal(d) {
			return Target{kind: vocab.TargetBoundedTool, snapshot: s, definition: d}, nil
		}
	}
	return Target{}, fault.At("definition", fault.Mismatch,
		"a bounded-tool target's definition must be part of its exact registry snapshot")
}

// Kind returns the target kind; zero for the zero Target.
func (t Target) Kind() vocab.IntentTarget { return t.kind }

// Request returns the exact Canonical Request; nil for a bounded-tool target.
func (t Target) Request() *request.CanonicalRequest { return t.request }

// Snapshot returns the exact Registry Snapshot of the target.
func (t Target) Snapshot() *registry.Snapshot { return t.snapshot }

// Definition returns the exact Tool Definition of the target.
func (t Target) Definition() *registry.Definition { return t.definition }

// IsZero reports whether t is the zero Target.
func (t Target) IsZero() bool { return t.kind == 0 }

// Matches reports whether r is within the target: for exactRequest, r is
// the complete structurally equal request (CanonicalRequest.Equal); for boundedTool,
// r was resolved in a snapshot and to a definition whose complete content
// equals the target's. Matches does not compare Host domains; Intent.Matches
// does.
func (t Target) Matches(r *request.CanonicalRequest) bool {
	//exhaustive:enforce
	switch t.kind {
	case vocab.TargetExactRequest:
		return t.request.Equal(r)
	case vocab.TargetBoundedTool:
		return r != nil && t.snapshot.Equal(r.Snapshot()) &&
			t.definition.Equal(r.Definition())
	default:
		return false
	}
}

func (t Target) writeDigest(b *digest.Builder) {
	b.String(t.kind.String())
	if t.kind == vocab.TargetExactRequest {
		b.Digest(t.request.Digest())
		return
	}
	b.Digest(t.snapshot.Digest())
	b.Digest(t.definition.Digest())
}

// IntentDraft is the untrusted description of an authenticated Intent, as
// the Host's explicit capture path records it.
type IntentDraft struct {
	ID                string
	Identity          principal.Draft
	Capabilities      []string // 1–8 ceiling, any order (ASCII order)
	Resources         []string // 0–16 ceiling, any order (ASCII order)
	RenewalGeneration string   // positive generation text
	Display           string   // optional non-authoritative text (1–160 printable ASCII when present)
	// Binding is the optional agent-safe.intent/1 digest of the intent
	// binding the user approved ("sha256:" and 64 lowercase hex digits).
	// When present it is bound into the Intent's content, and so into every
	// Authorization built on it, so that the executor can present the
	// binding it is about to commit and have its digest compared.
	Binding string
}

// Intent is authenticated Intent evidence (Section 15). It is never derived
// from model text; its display text is descriptive only.
type Intent struct {
	id        ident.ControlledID
	identity  principal.Identity
	target    Target
	caps      []vocab.Capability // unique, ASCII order
	resources []ident.Resource   // unique, ASCII order
	renewal   ident.Generation
	display   ident.Text
	binding   digest.Digest // zero when no agent-safe binding is bound
	attested
}

// NewIntent validates d against target and has capture, which must hold
// intentCaptureAuthority, attest it (identity attestationID, fact
// userIntent). Ceilings can narrow but never enlarge: every Capability must
// be in the target definition's maximum and in the Host Authority, every
// Resource in the Host Authority (fault.Mismatch otherwise). An exactRequest
// target's request must belong to capture's Host domain (fault.MixedDomain).
func NewIntent(capture *authority.RoleAuthority, attestationID string, validity epoch.Validity, target Target, d IntentDraft) (*Intent, error) {
	if err := requireRole(capture, vocab.IntentCaptureAuthority); err != nil {
		return nil, err
	}
	if err := checkTarget(capture, target); err != nil {
		return nil, err
	}
	in := &Intent{target: target}
	var err error
	if in.id, err = ident.ParseControlledID(d.ID); err != nil {
		return nil, fault.Within("id", err)
	}
	if in.identity, err = principal.New(d.Identity); err != nil {
		return nil, fault.Within("identity", err)
	}
	host := capture.Host()
	if in.caps, err = authority.ParseCapabilities(d.Capabilities); err != nil {
		return nil, fault.Within("capabilities", err)
	}
	maximum := target.definition.Capabilities()
	for _, c := range in.caps {
		if !slices.Contains(maximum, c) || !host.HasCapability(c) {
			return nil, fault.At("capabilities", fault.Mismatch,
				"intent capabilities must be within the tool definition maximum and the host authority")
		}
	}
	if in.resources, err = authority.ParseResources(d.Resources); err != nil {
		return nil, fault.Within("resources", err)
	}
	for _, r := range in.resources {
		if !host.HasResource(r) {
			return nil, fault.At("resources", fault.Mismatch, "intent resources must be within the host authority")
		}
	}
	if in.renewal, err = ident.ParseGeneration(d.RenewalGeneration); err != nil {
		return nil, fault.Within("renewalGeneration", err)
	}
	if d.Display != "" {
		if in.display, err = ident.ParseIntentDisplay(d.Display); err != nil {
			return nil, fault.Within("display", err)
		}
	}
	if d.Binding != "" {
		if in.binding, err = parseBinding(d.Binding); err != nil {
			return nil, fault.Within("binding", err)
		}
	}
	if err := in.seal("toolgate.intent/1", capture, attestationID, vocab.FactUserIntent, validity, in.contentDigest()); err != nil {
		return nil, err
	}
	return in, nil
}

func checkTarget(capture *authority.RoleAuthority, t Target) error {
	//exhaustive:enforce
	switch t.kind {
	case vocab.TargetExactRequest:
		if t.request == nil {
			return fault.At("target.request", fault.Missing, "an exact-request intent names one canonical request")
		}
		if !t.request.Assessment().Domain().Same(capture.Domain()) {
			return fault.At("target.request", fault.MixedDomain,
				"an exact-request intent's request belongs to the intent's host authority domain")
		}
	case vocab.TargetBoundedTool:
	default:
		return fault.At("target", fault.Missing, "an intent names one exact request or one bounded tool definition")
	}
	return nil
}

// ID returns the Intent identity.
func (in *Intent) ID() ident.ControlledID { return in.id }

// Version returns the Intent version (always v1).
func (in *Intent) Version() vocab.Version { return vocab.V1 }

// Identity returns the bound identity.
func (in *Intent) Identity() principal.Identity { return in.identity }

// Target returns the exact target.
func (in *Intent) Target() Target { return in.target }

// Capabilities returns a copy of the Capability ceiling, in ASCII order.
func (in *Intent) Capabilities() []vocab.Capability { return slices.Clone(in.caps) }

// Resources returns a copy of the Resource ceiling, in ASCII order.
func (in *Intent) Resources() []ident.Resource { return slices.Clone(in.resources) }

// NumCapabilities returns the size of the Capability ceiling.
func (in *Intent) NumCapabilities() int { return len(in.caps) }

// CapabilityAt returns member i of the Capability ceiling (ASCII order),
// 0 ≤ i < NumCapabilities.
func (in *Intent) CapabilityAt(i int) vocab.Capability { return in.caps[i] }

// HasCapability reports whether c is within the Capability ceiling.
func (in *Intent) HasCapability(c vocab.Capability) bool { return slices.Contains(in.caps, c) }

// HasResource reports whether r is within the Resource ceiling.
func (in *Intent) HasResource(r ident.Resource) bool { return slices.Contains(in.resources, r) }

// Renewal returns the positive renewal generation.
func (in *Intent) Renewal() ident.Generation { return in.renewal }

// Display returns the non-authoritative display text; IsZero when absent.
func (in *Intent) Display() ident.Text { return in.display }

// Matches reports whether the Intent applies to r: r belongs to the
// Intent's Host domain and is within its target (Target.Matches). A
// request-bound Intent never matches a different Canonical Request.
func (in *Intent) Matches(r *request.CanonicalRequest) bool {
	return r != nil && r.Assessment().Domain().Same(in.Domain()) && in.target.Matches(r)
}

// Equal reports the same domain and complete content.
func (a *Intent) Equal(b *Intent) bool {
	return a != nil && b != nil && a.same(&b.attested)
}

func (in *Intent) contentDigest() digest.Digest {
	b := digest.New("toolgate.intent-content/1")
	b.Uint(uint64(vocab.V1))
	b.String(in.id.String())
	in.identity.WriteDigest(b)
	in.target.writeDigest(b)
	digest.Strings(b, in.caps)
	digest.Strings(b, in.resources)
	b.Uint(in.renewal.Uint64())
	writeOptional(b, in.display.String())
	if in.binding.IsZero() {
		b.Absent()
	} else {
		b.Digest(in.binding)
	}
	return b.Sum()
}

// Binding returns the bound agent-safe.intent/1 digest, and whether one is
// bound.
func (in *Intent) Binding() (digest.Digest, bool) { return in.binding, !in.binding.IsZero() }

// parseBinding parses "sha256:" followed by exactly 64 lowercase hex
// digits. The all-zero digest is refused: it is the absence marker.
func parseBinding(s string) (digest.Digest, error) {
	const prefix = "sha256:"
	var d digest.Digest
	if len(s) != len(prefix)+2*digest.Size || s[:len(prefix)] != prefix {
		return d, fault.New(fault.Malformed, "an intent binding digest is sha256: followed by 64 lowercase hex digits")
	}
	for i := range digest.Size {
		hi, ok1 := hexNibble(s[len(prefix)+2*i])
		lo, ok2 := hexNibble(s[len(prefix)+2*i+1])
		if !ok1 || !ok2 {
			return digest.Digest{}, fault.New(fault.Malformed, "an intent binding digest is sha256: followed by 64 lowercase hex digits")
		}
		d[i] = hi<<4 | lo
	}
	if d.IsZero() {
		return d, fault.New(fault.OutOfRange, "the all-zero digest is no binding")
	}
	return d, nil
}

func hexNibble(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	default:
		return 0, false
	}
}
