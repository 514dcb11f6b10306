package authz_test

// Validation (Sections 29–32) and the Validation rows of the Section 33
// failure table, including same-identity content substitution.

import (
	"reflect"
	"slices"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/authz"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/confirm"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// ctxField describes one field of authz.ValidationContext: the fault a
// mismatch in it reports and how two expectations compare on it.
type ctxField struct {
	name string // Go field name
	path string
	code error
	same func(a, b authz.ValidationContext) bool
}

// ctxFields lists every field of authz.ValidationContext, in declaration
// order (TestValidate_EveryExpectationIsCovered keeps it complete).
var ctxFields = []ctxField{
	{"AuthorizationID", "authorizationID", fault.ErrMismatch, func(a, b authz.ValidationContext) bool { return a.AuthorizationID == b.AuthorizationID }},
	{"Version", "version", fault.ErrUnsupported, func(a, b authz.ValidationContext) bool { return a.Version == b.Version }},
	{"Generation", "generation", fault.ErrMismatch, func(a, b authz.ValidationContext) bool { return a.Generation == b.Generation }},
	{"Decision", "decision", fault.ErrMismatch, func(a, b authz.ValidationContext) bool { return a.Decision.Equal(b.Decision) }},
	{"Input", "input", fault.ErrMismatch, func(a, b authz.ValidationContext) bool { return a.Input.Equal(b.Input) }},
	{"Request", "request", fault.ErrMismatch, func(a, b authz.ValidationContext) bool { return a.Request.Equal(b.Request) }},
	{"Definition", "definition", fault.ErrMismatch, func(a, b authz.ValidationContext) bool {
		return a.Definition.Equal(b.Definition)
	}},
	{"Registry", "registry", fault.ErrMismatch, func(a, b authz.ValidationContext) bool { return a.Registry.Equal(b.Registry) }},
	{"Policy", "policy", fault.ErrMismatch, func(a, b authz.ValidationContext) bool { return a.Policy.Equal(b.Policy) }},
	{"Identity", "identity", fault.ErrMismatch, func(a, b authz.ValidationContext) bool { return a.Identity.Equal(b.Identity) }},
	{"Capabilities", "capabilities", fault.ErrMismatch, func(a, b authz.ValidationContext) bool { return slices.Equal(a.Capabilities, b.Capabilities) }},
	{"Resources", "resources", fault.ErrMismatch, func(a, b authz.ValidationContext) bool { return slices.Equal(a.Resources, b.Resources) }},
	{"IssuedAt", "issuedAt", fault.ErrMismatch, func(a, b authz.ValidationContext) bool { return a.IssuedAt == b.IssuedAt }},
	{"ExpiresAt", "expiresAt", fault.ErrMismatch, func(a, b authz.ValidationContext) bool { return a.ExpiresAt == b.ExpiresAt }},
	{"MaxLifetime", "maxLifetime", fault.ErrMismatch, func(a, b authz.ValidationContext) bool { return a.MaxLifetime == b.MaxLifetime }},
	{"ReplayID", "replayID", fault.ErrMismatch, func(a, b authz.ValidationContext) bool { return a.ReplayID == b.ReplayID }},
	{"ConsumptionID", "consumptionID", fault.ErrMismatch, func(a, b authz.ValidationContext) bool { return a.ConsumptionID == b.ConsumptionID }},
	{"Confirmed", "confirmed", fault.ErrMismatch, func(a, b authz.ValidationContext) bool { return a.Confirmed == b.Confirmed }},
}

// splice copies one named field from src into dst.
func splice(dst *authz.ValidationContext, src authz.ValidationContext, field string) {
	reflect.ValueOf(dst).Elem().FieldByName(field).Set(reflect.ValueOf(src).FieldByName(field))
}

// expectationMutations returns, for every field of w's Validation Context,
// a change to a different but well-formed expectation: a genuine controlled
// value that is not the one bound, or a different scalar.
func expectationMutations(tb testing.TB, w *world) map[string]func(*authz.ValidationContext) {
	tb.Helper()
	altDecision := w.evaluate(tb, w.in, w.pol, "decision-other")
	altInput := w.shiftedInput(tb)
	altRequest := w.otherAssessmentRequest(tb)
	var altDefinition *registry.Definition
	for i := range w.reg.Len() {
		if d := w.reg.Definition(i); !d.Equal(w.req.Definition()) {
			altDefinition = d
			break
		}
	}
	next := w.s.Registry
	next.Generation = "2"
	altRegistry := testutil.Publish(tb, next)
	altPolicy := samePolicyIDsOtherContent(tb, w)
	otherSession := w.s.Context.Identity
	otherSession.Session, otherSession.SessionIndependent = otherSession.Session+"-other", false
	altIdentity, err := principal.New(otherSession)
	if err != nil {
		tb.Fatalf("principal.New: %v", err)
	}
	later := func(t epoch.Time) epoch.Time { return timeAt(t.Seconds() + 1) }
	return map[string]func(*authz.ValidationContext){
		"AuthorizationID": func(c *authz.ValidationContext) { c.AuthorizationID += "-other" },
		"Version":         func(c *authz.ValidationContext) { c.Version = vocab.V1 + 1 },
		"Generation":      func(c *authz.ValidationContext) { c.Generation = generation(tb, c.Generation.Uint64()+1) },
		"Decision":        func(c *authz.ValidationContext) { c.Decision = altDecision },
		"Input":           func(c *authz.ValidationContext) { c.Input = altInput },
		"Request":         func(c *authz.ValidationContext) { c.Request = altRequest },
		"Definition":      func(c *authz.ValidationContext) { c.Definition = altDefinition },
		"Registry":        func(c *authz.ValidationContext) { c.Registry = altRegistry },
		"Policy":          func(c *authz.ValidationContext) { c.Policy = altPolicy },
		"Identity":        func(c *authz.ValidationContext) { c.Identity = altIdentity },
		"Capabilities":    func(c *authz.ValidationContext) { c.Capabilities = widened(c.Capabilities) },
		"Resources": func(c *authz.ValidationContext) {
			c.Resources = append(slices.Clone(c.Resources), parseResources(tb, []string{"acct-9999"})...)
		},
		"IssuedAt":      func(c *authz.ValidationContext) { c.IssuedAt = later(c.IssuedAt) },
		"ExpiresAt":     func(c *authz.ValidationContext) { c.ExpiresAt = later(c.ExpiresAt) },
		"MaxLifetime":   func(c *authz.ValidationContext) { c.MaxLifetime++ },
		"ReplayID":      func(c *authz.ValidationContext) { c.ReplayID += "-other" },
		"ConsumptionID": func(c *authz.ValidationContext) { c.ConsumptionID += "-other" },
		// A confirmation expected for a Phase 1–6 Authorization: one of no
		// domain, which satisfies no Decision.
		"Confirmed": func(c *authz.ValidationContext) { c.Confirmed = new(confirm.Confirmed) },
	}
}

// widened adds the first Capability not in cs (an escalation attempt), or
// drops one when cs already holds all of them.
func widened(cs []vocab.Capability) []vocab.Capability {
	for _, c := range vocab.AllCapability() {
		if !slices.Contains(cs, c) {
			out := append(slices.Clone(cs), c)
			slices.Sort(out)
			return out
		}
	}
	return slices.Clone(cs[1:])
}

// shiftedInput is w's Evaluation Input again, from the same evidence, at an
// evaluation time one second later (or earlier, at the window's end).
func (w *world) shiftedInput(tb testing.TB) *evalinput.Input {
	tb.Helper()
	for _, s := range []uint64{w.s.EvaluatedAt + 1, w.s.EvaluatedAt - 1} {
		if in, err := w.inputAt(s); err == nil {
			return in
		}
	}
	tb.Fatal("no evaluation time next to the scenario's is valid")
	return nil
}

// inputAt builds w's Evaluation Input from w's evidence at time s.
func (w *world) inputAt(s uint64) (*evalinput.Input, error) {
	d := w.f.Draft
	d.EvaluationTime = timeAt(s)
	return evalinput.New(w.s.B, d)
}

// otherAssessmentRequest is the Canonical Request for w's exact proposal
// under another Host assessment: identical canonicalization-v1 bytes,
// different complete request.
func (w *world) otherAssessmentRequest(tb testing.TB) *request.CanonicalRequest {
	tb.Helper()
	d := w.s.Assessment
	d.AssessmentID = "assessment-other"
	a, err := assessment.New(w.s.B, d)
	if err != nil {
		tb.Fatalf("assessment.New: %v", err)
	}
	r, err := request.New(w.reg, w.s.Proposal, a)
	if err != nil {
		tb.Fatalf("request.New: %v", err)
	}
	return r
}

// TestValidate_EveryExpectationIsCovered keeps ctxFields and
// expectationMutations complete: every field of ValidationContext has a
// comparison, a fault path and a mutation, so a field added later cannot
// silently escape the mutation tests.
func TestValidate_EveryExpectationIsCovered(t *testing.T) {
	t.Parallel()
	w := build(t, base(boundary.New("payments host")))
	muts := expectationMutations(t, w)
	typ := reflect.TypeFor[authz.ValidationContext]()
	var names []string
	for i := range typ.NumField() {
		names = append(names, typ.Field(i).Name)
	}
	var listed []string
	for _, f := range ctxFields {
		listed = append(listed, f.name)
		if muts[f.name] == nil {
			t.Errorf("no mutation for ValidationContext.%s", f.name)
		}
	}
	diffStrings(t, "ValidationContext fields covered by ctxFields", names, listed)
	if len(muts) != len(names) {
		t.Errorf("%d mutations for %d fields", len(muts), len(names))
	}
}

// TestValidate_Section30Checks has one row per Validation check of Section
// 30 that an independent expectation, the boundary or the explicit time can
// violate. Each row changes exactly one thing relative to the Host's exact
// independent expectations.
func TestValidate_Section30Checks(t *testing.T) {
	t.Parallel()
	w := build(t, withDelegation(base(boundary.New("payments host"))))
	a := w.issue(t)
	muts := expectationMutations(t, w)
	identity := func(change func(*principal.Draft)) func(*authz.ValidationContext) {
		return func(c *authz.ValidationContext) {
			d := w.s.Context.Identity
			change(&d)
			id, err := principal.New(d)
			if err != nil {
				t.Fatalf("principal.New: %v", err)
			}
			c.Identity = id
		}
	}
	issued, expires := w.s.IssuedAt, w.s.ExpiresAt
	tests := map[string]struct {
		boundary func() boundary.Boundary
		artifact func() *authz.Authorization
		mutate   func(*authz.ValidationContext)
		at       uint64 // 0: the issuance time
		wantErr  error
		wantPath string
	}{
		"the exact independent expectations validate": {},

		"bound to the retained boundary: another host's boundary rejects": {
			boundary: func() boundary.Boundary { return boundary.New("payments host") },
			wantErr:  fault.ErrMixedDomain, wantPath: "domain",
		},
		"bound to the retained boundary: no boundary rejects": {
			boundary: func() boundary.Boundary { return boundary.Boundary{} },
			wantErr:  fault.ErrMissing, wantPath: "domain",
		},
		"an artifact is required": {
			artifact: func() *authz.Authorization { return nil },
			wantErr:  fault.ErrMissing, wantPath: "authorization",
		},
		"an arbitrarily constructed artifact never validates": {
			artifact: func() *authz.Authorization { return &authz.Authorization{} },
			wantErr:  fault.ErrMixedDomain, wantPath: "domain",
		},

		"exact Authorization identity":     {mutate: muts["AuthorizationID"], wantErr: fault.ErrMismatch, wantPath: "authorizationID"},
		"exact version: v2 is unsupported": {mutate: muts["Version"], wantErr: fault.ErrUnsupported, wantPath: "version"},
		"exact version: version 0 is unsupported": {
			mutate:  func(c *authz.ValidationContext) { c.Version = 0 },
			wantErr: fault.ErrUnsupported, wantPath: "version",
		},
		"exact renewal-bound generation": {mutate: muts["Generation"], wantErr: fault.ErrMismatch, wantPath: "generation"},
		"exact Policy Decision":          {mutate: muts["Decision"], wantErr: fault.ErrMismatch, wantPath: "decision"},
		"exact Evaluation Input":         {mutate: muts["Input"], wantErr: fault.ErrMismatch, wantPath: "input"},
		"exact Canonical Request":        {mutate: muts["Request"], wantErr: fault.ErrMismatch, wantPath: "request"},
		"exact Tool Definition":          {mutate: muts["Definition"], wantErr: fault.ErrMismatch, wantPath: "definition"},
		"exact Registry Snapshot":        {mutate: muts["Registry"], wantErr: fault.ErrMismatch, wantPath: "registry"},
		"exact Policy Snapshot":          {mutate: muts["Policy"], wantErr: fault.ErrMismatch, wantPath: "policy"},
		"exact subject": {
			mutate:  identity(func(d *principal.Draft) { d.Subject = "bob" }),
			wantErr: fault.ErrMismatch, wantPath: "identity",
		},
		"exact tenant": {
			mutate:  identity(func(d *principal.Draft) { d.Tenant = "globex" }),
			wantErr: fault.ErrMismatch, wantPath: "identity",
		},
		"exact tenant: absence of a tenant is not a wildcard": {
			mutate:  identity(func(d *principal.Draft) { d.Tenant = "" }),
			wantErr: fault.ErrMismatch, wantPath: "identity",
		},
		"exact session": {mutate: muts["Identity"], wantErr: fault.ErrMismatch, wantPath: "identity"},
		"exact session: session independence is not a wildcard": {
			mutate:  identity(func(d *principal.Draft) { d.Session, d.SessionIndependent = "", true }),
			wantErr: fault.ErrMismatch, wantPath: "identity",
		},
		"exact delegation": {
			mutate:  identity(func(d *principal.Draft) { d.Delegation = "deleg-2" }),
			wantErr: fault.ErrMismatch, wantPath: "identity",
		},
		"exact delegation: no delegation is not the bound delegation": {
			mutate:  identity(func(d *principal.Draft) { d.Delegation = "" }),
			wantErr: fault.ErrMismatch, wantPath: "identity",
		},
		"exact effective Capabilities: a broader expectation": {
			mutate: muts["Capabilities"], wantErr: fault.ErrMismatch, wantPath: "capabilities",
		},
		"exact effective Capabilities: a narrower expectation": {
			mutate:  func(c *authz.ValidationContext) { c.Capabilities = c.Capabilities[1:] },
			wantErr: fault.ErrMismatch, wantPath: "capabilities",
		},
		"exact effective Resources: a broader expectation": {
			mutate: muts["Resources"], wantErr: fault.ErrMismatch, wantPath: "resources",
		},
		"exact effective Resources: a narrower expectation": {
			mutate:  func(c *authz.ValidationContext) { c.Resources = c.Resources[:1] },
			wantErr: fault.ErrMismatch, wantPath: "resources",
		},
		"exact effective Resources: no resource is not a wildcard": {
			mutate:  func(c *authz.ValidationContext) { c.Resources = nil },
			wantErr: fault.ErrMismatch, wantPath: "resources",
		},
		"exact issuance time":    {mutate: muts["IssuedAt"], wantErr: fault.ErrMismatch, wantPath: "issuedAt"},
		"exact expiry":           {mutate: muts["ExpiresAt"], wantErr: fault.ErrMismatch, wantPath: "expiresAt"},
		"exact maximum lifetime": {mutate: muts["MaxLifetime"], wantErr: fault.ErrMismatch, wantPath: "maxLifetime"},
		"exact replay identity":  {mutate: muts["ReplayID"], wantErr: fault.ErrMismatch, wantPath: "replayID"},
		"exact future Consumption identity": {
			mutate: muts["ConsumptionID"], wantErr: fault.ErrMismatch, wantPath: "consumptionID",
		},

		"an absent expected decision never matches": {
			mutate:  func(c *authz.ValidationContext) { c.Decision = nil },
			wantErr: fault.ErrMismatch, wantPath: "decision",
		},
		"an absent expected input never matches": {
			mutate:  func(c *authz.ValidationContext) { c.Input = nil },
			wantErr: fault.ErrMismatch, wantPath: "input",
		},
		"an absent expected request never matches": {
			mutate:  func(c *authz.ValidationContext) { c.Request = nil },
			wantErr: fault.ErrMismatch, wantPath: "request",
		},
		"an absent expected definition never matches": {
			mutate:  func(c *authz.ValidationContext) { c.Definition = nil },
			wantErr: fault.ErrMismatch, wantPath: "definition",
		},
		"an absent expected registry never matches": {
			mutate:  func(c *authz.ValidationContext) { c.Registry = nil },
			wantErr: fault.ErrMismatch, wantPath: "registry",
		},
		"an absent expected policy never matches": {
			mutate:  func(c *authz.ValidationContext) { c.Policy = nil },
			wantErr: fault.ErrMismatch, wantPath: "policy",
		},
		"an absent expected identity never matches": {
			mutate:  func(c *authz.ValidationContext) { c.Identity = principal.Identity{} },
			wantErr: fault.ErrMismatch, wantPath: "identity",
		},
		"the zero context is no expectation": {
			mutate:  func(c *authz.ValidationContext) { *c = authz.ValidationContext{} },
			wantErr: fault.ErrUnsupported, wantPath: "version",
		},

		"inclusive issuance: exactly at issuance validates": {at: issued},
		"inclusive issuance: one second before issuance rejects": {
			at: issued - 1, wantErr: fault.ErrExpired, wantPath: "validationTime",
		},
		"exclusive expiry: one second before expiry validates": {at: expires - 1},
		"exclusive expiry: exactly at expiry rejects": {
			at: expires, wantErr: fault.ErrExpired, wantPath: "validationTime",
		},
		"exclusive expiry: after expiry rejects": {
			at: expires + 1000, wantErr: fault.ErrExpired, wantPath: "validationTime",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, art, ctx, at := w.s.B, a, w.expect(t), issued
			if tc.boundary != nil {
				b = tc.boundary()
			}
			if tc.artifact != nil {
				art = tc.artifact()
			}
			if tc.mutate != nil {
				tc.mutate(&ctx)
			}
			if tc.at != 0 {
				at = tc.at
			}
			res, err := authz.Validate(b, art, ctx, timeAt(at))
			checkFault(t, err, tc.wantErr, tc.wantPath)
			switch {
			case tc.wantErr != nil && res != nil:
				t.Error("a failed Validation returned a result (partial success)")
			case tc.wantErr == nil && (res == nil || !res.Binding().Equal(a.Binding())):
				t.Error("a successful Validation must return the artifact's exact Consumption Binding")
			}
		})
	}
}

