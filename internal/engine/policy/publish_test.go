package policy_test

import (
	"errors"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// fivePolicies is a valid draft of five policies; rejection tests break
// policies[1].rules[4] so that paths carry non-zero indices.
func fivePolicies() policy.SnapshotDraft {
	rules := func() []policy.RuleDraft {
		return []policy.RuleDraft{
			deny("r0", misses), deny("r1", misses), deny("r2", misses), deny("r3", misses),
			allow("r4", allOf(matches, misses, toolIs("a.b"))),
		}
	}
	d := policy.SnapshotDraft{ID: "snap", Generation: "1"}
	for _, id := range []string{"p0", "p1", "p2", "p3", "p4"} {
		d.Policies = append(d.Policies, policy.DefinitionDraft{ID: id, Generation: "1", Lifecycle: "active", Rules: rules()})
	}
	return d
}

func setPredicate(p policy.PredicateDraft) func(*policy.SnapshotDraft) {
	return func(d *policy.SnapshotDraft) { d.Policies[1].Rules[4].Condition.All[2] = pred(p) }
}

func setRule(f func(*policy.RuleDraft)) func(*policy.SnapshotDraft) {
	return func(d *policy.SnapshotDraft) { f(&d.Policies[1].Rules[4]) }
}

const (
	r4    = "policies[1].rules[4]"
	pred2 = r4 + ".condition.all[2].predicate"
)

// TestPublishRejects proves that publication is all-or-nothing and fails
// closed with a closed code and an exact path for every rule of Sections 19,
// 20, 27, 33 and 49: unsupported structure, invalid operands, empty or
// duplicate collections and children, invalid effects, reasons, scopes and
// obligations, and content outside the publisher's ceiling.
func TestPublishRejects(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		modify   func(*policy.SnapshotDraft)
		wantErr  error
		wantPath string
	}{
		"a malformed snapshot identity": {
			modify: func(d *policy.SnapshotDraft) { d.ID = "Snap" }, wantErr: fault.ErrMalformed, wantPath: "id"},
		"a snapshot generation with a leading zero": {
			modify: func(d *policy.SnapshotDraft) { d.Generation = "01" }, wantErr: fault.ErrMalformed, wantPath: "generation"},
		"initial publication at generation 2": {
			modify: func(d *policy.SnapshotDraft) { d.Generation = "2" }, wantErr: fault.ErrMismatch, wantPath: "generation"},
		"no policies": {
			modify: func(d *policy.SnapshotDraft) { d.Policies = nil }, wantErr: fault.ErrMissing, wantPath: "policies"},
		"a malformed policy identity": {
			modify: func(d *policy.SnapshotDraft) { d.Policies[1].ID = "p_1" }, wantErr: fault.ErrMalformed, wantPath: "policies[1].id"},
		"a zero policy generation": {
			modify: func(d *policy.SnapshotDraft) { d.Policies[1].Generation = "0" }, wantErr: fault.ErrMalformed, wantPath: "policies[1].generation"},
		"an unknown lifecycle": {
			modify: func(d *policy.SnapshotDraft) { d.Policies[1].Lifecycle = "archived" }, wantErr: fault.ErrUnknownToken, wantPath: "policies[1].lifecycle"},
		"a duplicate policy identity and generation": {
			modify: func(d *policy.SnapshotDraft) { d.Policies[3].ID = "p1" }, wantErr: fault.ErrDuplicate, wantPath: "policies[3]"},
		"a policy without rules": {
			modify: func(d *policy.SnapshotDraft) { d.Policies[1].Rules = nil }, wantErr: fault.ErrMissing, wantPath: "policies[1].rules"},
		"a duplicate rule identity": {
			modify: setRule(func(r *policy.RuleDraft) { r.ID = "r2" }), wantErr: fault.ErrDuplicate, wantPath: r4 + ".id"},
		"a malformed rule identity": {
			modify: setRule(func(r *policy.RuleDraft) { r.ID = "R4" }), wantErr: fault.ErrMalformed, wantPath: r4 + ".id"},
		"an unknown effect": {
			modify: setRule(func(r *policy.RuleDraft) { r.Effect = "permit" }), wantErr: fault.ErrUnknownToken, wantPath: r4 + ".effect"},
		"a free-text reason": {
			modify: setRule(func(r *policy.RuleDraft) { r.Reason = "because" }), wantErr: fault.ErrUnknownToken, wantPath: r4 + ".reason"},
		"an allow rule without a scope constraint": {
			modify: setRule(func(r *policy.RuleDraft) { r.Scope = nil }), wantErr: fault.ErrMissing, wantPath: r4 + ".scope"},
		"a requireConfirmation rule without a scope constraint": {
			modify: setRule(func(r *policy.RuleDraft) { r.Effect, r.Scope = "requireConfirmation", nil }), wantErr: fault.ErrMissing, wantPath: r4 + ".scope"},
		"a deny rule with a scope constraint": {
			modify: setRule(func(r *policy.RuleDraft) { r.Effect = "deny" }), wantErr: fault.ErrUnknownField, wantPath: r4 + ".scope"},
		"a duplicate constraint capability": {
			modify:  setRule(func(r *policy.RuleDraft) { r.Scope.Capabilities = []string{"data.read", "data.read"} }),
			wantErr: fault.ErrDuplicate, wantPath: r4 + ".scope.capabilities[1]"},
		"an unknown constraint capability": {
			modify:  setRule(func(r *policy.RuleDraft) { r.Scope.Capabilities = []string{"data.delete"} }),
			wantErr: fault.ErrUnknownToken, wantPath: r4 + ".scope.capabilities[0]"},
		"a duplicate constraint resource": {
			modify:  setRule(func(r *policy.RuleDraft) { r.Scope.Resources = []string{"acct-1", "acct-2", "acct-1"} }),
			wantErr: fault.ErrDuplicate, wantPath: r4 + ".scope.resources[2]"},
		"a malformed constraint resource": {
			modify:  setRule(func(r *policy.RuleDraft) { r.Scope.Resources = []string{"Acct"} }),
			wantErr: fault.ErrMalformed, wantPath: r4 + ".scope.resources[0]"},
		"a constraint resource outside the publisher's ceiling": {
			modify:  setRule(func(r *policy.RuleDraft) { r.Scope.Resources = []string{"acct-9"} }),
			wantErr: fault.ErrOutOfRange, wantPath: r4 + ".scope.resources[0]"},
		"a condition with no form": {
			modify: setRule(func(r *policy.RuleDraft) { r.Condition = policy.ConditionDraft{} }), wantErr: fault.ErrMissing, wantPath: r4 + ".condition"},
		"a condition with two forms": {
			modify:  setRule(func(r *policy.RuleDraft) { r.Condition.Any = []policy.ConditionDraft{matches} }),
			wantErr: fault.ErrMalformed, wantPath: r4 + ".condition"},
		"an empty all": {
			modify:  setRule(func(r *policy.RuleDraft) { r.Condition.All[1] = policy.ConditionDraft{All: []policy.ConditionDraft{}} }),
			wantErr: fault.ErrMissing, wantPath: r4 + ".condition.all[1].all"},
		"an empty any": {
			modify:  setRule(func(r *policy.RuleDraft) { r.Condition.All[1] = policy.ConditionDraft{Any: []policy.ConditionDraft{}} }),
			wantErr: fault.ErrMissing, wantPath: r4 + ".condition.all[1].any"},
		"duplicate compound children": {
			modify:  setRule(func(r *policy.RuleDraft) { r.Condition.All[2] = matches }),
			wantErr: fault.ErrDuplicate, wantPath: r4 + ".condition.all[2]"},
		"children duplicate only after normalization": {
			modify: setRule(func(r *policy.RuleDraft) {
				r.Condition.All[0] = pred(policy.PredicateDraft{Name: "assuranceIsOneOf", Values: []string{"multiFactor", "singleFactor"}})
				r.Condition.All[2] = pred(policy.PredicateDraft{Name: "assuranceIsOneOf", Values: []string{"singleFactor", "multiFactor"}})
			}),
			wantErr: fault.ErrDuplicate, wantPath: r4 + ".condition.all[2]"},
		"nested duplicates after child normalization": {
			modify: setRule(func(r *policy.RuleDraft) {
				r.Condition.All[0] = anyOf(matches, misses)
				r.Condition.All[2] = anyOf(misses, matches)
			}),
			wantErr: fault.ErrDuplicate, wantPath: r4 + ".condition.all[2]"},
		"an unknown predicate": {
			modify: setPredicate(policy.PredicateDraft{Name: "toolNameMatches", Identifier: "a.b"}), wantErr: fault.ErrUnknownToken, wantPath: pred2 + ".name"},
		"a collection operand on an identifier predicate": {
			modify:  setPredicate(policy.PredicateDraft{Name: "exactToolID", Identifier: "a.b", Values: []string{"a.b"}}),
			wantErr: fault.ErrUnknownField, wantPath: pred2 + ".values"},
		"an operand on a predicate without operands": {
			modify: setPredicate(policy.PredicateDraft{Name: "delegationPresent", Value: "yes"}), wantErr: fault.ErrUnknownField, wantPath: pred2 + ".value"},
		"a missing identifier operand": {
			modify: setPredicate(policy.PredicateDraft{Name: "exactSubject"}), wantErr: fault.ErrMissing, wantPath: pred2 + ".identifier"},
		"a missing generation of a registry pair": {
			modify:  setPredicate(policy.PredicateDraft{Name: "exactRegistrySnapshot", Identifier: "registry-main"}),
			wantErr: fault.ErrMissing, wantPath: pred2 + ".generation"},
		"00 takes the Tool Identifier grammar": {
			modify: setPredicate(policy.PredicateDraft{Name: "exactToolID", Identifier: "payments"}), wantErr: fault.ErrMalformed, wantPath: pred2 + ".identifier"},
		"02 takes the Tool Definition identity grammar": {
			modify: setPredicate(policy.PredicateDraft{Name: "exactDefinitionID", Identifier: "payments.submit"}), wantErr: fault.ErrMalformed, wantPath: pred2 + ".identifier"},
		"03 takes the Registry Snapshot identity grammar": {
			modify:  setPredicate(policy.PredicateDraft{Name: "exactRegistrySnapshot", Identifier: "registry.main", Generation: "1"}),
			wantErr: fault.ErrMalformed, wantPath: pred2 + ".identifier"},
		"08 takes the controlled identity grammar": {
			modify: setPredicate(policy.PredicateDraft{Name: "exactSubject", Identifier: "Alice"}), wantErr: fault.ErrMalformed, wantPath: pred2 + ".identifier"},
		"32 takes the controlled identity grammar": {
			modify: setPredicate(policy.PredicateDraft{Name: "exactInfluenceBoundary", Identifier: "web-"}), wantErr: fault.ErrMalformed, wantPath: pred2 + ".identifier"},
		"01 takes a canonical generation": {
			modify: setPredicate(policy.PredicateDraft{Name: "exactToolVersion", Generation: "+3"}), wantErr: fault.ErrMalformed, wantPath: pred2 + ".generation"},
		"a closed value outside its vocabulary": {
			modify: setPredicate(policy.PredicateDraft{Name: "riskIs", Value: "High"}), wantErr: fault.ErrUnknownToken, wantPath: pred2 + ".value"},
		"a value from another vocabulary": {
			modify: setPredicate(policy.PredicateDraft{Name: "influenceContainsKind", Value: "emailContent"}), wantErr: fault.ErrUnknownToken, wantPath: pred2 + ".value"},
		"an empty collection operand": {
			modify: setPredicate(policy.PredicateDraft{Name: "assuranceIsOneOf", Values: []string{}}), wantErr: fault.ErrMissing, wantPath: pred2 + ".values"},
		"a duplicate collection member": {
			modify:  setPredicate(policy.PredicateDraft{Name: "authenticationMethodsIncludeAll", Values: []string{"federated", "federated"}}),
			wantErr: fault.ErrDuplicate, wantPath: pred2 + ".values[1]"},
		"an unknown collection member": {
			modify:  setPredicate(policy.PredicateDraft{Name: "provenanceTrustIsOneOf", Values: []string{"trusted"}}),
			wantErr: fault.ErrUnknownToken, wantPath: pred2 + ".values[0]"},
		"a duplicate resource operand member": {
			modify:  setPredicate(policy.PredicateDraft{Name: "requestedResourcesInclude", Values: []string{"acct-1", "acct-1"}}),
			wantErr: fault.ErrDuplicate, wantPath: pred2 + ".values[1]"},
		"a resource operand outside the publisher's ceiling": {
			modify:  setPredicate(policy.PredicateDraft{Name: "requestedResourcesSubsetOf", Values: []string{"acct-1", "vault"}}),
			wantErr: fault.ErrOutOfRange, wantPath: pred2 + ".values[1]"},
		"an exact resource operand outside the publisher's ceiling": {
			modify: setPredicate(policy.PredicateDraft{Name: "exactRequestedResource", Identifier: "vault"}), wantErr: fault.ErrOutOfRange, wantPath: pred2 + ".identifier"},
		"a count with a leading zero": {
			modify: setPredicate(policy.PredicateDraft{Name: "maximumInfluenceCount", Count: "07"}), wantErr: fault.ErrMalformed, wantPath: pred2 + ".count"},
		"a count above 64": {
			modify: setPredicate(policy.PredicateDraft{Name: "maximumInfluenceCount", Count: "65"}), wantErr: fault.ErrOutOfRange, wantPath: pred2 + ".count"},
		"a negative age": {
			modify: setPredicate(policy.PredicateDraft{Name: "maximumIntentAge", Seconds: "-1"}), wantErr: fault.ErrMalformed, wantPath: pred2 + ".seconds"},
		"an age beyond 64 bits": {
			modify: setPredicate(policy.PredicateDraft{Name: "maximumContextAge", Seconds: "18446744073709551616"}), wantErr: fault.ErrOutOfRange, wantPath: pred2 + ".seconds"},
		"a missing window": {
			modify: setPredicate(policy.PredicateDraft{Name: "evaluationTimeWithin"}), wantErr: fault.ErrMissing, wantPath: pred2 + ".window"},
		"a window time beyond the explicit epoch maximum": {
			modify:  setPredicate(policy.PredicateDraft{Name: "evaluationTimeWithin", Window: &policy.WindowDraft{IssuedAt: "0", NotBefore: "1", ExpiresAt: "4102444801"}}),
			wantErr: fault.ErrOutOfRange, wantPath: pred2 + ".window.expiresAt"},
		"a window with an empty time": {
			modify:  setPredicate(policy.PredicateDraft{Name: "evaluationTimeWithin", Window: &policy.WindowDraft{NotBefore: "1", ExpiresAt: "2"}}),
			wantErr: fault.ErrMalformed, wantPath: pred2 + ".window.issuedAt"},
		"a window beginning before its issue time": {
			modify:  setPredicate(policy.PredicateDraft{Name: "evaluationTimeWithin", Window: &policy.WindowDraft{IssuedAt: "5", NotBefore: "4", ExpiresAt: "10"}}),
			wantErr: fault.ErrOutOfRange, wantPath: pred2 + ".window"},
		"an empty window": {
			modify:  setPredicate(policy.PredicateDraft{Name: "evaluationTimeWithin", Window: &policy.WindowDraft{IssuedAt: "4", NotBefore: "10", ExpiresAt: "10"}}),
			wantErr: fault.ErrOutOfRange, wantPath: pred2 + ".window"},
		"an unknown obligation": {
			modify:  setRule(func(r *policy.RuleDraft) { r.Obligations = []policy.ObligationDraft{{Kind: "requireApproval"}} }),
			wantErr: fault.ErrUnknownToken, wantPath: r4 + ".obligations[0].kind"},
		"seconds on an obligation that takes none": {
			modify: setRule(func(r *policy.RuleDraft) {
				r.Obligations = []policy.ObligationDraft{{Kind: "requireAuditEvent", Seconds: "5"}}
			}),
			wantErr: fault.ErrUnknownField, wantPath: r4 + ".obligations[0].seconds"},
		"a boundary on an obligation that takes none": {
			modify: setRule(func(r *policy.RuleDraft) {
				r.Obligations = []policy.ObligationDraft{{Kind: "maximumEvaluationAgeSeconds", Seconds: "5", Boundary: "inbox"}}
			}),
			wantErr: fault.ErrUnknownField, wantPath: r4 + ".obligations[0].boundary"},
		"a maximum evaluation age of zero": {
			modify: setRule(func(r *policy.RuleDraft) {
				r.Obligations = []policy.ObligationDraft{{Kind: "maximumEvaluationAgeSeconds", Seconds: "0"}}
			}),
			wantErr: fault.ErrOutOfRange, wantPath: r4 + ".obligations[0].seconds"},
		"a maximum evaluation age above 3600": {
			modify: setRule(func(r *policy.RuleDraft) {
				r.Obligations = []policy.ObligationDraft{{Kind: "maximumEvaluationAgeSeconds", Seconds: "3601"}}
			}),
			wantErr: fault.ErrOutOfRange, wantPath: r4 + ".obligations[0].seconds"},
		"a missing maximum evaluation age": {
			modify: setRule(func(r *policy.RuleDraft) {
				r.Obligations = []policy.ObligationDraft{{Kind: "maximumEvaluationAgeSeconds"}}
			}),
			wantErr: fault.ErrMalformed, wantPath: r4 + ".obligations[0].seconds"},
		"a malformed influence boundary obligation": {
			modify: setRule(func(r *policy.RuleDraft) {
				r.Obligations = []policy.ObligationDraft{{Kind: "requireCompleteInfluenceBoundary"}}
			}),
			wantErr: fault.ErrMalformed, wantPath: r4 + ".obligations[0].boundary"},
		"a duplicate obligation": {
			modify: setRule(func(r *policy.RuleDraft) {
				r.Obligations = []policy.ObligationDraft{{Kind: "requireAuditEvent"}, {Kind: "maximumEvaluationAgeSeconds", Seconds: "30"}, {Kind: "maximumEvaluationAgeSeconds", Seconds: "30"}}
			}),
			wantErr: fault.ErrDuplicate, wantPath: r4 + ".obligations[2]"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			d := fivePolicies()
			if _, err := policy.Publish(e.admin, d); err != nil {
				t.Fatalf("the unmodified draft must publish: %v", err)
			}
			tc.modify(&d)
			s, err := policy.Publish(e.admin, d)
			if s != nil {
				t.Errorf("a rejected publication returned a snapshot")
			}
			wantFault(t, err, tc.wantErr, tc.wantPath)
		})
	}
}

