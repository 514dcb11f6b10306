package authz_test

// Same-identity content substitution (docs/conformance.md, "Same-identity
// substitution of every bound value"): for every bound value, a copy that
// differs only in content is rejected at issuance or at Validation. The
// other Validation tests are in validate_test.go.

import (
	"errors"
	"slices"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/authz"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/lineage"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/testutil"
)

// memoRequired changes the payments Schema content under the same Schema
// identity and version: memo becomes required. The default arguments set
// memo, so the same proposal still validates.
func memoRequired(s setup) setup {
	root := testutil.PaymentsRoot()
	root.Fields = slices.Clone(root.Fields)
	for i, f := range root.Fields {
		if f.Name == "memo" {
			root.Fields[i].Requirement = "required"
		}
	}
	s.Registry.Definitions = []registry.DefinitionDraft{
		testutil.PaymentsDefinition(testutil.WithSchema("payments-submit-args", root)),
		reportsDefinition(),
	}
	return s
}

// TestValidate_SameIdentitySubstitution is that conformance row: for every
// bound value, a substitute that keeps every identifier and differs only in
// content is rejected — at issuance when it is spliced into the Host's
// issuance request, and at Validation both when the substitute's own genuine
// artifact is presented against the Host's expectations and when the
// substitute is spliced into those expectations.
func TestValidate_SameIdentitySubstitution(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		base   func(setup) setup // optional: the original scenario
		change func(setup) setup
		// ids returns the identifiers the substitute must share.
		ids func(w *world) []string
	}{
		"registry snapshot (another definition's content)": {
			change: func(s setup) setup {
				s.Registry.Definitions = []registry.DefinitionDraft{
					testutil.PaymentsDefinition(),
					testutil.Definition("reports-list-1", "reports.list", "1",
						func(d *registry.DefinitionDraft) { d.Summary = "Lists the reports of one tenant." }),
				}
				return s
			},
			ids: func(w *world) []string { return []string{w.reg.ID().String(), w.reg.Generation().String()} },
		},
		"tool definition": {
			change: func(s setup) setup {
				s.Registry.Definitions = []registry.DefinitionDraft{
					testutil.PaymentsDefinition(func(d *registry.DefinitionDraft) { d.Summary = "Submits a payment." }),
					reportsDefinition(),
				}
				return s
			},
			ids: func(w *world) []string {
				d := w.req.Definition()
				return []string{d.ID().String(), d.ToolID().String(), d.Version().String()}
			},
		},
		"schema": {
			change: memoRequired,
			ids: func(w *world) []string {
				sc := w.req.Schema()
				return []string{sc.ID().String(), sc.Version().String()}
			},
		},
		"proposal assessment": {
			change: func(s setup) setup {
				s.Assessment.ProvenanceIDs = append(slices.Clone(s.Assessment.ProvenanceIDs), "prov-ledger")
				s.Records = append(slices.Clone(s.Records), lineage.RecordDraft{
					ID: "prov-ledger", Source: "applicationState", Custody: "custody-ledger", Verification: "hostVerified",
				})
				return s
			},
			ids: func(w *world) []string { return []string{w.asmt.ID().String(), w.asmt.ProposalID().String()} },
		},
		"intent": {
			change: func(s setup) setup { s.Intent.Display = "Pay invoice 2026-114 today"; return s },
			ids:    func(w *world) []string { return []string{w.intent.ID().String()} },
		},
		"security context": {
			change: func(s setup) setup {
				s.Context.Methods = append(slices.Clone(s.Context.Methods), "inherenceFactor")
				return s
			},
			ids: func(w *world) []string { return []string{w.sc.ID().String()} },
		},
		"delegation": {
			base:   withDelegation,
			change: func(s setup) setup { s.DelegationWindow.expiresAt--; return s },
			ids:    func(w *world) []string { return []string{w.deleg.ID().String(), w.deleg.Subject().String()} },
		},
		"provenance": {
			change: func(s setup) setup {
				s.Records = slices.Clone(s.Records)
				s.Records[1].Transformations = []string{"extracted", "redacted"}
				return s
			},
			ids: func(w *world) []string { return recordIDs(w.pv) },
		},
		"influence": {
			change: func(s setup) setup {
				s.Nodes = append(slices.Clone(s.Nodes), lineage.NodeDraft{ID: "n-calendar", Kind: "applicationState", Boundary: "chat-session"})
				return s
			},
			ids: func(w *world) []string { return collectionIDs(w.iv) },
		},
		"host authority": {
			change: func(s setup) setup {
				s.Host.Resources = append(slices.Clone(s.Host.Resources), "acct-5005")
				return s
			},
			ids: func(w *world) []string { return []string{w.host.ID().String()} },
		},
		"policy content": {
			change: func(s setup) setup {
				s.Policy.Policies = slices.Clone(s.Policy.Policies)
				s.Policy.Policies[0].Rules = append(slices.Clone(s.Policy.Policies[0].Rules),
					denyRule("zz-deny-substitute", "tenantMismatch", is("exactTenant", "umbrella")))
				return s
			},
			ids: policyIDs,
		},
		"freshness obligation mutated": {
			change: func(s setup) setup { s.Policy = realisticPolicy(singleUse(), maxAge(600)); return s },
			ids:    policyIDs,
		},
		"freshness obligation removed": {
			change: func(s setup) setup { s.Policy = realisticPolicy(singleUse()); return s },
			ids:    policyIDs,
		},
		"policy decision (same identity, outcome, scope, reasons and obligations; another selected version)": {
			base: func(s setup) setup {
				v2 := s.Policy.Policies[0]
				v2.Generation = "2"
				s.Policy.Policies = append(s.Policy.Policies, v2)
				return s
			},
			change: func(s setup) setup { s.PolicyGeneration = "2"; return s },
			ids:    func(w *world) []string { return []string{w.dec.ID().String(), w.dec.Outcome().String()} },
			// The IssueRequest's own Selection rejects a Decision made for
			// another active version of the same snapshot.
		},
		"effective scope": {
			change: func(s setup) setup { s.RequestedCapabilities = []string{"financial.transfer"}; return s },
			ids:    func(w *world) []string { return []string{w.s.AuthorizationID, w.dec.ID().String()} },
		},
		"principal identity (same subject and tenant, another session)": {
			change: func(s setup) setup {
				return withIdentity(s, principal.Draft{Subject: "alice", Tenant: "acme", Session: "session-2"})
			},
			ids: func(w *world) []string {
				id := w.in.Identity()
				return []string{id.Subject().String(), id.Tenant().String()}
			},
		},
		"issuance time": {
			change: func(s setup) setup { s.IssuedAt += 10; s.ExpiresAt += 10; return s },
			ids:    artifactIDs,
		},
		"expiry": {
			change: func(s setup) setup { s.ExpiresAt -= 10; return s },
			ids:    artifactIDs,
		},
		"maximum lifetime": {
			change: func(s setup) setup { s.MaxLifetime = 900; return s },
			ids:    artifactIDs,
		},
		"evaluation time": {
			change: func(s setup) setup { s.EvaluatedAt -= 10; return s },
			ids:    artifactIDs,
		},
		"renewal generation": {
			change: func(s setup) setup { s.Intent.RenewalGeneration = "2"; return s },
			ids:    artifactIDs,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := buildChanged(t, tc.base)
			alt := build(t, tc.change(w.s))
			diffStrings(t, "identifiers of the substitute", tc.ids(w), tc.ids(alt))
			diffStrings(t, "artifact identifiers of the substitute", artifactIDs(w), artifactIDs(alt))
			a, altA := w.issue(t), alt.issue(t)
			if a.Equal(altA) || a.Binding().Equal(altA.Binding()) {
				t.Fatal("the substitute's artifact is Equal to the original: the content difference is not bound")
			}
			rejected := 0

			// Issuance: splice every differing IssueRequest value.
			issueSplices := []struct {
				name   string
				differ bool
				apply  func(r *authz.IssueRequest)
			}{
				{"Input", !w.in.Equal(alt.in), func(r *authz.IssueRequest) { r.Input = alt.in }},
				{"Policy", !w.pol.Equal(alt.pol), func(r *authz.IssueRequest) { r.Policy = alt.pol }},
				{"Registry", !w.reg.Equal(alt.reg), func(r *authz.IssueRequest) { r.Registry = alt.reg }},
				{"Decision", !w.dec.Equal(alt.dec), func(r *authz.IssueRequest) { r.Decision = alt.dec }},
			}
			for _, sp := range issueSplices {
				if !sp.differ {
					continue
				}
				r := w.issueRequest()
				sp.apply(&r)
				got, err := authz.Issue(w.s.B, r)
				if err == nil || got != nil {
					t.Errorf("issuance accepted the substitute %s", sp.name)
				} else if !errors.Is(err, fault.ErrMismatch) {
					t.Errorf("issuance with the substitute %s: %v, want a mismatch", sp.name, err)
				}
				rejected++
			}

			// Validation: the substitute's own genuine artifact against the
			// Host's independent expectations.
			want := w.expect(t)
			at := timeAt(max(w.s.IssuedAt, alt.s.IssuedAt))
			if res, err := authz.Validate(w.s.B, altA, want, at); err == nil || res != nil {
				t.Error("Validation accepted the substitute artifact")
			} else if !errors.Is(err, fault.ErrMismatch) {
				t.Errorf("Validation of the substitute artifact: %v, want a mismatch", err)
			}

			// Validation: the original artifact against expectations with
			// each differing substitute value spliced in.
			altWant := alt.expect(t)
			for _, f := range ctxFields {
				if f.same(want, altWant) {
					continue
				}
				ctx := want
				splice(&ctx, altWant, f.name)
				res, err := authz.Validate(w.s.B, a, ctx, timeAt(w.s.IssuedAt))
				if res != nil {
					t.Errorf("Validation accepted the substitute %s", f.name)
				}
				checkFault(t, err, f.code, f.path)
				rejected++
			}
			if rejected == 0 {
				t.Fatal("the substitute differs in no issuance value and no expectation")
			}
		})
	}
}

func artifactIDs(w *world) []string {
	return []string{w.s.AuthorizationID, w.s.ReplayID, w.s.ConsumptionID}
}

func policyIDs(w *world) []string {
	d := w.dec.Policy()
	return []string{w.pol.ID().String(), w.pol.Generation().String(), d.ID().String(), d.Generation().String()}
}

func recordIDs(p *lineage.Provenance) []string {
	var out []string
	for _, r := range p.Records() {
		out = append(out, r.ID().String())
	}
	return out
}

func collectionIDs(v *lineage.Influence) []string {
	var out []string
	for _, c := range v.Collections() {
		out = append(out, c.Boundary().String())
	}
	return out
}
