package manifest_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestShippedPolicySamplesPublish: the shipped HostAuthority creates a Host
// Authority declaring all six roles; the shipped PolicySnapshot generation 1
// publishes in its domain, and generation 2 publishes as its exact
// successor (Section 19: same identity, next generation, every prior
// policy version kept, a new policy version added).
func TestShippedPolicySamplesPublish(t *testing.T) {
	t.Parallel()
	set, err := manifest.LoadPaths(filepath.Join(testutil.RepoRoot(t), "config", "samples"))
	if err != nil {
		t.Fatalf("LoadPaths: %v", err)
	}
	if len(set.HostAuthorities) != 1 || len(set.PolicySnapshots) != 2 {
		t.Fatalf("loaded %d HostAuthority and %d PolicySnapshot objects, want 1 and 2", len(set.HostAuthorities), len(set.PolicySnapshots))
	}
	ha, ps, ps2 := set.HostAuthorities[0], set.PolicySnapshots[0], set.PolicySnapshots[1]
	for _, p := range []v1alpha1.PolicySnapshot{ps, ps2} {
		if p.Namespace != ha.Namespace || string(p.Spec.HostAuthorityRef.Name) != ha.Name {
			t.Fatalf("the sample PolicySnapshot %s references %s, not the sample HostAuthority %s/%s",
				p.Name, p.Spec.HostAuthorityRef.Name, ha.Namespace, ha.Name)
		}
		// The apiserver's CEL rule: the name is <snapshotID>-<snapshotGeneration>.
		if want := string(p.Spec.SnapshotID) + "-" + string(p.Spec.SnapshotGeneration); p.Name != want {
			t.Errorf("PolicySnapshot name = %q, want %q", p.Name, want)
		}
	}
	if ps.Spec.SnapshotGeneration != "1" || ps2.Spec.SnapshotGeneration != "2" || ps2.Spec.SnapshotID != ps.Spec.SnapshotID {
		t.Fatalf("samples are %s/%s and %s/%s, want generations 1 and 2 of one snapshot",
			ps.Spec.SnapshotID, ps.Spec.SnapshotGeneration, ps2.Spec.SnapshotID, ps2.Spec.SnapshotGeneration)
	}
	if ha.Name != string(ha.Spec.AuthorityID) {
		t.Errorf("HostAuthority name %q differs from its authorityID", ha.Name)
	}
	if lt, err := manifest.AuthorizationLifetime(ha.Spec); err != nil || lt != 300 {
		t.Errorf("maxAuthorizationLifetimeSeconds = %d, %v; want 300", lt, err)
	}
	b := boundary.New("test")
	h, err := newHostAuthority(b, ha.Spec)
	if err != nil {
		t.Fatalf("newHostAuthority: %v", err)
	}
	if diff := cmp.Diff(vocab.AllRole(), h.Roles()); diff != "" {
		t.Errorf("declared roles (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(vocab.AllCapability(), h.Capabilities()); diff != "" {
		t.Errorf("capability ceiling (-want +got):\n%s", diff)
	}
	admin, err := authority.Grant(b, h, vocab.PolicyAdministrationAuthority, "test-publisher")
	if err != nil {
		t.Fatalf("Grant: %v", err)
	}
	draft, err := manifest.PolicyDraft(ps.Spec)
	if err != nil {
		t.Fatalf("PolicyDraft: %v", err)
	}
	snap, err := policy.Publish(admin, draft)
	if err != nil {
		t.Fatalf("Publish: %v", err)
	}
	var rules []string
	for i := range snap.Policy(0).Len() {
		rules = append(rules, snap.Policy(0).Rule(i).ID().String())
	}
	want := []string{"allow-account-lookup", "allow-email-finance-team", "allow-submit-operating-accounts",
		"confirm-critical-risk", "confirm-email-vendors", "deny-email-unauthenticated",
		"deny-model-influence-unverified", "deny-payment-from-external-content"}
	if diff := cmp.Diff(want, rules); diff != "" {
		t.Errorf("rules in Section 50 order (-want +got):\n%s", diff)
	}
	// Every effect is exercised by the sample.
	effects := map[string]bool{}
	for i := range snap.Policy(0).Len() {
		effects[snap.Policy(0).Rule(i).Effect().String()] = true
	}
	for _, e := range vocab.AllEffect() {
		if !effects[e.String()] {
			t.Errorf("the sample has no %s rule", e)
		}
	}

	// The shipped generation 2 is the exact successor of generation 1.
	d2, err := manifest.PolicyDraft(ps2.Spec)
	if err != nil {
		t.Fatalf("PolicyDraft (shipped generation 2): %v", err)
	}
	snap2, err := policy.PublishSuccessor(admin, snap, d2)
	if err != nil {
		t.Fatalf("PublishSuccessor (shipped generation 2): %v", err)
	}
	if snap2.Len() != 2 || snap2.Policy(0).Generation().String() != "1" || snap2.Policy(1).Generation().String() != "2" {
		t.Errorf("generation 2 holds %d policies, want versions 1 and 2", snap2.Len())
	}

	// A successor built in code from generation 1 (one more rule in a new
	// policy version) is accepted too: the converter keeps content exact.
	next := ps.Spec
	next.SnapshotGeneration = "2"
	v2 := next.Policies[0]
	v2.Generation = "2"
	v2.Rules = append(v2.Rules[:len(v2.Rules):len(v2.Rules)], v1alpha1.PolicyRule{
		ID: "deny-delegated-payments", Effect: v1alpha1.EffectDeny, Reason: v1alpha1.PolicyReasonDelegationRequired,
		Condition: raw(`{"all":[{"predicate":{"name":"sideEffectIs","value":"financial"}},{"predicate":{"name":"delegationPresent"}}]}`),
	})
	next.Policies = append(next.Policies[:1:1], v2)
	d2, err = manifest.PolicyDraft(next)
	if err != nil {
		t.Fatalf("PolicyDraft (generation 2): %v", err)
	}
	if _, err := policy.PublishSuccessor(admin, snap, d2); err != nil {
		t.Fatalf("PublishSuccessor: %v", err)
	}
}

func raw(s string) apiextensionsv1.JSON { return apiextensionsv1.JSON{Raw: []byte(s)} }

// policySpec is a one-rule snapshot whose third rule (index 2) carries
// condition; the first two rules are valid.
func policySpec(condition string) v1alpha1.PolicySnapshotSpec {
	valid := raw(`{"predicate":{"name":"riskIs","value":"low"}}`)
	return v1alpha1.PolicySnapshotSpec{SnapshotID: "p", SnapshotGeneration: "1", HostAuthorityRef: v1alpha1.HostAuthorityReference{Name: "h"},
		Policies: []v1alpha1.PolicyDefinition{{ID: "pol", Generation: "1", Lifecycle: "active", Rules: []v1alpha1.PolicyRule{
			{ID: "r-0", Effect: "deny", Reason: "denyRuleMatched", Condition: valid},
			{ID: "r-1", Effect: "deny", Reason: "denyRuleMatched", Condition: valid},
			{ID: "r-2", Effect: "deny", Reason: "denyRuleMatched", Condition: raw(condition)},
		}}}}
}

// TestConditionTreesRejectWithAPath: a condition tree (stored as a JSON
// subtree because CRD schemas cannot recurse) is decoded strictly, only the
// documented keys are accepted, and each rejection carries the path of the
// offending node from spec down without echoing input.
func TestConditionTreesRejectWithAPath(t *testing.T) {
	t.Parallel()
	const rule = "spec.policies[0].rules[2].condition"
	cases := map[string]struct {
		condition string
		wantErr   error
		wantPath  string
	}{
		"an unknown key in a nested predicate rejects at that predicate": {
			condition: `{"all":[{"predicate":{"name":"riskIs","value":"low"}},{"predicate":{"name":"riskIs","secretkey":"x"}}]}`,
			wantErr:   fault.ErrUnknownField, wantPath: rule + ".all[1].predicate",
		},
		"an unknown key in a condition node rejects at that node": {
			condition: `{"any":[{"not":{"predicate":{"name":"riskIs","value":"low"}}}]}`,
			wantErr:   fault.ErrUnknownField, wantPath: rule + ".any[0]",
		},
		"an unknown key in a window rejects at the window": {
			condition: `{"predicate":{"name":"evaluationTimeWithin","window":{"issuedAt":"1","notBefore":"1","expiresAt":"2","secretkey":"3"}}}`,
			wantErr:   fault.ErrUnknownField, wantPath: rule + ".predicate.window",
		},
		"a duplicate key in a predicate rejects": {
			condition: `{"predicate":{"name":"riskIs","value":"low","value":"critical"}}`,
			wantErr:   fault.ErrDuplicate, wantPath: rule,
		},
		"a numeric seconds operand rejects: numbers are strings": {
			condition: `{"predicate":{"name":"maximumIntentAge","seconds":60}}`,
			wantErr:   fault.ErrKindMismatch, wantPath: rule + ".predicate.seconds",
		},
		"a numeric window time rejects": {
			condition: `{"predicate":{"name":"evaluationTimeWithin","window":{"issuedAt":"1","notBefore":"1","expiresAt":2}}}`,
			wantErr:   fault.ErrKindMismatch, wantPath: rule + ".predicate.window.expiresAt",
		},
		"values that are not a list reject": {
			condition: `{"predicate":{"name":"assuranceIsOneOf","values":"multiFactor"}}`,
			wantErr:   fault.ErrKindMismatch, wantPath: rule + ".predicate.values",
		},
		"a non-string list member rejects at the member": {
			condition: `{"predicate":{"name":"assuranceIsOneOf","values":["multiFactor",true]}}`,
			wantErr:   fault.ErrKindMismatch, wantPath: rule + ".predicate.values[1]",
		},
		"all that is not a list rejects": {
			condition: `{"all":{"predicate":{"name":"riskIs","value":"low"}}}`,
			wantErr:   fault.ErrKindMismatch, wantPath: rule + ".all",
		},
		"a condition node that is not an object rejects": {
			condition: `{"any":["riskIs"]}`,
			wantErr:   fault.ErrKindMismatch, wantPath: rule + ".any[0]",
		},
		"null rejects as a kind the protocol does not have, as in arguments": {
			condition: `{"predicate":{"name":"riskIs","value":null}}`,
			wantErr:   fault.ErrKindMismatch, wantPath: rule,
		},
		"a tree nested beyond any valid condition depth rejects": {
			condition: strings.Repeat(`{"all":[`, 13) + `{"predicate":{"name":"riskIs","value":"low"}}` + strings.Repeat(`]}`, 13),
			wantErr:   fault.ErrLimitExceeded, wantPath: rule,
		},
		"a missing condition rejects": {
			condition: ``, wantErr: fault.ErrMissing, wantPath: rule,
		},
		"a valid nested tree converts": {
			condition: `{"all":[{"any":[{"predicate":{"name":"riskIs","value":"low"}}]},{"predicate":{"name":"delegationPresent"}}]}`,
		},
		"an unknown key in an argument predicate rejects at that predicate": {
			condition: `{"all":[{"argument":{"name":"pathWithin","tool":"t.w","version":"1","path":"/p","secretkey":"x"}}]}`,
			wantErr:   fault.ErrUnknownField, wantPath: rule + ".all[0].argument",
		},
		"a numeric argument operand rejects: numbers are strings": {
			condition: `{"argument":{"name":"integerAtMost","tool":"t.w","version":"1","path":"/n","value":5}}`,
			wantErr:   fault.ErrKindMismatch, wantPath: rule + ".argument.value",
		},
		"a host list that is not a list rejects": {
			condition: `{"argument":{"name":"urlIn","tool":"t.w","version":"1","path":"/u","schemes":["https"],"hosts":"a.example"}}`,
			wantErr:   fault.ErrKindMismatch, wantPath: rule + ".argument.hosts",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := manifest.PolicyDraft(policySpec(tc.condition))
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
			testutil.CheckNoEcho(t, err, "secret")
		})
	}
}