// TestPublishCeiling proves Section 19 "Policy content can only preserve or
// reduce authority": a Capability or Resource outside the publisher's Host
// Authority ceiling rejects, in constraints and in predicate operands.
func TestPublishCeiling(t *testing.T) {
	t.Parallel()
	b := boundary.New("narrow host")
	h := must(authority.NewHostAuthority(b, authority.HostAuthorityDraft{
		ID: "narrow", Capabilities: []string{"data.read"}, Resources: []string{"acct-1"}, Roles: []string{"policyAdministrationAuthority"},
	}))
	admin := must(authority.Grant(b, h, vocab.PolicyAdministrationAuthority, "policy-admin"))
	cases := map[string]struct {
		rule     policy.RuleDraft
		wantPath string
	}{
		"a constraint capability outside the ceiling": {
			rule: scoped(allow("r", matches), []string{"data.read", "financial.transfer"}, nil), wantPath: "policies[0].rules[0].scope.capabilities[1]"},
		"a constraint resource outside the ceiling": {
			rule: scoped(allow("r", matches), []string{"data.read"}, []string{"acct-2"}), wantPath: "policies[0].rules[0].scope.resources[0]"},
		"a capability operand outside the ceiling": {
			rule:     deny("r", pred(policy.PredicateDraft{Name: "requestedCapabilitiesInclude", Values: []string{"data.read", "resource.delete"}})),
			wantPath: "policies[0].rules[0].condition.predicate.values[1]"},
		"an intended capability operand outside the ceiling": {
			rule:     deny("r", pred(policy.PredicateDraft{Name: "intendedCapabilitiesInclude", Values: []string{"data.write"}})),
			wantPath: "policies[0].rules[0].condition.predicate.values[0]"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := policy.Publish(admin, snapshotOf(tc.rule))
			wantFault(t, err, fault.ErrOutOfRange, tc.wantPath)
		})
	}
	ok := scoped(allow("r", pred(policy.PredicateDraft{Name: "requestedCapabilitiesSubsetOf", Values: []string{"data.read"}})), []string{"data.read"}, []string{"acct-1"})
	if _, err := policy.Publish(admin, snapshotOf(ok)); err != nil {
		t.Errorf("content within the ceiling must publish: %v", err)
	}
}

