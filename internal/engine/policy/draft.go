package policy

import "github.com/toolgate/toolgate/internal/engine/argpred"

// Structural limits of Section 39 (all Protocol class except where marked
// Reference).
const (
	MaxPolicies        = 32   // Policy Definitions per Snapshot (1–32)
	MaxRulesPerPolicy  = 128  // rules per Policy Definition (1–128)
	MaxRules           = 512  // rules across one Snapshot (1–512)
	MaxNodes           = 8192 // condition nodes across one Snapshot (1–8,192)
	MaxRuleNodes       = 64   // condition nodes per rule, counting the root (1–64)
	MaxDepth           = 8    // condition depth, counting the root (1–8)
	MaxChildren        = 16   // children of one all or any node (1–16)
	MaxRuleObligations = 8    // obligations per rule (0–8)

	MaxDecisionObligations = 128 // unique obligations per Decision (0–128)
	MaxDecisionReasons     = 128 // reasons per Decision (1–128)
	MaxDecisionMatches     = 128 // matched rule identities per Decision (0–128)

	MaxConstraintCapabilities = 16 // Capabilities per scope constraint (0–16)
	MaxConstraintResources    = 32 // Resources per scope constraint (0–32)
	MaxOperandCapabilities    = 16 // Capabilities per predicate operand (1–16)
	MaxOperandResources       = 32 // Resources per predicate operand (1–32)
	MaxOperandAssurances      = 6  // Reference: assurance values per operand (1–6)
	MaxOperandMethods         = 6  // Reference: authentication methods per operand (1–6)
	MaxOperandTrusts          = 3  // Reference: trust values per operand (1–3)
	MaxInfluenceCount         = 64 // maximumInfluenceCount operand (0–64)
	MaxEvaluationAgeSeconds   = 3600
)

// SnapshotDraft is the untrusted, declarative description of one Policy
// Snapshot generation, as a policy administrator writes it.
type SnapshotDraft struct {
	ID         string // Policy Snapshot identity (Policy identity grammar)
	Generation string // canonical positive generation text
	Policies   []DefinitionDraft
}

// DefinitionDraft describes one Policy Definition version.
type DefinitionDraft struct {
	ID         string // Policy identity
	Generation string // canonical positive generation text
	Lifecycle  string // active | deprecated | retired
	// Arguments opts the definition in to argument predicates
	// (docs/policy-arguments.md); nil keeps it exactly Phase 1–6.
	Arguments *ArgumentsDraft
	Rules     []RuleDraft
}

// ArgumentsDraft is a definition's opt-in to the argument-predicate
// vocabulary: its version token and the exact Registry Snapshot whose
// tools' Schemas the predicates' field paths are checked against.
type ArgumentsDraft struct {
	Vocabulary         string // argpred.Vocabulary
	RegistryID         string // Registry Snapshot identity
	RegistryGeneration string // its generation, canonical decimal
}

// ArgumentDraft is one argument predicate (package argpred).
type ArgumentDraft = argpred.Draft

// RuleDraft describes one Policy Rule.
type RuleDraft struct {
	ID          string // rule identity, unique within its policy (Policy identity grammar)
	Effect      string // deny | requireConfirmation | allow
	Reason      string // one Section 48 policy reason token
	Condition   ConditionDraft
	Scope       *ScopeDraft // required for allow and requireConfirmation, forbidden for deny
	Obligations []ObligationDraft
}

// ScopeDraft is the explicit Capability and Resource constraint of a non-deny
// rule. An empty list permits nothing; absence is never "unrestricted".
type ScopeDraft struct {
	Capabilities []string // 0–16 unique Capabilities
	Resources    []string // 0–32 unique Resources
}

// ConditionDraft is one condition node: exactly one of All, Any,
// Predicate and Argument. A non-nil empty All or Any is an empty compound
// and rejects. Argument is an argument predicate, admitted only in a
// definition that opts in (DefinitionDraft.Arguments).
type ConditionDraft struct {
	All       []ConditionDraft
	Any       []ConditionDraft
	Predicate *PredicateDraft
	Argument  *ArgumentDraft
}

// PredicateDraft is one typed predicate. Name selects the predicate; exactly
// the operand fields that predicate takes must be present (Section 48):
//
//	Identifier  exactToolID, exactDefinitionID, exactRegistrySnapshot,
//	            exactSubject, exactTenant, exactSession, exactDelegationID,
//	            exactRequestedResource, influenceBoundaryCompletenessIs,
//	            exactInfluenceBoundary
//	Generation  exactToolVersion, exactRegistrySnapshot, renewalGenerationIs
//	Value       lifecycleIs, riskIs, sideEffectIs, reversibilityIs,
//	            authenticationMethodIncludes, provenanceCoverageIs,
//	            provenanceContainsSource, provenanceContainsTransformation,
//	            influenceBoundaryCompletenessIs, influenceContainsKind,
//	            influenceContainsNoKind
//	Values      assuranceIsOneOf, authenticationMethodsIncludeAll,
//	            requestedCapabilitiesSubsetOf, requestedCapabilitiesInclude,
//	            intendedCapabilitiesInclude, requestedResourcesSubsetOf,
//	            requestedResourcesInclude, provenanceTrustIsOneOf
//	Count       maximumInfluenceCount
//	Seconds     maximumIntentAge, maximumContextAge
//	Window      evaluationTimeWithin
type PredicateDraft struct {
	Name       string   // Section 48 predicate token
	Identifier string   // identifier operand
	Generation string   // generation operand
	Value      string   // one closed-vocabulary operand
	Values     []string // collection operand
	Count      string   // maximumInfluenceCount, decimal 0–64
	Seconds    string   // maximumIntentAge / maximumContextAge, decimal uint64
	Window     *WindowDraft
}

// WindowDraft is the explicit interval of evaluationTimeWithin, in canonical
// decimal epoch seconds: IssuedAt <= NotBefore < ExpiresAt <= 4,102,444,800.
type WindowDraft struct {
	IssuedAt, NotBefore, ExpiresAt string
}

// ObligationDraft is one inert obligation. Seconds is present only for
// maximumEvaluationAgeSeconds (1–3,600) and Boundary only for
// requireCompleteInfluenceBoundary (a controlled identity).
type ObligationDraft struct {
	Kind, Seconds, Boundary string
}
