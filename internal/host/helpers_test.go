package host_test

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"testing"

	"github.com/toolgate/toolgate/internal/artifact"
	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/evidence"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/testutil"
)

// Callers of the example domain.
var (
	runtime  = host.Caller{Name: "system:serviceaccount:payments:agent-runtime"}
	admin    = host.Caller{Name: "jane", Groups: []string{"policy-admins"}}
	executor = host.Caller{Name: "system:serviceaccount:payments:payments-executor"}
	stranger = host.Caller{Name: "system:serviceaccount:payments:someone-else"}
)

// now is the explicit time of every example request.
const now = 1_700_000_000

// paymentsConfig is a domain whose agent runtime holds every fact role,
// whose policy admins are a group, and whose one executor is the payments
// service.
func paymentsConfig() host.Config {
	sa := []host.Subject{{Kind: host.KindServiceAccount, Name: "agent-runtime"}}
	return host.Config{
		Description: "payments/payments-host", Instance: "uid-1", Namespace: "payments",
		AuthorityID:  "payments-host",
		Capabilities: []string{"data.read", "financial.transfer", "communication.external"},
		Resources:    []string{"acct-1001", "acct-2002", "acct-3003"},
		Roles: []host.RoleBinding{
			{Role: "authenticationAuthority", Subjects: sa},
			{Role: "intentCaptureAuthority", Subjects: sa},
			{Role: "provenanceAuthority", Subjects: sa},
			{Role: "influenceCollector", Subjects: sa},
			{Role: "delegationAuthority", Subjects: sa},
			{Role: "policyAdministrationAuthority", Subjects: []host.Subject{{Kind: host.KindGroup, Name: "policy-admins"}}},
		},
		Executors:   []host.Subject{{Kind: host.KindServiceAccount, Name: "payments-executor"}},
		MaxLifetime: 300,
	}
}

func pred(p policy.PredicateDraft) policy.ConditionDraft { return policy.ConditionDraft{Predicate: &p} }

func is(name, identifier string) policy.ConditionDraft {
	return pred(policy.PredicateDraft{Name: name, Identifier: identifier})
}

// paymentsPolicy allows tenant acme to pay between acct-1001 and acct-2002,
// single use; denies tenant globex; requires confirmation for subject bob.
func paymentsPolicy() policy.SnapshotDraft {
	return policy.SnapshotDraft{ID: "payments-policy", Generation: "1", Policies: []policy.DefinitionDraft{{
		ID: "payments", Generation: "1", Lifecycle: "active", Rules: []policy.RuleDraft{
			{
				ID: "allow-acme-payments", Effect: "allow", Reason: "allowRuleMatched",
				Condition: policy.ConditionDraft{All: []policy.ConditionDraft{
					is("exactToolID", "payments.submit"), is("exactTenant", "acme"),
				}},
				Scope: &policy.ScopeDraft{
					Capabilities: []string{"data.read", "financial.transfer"},
					Resources:    []string{"acct-1001", "acct-2002"},
				},
				Obligations: []policy.ObligationDraft{{Kind: "requireSingleUseAuthorization"}},
			},
			{ID: "deny-globex", Effect: "deny", Reason: "tenantMismatch", Condition: is("exactTenant", "globex")},
			{
				ID: "confirm-bob", Effect: "requireConfirmation", Reason: "confirmationRuleMatched",
				Condition: is("exactSubject", "bob"),
				Scope: &policy.ScopeDraft{
					Capabilities: []string{"data.read", "financial.transfer"},
					Resources:    []string{"acct-1001", "acct-2002"},
				},
			},
		},
	}}}
}

// newPaymentsHost returns the example domain with its registry and policy
// published.
func newPaymentsHost() *host.Host {
	h, err := host.New(paymentsConfig())
	if err != nil {
		panic(err)
	}
	if _, err := h.PublishRegistry(host.RegistryDraft{Draft: testutil.RegistryDraft(testutil.PaymentsDefinition())}); err != nil {
		panic(err)
	}
	if _, err := h.PublishPolicy(admin, paymentsPolicy()); err != nil {
		panic(err)
	}
	return h
}

