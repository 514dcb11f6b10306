package host

import (
	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Canonicalize plays this Host for one Proposal, to show its Canonical
// Request (the CLI's `request canonicalize`): it resolves the exact
// Registry Snapshot sel this Host holds, makes a Proposal Assessment with
// identity assessmentID inside the Host's own boundary and canonicalizes
// the Proposal under the Host's limits — the same steps Authorize takes
// before any fact is attested.
//
// The caller must hold intentCaptureAuthority, the role that supplies an
// assessment to Authorize (fault.Unauthorized at "caller"). The result is
// for reading: nothing Authorize or Validate accepts is built from it (each
// builds its own), so it grants nothing.
func (h *Host) Canonicalize(caller Caller, sel RegistrySelection, p Proposal, assessmentID string) (*CanonicalRequest, error) {
	if _, err := h.role(caller, vocab.IntentCaptureAuthority, "caller"); err != nil {
		return nil, err
	}
	reg, err := h.Registry(sel.SnapshotID, sel.Generation)
	if err != nil {
		return nil, fault.Within("registry", err)
	}
	a, err := assessment.New(h.boundary, assessment.Draft{ProposalID: p.ProposalID, AssessmentID: assessmentID})
	if err != nil {
		return nil, err // located at the draft's fields, as request.New locates the proposal's
	}
	if p, err = h.derived(reg, p, "proposal.arguments"); err != nil {
		return nil, err
	}
	return request.NewLimited(reg, p, a, request.Limits{MaxArgumentBytes: h.limits.MaxArgumentBytes})
}
