package v1alpha1

// Closed vocabularies. Each type's Enum marker and constants are the Section
// 48 tokens in Section 48 order; TestCRDs and TestVocabularyConstants tie
// both to the engine's vocabulary (internal/engine/vocab), so the API and
// the engine cannot drift.

// Capability is one Section 48 Capability token.
// +kubebuilder:validation:Enum=communication.external;data.read;data.write;financial.transfer;resource.delete
type Capability string

// Capability tokens (Section 48).
const (
	CapabilityCommunicationExternal Capability = "communication.external"
	CapabilityDataRead              Capability = "data.read"
	CapabilityDataWrite             Capability = "data.write"
	CapabilityFinancialTransfer     Capability = "financial.transfer"
	CapabilityResourceDelete        Capability = "resource.delete"
)

// Lifecycle is a Tool Definition lifecycle (Section 48): deprecated
// definitions still resolve, retired ones never do.
// +kubebuilder:validation:Enum=active;deprecated;retired
type Lifecycle string

// Tool Definition lifecycles.
const (
	LifecycleActive     Lifecycle = "active"
	LifecycleDeprecated Lifecycle = "deprecated"
	LifecycleRetired    Lifecycle = "retired"
)

// Risk is a Tool risk classification (Section 48).
// +kubebuilder:validation:Enum=low;moderate;high;critical
type Risk string

// Tool risk classifications.
const (
	RiskLow      Risk = "low"
	RiskModerate Risk = "moderate"
	RiskHigh     Risk = "high"
	RiskCritical Risk = "critical"
)

// SideEffect is a Tool side-effect classification (Section 48).
// +kubebuilder:validation:Enum=readOnly;reversibleMutation;irreversibleMutation;externalCommunication;financial
type SideEffect string

// Tool side-effect classifications.
const (
	SideEffectReadOnly              SideEffect = "readOnly"
	SideEffectReversibleMutation    SideEffect = "reversibleMutation"
	SideEffectIrreversibleMutation  SideEffect = "irreversibleMutation"
	SideEffectExternalCommunication SideEffect = "externalCommunication"
	SideEffectFinancial             SideEffect = "financial"
)

// Reversibility is a Tool reversibility classification (Section 48).
// +kubebuilder:validation:Enum=notApplicable;reversible;compensatable;irreversible
type Reversibility string

// Tool reversibility classifications.
const (
	ReversibilityNotApplicable Reversibility = "notApplicable"
	ReversibilityReversible    Reversibility = "reversible"
	ReversibilityCompensatable Reversibility = "compensatable"
	ReversibilityIrreversible  Reversibility = "irreversible"
)

// SchemaVersion is the Schema version; only v1 exists (Section 48).
// +kubebuilder:validation:Enum=v1
type SchemaVersion string

// SchemaVersionV1 is the only Schema version.
const SchemaVersionV1 SchemaVersion = "v1"

// Role is one of the six Section 48 Role Authority kinds.
// +kubebuilder:validation:Enum=authenticationAuthority;intentCaptureAuthority;provenanceAuthority;influenceCollector;delegationAuthority;policyAdministrationAuthority
type Role string

// Role Authority kinds.
const (
	RoleAuthenticationAuthority       Role = "authenticationAuthority"
	RoleIntentCaptureAuthority        Role = "intentCaptureAuthority"
	RoleProvenanceAuthority           Role = "provenanceAuthority"
	RoleInfluenceCollector            Role = "influenceCollector"
	RoleDelegationAuthority           Role = "delegationAuthority"
	RolePolicyAdministrationAuthority Role = "policyAdministrationAuthority"
)

// SubjectKind is the kind of a Kubernetes identity, as in RBAC (a
// Kubernetes vocabulary, not a protocol one).
// +kubebuilder:validation:Enum=ServiceAccount;User;Group
type SubjectKind string

// Subject kinds.
const (
	SubjectKindServiceAccount SubjectKind = "ServiceAccount"
	SubjectKindUser           SubjectKind = "User"
	SubjectKindGroup          SubjectKind = "Group"
)

// PolicyLifecycle is a Policy Definition lifecycle (Section 48); it moves
// only forward across snapshot generations.
// +kubebuilder:validation:Enum=active;deprecated;retired
type PolicyLifecycle string

// Policy Definition lifecycles.
const (
	PolicyLifecycleActive     PolicyLifecycle = "active"
	PolicyLifecycleDeprecated PolicyLifecycle = "deprecated"
	PolicyLifecycleRetired    PolicyLifecycle = "retired"
)

