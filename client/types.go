package client

import "encoding/json"

// The wire types of toolgate's authorization API (/v1). Field names are
// exact: the service rejects unknown fields, differently cased names,
// duplicate keys and null.

// HostAuthorityRef names the HostAuthority whose domain decides.
type HostAuthorityRef struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// Window is a validity window in Unix seconds: issuedAt <= notBefore <
// expiresAt.
type Window struct {
	IssuedAt  uint64 `json:"issuedAt"`
	NotBefore uint64 `json:"notBefore"`
	ExpiresAt uint64 `json:"expiresAt"`
}

// Identity is a subject, tenant, session (or session independence) and
// optional delegation.
type Identity struct {
	Subject            string `json:"subject"`
	Tenant             string `json:"tenant,omitempty"`
	Session            string `json:"session,omitempty"`
	SessionIndependent bool   `json:"sessionIndependent,omitempty"`
	Delegation         string `json:"delegation,omitempty"`
}

// Proposal is the model's raw tool-call proposal; Arguments is the raw
// argument JSON object, passed through byte for byte.
type Proposal struct {
	ProposalID string          `json:"proposalID"`
	ToolID     string          `json:"toolID"`
	Version    string          `json:"version"`
	Arguments  json.RawMessage `json:"arguments"`
}

// Current is what a selection names instead of a generation to have the
// service select the current generation of the snapshot identity, or the
// active version of the policy (docs/api.md, "Current generations"): for
// example RegistrySelection{SnapshotID: "primary-registry", Generation:
// Current}. The service resolves it once, at its clock reading, into exact
// generations, binds those into the Decision and the Authorization, and
// returns them in AuthorizeResponse.Selection.
const Current = "current"

// RegistrySelection names one Registry Snapshot generation exactly, or
// its current one (Generation Current).
type RegistrySelection struct {
	SnapshotID string `json:"snapshotID"`
	Generation string `json:"generation"`
}

// PolicySelection names one Policy Snapshot generation and one Policy
// version in it exactly; SnapshotGeneration Current selects the current
// generation, PolicyGeneration Current the policy's active version in the
// selected generation.
type PolicySelection struct {
	SnapshotID         string `json:"snapshotID"`
	SnapshotGeneration string `json:"snapshotGeneration"`
	PolicyID           string `json:"policyID"`
	PolicyGeneration   string `json:"policyGeneration"`
}

// Assessment is the Host's Proposal Assessment.
type Assessment struct {
	AssessmentID  string   `json:"assessmentID"`
	ProvenanceIDs []string `json:"provenanceIDs,omitempty"`
	InfluenceIDs  []string `json:"influenceIDs,omitempty"`
}

// SecurityContext is the authenticated session's evidence.
type SecurityContext struct {
	ID        string   `json:"id"`
	Identity  Identity `json:"identity"`
	Assurance string   `json:"assurance"`
	Methods   []string `json:"methods,omitempty"`
	Validity  Window   `json:"validity"`
}

// Intent is the user's authenticated intent; Target is "request" or
// "tool"; Binding is the optional agent-safe.intent/1 binding document.
type Intent struct {
	ID                string          `json:"id"`
	Identity          Identity        `json:"identity"`
	Target            string          `json:"target"`
	Capabilities      []string        `json:"capabilities"`
	Resources         []string        `json:"resources,omitempty"`
	RenewalGeneration string          `json:"renewalGeneration"`
	Display           string          `json:"display,omitempty"`
	Validity          Window          `json:"validity"`
	Binding           json.RawMessage `json:"binding,omitempty"`
}

// Delegation is the delegation the identity acts under.
type Delegation struct {
	ID       string `json:"id"`
	Subject  string `json:"subject"`
	Validity Window `json:"validity"`
}

// ProvenanceRecord is one provenance record.
type ProvenanceRecord struct {
	ID              string   `json:"id"`
	Source          string   `json:"source"`
	Custody         string   `json:"custody"`
	Transformations []string `json:"transformations,omitempty"`
	Verification    string   `json:"verification"`
}

// Provenance is the request's attested provenance; absent means unknown
// coverage.
type Provenance struct {
	Records  []ProvenanceRecord `json:"records"`
	Validity Window             `json:"validity"`
}

// InfluenceCollection is one collection boundary.
type InfluenceCollection struct {
	Boundary     string `json:"boundary"`
	Completeness string `json:"completeness"`
	Evidence     string `json:"evidence,omitempty"`
}