// TestValidate_FailureTable has one row per Section 33 failure that
// applies to Validation. Each row presents the Host with a genuine,
// controlled artifact that differs from what the Host independently expects
// (the substitution an attacker can actually make: another artifact), and
// validates it against the Host's exact expectations.
func TestValidate_FailureTable(t *testing.T) {
	t.Parallel()
	b := boundary.New("payments host")
	w := build(t, base(b))
	original := w.issue(t)
	tests := map[string]struct {
		boundary boundary.Boundary // default b
		change   func(setup) setup // the substitute artifact's setup
		at       uint64            // 0: the issuance time
		wantErr  error
		wantPath string
	}{
		"Authorization identity mismatch": {
			change:  func(s setup) setup { s.AuthorizationID = "authz-2"; return s },
			wantErr: fault.ErrMismatch, wantPath: "authorizationID",
		},
		"Request substitution": {
			change: func(s setup) setup {
				s.Proposal.Arguments = []byte(`{"currency":"eur","amount":99999,"debtor-account":"acct-2002","creditor-account":"acct-1001"}`)
				return s
			},
			wantErr: fault.ErrMismatch, wantPath: "decision",
		},
		"Proposal Assessment substitution": {
			change:  func(s setup) setup { s.Assessment.AssessmentID = "assessment-2"; return s },
			wantErr: fault.ErrMismatch, wantPath: "decision",
		},
		"Tool substitution": {
			change:  reports,
			wantErr: fault.ErrMismatch, wantPath: "decision",
		},
		"Registry substitution": {
			change:  func(s setup) setup { s.Registry.Generation = "2"; return s },
			wantErr: fault.ErrMismatch, wantPath: "decision",
		},
		"Schema substitution": {
			change:  memoRequired,
			wantErr: fault.ErrMismatch, wantPath: "decision",
		},
		"Intent substitution": {
			change:  func(s setup) setup { s.Intent.ID = "intent-2"; return s },
			wantErr: fault.ErrMismatch, wantPath: "decision",
		},
		"identity substitution": {
			change: func(s setup) setup {
				return withIdentity(s, principal.Draft{Subject: "alice", Tenant: "acme", Session: "session-2"})
			},
			wantErr: fault.ErrMismatch, wantPath: "decision",
		},
		"Policy substitution": {
			change: func(s setup) setup {
				s.Policy.ID = "payments-policy-2"
				return s
			},
			wantErr: fault.ErrMismatch, wantPath: "decision",
		},
		"Policy Decision substitution": {
			change:  func(s setup) setup { s.DecisionID = "decision-2"; return s },
			wantErr: fault.ErrMismatch, wantPath: "decision",
		},
		"Capability substitution": {
			change:  func(s setup) setup { s.RequestedCapabilities = []string{"financial.transfer"}; return s },
			wantErr: fault.ErrMismatch, wantPath: "decision",
		},
		"Resource substitution": {
			change: func(s setup) setup {
				s.Proposal.Arguments = []byte(`{"currency":"eur","amount":12500,"debtor-account":"acct-2002","creditor-account":"acct-3003"}`)
				s.Intent.Resources = []string{"acct-2002", "acct-3003"}
				s.RequestedResources = []string{"acct-2002", "acct-3003"}
				return s
			},
			wantErr: fault.ErrMismatch, wantPath: "decision",
		},
		"Replay identity substitution": {
			change:  func(s setup) setup { s.ReplayID = "replay-2"; return s },
			wantErr: fault.ErrMismatch, wantPath: "replayID",
		},
		"Consumption identity substitution": {
			change:  func(s setup) setup { s.ConsumptionID = "consumption-2"; return s },
			wantErr: fault.ErrMismatch, wantPath: "consumptionID",
		},
		"Complete Consumption Binding substitution: only the lifetime differs": {
			change:  func(s setup) setup { s.MaxLifetime = 900; return s },
			wantErr: fault.ErrMismatch, wantPath: "maxLifetime",
		},
		"Complete Consumption Binding substitution: only the expiry differs": {
			change:  func(s setup) setup { s.ExpiresAt--; return s },
			wantErr: fault.ErrMismatch, wantPath: "expiresAt",
		},
		"Validation before issuance": {
			change: func(s setup) setup { return s }, at: evaluatedAt - 1,
			wantErr: fault.ErrExpired, wantPath: "validationTime",
		},
		"Validation at expiry": {
			change: func(s setup) setup { return s }, at: evaluatedAt + defaultLifetime,
			wantErr: fault.ErrExpired, wantPath: "validationTime",
		},
		"Validation after expiry": {
			change: func(s setup) setup { return s }, at: windowEnd,
			wantErr: fault.ErrExpired, wantPath: "validationTime",
		},
		"Mixed Host authority domains: an identical artifact of another host": {
			boundary: boundary.New("payments host"),
			change:   func(s setup) setup { return s },
			wantErr:  fault.ErrMixedDomain, wantPath: "domain",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := base(b)
			if !tc.boundary.IsZero() {
				s.B = tc.boundary
			}
			substitute := build(t, tc.change(s)).issue(t)
			at := uint64(evaluatedAt)
			if tc.at != 0 {
				at = tc.at
			}
			res, err := authz.Validate(b, substitute, w.expect(t), timeAt(at))
			checkFault(t, err, tc.wantErr, tc.wantPath)
			if res != nil {
				t.Error("a failed Validation returned a result")
			}
			if tc.wantErr != fault.ErrExpired && substitute.Equal(original) {
				t.Error("the substitute is Equal to the original artifact")
			}
		})
	}
}