// TestPublishRequiresPolicyAdministration proves the Section 19 role rule: a
// Role Authority of any other role, or none, cannot publish (role
// substitution), and the Snapshot binds the publisher and its domain.
func TestPublishRequiresPolicyAdministration(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	authn := must(authority.Grant(e.b, e.host, vocab.AuthenticationAuthority, "policy-admin"))
	for name, admin := range map[string]*authority.RoleAuthority{"another role": authn, "no role authority": nil} {
		_, err := policy.Publish(admin, snapshotOf(allow("r", matches)))
		if !errors.Is(err, fault.ErrUnauthorized) {
			t.Errorf("%s: error = %v, want unauthorized", name, err)
		}
		_, err = policy.PublishSuccessor(admin, e.publish(t, snapshotOf(allow("r", matches))), snapshotOf(allow("r", matches)))
		if !errors.Is(err, fault.ErrUnauthorized) {
			t.Errorf("%s successor: error = %v, want unauthorized", name, err)
		}
	}
	s := e.publish(t, snapshotOf(allow("r", matches)))
	if !s.Publisher().Equal(e.admin.Identity()) || !s.Domain().Same(e.b.Domain()) || s.ID().String() != "snap" || s.Generation().Uint64() != 1 {
		t.Errorf("snapshot does not bind its publisher, domain, identity and generation")
	}
}

// TestPolicyOrder proves the Section 50 order of Policy Definitions: identity
// ASCII order, then generation numeric order (10 after 9).
func TestPolicyOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rules := []policy.RuleDraft{allow("r", matches)}
	d := policy.SnapshotDraft{ID: "snap", Generation: "1"}
	for _, p := range [][2]string{{"b", "10"}, {"a-z", "1"}, {"b", "9"}, {"a", "2"}} {
		d.Policies = append(d.Policies, policy.DefinitionDraft{ID: p[0], Generation: p[1], Lifecycle: "active", Rules: rules})
	}
	s := e.publish(t, d)
	var got []string
	for i := range s.Len() {
		got = append(got, s.Policy(i).ID().String()+"/"+s.Policy(i).Generation().String())
	}
	want := []string{"a/2", "a-z/1", "b/9", "b/10"}
	if len(got) != len(want) {
		t.Fatalf("order = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("order = %v, want %v", got, want)
		}
	}
}