// InfluenceNode is one influence record.
type InfluenceNode struct {
	ID       string   `json:"id"`
	Kind     string   `json:"kind"`
	Boundary string   `json:"boundary"`
	Parents  []string `json:"parents,omitempty"`
}

// Influence is the request's attested influence; absent means none
// collected.
type Influence struct {
	Collections []InfluenceCollection `json:"collections"`
	Nodes       []InfluenceNode       `json:"nodes"`
	Validity    Window                `json:"validity"`
}

// Facts are the Host facts of one request; the caller must hold the role
// of each.
type Facts struct {
	Assessment      Assessment      `json:"assessment"`
	SecurityContext SecurityContext `json:"securityContext"`
	Intent          Intent          `json:"intent"`
	Delegation      *Delegation     `json:"delegation,omitempty"`
	Provenance      *Provenance     `json:"provenance,omitempty"`
	Influence       *Influence      `json:"influence,omitempty"`
}

// AuthorizeRequest is the body of POST /v1/authorize. The time is the
// service's; a request carries none.
type AuthorizeRequest struct {
	HostAuthority         HostAuthorityRef  `json:"hostAuthority"`
	Proposal              Proposal          `json:"proposal"`
	Registry              RegistrySelection `json:"registry"`
	Policy                PolicySelection   `json:"policy"`
	DecisionID            string            `json:"decisionID"`
	Facts                 Facts             `json:"facts"`
	RequestedCapabilities []string          `json:"requestedCapabilities"`
	RequestedResources    []string          `json:"requestedResources"`
	AuthorizationID       string            `json:"authorizationID"`
	ReplayID              string            `json:"replayID"`
	ConsumptionID         string            `json:"consumptionID"`
	MaxLifetimeSeconds    uint64            `json:"maxLifetimeSeconds"`
	// Confirmation, when set, is the identity of an approved confirmation
	// request of exactly this call (toolgate.confirmations/1): the call is
	// evaluated afresh and, when nothing differs from what was confirmed,
	// the Authorization is issued, once.
	Confirmation string `json:"confirmation,omitempty"`
	// Confirmers, when not empty, names who may confirm this call if its
	// Decision is requireConfirmation: authenticated names, each also a
	// confirmer of the domain (toolgate.confirmations/1). It only narrows
	// who may confirm.
	Confirmers []string `json:"confirmers,omitempty"`
}

// Obligation is one obligation of a Decision.
type Obligation struct {
	Kind     string `json:"kind"`
	Seconds  uint64 `json:"seconds,omitempty"`
	Boundary string `json:"boundary,omitempty"`
}

// Decision is the complete Policy Decision.
type Decision struct {
	ID           string       `json:"id"`
	Outcome      string       `json:"outcome"`
	Reasons      []string     `json:"reasons"`
	MatchedRules []string     `json:"matchedRules"`
	Capabilities []string     `json:"capabilities"`
	Resources    []string     `json:"resources"`
	Obligations  []Obligation `json:"obligations"`
}

// Authorization is an issued, signed, single-use Authorization.
type Authorization struct {
	// Artifact is the signed envelope the executor presents.
	Artifact      string `json:"artifact"`
	ID            string `json:"id"`
	ConsumptionID string `json:"consumptionID"`
	IssuedAt      uint64 `json:"issuedAt"`
	ExpiresAt     uint64 `json:"expiresAt"`
}