// payment is alice's (tenant acme) request to pay invoice 2026-114 from
// acct-2002 to acct-1001, as her agent runtime captured it.
func payment() host.AuthorizeRequest {
	id := principal.Draft{Subject: "alice", Tenant: "acme", Session: "session-1"}
	window := host.Window{IssuedAt: now - 60, NotBefore: now - 60, ExpiresAt: now + 600}
	return host.AuthorizeRequest{
		Caller: runtime,
		Time:   now,
		Proposal: request.Proposal{
			ProposalID: "proposal-1", ToolID: "payments.submit", Version: "1",
			Arguments: []byte(testutil.PaymentsArguments),
		},
		Registry:   host.RegistrySelection{SnapshotID: "primary-registry", Generation: "1"},
		Policy:     host.PolicySelection{SnapshotID: "payments-policy", SnapshotGeneration: "1", PolicyID: "payments", PolicyGeneration: "1"},
		DecisionID: "decision-1",
		Facts: host.Facts{
			Assessment: assessment.Draft{ProposalID: "proposal-1", AssessmentID: "assessment-1"},
			SecurityContext: evidence.SecurityContextDraft{
				ID: "context-1", Identity: id, Assurance: "multiFactor", Methods: []string{"knowledgeFactor", "possessionFactor"},
			},
			ContextValidity: window,
			Intent: evidence.IntentDraft{
				ID: "intent-1", Identity: id, Capabilities: []string{"data.read", "financial.transfer"},
				Resources: []string{"acct-1001", "acct-2002"}, RenewalGeneration: "1", Display: "Pay invoice 2026-114",
			},
			IntentTarget:   host.TargetRequest,
			IntentValidity: window,
		},
		RequestedCapabilities: []string{"financial.transfer", "data.read"},
		RequestedResources:    []string{"acct-2002", "acct-1001"},
		AuthorizationID:       "authz-1", ReplayID: "replay-1", ConsumptionID: "consumption-1",
		MaxLifetime: 120,
	}
}

// as returns r with the identity of every fact replaced.
func as(r host.AuthorizeRequest, subject, tenant string) host.AuthorizeRequest {
	id := principal.Draft{Subject: subject, Tenant: tenant, Session: "session-1"}
	r.Facts.SecurityContext.Identity, r.Facts.Intent.Identity = id, id
	return r
}

// expectations is what the payments executor knows independently about the
// call it is about to make for alice.
func expectations() host.Expectations {
	return host.Expectations{
		AuthorizationID: "authz-1", ReplayID: "replay-1", ConsumptionID: "consumption-1",
		ProposalID: "proposal-1", ToolID: "payments.submit", Version: "1", Arguments: []byte(testutil.PaymentsArguments),
		Identity:     principal.Draft{Subject: "alice", Tenant: "acme", Session: "session-1"},
		Capabilities: []string{"data.read", "financial.transfer"},
		Resources:    []string{"acct-1001", "acct-2002"},
	}
}

func publishInto(t *testing.T, c host.Config) *host.Host {
	t.Helper()
	h, err := host.New(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.PublishRegistry(host.RegistryDraft{Draft: testutil.RegistryDraft(testutil.PaymentsDefinition())}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.PublishPolicy(admin, paymentsPolicy()); err != nil {
		t.Fatal(err)
	}
	return h
}

func isCode(err, want error) bool { return err != nil && errors.Is(err, want) }

// verified is record as the service hands it to Rebuild: sealed with a
// domain key and opened again, the only way to construct an
// artifact.Verified.
func verified(record []byte) artifact.Verified {
	k, err := artifact.NewKey(bytes.Repeat([]byte{7}, ed25519.SeedSize))
	if err != nil {
		panic(err)
	}
	v, err := artifact.Open(k.Seal(record), func(string) (ed25519.PublicKey, bool) { return k.Public(), true })
	if err != nil {
		panic(err)
	}
	return v
}
