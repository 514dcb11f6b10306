package authz_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/authz"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// TestAttackFromAnAuthorizationAlone replays, step by step, the escalation
// open to code that only ever receives an Authorization (an executor, a
// Consumption gate, an audit sink, a plugin): recover the Host Capability
// Boundary from the artifact, grant itself every role on the genuine
// ceiling, mint evidence for another subject, publish an allow-all policy,
// issue an Authorization for a Resource outside every ceiling and have it
// validate under the Host's retained boundary (Sections 13, 14, 29, 43).
// Every step is now impossible or rejected.
func TestAttackFromAnAuthorizationAlone(t *testing.T) {
	t.Parallel()
	genuine := boundary.New("payments host")
	w := build(t, base(genuine))
	a := w.issue(t) // all the attacker holds

	t.Run("the artifact yields a domain identity, not the boundary", func(t *testing.T) {
		got, want := reflect.TypeOf(a.Domain()), reflect.TypeFor[boundary.Boundary]()
		if got.AssignableTo(want) || got.ConvertibleTo(want) {
			t.Fatalf("Authorization.Domain() returns %v, which becomes a boundary.Boundary", got)
		}
		if !genuine.Holds(a.Domain()) {
			t.Fatal("the identity must still name the genuine domain, for comparison")
		}
	})

	t.Run("evidence yields a role identity, not a role authority", func(t *testing.T) {
		issuers := []authority.Issuer{
			a.Input().SecurityContext().Attestation().Issuer(),
			a.Input().Intent().Attestation().Issuer(),
			a.PolicySnapshot().Publisher(),
		}
		for _, iss := range issuers {
			if _, ok := reflect.TypeOf(iss).MethodByName("Attest"); ok {
				t.Errorf("%v can attest: a role authority leaks from evidence", reflect.TypeOf(iss))
			}
		}
	})

	host := a.Input().Host() // the genuine ceiling, public content
	forged := boundary.New(a.Domain().Description())
	t.Run("granting a role on the genuine ceiling", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			b    boundary.Boundary
			want error
		}{
			{"without a boundary", boundary.Boundary{}, fault.ErrMissing},
			{"with a fresh boundary of the same description", forged, fault.ErrMixedDomain},
		} {
			for _, role := range vocab.AllRole() {
				if _, err := authority.Grant(tc.b, host, role, "attacker"); !isFault(err, tc.want) {
					t.Errorf("%s, role %v: err = %v, want %v", tc.name, role, err, tc.want)
				}
			}
		}
	})

	// With nothing but public constructors, the attacker can build a
	// complete world of its own: a copy of the ceiling with an extra
	// Resource, every role, evidence for another subject, an allow-all
	// policy and an issued Authorization — all in its forged domain.
	s := base(forged)
	s.Host.Resources = append(s.Host.Resources, "acct-9999")
	mallory := principal.Draft{Subject: "mallory", Tenant: "acme", Session: "session-1"}
	s = withIdentity(s, mallory)
	s.Policy = policyWith(allowEverything())
	own := build(t, s)
	forgedAuthz := own.issue(t)

	t.Run("the forged world never mixes with the genuine one", func(t *testing.T) {
		d := own.f.Draft
		d.Request = a.Input().Request() // the genuine request, assessed in the genuine domain
		if _, err := evalinput.New(forged, d); !isFault(err, fault.ErrMixedDomain) {
			t.Errorf("evidence over the genuine request: err = %v, want MixedDomain", err)
		}
		if _, err := policy.Evaluate(a.Input(), own.pol, a.Decision().Selection(), "decision-x"); !isFault(err, fault.ErrMixedDomain) {
			t.Errorf("the allow-all policy over the genuine input: err = %v, want MixedDomain", err)
		}
		r := own.issueRequest()
		r.Input, r.Decision = a.Input(), a.Decision()
		if _, err := authz.Issue(forged, r); !isFault(err, fault.ErrMixedDomain) {
			t.Errorf("issuing over the genuine input: err = %v, want MixedDomain", err)
		}
	})

	t.Run("the Host's validation rejects the forged authorization", func(t *testing.T) {
		ctx := own.expect(t) // even expectations that match the forgery exactly
		if _, err := authz.Validate(genuine, forgedAuthz, ctx, timeAt(w.s.IssuedAt)); !isFault(err, fault.ErrMixedDomain) {
			t.Errorf("Validate under the genuine boundary: err = %v, want MixedDomain", err)
		}
		if _, err := authz.Validate(genuine, a, w.expect(t), timeAt(w.s.IssuedAt)); err != nil {
			t.Errorf("the genuine authorization must still validate: %v", err)
		}
	})
}

// allowEverything is the attacker's policy: allow any request of tenant
// acme with every Capability and every Resource its forged ceiling holds.
func allowEverything() policy.RuleDraft {
	var caps []string
	for _, c := range vocab.AllCapability() {
		caps = append(caps, c.String())
	}
	return policy.RuleDraft{
		ID: "allow-everything", Effect: "allow", Reason: "allowRuleMatched",
		Condition:   is("exactTenant", "acme"),
		Scope:       &policy.ScopeDraft{Capabilities: caps, Resources: []string{"acct-1001", "acct-2002", "acct-3003", "acct-4004", "acct-9999"}},
		Obligations: []policy.ObligationDraft{singleUse()},
	}
}

func isFault(err, want error) bool { return err != nil && errors.Is(err, want) }