// Error is a rejection: a stable reason code, the path of the value at
// fault (never the value) and a message for people.
type Error struct {
	Code    string `json:"code"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

// Selection is the exact selection a Decision was made on: every
// generation as a number, Current resolved.
type Selection struct {
	Registry RegistrySelection `json:"registry"`
	Policy   PolicySelection   `json:"policy"`
}

// AuthorizeResponse is the response of POST /v1/authorize.
type AuthorizeResponse struct {
	Decision Decision `json:"decision"`
	// Selection is the exact selection the Decision and the Authorization
	// bind: the request's, with every Current resolved.
	Selection     Selection      `json:"selection"`
	Authorization *Authorization `json:"authorization,omitempty"`
	// Ineligible says why an allow Decision issued no Authorization.
	Ineligible *Error `json:"ineligible,omitempty"`
	// Confirmation is the confirmation request a requireConfirmation
	// Decision opened, in a domain that takes confirmations
	// (toolgate.confirmations/1, docs/confirmation.md).
	Confirmation *Confirmation `json:"confirmation,omitempty"`
}

// Confirmation is one confirmation request (toolgate.confirmations/1) as
// the API shows it: what is to be confirmed, by whom, until when, and its
// state. It carries no argument values.
type Confirmation struct {
	// ID names the request: the hex of its binding digest.
	ID            string           `json:"id"`
	Binding       string           `json:"binding"`
	HostAuthority HostAuthorityRef `json:"hostAuthority"`
	// State is pending, approved, denied, used or expired.
	State     string `json:"state"`
	Requester string `json:"requester"`
	// Subject is who the call is for (the Evaluation Input's subject).
	Subject               Identity `json:"subject"`
	ToolID                string   `json:"toolID"`
	Version               string   `json:"version"`
	Decision              Decision `json:"decision"`
	RequestedCapabilities []string `json:"requestedCapabilities"`
	RequestedResources    []string `json:"requestedResources"`
	AuthorizationID       string   `json:"authorizationID"`
	RequestedAt           uint64   `json:"requestedAt"`
	ExpiresAt             uint64   `json:"expiresAt"`
	// NamedConfirmers, when not empty, are the only confirmers who may
	// answer; ExcludesRequester forbids the requester to.
	NamedConfirmers   []string `json:"namedConfirmers,omitempty"`
	ExcludesRequester bool     `json:"excludesRequester,omitempty"`
	// Confirmer, AnsweredAt and AnswerExpiresAt are set once answered.
	Confirmer       string `json:"confirmer,omitempty"`
	AnsweredAt      uint64 `json:"answeredAt,omitempty"`
	AnswerExpiresAt uint64 `json:"answerExpiresAt,omitempty"`
}

// ConfirmationList is the confirmation requests visible to the caller.
type ConfirmationList struct {
	Confirmations []Confirmation `json:"confirmations"`
}

// Expectations are the executor's own expectations for the call it is
// about to make; nothing in them may be copied from the artifact.
type Expectations struct {
	AuthorizationID string          `json:"authorizationID"`
	ReplayID        string          `json:"replayID"`
	ConsumptionID   string          `json:"consumptionID"`
	ProposalID      string          `json:"proposalID"`
	ToolID          string          `json:"toolID"`
	Version         string          `json:"version"`
	Arguments       json.RawMessage `json:"arguments"`
	Identity        Identity        `json:"identity"`
	Capabilities    []string        `json:"capabilities"`
	Resources       []string        `json:"resources"`
	// IntentBinding is the agent-safe.intent/1 binding the executor is
	// about to commit. Consume requires it when the Authorization binds
	// one.
	IntentBinding json.RawMessage `json:"intentBinding,omitempty"`
}

// ValidateRequest is the body of POST /v1/validate and POST /v1/consume.
type ValidateRequest struct {
	Artifact     string       `json:"artifact"`
	Expectations Expectations `json:"expectations"`
}

// ValidateResponse is the response of POST /v1/validate and, with
// Consumed set, of POST /v1/consume.
type ValidateResponse struct {
	// Binding is the complete Consumption Binding digest.
	Binding   string `json:"binding"`
	ExpiresAt uint64 `json:"expiresAt"`
	Consumed  bool   `json:"consumed,omitempty"`
}

// ErrorResponse is the body of every non-2xx response.
type ErrorResponse struct {
	Error Error `json:"error"`
}

// CurrentRequest is the body of POST /v1/current.
type CurrentRequest struct {
	HostAuthority HostAuthorityRef `json:"hostAuthority"`
}

// CurrentSnapshot is the current generation of one snapshot identity.
type CurrentSnapshot struct {
	SnapshotID string `json:"snapshotID"`
	Generation string `json:"generation"`
}

// PolicyVersion is the active version of one policy.
type PolicyVersion struct {
	PolicyID         string `json:"policyID"`
	PolicyGeneration string `json:"policyGeneration"`
}

// CurrentPolicySnapshot is the current generation of one policy snapshot
// identity and the active version of each policy in it (a policy without
// an active version is absent).
type CurrentPolicySnapshot struct {
	SnapshotID string          `json:"snapshotID"`
	Generation string          `json:"generation"`
	Active     []PolicyVersion `json:"active"`
}

// CurrentResponse is the response of POST /v1/current: what a selection
// of Current resolves to in the domain at the service's clock reading,
// every list in identity order. A later authorize may resolve differently
// (a generation published or withdrawn in between); its response's
// Selection says what it bound.
type CurrentResponse struct {
	Registries []CurrentSnapshot       `json:"registries"`
	Policies   []CurrentPolicySnapshot `json:"policies"`
}