// TestEngineRejectsWhatTheAdapterPasses: the adapter checks only the JSON
// shape; which keys a node or predicate must have is judged by the engine,
// at the same path.
func TestEngineRejectsWhatTheAdapterPasses(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		condition string
		wantErr   error
		wantPath  string
	}{
		"an empty compound reaches the engine as empty, not absent": {
			condition: `{"all":[]}`, wantErr: fault.ErrMissing, wantPath: "spec.policies[0].rules[2].condition.all",
		},
		"an operand the predicate does not take": {
			condition: `{"predicate":{"name":"riskIs","value":"low","seconds":"5"}}`,
			wantErr:   fault.ErrUnknownField, wantPath: "spec.policies[0].rules[2].condition.predicate.seconds",
		},
	}
	b := boundary.New("test")
	h, err := authority.NewHostAuthority(b, authority.HostAuthorityDraft{ID: "h", Capabilities: []string{"data.read"}, Roles: []string{"policyAdministrationAuthority"}})
	if err != nil {
		t.Fatal(err)
	}
	admin, err := authority.Grant(b, h, vocab.PolicyAdministrationAuthority, "p")
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d, err := manifest.PolicyDraft(policySpec(tc.condition))
			if err != nil {
				t.Fatalf("PolicyDraft: %v", err)
			}
			_, err = policy.Publish(admin, d)
			testutil.CheckFault(t, fault.Within("spec", err), tc.wantErr, tc.wantPath)
		})
	}
}