// Effect is a Policy Rule effect (Section 48), in precedence order: deny,
// then requireConfirmation, then allow.
// +kubebuilder:validation:Enum=deny;requireConfirmation;allow
type Effect string

// Policy Rule effects.
const (
	EffectDeny                Effect = "deny"
	EffectRequireConfirmation Effect = "requireConfirmation"
	EffectAllow               Effect = "allow"
)

// ObligationKind is the kind of an inert Obligation (Section 48).
// +kubebuilder:validation:Enum=requireConfirmation;maximumEvaluationAgeSeconds;requireCompleteInfluenceBoundary;requireSingleUseAuthorization;requireAuditEvent
type ObligationKind string

// Obligation kinds.
const (
	ObligationKindRequireConfirmation              ObligationKind = "requireConfirmation"
	ObligationKindMaximumEvaluationAgeSeconds      ObligationKind = "maximumEvaluationAgeSeconds"
	ObligationKindRequireCompleteInfluenceBoundary ObligationKind = "requireCompleteInfluenceBoundary"
	ObligationKindRequireSingleUseAuthorization    ObligationKind = "requireSingleUseAuthorization"
	ObligationKindRequireAuditEvent                ObligationKind = "requireAuditEvent"
)

// PolicyReason is one Section 48 stable policy reason token; any of them may
// be a rule's reason.
// +kubebuilder:validation:Enum=policyMissing;policyUnknown;policyRetired;policyInvalid;noAllowRuleMatched;denyRuleMatched;confirmationRuleMatched;allowRuleMatched;conditionIndeterminate;unsupportedInputVersion;toolMismatch;lifecycleDenied;capabilityNotPermitted;resourceNotPermitted;assuranceInsufficient;authenticationMethodMissing;provenanceInsufficient;influenceIncomplete;influenceKindDenied;tenantMismatch;subjectMismatch;sessionMismatch;delegationRequired;evaluationTooOld;obligationUnsatisfiedAtPolicyStage;policyLimitExceeded
type PolicyReason string

// Policy reason tokens.
const (
	PolicyReasonPolicyMissing                      PolicyReason = "policyMissing"
	PolicyReasonPolicyUnknown                      PolicyReason = "policyUnknown"
	PolicyReasonPolicyRetired                      PolicyReason = "policyRetired"
	PolicyReasonPolicyInvalid                      PolicyReason = "policyInvalid"
	PolicyReasonNoAllowRuleMatched                 PolicyReason = "noAllowRuleMatched"
	PolicyReasonDenyRuleMatched                    PolicyReason = "denyRuleMatched"
	PolicyReasonConfirmationRuleMatched            PolicyReason = "confirmationRuleMatched"
	PolicyReasonAllowRuleMatched                   PolicyReason = "allowRuleMatched"
	PolicyReasonConditionIndeterminate             PolicyReason = "conditionIndeterminate"
	PolicyReasonUnsupportedInputVersion            PolicyReason = "unsupportedInputVersion"
	PolicyReasonToolMismatch                       PolicyReason = "toolMismatch"
	PolicyReasonLifecycleDenied                    PolicyReason = "lifecycleDenied"
	PolicyReasonCapabilityNotPermitted             PolicyReason = "capabilityNotPermitted"
	PolicyReasonResourceNotPermitted               PolicyReason = "resourceNotPermitted"
	PolicyReasonAssuranceInsufficient              PolicyReason = "assuranceInsufficient"
	PolicyReasonAuthenticationMethodMissing        PolicyReason = "authenticationMethodMissing"
	PolicyReasonProvenanceInsufficient             PolicyReason = "provenanceInsufficient"
	PolicyReasonInfluenceIncomplete                PolicyReason = "influenceIncomplete"
	PolicyReasonInfluenceKindDenied                PolicyReason = "influenceKindDenied"
	PolicyReasonTenantMismatch                     PolicyReason = "tenantMismatch"
	PolicyReasonSubjectMismatch                    PolicyReason = "subjectMismatch"
	PolicyReasonSessionMismatch                    PolicyReason = "sessionMismatch"
	PolicyReasonDelegationRequired                 PolicyReason = "delegationRequired"
	PolicyReasonEvaluationTooOld                   PolicyReason = "evaluationTooOld"
	PolicyReasonObligationUnsatisfiedAtPolicyStage PolicyReason = "obligationUnsatisfiedAtPolicyStage"
	PolicyReasonPolicyLimitExceeded                PolicyReason = "policyLimitExceeded"
)