// TestValidate_ExpectedScopeIsASet: the executor's expected Capabilities
// and Resources are sets. Any order validates, so a Host never needs to
// copy the artifact's order; a duplicate rejects at its index.
func TestValidate_ExpectedScopeIsASet(t *testing.T) {
	t.Parallel()
	w := build(t, base(boundary.New("host")))
	a := w.issue(t)
	at := timeAt(w.s.IssuedAt)
	tests := map[string]struct {
		mutate   func(*authz.ValidationContext)
		wantErr  error
		wantPath string
	}{
		"capabilities in reverse order": {mutate: func(c *authz.ValidationContext) { slices.Reverse(c.Capabilities) }},
		"resources in reverse order":    {mutate: func(c *authz.ValidationContext) { slices.Reverse(c.Resources) }},
		"a capability listed twice": {
			mutate:  func(c *authz.ValidationContext) { c.Capabilities = append(c.Capabilities, c.Capabilities[0]) },
			wantErr: fault.ErrDuplicate, wantPath: "capabilities[2]",
		},
		"a resource listed twice": {
			mutate: func(c *authz.ValidationContext) {
				c.Resources = append([]ident.Resource{c.Resources[1]}, c.Resources...)
			},
			wantErr: fault.ErrDuplicate, wantPath: "resources[2]",
		},
		"a capability missing": {
			mutate:  func(c *authz.ValidationContext) { c.Capabilities = c.Capabilities[:1] },
			wantErr: fault.ErrMismatch, wantPath: "capabilities",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := w.expect(t)
			if len(ctx.Capabilities) != 2 || len(ctx.Resources) != 2 {
				t.Fatalf("the scenario expects 2 capabilities and 2 resources, got %d and %d", len(ctx.Capabilities), len(ctx.Resources))
			}
			tc.mutate(&ctx)
			_, err := authz.Validate(w.s.B, a, ctx, at)
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
		})
	}
}
