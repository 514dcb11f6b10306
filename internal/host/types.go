package host

import (
	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/authz"
	"github.com/toolgate/toolgate/internal/engine/evidence"
	"github.com/toolgate/toolgate/internal/engine/lineage"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/request"
)

// The engine types the Host's callers need, declared here so that the
// Host is the one door to the engine: the authorization service, the CLI
// and the gateways import host, not the engine's packages (docs/decisions.md,
// "One door to the engine"). They are aliases, as cedar-go's root package
// aliases its internal types: a value is the engine's own, with every
// method and every guarantee of it, and no conversion runs on the hot
// path. None of them carries privilege (TestNoExportedRouteToPrivilege).
type (
	// Proposal is the untrusted model Proposal: identity, tool, version
	// and raw argument JSON (Section 11).
	Proposal = request.Proposal
	// CanonicalRequest is a Canonical Request (Section 11).
	CanonicalRequest = request.CanonicalRequest

	// AssessmentDraft is a Proposal Assessment as plain data (Section 12).
	AssessmentDraft = assessment.Draft
	// IdentityDraft is a subject, tenant, session and delegation as plain
	// data (Section 15).
	IdentityDraft = principal.Draft
	// SecurityContextDraft, IntentDraft and DelegationDraft are Host
	// evidence as plain data (Section 15).
	SecurityContextDraft = evidence.SecurityContextDraft
	IntentDraft          = evidence.IntentDraft
	DelegationDraft      = evidence.DelegationDraft
	// ProvenanceRecordDraft, InfluenceCollectionDraft and
	// InfluenceNodeDraft are Provenance and Influence as plain data
	// (Section 16).
	ProvenanceRecordDraft    = lineage.RecordDraft
	InfluenceCollectionDraft = lineage.CollectionDraft
	InfluenceNodeDraft       = lineage.NodeDraft

	// RegistrySnapshot is a published Registry Snapshot (Section 9); its
	// draft is RegistryDraft, which carries the argument profiles too.
	RegistrySnapshot = registry.Snapshot
	// PolicySnapshot is a published Policy Snapshot, PolicyDefinition one
	// of its Policy Definitions and PolicyRule one of their rules
	// (Section 19); the CLI prints and diffs them.
	PolicySnapshot   = policy.Snapshot
	PolicyDefinition = policy.Definition
	PolicyRule       = policy.Rule
	// PolicyCondition is one node of a rule's condition tree; diff names
	// the predicates a changed condition added or removed.
	PolicyCondition = policy.Condition

	// Decision is a complete Policy Decision (Section 22) and Obligation
	// one of its obligations.
	Decision   = policy.Decision
	Obligation = policy.Obligation
	// RuleResult is one rule's result as Explain reports it.
	RuleResult = policy.RuleResult

	// Authorization is an issued single-use Authorization (Sections
	// 23–28); it compares by domain identity and never acts.
	Authorization = authz.Authorization
	// ConsumptionBinding is the complete Consumption Binding a Validation
	// returns, which the service consumes atomically (Sections 28, 32).
	ConsumptionBinding = authz.ConsumptionBinding
)

// PublishRegistryDraft publishes d as a Registry Snapshot outside any
// domain, with every publication rule of Section 9 (the offline verbs
// check a manifest's registries with it); a domain's own registries are
// published with Host.PublishRegistry. Each definition's argument profile
// is checked against it (CheckProfileBinding).
func PublishRegistryDraft(d RegistryDraft) (*RegistrySnapshot, error) {
	s, _, err := publishDraft(d)
	return s, err
}
