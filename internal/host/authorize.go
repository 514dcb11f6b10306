package host

import (
	"github.com/toolgate/toolgate/internal/agentsafe"
	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/authz"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/evidence"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/lineage"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Window is an explicit validity window in Unix seconds: IssuedAt <=
// NotBefore < ExpiresAt; NotBefore is inclusive and ExpiresAt exclusive.
type Window struct {
	IssuedAt, NotBefore, ExpiresAt uint64
}

// RegistrySelection names one Registry Snapshot exactly.
type RegistrySelection struct {
	SnapshotID string
	Generation string
}

// PolicySelection names one Policy Snapshot and one Policy version in it
// exactly.
type PolicySelection struct {
	SnapshotID         string
	SnapshotGeneration string
	PolicyID           string
	PolicyGeneration   string
}

// Intent targets.
const (
	// TargetRequest binds the Intent to this exact Canonical Request.
	TargetRequest = "request"
	// TargetTool binds the Intent to the exact Snapshot-bound Tool
	// Definition the request resolves to.
	TargetTool = "tool"
)

// Facts are the Host facts of one request (Sections 12, 15, 16), as the
// trusted runtime captured them. Each is attested by the Host's Role
// Authority for its fact class, and only when the caller holds that role.
type Facts struct {
	// Assessment is the Proposal Assessment; it requires
	// intentCaptureAuthority (the runtime that captured the user's turn
	// also assesses the model's proposal in it).
	Assessment assessment.Draft
	// SecurityContext requires authenticationAuthority.
	SecurityContext evidence.SecurityContextDraft
	ContextValidity Window
	// Intent requires intentCaptureAuthority. IntentTarget is
	// TargetRequest or TargetTool.
	Intent         evidence.IntentDraft
	IntentTarget   string
	IntentValidity Window
	// IntentBinding is the agent-safe.intent/1 binding document the user
	// approved ({actor, tenant, parameters, expiry, target}), as JSON. When
	// present its digest is bound into the Intent (Intent.Binding, if also
	// set, must equal it), so the executor can later present the binding it
	// is about to commit and have it compared.
	IntentBinding []byte
	// Delegation, when the identity names one, requires
	// delegationAuthority.
	Delegation         *evidence.DelegationDraft
	DelegationValidity Window
	// ProvenanceRecords, when not empty, require provenanceAuthority; none
	// means unknown coverage.
	ProvenanceRecords  []lineage.RecordDraft
	ProvenanceValidity Window
	// InfluenceCollections and InfluenceNodes, when not both empty, require
	// influenceCollector; none means no collected Influence.
	InfluenceCollections []lineage.CollectionDraft
	InfluenceNodes       []lineage.NodeDraft
	InfluenceValidity    Window
}

// AuthorizeRequest is one complete authorization request as plain data:
// the shape the authorize API carries.
type AuthorizeRequest struct {
	// Caller is the authenticated caller; it must hold the role of every
	// fact it supplies.
	Caller Caller
	// Time is the explicit evaluation and issuance time, in Unix seconds.
	Time uint64

	Proposal   request.Proposal
	Registry   RegistrySelection
	Policy     PolicySelection
	DecisionID string
	Facts      Facts

	RequestedCapabilities []string
	RequestedResources    []string

	AuthorizationID, ReplayID, ConsumptionID string
	// MaxLifetime is the requested maximum Authorization lifetime in
	// seconds, at most the domain's MaxLifetime.
	MaxLifetime uint64

	// rebuilding marks the re-run of a verified issuance record (Rebuild):
	// the caller's roles were checked when the record was issued.
	rebuilding bool
}

// attester returns the Host's Role Authority for role when r's caller holds
// it, or, for a Rebuild, unconditionally.
func (h *Host) attester(r AuthorizeRequest, role vocab.Role, path string) (*authority.RoleAuthority, error) {
	if r.rebuilding {
		ra, ok := h.roles[role]
		if !ok {
			return nil, fault.At(path, fault.Unauthorized, "this host authority does not declare the role this fact requires")
		}
		return ra, nil
	}
	return h.role(r.Caller, role, path)
}

// attesterAndWindow returns the attester of a fact at path (see attester)
// and the fact's validity window w, parsed at windowPath.
func (h *Host) attesterAndWindow(r AuthorizeRequest, role vocab.Role, path string, w Window, windowPath string) (*authority.RoleAuthority, epoch.Validity, error) {
	ra, err := h.attester(r, role, path)
	if err != nil {
		return nil, epoch.Validity{}, err
	}
	v, err := validity(w, windowPath)
	if err != nil {
		return nil, epoch.Validity{}, err
	}
	return ra, v, nil
}

// Result is the outcome of Authorize.
type Result struct {
	// Decision is the complete Policy Decision: outcome, reasons, matched
	// rules, obligations and scope.
	Decision *policy.Decision
	// Authorization is set only for an allow Decision that issuance
	// accepted.
	Authorization *authz.Authorization
	// Portable is the canonical, versioned issuance record of Authorization
	// (see Rebuild), set with it. The service signs these bytes.
	Portable []byte
	// Ineligible is set when the Decision is allow but controlled issuance
	// rejected it (for example an obligation Phases 1–6 cannot satisfy, or
	// a lifetime beyond a bound input's expiry). It is a typed
	// *fault.Error.
	Ineligible error
}

// Authorize runs the request path and Phases 4–5 for r: resolve the exact
// snapshots, assess and canonicalize the proposal, attest every Host fact
// with the role the caller holds, build the Evaluation Input, evaluate the
// exact policy and, for an allow, issue the Authorization. The lifetime is
// [Time, Time+MaxLifetime), shortened to the earliest bound-input expiry.
//
// Structural failures — an unknown snapshot, a malformed or mismatched
// fact, a caller without the role of a fact it supplies — reject with a
// typed error and no Decision. A Decision of any outcome is a Result.
func (h *Host) Authorize(r AuthorizeRequest) (*Result, error) {
	p, err := h.prepare(r)
	if err != nil {
		return nil, err
	}
	return h.decide(r, p)
}

// decide evaluates the prepared request p and, for an allow, issues.
func (h *Host) decide(r AuthorizeRequest, p prepared) (*Result, error) {
	dec, err := policy.Evaluate(p.in, p.pol, p.sel, r.DecisionID)
	if err != nil {
		return nil, err
	}
	res := &Result{Decision: dec}
	if dec.Outcome() != vocab.Allow {
		return res, nil
	}
	if r.MaxLifetime == 0 || r.MaxLifetime > h.maxLife {
		res.Ineligible = fault.At("maxLifetime", fault.OutOfRange, "the requested lifetime is 1 second to the domain's maximum")
		return res, nil
	}
	expires, err := p.at.Add(r.MaxLifetime)
	if err != nil {
		res.Ineligible = fault.At("maxLifetime", fault.OutOfRange, "the lifetime overflows the protocol time range")
		return res, nil
	}
	if e := p.in.Attestations().ExpiresAt(); e.Before(expires) {
		expires = e
	}
	a, err := authz.Issue(h.boundary, authz.IssueRequest{
		Input: p.in, Policy: p.pol, Registry: p.reg, Decision: dec, Selection: p.sel,
		AuthorizationID: r.AuthorizationID, ReplayID: r.ReplayID, ConsumptionID: r.ConsumptionID,
		Generation: p.in.RenewalGeneration(),
		IssuedAt:   p.at, ExpiresAt: expires, MaxLifetime: r.MaxLifetime,
	})
	if err != nil {
		res.Ineligible = err
		return res, nil
	}
	if res.Portable, err = h.encode(r, p, a); err != nil {
		return nil, err
	}
	res.Authorization = a
	return res, nil
}

// prepared is everything Authorize resolves and builds before evaluation.
type prepared struct {
	at  epoch.Time
	reg *registry.Snapshot
	pol *policy.Snapshot
	sel policy.Selection
	in  *evalinput.Input
}

// prepare resolves r's exact snapshots and builds its Evaluation Input.
func (h *Host) prepare(r AuthorizeRequest) (prepared, error) {
	var p prepared
	var err error
	if p.at, err = epoch.New(r.Time); err != nil {
		return p, fault.Within("time", err)
	}
	if p.reg, err = h.Registry(r.Registry.SnapshotID, r.Registry.Generation); err != nil {
		return p, fault.Within("registry", err)
	}
	if p.pol, err = h.Policy(r.Policy.SnapshotID, r.Policy.SnapshotGeneration); err != nil {
		return p, fault.Within("policy", err)
	}
	if p.sel, err = selection(p.pol.ID().String(), p.pol.Generation().String(), r.Policy); err != nil {
		return p, fault.Within("policy", err)
	}
	if p.in, err = h.input(r, p.reg, p.at); err != nil {
		return p, err
	}
	return p, nil
}

// selection parses the Host's exact policy selection.
func selection(snapshotID, snapshotGen string, p PolicySelection) (policy.Selection, error) {
	var sel policy.Selection
	var err error
	if sel.SnapshotID, err = ident.ParsePolicyID(snapshotID); err != nil {
		return sel, fault.Within("snapshotID", err)
	}
	if sel.SnapshotGeneration, err = ident.ParseGeneration(snapshotGen); err != nil {
		return sel, fault.Within("snapshotGeneration", err)
	}
	if sel.PolicyID, err = ident.ParsePolicyID(p.PolicyID); err != nil {
		return sel, fault.Within("policyID", err)
	}
	if sel.PolicyGeneration, err = ident.ParseGeneration(p.PolicyGeneration); err != nil {
		return sel, fault.Within("policyGeneration", err)
	}
	return sel, nil
}

// input attests every fact of r and builds the Evaluation Input at at.
func (h *Host) input(r AuthorizeRequest, reg *registry.Snapshot, at epoch.Time) (*evalinput.Input, error) {
	f := r.Facts
	if err := unusedWindows(f); err != nil {
		return nil, err
	}
	// The assessment is made within the boundary; the role gates who may
	// supply it.
	if _, err := h.attester(r, vocab.IntentCaptureAuthority, "facts.assessment"); err != nil {
		return nil, err
	}
	asmt, err := assessment.New(h.boundary, f.Assessment)
	if err != nil {
		return nil, fault.Within("facts.assessment", err)
	}
	prop, err := h.derived(reg, r.Proposal, "proposal.arguments")
	if err != nil {
		return nil, err
	}
	req, err := request.NewLimited(reg, prop, asmt, request.Limits{MaxArgumentBytes: h.limits.MaxArgumentBytes})
	if err != nil {
		return nil, err
	}
	authn, v, err := h.attesterAndWindow(r, vocab.AuthenticationAuthority, "facts.securityContext", f.ContextValidity, "facts.contextValidity")
	if err != nil {
		return nil, err
	}
	sc, err := evidence.NewSecurityContext(authn, "security-context", v, f.SecurityContext)
	if err != nil {
		return nil, fault.Within("facts.securityContext", err)
	}
	intent, err := h.intent(r, reg, req)
	if err != nil {
		return nil, err
	}
	d := evalinput.Draft{
		Request: req, Host: h.authority, SecurityContext: sc, Intent: intent,
		RequestedCapabilities: r.RequestedCapabilities, RequestedResources: r.RequestedResources,
		EvaluationTime: at, ExpectedRenewal: intent.Renewal(),
	}
	if f.Delegation != nil {
		deleg, v, err := h.attesterAndWindow(r, vocab.DelegationAuthority, "facts.delegation", f.DelegationValidity, "facts.delegationValidity")
		if err != nil {
			return nil, err
		}
		if d.Delegation, err = evidence.NewDelegation(deleg, "delegation", v, *f.Delegation); err != nil {
			return nil, fault.Within("facts.delegation", err)
		}
	}
	if d.Provenance, err = h.provenance(r, asmt, sc.Identity()); err != nil {
		return nil, err
	}
	if d.Influence, err = h.influence(r, asmt, sc.Identity()); err != nil {
		return nil, err
	}
	return evalinput.New(h.boundary, d)
}

func (h *Host) intent(r AuthorizeRequest, reg *registry.Snapshot, req *request.CanonicalRequest) (*evidence.Intent, error) {
	f := r.Facts
	capture, v, err := h.attesterAndWindow(r, vocab.IntentCaptureAuthority, "facts.intent", f.IntentValidity, "facts.intentValidity")
	if err != nil {
		return nil, err
	}
	var target evidence.Target
	switch f.IntentTarget {
	case TargetRequest:
		target = evidence.ExactRequest(req)
	case TargetTool:
		if target, err = evidence.BoundedTool(reg, req.Definition()); err != nil {
			return nil, fault.Within("facts.intentTarget", err)
		}
	case "":
		return nil, fault.At("facts.intentTarget", fault.Missing, "an intent targets the exact request or the exact tool")
	default:
		return nil, fault.At("facts.intentTarget", fault.UnknownToken, "an intent target is request or tool")
	}
	d := f.Intent
	if f.IntentBinding != nil {
		_, sum, err := parseBinding(f.IntentBinding, "facts.intentBinding")
		if err != nil {
			return nil, err
		}
		if d.Binding != "" && d.Binding != sum {
			return nil, fault.At("facts.intent.binding", fault.Mismatch, "the intent's binding digest must be the digest of the binding document")
		}
		d.Binding = sum
	}
	in, err := evidence.NewIntent(capture, "user-intent", v, target, d)
	if err != nil {
		return nil, fault.Within("facts.intent", err)
	}
	return in, nil
}

func (h *Host) provenance(r AuthorizeRequest, a *assessment.Assessment, id principal.Identity) (*lineage.Provenance, error) {
	f := r.Facts
	if len(f.ProvenanceRecords) == 0 {
		p, err := lineage.UnknownProvenance(a, id)
		return p, fault.Within("facts.provenance", err)
	}
	role, v, err := h.attesterAndWindow(r, vocab.ProvenanceAuthority, "facts.provenanceRecords", f.ProvenanceValidity, "facts.provenanceValidity")
	if err != nil {
		return nil, err
	}
	p, err := lineage.NewProvenance(role, "provenance", v, a, id, f.ProvenanceRecords)
	if err != nil {
		return nil, fault.Within("facts.provenanceRecords", err)
	}
	return p, nil
}

func (h *Host) influence(r AuthorizeRequest, a *assessment.Assessment, id principal.Identity) (*lineage.Influence, error) {
	f := r.Facts
	if len(f.InfluenceCollections) == 0 && len(f.InfluenceNodes) == 0 {
		v, err := lineage.NoInfluence(a, id)
		return v, fault.Within("facts.influence", err)
	}
	role, v, err := h.attesterAndWindow(r, vocab.InfluenceCollector, "facts.influenceCollections", f.InfluenceValidity, "facts.influenceValidity")
	if err != nil {
		return nil, err
	}
	inf, err := lineage.NewInfluence(role, "influence-collection", v, a, id, f.InfluenceCollections, f.InfluenceNodes)
	if err != nil {
		return nil, fault.Within("facts.influence", err)
	}
	return inf, nil
}

func validity(w Window, path string) (epoch.Validity, error) {
	var ts [3]epoch.Time
	for i, s := range []uint64{w.IssuedAt, w.NotBefore, w.ExpiresAt} {
		t, err := epoch.New(s)
		if err != nil {
			return epoch.Validity{}, fault.Within(path, err)
		}
		ts[i] = t
	}
	v, err := epoch.NewValidity(ts[0], ts[1], ts[2])
	if err != nil {
		return epoch.Validity{}, fault.Within(path, err)
	}
	return v, nil
}

// Explain builds r's Evaluation Input exactly as Authorize does and reports
// every rule's and every predicate's result for the selected policy (see
// policy.Explain). It issues nothing.
func (h *Host) Explain(r AuthorizeRequest) ([]policy.RuleResult, error) {
	p, err := h.prepare(r)
	if err != nil {
		return nil, err
	}
	return policy.Explain(p.in, p.pol, p.sel)
}

// parseBinding parses the agent-safe.intent/1 binding doc and returns it
// with its digest, from one parse; a document the binding rejects is
// fault.Malformed at path (the agentsafe reason and offset, never content).
func parseBinding(doc []byte, path string) (agentsafe.Value, string, error) {
	v, err := agentsafe.Parse(doc)
	if err != nil {
		return agentsafe.Value{}, "", fault.At(path, fault.Malformed, err.Error())
	}
	canonical, err := agentsafe.Canonical(v)
	if err != nil {
		return agentsafe.Value{}, "", fault.At(path, fault.Malformed, err.Error())
	}
	return v, agentsafe.Digest(canonical), nil
}

// unusedWindows rejects a validity window given for a fact that is absent:
// an input that says more than it means is ambiguous.
func unusedWindows(f Facts) error {
	unused := []struct {
		path   string
		absent bool
		w      Window
	}{
		{"facts.delegationValidity", f.Delegation == nil, f.DelegationValidity},
		{"facts.provenanceValidity", len(f.ProvenanceRecords) == 0, f.ProvenanceValidity},
		{"facts.influenceValidity", len(f.InfluenceCollections) == 0 && len(f.InfluenceNodes) == 0, f.InfluenceValidity},
	}
	for _, u := range unused {
		if u.absent && u.w != (Window{}) {
			return fault.At(u.path, fault.Unsupported, "a validity window is given only together with its fact")
		}
	}
	return nil
}
