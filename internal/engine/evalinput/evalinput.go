// Package evalinput implements Evaluation Input construction (spec
// Section 17): the complete, immutable, authority-bearing input to policy
// evaluation, built only by the complete-input transition New.
//
// New binds one Canonical Request and its Proposal Assessment to the
// authenticated Host Authority, the composed Role attestations, the
// Security Context, the Intent, an optional Delegation, Provenance,
// Influence, the explicitly requested scope, an explicit evaluation time and
// the expected renewal generation. Every row of the Section 17 binding table
// is checked; any missing, stale, mixed-domain, excessive or mismatched fact
// rejects the whole construction. An Input is neither a Policy Decision nor
// an Authorization (P-005).
package evalinput

import (
	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/evidence"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/lineage"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Limits of Section 39 on the explicitly requested scope; the same bounds
// as every Host, intended or requested scope (authority.ParseCapabilities,
// authority.ParseResources).
const (
	MaxRequestedCapabilities = authority.MaxCapabilities
	MaxRequestedResources    = authority.MaxResources
)

// Draft names every input fact. All pointers except Delegation are
// required; Delegation is required exactly when the identity names one.
type Draft struct {
	Request               *request.CanonicalRequest
	Host                  *authority.HostAuthority
	SecurityContext       *evidence.SecurityContext
	Intent                *evidence.Intent
	Delegation            *evidence.Delegation
	Provenance            *lineage.Provenance
	Influence             *lineage.Influence
	RequestedCapabilities []string
	RequestedResources    []string
	EvaluationTime        epoch.Time
	ExpectedRenewal       ident.Generation
}

// Input is one complete Evaluation Input.
type Input struct {
	domain       boundary.Domain
	req          *request.CanonicalRequest
	host         *authority.HostAuthority
	composition  authority.Composition
	sc           *evidence.SecurityContext
	intent       *evidence.Intent
	delegation   *evidence.Delegation
	provenance   *lineage.Provenance
	influence    *lineage.Influence
	capabilities []vocab.Capability
	resources    []ident.Resource
	at           epoch.Time
	renewal      ident.Generation

	// Facts derived once at construction for policy evaluation.
	provFacts []ProvenanceFact
	inflColls []InfluenceCollectionFact
	inflKinds []vocab.InfluenceKind
	masks     FactMasks
	summary   Summary
	// HashIdentifier of each requested Resource, in their order (inline:
	// bindResources bounds them to MaxRequestedResources).
	resourceHashes [MaxRequestedResources]uint64

	digest digest.Digest
}

// New is the complete-input transition. b is the Host's independently
// retained boundary; every input must belong to exactly that domain.
func New(b boundary.Boundary, d Draft) (*Input, error) {
	if err := requirePresent(b, d); err != nil {
		return nil, err
	}
	if err := sameDomain(b, d); err != nil {
		return nil, err
	}
	in := &Input{
		domain: b.Domain(), req: d.Request, host: d.Host, sc: d.SecurityContext, intent: d.Intent,
		delegation: d.Delegation, provenance: d.Provenance, influence: d.Influence,
		at: d.EvaluationTime, renewal: d.ExpectedRenewal,
	}
	checks := []func(*Input, Draft) error{
		(*Input).bindTime,
		(*Input).bindAttestations,
		(*Input).bindIdentity,
		(*Input).bindIntentTarget,
		(*Input).bindAssessment,
		(*Input).bindCapabilities,
		(*Input).bindResources,
		(*Input).bindRenewal,
	}
	for _, check := range checks {
		if err := check(in, d); err != nil {
			return nil, err
		}
	}
	in.deriveFacts()
	in.summary = SummaryOf(in) // after the masks it includes
	for i, r := range in.resources {
		in.resourceHashes[i] = HashIdentifier(r.String())
	}
	in.digest = in.computeDigest()
	return in, nil
}

func requirePresent(b boundary.Boundary, d Draft) error {
	switch {
	case b.IsZero():
		return fault.At("domain", fault.Missing, "evaluation input is constructed within the host's retained boundary")
	case d.Request == nil:
		return fault.At("request", fault.Missing, "a canonical request is required")
	case d.Host == nil:
		return fault.At("host", fault.Missing, "a host authority is required")
	case d.SecurityContext == nil:
		return fault.At("securityContext", fault.Missing, "a security context is required")
	case d.Intent == nil:
		return fault.At("intent", fault.Missing, "an authenticated intent is required; a proposal is not intent")
	case d.Provenance == nil:
		return fault.At("provenance", fault.Missing, "provenance is required (use unknown coverage when none is represented)")
	case d.Influence == nil:
		return fault.At("influence", fault.Missing, "influence is required (use an empty influence set when none is collected)")
	}
	return nil
}

// sameDomain rejects any input from another Host authority domain before
// any content is compared (P-016).
func sameDomain(b boundary.Boundary, d Draft) error {
	domains := []struct {
		path string
		dom  boundary.Domain
	}{
		{"request.assessment", d.Request.Assessment().Domain()},
		{"host", d.Host.Domain()},
		{"securityContext", d.SecurityContext.Domain()},
		{"intent", d.Intent.Domain()},
		{"provenance", d.Provenance.Domain()},
		{"influence", d.Influence.Domain()},
	}
	if d.Delegation != nil {
		domains = append(domains, struct {
			path string
			dom  boundary.Domain
		}{"delegation", d.Delegation.Domain()})
	}
	for _, x := range domains {
		if !b.Holds(x.dom) {
			return fault.At(x.path, fault.MixedDomain, "every input must belong to the same host authority domain")
		}
	}
	return nil
}

// bindAttestations composes every Role attestation under the one exact Host
// Authority ceiling, valid at the evaluation time (Section 14).
func (in *Input) bindAttestations(d Draft) error {
	var buf [5]authority.Attestation // Compose copies what it keeps
	atts := append(buf[:0], d.SecurityContext.Attestation(), d.Intent.Attestation())
	if d.Delegation != nil {
		atts = append(atts, d.Delegation.Attestation())
	}
	if a, ok := d.Provenance.Attestation(); ok {
		atts = append(atts, a)
	}
	if a, ok := d.Influence.Attestation(); ok {
		atts = append(atts, a)
	}
	c, err := authority.Compose(d.Host, d.EvaluationTime, atts)
	if err != nil {
		// Compose already locates member rejections at "attestations[i]"
		// (i in the order above); prefixing again would stutter.
		return err
	}
	in.composition = c
	return nil
}

// bindIdentity requires one exact identity across all evidence, and a
// Delegation exactly when the identity names one.
func (in *Input) bindIdentity(d Draft) error {
	id := d.SecurityContext.Identity()
	others := []struct {
		path string
		id   principal.Identity
	}{
		{"intent.identity", d.Intent.Identity()},
		{"provenance.identity", d.Provenance.Identity()},
		{"influence.identity", d.Influence.Identity()},
	}
	for _, o := range others {
		if !o.id.Equal(id) {
			return fault.At(o.path, fault.Mismatch,
				"subject, tenant, session and delegation must equal the security context's exactly")
		}
	}
	switch {
	case id.Delegation().IsZero() && d.Delegation != nil:
		return fault.At("delegation", fault.Mismatch, "a delegation is bound only when the identity names it")
	case !id.Delegation().IsZero() && d.Delegation == nil:
		return fault.At("delegation", fault.Missing, "the identity names a delegation; its attested delegation is required")
	case d.Delegation != nil && (d.Delegation.ID() != id.Delegation() || d.Delegation.Subject() != id.Subject()):
		return fault.At("delegation", fault.Mismatch, "the delegation must be the identity's exact delegation for its subject")
	}
	return nil
}

func (in *Input) bindIntentTarget(d Draft) error {
	if !d.Intent.Target().Matches(d.Request) {
		return fault.At("intent.target", fault.Mismatch,
			"the intent must target this exact canonical request or its exact snapshot-bound tool definition")
	}
	return nil
}

func (in *Input) bindAssessment(d Draft) error {
	a := d.Request.Assessment()
	if !d.Provenance.Assessment().Equal(a) {
		return fault.At("provenance.assessment", fault.Mismatch, "provenance must bind the request's exact proposal assessment")
	}
	if !d.Influence.Assessment().Equal(a) {
		return fault.At("influence.assessment", fault.Mismatch, "influence must bind the request's exact proposal assessment")
	}
	return nil
}

// bindCapabilities parses the explicit request and requires it to be a
// subset of the definition maximum, the Host Authority and the Intent
// ceiling. Nothing is filled in: the request is exactly what was asked.
func (in *Input) bindCapabilities(d Draft) error {
	caps, err := authority.ParseCapabilities(d.RequestedCapabilities)
	if err != nil {
		return fault.Within("requestedCapabilities", err)
	}
	def := d.Request.Definition()
	for _, c := range caps {
		if !def.HasCapability(c) || !d.Host.HasCapability(c) || !d.Intent.HasCapability(c) {
			return fault.At("requestedCapabilities", fault.Mismatch,
				"requested capabilities must be within the tool definition, host authority and intent ceilings")
		}
	}
	in.capabilities = caps
	return nil
}

// bindResources requires the explicit resource request to equal the
// canonical argument-derived set exactly, and to lie within the Host
// Authority and Intent ceilings. An empty request is exactly no resource
// authority and is valid only for a resource-free request.
func (in *Input) bindResources(d Draft) error {
	res, err := authority.ParseResources(d.RequestedResources)
	if err != nil {
		return fault.Within("requestedResources", err)
	}
	args := d.Request.Arguments()
	same := len(res) == args.NumResources()
	for i := 0; same && i < len(res); i++ {
		same = res[i] == args.ResourceAt(i)
	}
	if !same {
		return fault.At("requestedResources", fault.Mismatch,
			"requested resources must equal the resources derived from the canonical arguments")
	}
	for _, r := range res {
		if !d.Host.HasResource(r) || !d.Intent.HasResource(r) {
			return fault.At("requestedResources", fault.Mismatch,
				"requested resources must be within the host authority and intent ceilings")
		}
	}
	in.resources = res
	return nil
}

// bindTime rechecks the evidence's own validity windows at the explicit
// evaluation time, first, so a stale piece is reported at its own path.
// Compose then checks every attestation window (the same windows for
// attested evidence, and the lineage attestations).
func (in *Input) bindTime(d Draft) error {
	windows := []struct {
		path string
		v    epoch.Validity
	}{
		{"securityContext.validity", d.SecurityContext.Validity()},
		{"intent.validity", d.Intent.Validity()},
	}
	if d.Delegation != nil {
		windows = append(windows, struct {
			path string
			v    epoch.Validity
		}{"delegation.validity", d.Delegation.Validity()})
	}
	for _, w := range windows {
		if err := w.v.Check(d.EvaluationTime); err != nil {
			return fault.Within(w.path, err)
		}
	}
	return nil
}

func (in *Input) bindRenewal(d Draft) error {
	if d.ExpectedRenewal.IsZero() {
		return fault.At("expectedRenewal", fault.Missing, "the expected intent renewal generation is required")
	}
	if d.ExpectedRenewal != d.Intent.Renewal() {
		return fault.At("expectedRenewal", fault.Mismatch, "the intent's renewal generation must equal the expected one exactly")
	}
	return nil
}
