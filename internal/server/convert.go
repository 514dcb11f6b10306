package server

import (
	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/serving"
)

// HostRequest converts an authorize request of the API into the Host
// façade's, for caller at the explicit time at (Unix seconds). Every value
// is validated by the Host.
func HostRequest(r client.AuthorizeRequest, caller host.Caller, at uint64) host.AuthorizeRequest {
	f := r.Facts
	out := host.AuthorizeRequest{
		Caller: caller,
		Time:   at,
		Proposal: host.Proposal{
			ProposalID: r.Proposal.ProposalID, ToolID: r.Proposal.ToolID, Version: r.Proposal.Version,
			Arguments: r.Proposal.Arguments,
		},
		Registry: host.RegistrySelection{SnapshotID: r.Registry.SnapshotID, Generation: r.Registry.Generation},
		Policy: host.PolicySelection{
			SnapshotID: r.Policy.SnapshotID, SnapshotGeneration: r.Policy.SnapshotGeneration,
			PolicyID: r.Policy.PolicyID, PolicyGeneration: r.Policy.PolicyGeneration,
		},
		DecisionID:            r.DecisionID,
		RequestedCapabilities: r.RequestedCapabilities,
		RequestedResources:    r.RequestedResources,
		AuthorizationID:       r.AuthorizationID,
		ReplayID:              r.ReplayID,
		ConsumptionID:         r.ConsumptionID,
		MaxLifetime:           r.MaxLifetimeSeconds,
		Facts: host.Facts{
			Assessment: host.AssessmentDraft{
				ProposalID: r.Proposal.ProposalID, AssessmentID: f.Assessment.AssessmentID,
				ProvenanceIDs: f.Assessment.ProvenanceIDs, InfluenceIDs: f.Assessment.InfluenceIDs,
			},
			SecurityContext: host.SecurityContextDraft{
				ID: f.SecurityContext.ID, Identity: identity(f.SecurityContext.Identity),
				Assurance: f.SecurityContext.Assurance, Methods: f.SecurityContext.Methods,
			},
			ContextValidity: window(f.SecurityContext.Validity),
			Intent: host.IntentDraft{
				ID: f.Intent.ID, Identity: identity(f.Intent.Identity), Capabilities: f.Intent.Capabilities,
				Resources: f.Intent.Resources, RenewalGeneration: f.Intent.RenewalGeneration, Display: f.Intent.Display,
			},
			IntentTarget:   f.Intent.Target,
			IntentValidity: window(f.Intent.Validity),
			IntentBinding:  f.Intent.Binding,
		},
	}
	if d := f.Delegation; d != nil {
		out.Facts.Delegation = &host.DelegationDraft{ID: d.ID, Subject: d.Subject}
		out.Facts.DelegationValidity = window(d.Validity)
	}
	if p := f.Provenance; p != nil {
		for _, x := range p.Records {
			out.Facts.ProvenanceRecords = append(out.Facts.ProvenanceRecords, host.ProvenanceRecordDraft{
				ID: x.ID, Source: x.Source, Custody: x.Custody, Transformations: x.Transformations, Verification: x.Verification,
			})
		}
		out.Facts.ProvenanceValidity = window(p.Validity)
	}
	if in := f.Influence; in != nil {
		for _, c := range in.Collections {
			out.Facts.InfluenceCollections = append(out.Facts.InfluenceCollections, host.InfluenceCollectionDraft{
				Boundary: c.Boundary, Completeness: c.Completeness, Evidence: c.Evidence,
			})
		}
		for _, n := range in.Nodes {
			out.Facts.InfluenceNodes = append(out.Facts.InfluenceNodes, host.InfluenceNodeDraft{
				ID: n.ID, Kind: n.Kind, Boundary: n.Boundary, Parents: n.Parents,
			})
		}
		out.Facts.InfluenceValidity = window(in.Validity)
	}
	return out
}

// HostExpectations converts an executor's expectations of the API into
// the Host façade's.
func HostExpectations(e client.Expectations) host.Expectations {
	return host.Expectations{
		AuthorizationID: e.AuthorizationID, ReplayID: e.ReplayID, ConsumptionID: e.ConsumptionID,
		ProposalID: e.ProposalID, ToolID: e.ToolID, Version: e.Version, Arguments: e.Arguments,
		Identity: identity(e.Identity), Capabilities: e.Capabilities, Resources: e.Resources,
		IntentBinding: e.IntentBinding,
	}
}

// WireDecision is the API form of a Decision.
func WireDecision(d *host.Decision) client.Decision {
	// Each accessor returns a copy: read each once. Every list is non-nil
	// (the API writes [] for none) and sized once.
	reasons, matched, caps, res, obls := d.Reasons(), d.MatchedRules(), d.Capabilities(), d.Resources(), d.Obligations()
	out := client.Decision{
		ID: d.ID().String(), Outcome: d.Outcome().String(),
		Reasons: make([]string, 0, len(reasons)), MatchedRules: make([]string, 0, len(matched)),
		Capabilities: make([]string, 0, len(caps)), Resources: make([]string, 0, len(res)),
		Obligations: make([]client.Obligation, 0, len(obls)),
	}
	for _, r := range reasons {
		out.Reasons = append(out.Reasons, r.String())
	}
	for _, m := range matched {
		out.MatchedRules = append(out.MatchedRules, m.String())
	}
	for _, c := range caps {
		out.Capabilities = append(out.Capabilities, c.String())
	}
	for _, r := range res {
		out.Resources = append(out.Resources, r.String())
	}
	for _, o := range obls {
		out.Obligations = append(out.Obligations, client.Obligation{Kind: o.Kind().String(), Seconds: o.Seconds(), Boundary: o.Boundary().String()})
	}
	return out
}

func identity(w client.Identity) host.IdentityDraft {
	return host.IdentityDraft{Subject: w.Subject, Tenant: w.Tenant, Session: w.Session,
		SessionIndependent: w.SessionIndependent, Delegation: w.Delegation}
}

func window(w client.Window) host.Window {
	return host.Window{IssuedAt: w.IssuedAt, NotBefore: w.NotBefore, ExpiresAt: w.ExpiresAt}
}

// WireCurrent is the API form of what a domain serves as current. Every
// list is non-nil (the API writes [] for none).
func WireCurrent(c serving.Current) client.CurrentResponse {
	out := client.CurrentResponse{Registries: make([]client.CurrentSnapshot, 0, len(c.Registries)),
		Policies: make([]client.CurrentPolicySnapshot, 0, len(c.Policies))}
	for _, r := range c.Registries {
		out.Registries = append(out.Registries, client.CurrentSnapshot{SnapshotID: r.ID, Generation: r.Generation})
	}
	for _, p := range c.Policies {
		w := client.CurrentPolicySnapshot{SnapshotID: p.ID, Generation: p.Generation, Active: make([]client.PolicyVersion, 0, len(p.Active))}
		for _, v := range p.Active {
			w.Active = append(w.Active, client.PolicyVersion{PolicyID: v.PolicyID, PolicyGeneration: v.Generation})
		}
		out.Policies = append(out.Policies, w)
	}
	return out
}