// TestConditionDraftKeepsEveryOperand: the decoded draft carries exactly the
// declared operands, so the engine (not the adapter) judges them.
func TestConditionDraftKeepsEveryOperand(t *testing.T) {
	t.Parallel()
	got, err := manifest.ConditionDraft([]byte(`{"any":[` +
		`{"predicate":{"name":"n","identifier":"i","generation":"g","value":"v","values":["b","a"],"count":"c","seconds":"s"}},` +
		`{"all":[{"predicate":{"window":{"expiresAt":"3","notBefore":"2","issuedAt":"1"},"name":"w"}}]},` +
		`{"argument":{"hosts":["h"],"schemes":["https"],"root":"/r","scale":"2","values":["y"],"value":"x","path":"/p","version":"v","tool":"t","name":"a"}}]}`))
	if err != nil {
		t.Fatalf("ConditionDraft: %v", err)
	}
	want := policy.ConditionDraft{Any: []policy.ConditionDraft{
		{Predicate: &policy.PredicateDraft{Name: "n", Identifier: "i", Generation: "g", Value: "v", Values: []string{"b", "a"}, Count: "c", Seconds: "s"}},
		{All: []policy.ConditionDraft{{Predicate: &policy.PredicateDraft{Name: "w", Window: &policy.WindowDraft{IssuedAt: "1", NotBefore: "2", ExpiresAt: "3"}}}}},
		{Argument: &policy.ArgumentDraft{Name: "a", Tool: "t", Version: "v", Path: "/p", Value: "x", Values: []string{"y"}, Scale: "2",
			Root: "/r", Schemes: []string{"https"}, Hosts: []string{"h"}}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ConditionDraft (-want +got):\n%s", diff)
	}
}

const policyHeader = "apiVersion: stk.toolgate.dev/v1alpha1\nkind: PolicySnapshot\nmetadata: {name: p-1, namespace: ns}\n"

// policyDoc is a valid PolicySnapshot document whose only rule has the given
// condition and obligation lines.
func policyDoc(generation, condition, obligation string) string {
	return policyHeader + `spec:
  snapshotID: p
  snapshotGeneration: ` + generation + `
  hostAuthorityRef: {name: h}
  policies:
  - id: pol
    generation: "1"
    lifecycle: active
    rules:
    - id: r
      effect: allow
      reason: allowRuleMatched
      condition: ` + condition + `
      scope: {capabilities: [data.read]}
      obligations:
      - ` + obligation + "\n"
}

// TestPolicySnapshotYAMLIsStrict: the PolicySnapshot reader has the
// ToolRegistry reader's strictness; protocol numbers written as YAML
// numbers reject, in the typed fields at parse time and inside a condition
// tree at conversion, and nothing rejected is echoed.
func TestPolicySnapshotYAMLIsStrict(t *testing.T) {
	t.Parallel()
	const invalid = ": document 1: is not a valid PolicySnapshot document: "
	cases := map[string]struct {
		doc      string
		wantText string // a Parse rejection
		wantErr  error  // else a PolicyDraft rejection
		wantPath string
	}{
		"a valid document parses and converts": {
			doc: policyDoc(`"1"`, "{predicate: {name: maximumIntentAge, seconds: \"60\"}}", `{kind: maximumEvaluationAgeSeconds, seconds: "60"}`),
		},
		"an unquoted snapshot generation rejects": {
			doc:      policyDoc("1", "{predicate: {name: riskIs, value: low}}", "{kind: requireAuditEvent}"),
			wantText: invalid + "spec.snapshotGeneration: wrong value type",
		},
		"unquoted obligation seconds reject": {
			doc:      policyDoc(`"1"`, "{predicate: {name: riskIs, value: low}}", "{kind: maximumEvaluationAgeSeconds, seconds: 60}"),
			wantText: invalid + "spec.policies[0].rules[0].obligations[0].seconds: wrong value type",
		},
		"an unknown rule field rejects without echoing its name": {
			doc:      strings.Replace(policyDoc(`"1"`, "{predicate: {name: riskIs, value: low}}", "{kind: requireAuditEvent}"), "      effect: allow\n", "      effect: allow\n      secretfield: x\n", 1),
			wantText: invalid + "spec.policies[0].rules[0]: unknown field",
		},
		"a duplicate key inside a condition rejects at parse": {
			doc:      policyDoc(`"1"`, "{predicate: {name: riskIs, value: low, value: secret-value}}", "{kind: requireAuditEvent}"),
			wantText: invalid + "spec.policies[0].rules[0].condition.predicate: a key appears twice",
		},
		"unquoted predicate seconds reject at the operand": {
			doc:     policyDoc(`"1"`, "{predicate: {name: maximumIntentAge, seconds: 60}}", "{kind: requireAuditEvent}"),
			wantErr: fault.ErrKindMismatch, wantPath: "spec.policies[0].rules[0].condition.predicate.seconds",
		},
		"an unquoted predicate generation rejects at the operand": {
			doc:     policyDoc(`"1"`, "{predicate: {name: renewalGenerationIs, generation: 2}}", "{kind: requireAuditEvent}"),
			wantErr: fault.ErrKindMismatch, wantPath: "spec.policies[0].rules[0].condition.predicate.generation",
		},
		"a YAML boolean operand rejects": {
			doc:     policyDoc(`"1"`, "{predicate: {name: riskIs, value: true}}", "{kind: requireAuditEvent}"),
			wantErr: fault.ErrKindMismatch, wantPath: "spec.policies[0].rules[0].condition.predicate.value",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			set, err := manifest.Parse("f.yaml", []byte(tc.doc))
			if tc.wantText != "" {
				if err == nil {
					t.Fatalf("Parse accepted the document")
				}
				// f.yaml:LINE:COLUMN, then the path and the rule.
				if msg := err.Error(); !strings.HasPrefix(msg, "f.yaml:") || !strings.Contains(msg, tc.wantText) || strings.Contains(msg, "secret") {
					t.Errorf("error %q; want f.yaml:LINE:COLUMN and %q, nothing echoed", msg, tc.wantText)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			_, err = manifest.PolicyDraft(set.PolicySnapshots[0].Spec)
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
			testutil.CheckNoEcho(t, err, "secret")
		})
	}
}

func hostSpec(mod func(*v1alpha1.HostAuthoritySpec)) v1alpha1.HostAuthoritySpec {
	s := v1alpha1.HostAuthoritySpec{
		AuthorityID:  "payments-host",
		Capabilities: []v1alpha1.Capability{v1alpha1.CapabilityDataRead, v1alpha1.CapabilityFinancialTransfer},
		Resources:    []v1alpha1.LowerToken{"acct-1001"},
		Roles: []v1alpha1.RoleBinding{
			{Role: "policyAdministrationAuthority", Subjects: []v1alpha1.Subject{{Kind: "Group", Name: "admins"}}},
			{Role: "authenticationAuthority", Subjects: []v1alpha1.Subject{{Kind: "ServiceAccount", Name: "idp", Namespace: "auth"}}},
		},
		Executors:                       []v1alpha1.Subject{{Kind: "ServiceAccount", Name: "executor"}},
		MaxAuthorizationLifetimeSeconds: "300",
	}
	if mod != nil {
		mod(&s)
	}
	return s
}

// TestHostAuthorityConversion: declared roles are exactly the bound roles;
// the Kubernetes-only fields are checked here and engine rejections are
// located at the spec field, without echoing input.
func TestHostAuthorityConversion(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		mod      func(*v1alpha1.HostAuthoritySpec)
		wantErr  error
		wantPath string
	}{
		"a valid spec converts": {},
		"a role bound twice rejects": {
			mod: func(s *v1alpha1.HostAuthoritySpec) {
				s.Roles = append(s.Roles, v1alpha1.RoleBinding{Role: "policyAdministrationAuthority", Subjects: []v1alpha1.Subject{{Kind: "User", Name: "alice"}}})
			},
			wantErr: fault.ErrDuplicate, wantPath: "spec.roles[2].role",
		},
		"an unknown role rejects": {
			mod:     func(s *v1alpha1.HostAuthoritySpec) { s.Roles[1].Role = "secretRole" },
			wantErr: fault.ErrUnknownToken, wantPath: "spec.roles[1].role",
		},
		"a binding without subjects rejects": {
			mod:     func(s *v1alpha1.HostAuthoritySpec) { s.Roles[0].Subjects = nil },
			wantErr: fault.ErrMissing, wantPath: "spec.roles[0].subjects",
		},
		"no bindings declares no role and rejects": {
			mod:     func(s *v1alpha1.HostAuthoritySpec) { s.Roles = nil },
			wantErr: fault.ErrMissing, wantPath: "spec.roles",
		},
		"an unknown subject kind rejects": {
			mod:     func(s *v1alpha1.HostAuthoritySpec) { s.Roles[0].Subjects[0].Kind = "Robot" },
			wantErr: fault.ErrUnknownToken, wantPath: "spec.roles[0].subjects[0].kind",
		},
		"a namespace on a Group rejects": {
			mod:     func(s *v1alpha1.HostAuthoritySpec) { s.Roles[0].Subjects[0].Namespace = "payments" },
			wantErr: fault.ErrUnsupported, wantPath: "spec.roles[0].subjects[0].namespace",
		},
		"a subject name with a space rejects": {
			mod:     func(s *v1alpha1.HostAuthoritySpec) { s.Executors[0].Name = "secret value" },
			wantErr: fault.ErrMalformed, wantPath: "spec.executors[0].name",
		},
		"a duplicate executor rejects": {
			mod:     func(s *v1alpha1.HostAuthoritySpec) { s.Executors = append(s.Executors, s.Executors[0]) },
			wantErr: fault.ErrDuplicate, wantPath: "spec.executors[1]",
		},
		"a zero lifetime rejects": {
			mod:     func(s *v1alpha1.HostAuthoritySpec) { s.MaxAuthorizationLifetimeSeconds = "0" },
			wantErr: fault.ErrOutOfRange, wantPath: "spec.maxAuthorizationLifetimeSeconds",
		},
		"a lifetime beyond 3,600 seconds rejects": {
			mod:     func(s *v1alpha1.HostAuthoritySpec) { s.MaxAuthorizationLifetimeSeconds = "3601" },
			wantErr: fault.ErrOutOfRange, wantPath: "spec.maxAuthorizationLifetimeSeconds",
		},
		"a lifetime beyond 2^64 seconds rejects as out of range": {
			mod:     func(s *v1alpha1.HostAuthoritySpec) { s.MaxAuthorizationLifetimeSeconds = "18446744073709551616" },
			wantErr: fault.ErrOutOfRange, wantPath: "spec.maxAuthorizationLifetimeSeconds",
		},
		"a lifetime with a leading zero rejects": {
			mod:     func(s *v1alpha1.HostAuthoritySpec) { s.MaxAuthorizationLifetimeSeconds = "0300" },
			wantErr: fault.ErrMalformed, wantPath: "spec.maxAuthorizationLifetimeSeconds",
		},
		"a signed lifetime rejects": {
			mod:     func(s *v1alpha1.HostAuthoritySpec) { s.MaxAuthorizationLifetimeSeconds = "+300" },
			wantErr: fault.ErrMalformed, wantPath: "spec.maxAuthorizationLifetimeSeconds",
		},
		"a missing lifetime rejects": {
			mod:     func(s *v1alpha1.HostAuthoritySpec) { s.MaxAuthorizationLifetimeSeconds = "" },
			wantErr: fault.ErrMissing, wantPath: "spec.maxAuthorizationLifetimeSeconds",
		},
		"the largest lifetime is accepted": {
			mod: func(s *v1alpha1.HostAuthoritySpec) { s.MaxAuthorizationLifetimeSeconds = "3600" },
		},
		"an invalid authority identity rejects at authorityID": {
			mod:     func(s *v1alpha1.HostAuthoritySpec) { s.AuthorityID = "Secret-Value" },
			wantErr: fault.ErrMalformed, wantPath: "spec.authorityID",
		},
		"a capability outside the vocabulary rejects at its index": {
			mod:     func(s *v1alpha1.HostAuthoritySpec) { s.Capabilities[1] = "secret.capability" },
			wantErr: fault.ErrUnknownToken, wantPath: "spec.capabilities[1]",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h, err := newHostAuthority(boundary.New("test"), hostSpec(tc.mod))
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
			testutil.CheckNoEcho(t, err, "secret", "robot")
			if err == nil {
				want := []vocab.Role{vocab.AuthenticationAuthority, vocab.PolicyAdministrationAuthority}
				if diff := cmp.Diff(want, h.Roles()); diff != "" {
					t.Errorf("declared roles (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestDraftsReportEveryTreeViolation proves that converting a spec decodes
// every Schema and condition tree and reports all their violations at
// their spec paths, never a rejected value.
func TestDraftsReportEveryTreeViolation(t *testing.T) {
	t.Parallel()
	set, err := manifest.LoadPaths(filepath.Join("..", "..", "config", "samples"))
	if err != nil {
		t.Fatal(err)
	}
	ps := set.PolicySnapshots[1].Spec.DeepCopy()
	ps.Policies[0].Rules[1].Condition.Raw = []byte(`{"SECRET":1}`)
	ps.Policies[1].Rules[0].Condition.Raw = []byte(`[1]`)
	_, err = manifest.PolicyDraft(*ps)
	var got []string
	for _, e := range fault.All(err) {
		got = append(got, e.Path)
	}
	want := []string{"spec.policies[0].rules[1].condition", "spec.policies[1].rules[0].condition"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("policy violations (-want +got):\n%s", diff)
	}
	tr := set.ToolRegistries[0].Spec.DeepCopy()
	tr.Definitions[0].Schema.Root.Raw = []byte(`{"kind":"object","SECRET":1}`)
	tr.Definitions[2].Schema.Root.Raw = []byte(`"SECRET"`)
	_, err = manifest.RegistryDraft(*tr)
	got = nil
	for _, e := range fault.All(err) {
		got = append(got, e.Path)
	}
	want = []string{"spec.definitions[0].schema.root", "spec.definitions[2].schema.root"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("registry violations (-want +got):\n%s", diff)
	}
	testutil.CheckNoEcho(t, err, "SECRET")
}
