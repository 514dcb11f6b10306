package host_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/lineage"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/testutil"
)

func TestNew_RejectsInvalidConfig(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		mutate   func(*host.Config)
		wantErr  error
		wantPath string
	}{
		"a lifetime of zero":             {func(c *host.Config) { c.MaxLifetime = 0 }, fault.ErrOutOfRange, "maxLifetime"},
		"a lifetime beyond 3600 seconds": {func(c *host.Config) { c.MaxLifetime = 3601 }, fault.ErrOutOfRange, "maxLifetime"},
		"a malformed authority identity": {func(c *host.Config) { c.AuthorityID = "Payments Host" }, fault.ErrMalformed, "authorityID"},
		"an unknown role":                {func(c *host.Config) { c.Roles[0].Role = "root" }, fault.ErrUnknownToken, "roles[0].role"},
		"a role bound twice":             {func(c *host.Config) { c.Roles[1].Role = c.Roles[0].Role }, fault.ErrDuplicate, "roles[1].role"},
		"a binding without subjects":     {func(c *host.Config) { c.Roles[2].Subjects = nil }, fault.ErrMissing, "roles[2].subjects"},
		"an unknown subject kind": {
			func(c *host.Config) { c.Executors = []host.Subject{{Kind: "Robot", Name: "x"}} }, fault.ErrUnknownToken, "executors[0].kind",
		},
		"a negative argument bound": {func(c *host.Config) { c.Limits.MaxArgumentBytes = -1 }, fault.ErrOutOfRange, "limits.maxArgumentBytes"},
		"an argument bound beyond 16 MiB": {
			func(c *host.Config) { c.Limits.MaxArgumentBytes = host.MaxMaxArgumentBytes + 1 }, fault.ErrOutOfRange, "limits.maxArgumentBytes",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := paymentsConfig()
			tc.mutate(&c)
			h, err := host.New(c)
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
			if h != nil {
				t.Error("a rejected config returned a host")
			}
		})
	}
}

// TestAuthorize_EveryFactNeedsTheCallersRole: a Host fact is attested only
// with the role its class requires, and only for a caller that holds it
// (Section 14, role substitution).
func TestAuthorize_EveryFactNeedsTheCallersRole(t *testing.T) {
	t.Parallel()
	withLineage := func(r *host.AuthorizeRequest) {
		r.Facts.Assessment.ProvenanceIDs = []string{"prov-1"}
		r.Facts.ProvenanceRecords = []lineage.RecordDraft{{ID: "prov-1", Source: "directUserInput", Custody: "custody-1",
			Verification: "hostVerified"}}
		r.Facts.ProvenanceValidity = r.Facts.ContextValidity
	}
	tests := map[string]struct {
		drop     string // the role the caller loses
		mutate   func(*host.AuthorizeRequest)
		wantPath string
	}{
		"the assessment without intentCaptureAuthority":        {drop: "intentCaptureAuthority", wantPath: "facts.assessment"},
		"the security context without authenticationAuthority": {drop: "authenticationAuthority", wantPath: "facts.securityContext"},
		"provenance without provenanceAuthority": {
			drop: "provenanceAuthority", mutate: withLineage, wantPath: "facts.provenanceRecords",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := paymentsConfig()
			for i := range c.Roles {
				if c.Roles[i].Role == tc.drop {
					c.Roles[i].Subjects = []host.Subject{{Kind: host.KindUser, Name: "somebody-else"}}
				}
			}
			h := publishInto(t, c)
			r := payment()
			if tc.mutate != nil {
				tc.mutate(&r)
				if _, err := newPaymentsHost().Authorize(r); err != nil {
					t.Fatalf("the request must be valid for a caller with every role: %v", err)
				}
			}
			res, err := h.Authorize(r)
			testutil.CheckFault(t, err, fault.ErrUnauthorized, tc.wantPath)
			if res != nil {
				t.Error("a rejected request returned a result")
			}
		})
	}
	if _, err := newPaymentsHost().Authorize(func() host.AuthorizeRequest { r := payment(); r.Caller = stranger; return r }()); !isCode(err, fault.ErrUnauthorized) {
		t.Errorf("a caller with no role at all: err = %v, want Unauthorized", err)
	}
}

func TestAuthorize_SelectionsAreExact(t *testing.T) {
	t.Parallel()
	h := newPaymentsHost()
	tests := map[string]struct {
		mutate   func(*host.AuthorizeRequest)
		wantErr  error
		wantPath string
	}{
		"an unknown registry generation": {func(r *host.AuthorizeRequest) { r.Registry.Generation = "2" }, fault.ErrNotFound, "registry"},
		"no registry generation":         {func(r *host.AuthorizeRequest) { r.Registry.Generation = "" }, fault.ErrNotFound, "registry"},
		"an unknown policy snapshot":     {func(r *host.AuthorizeRequest) { r.Policy.SnapshotID = "other" }, fault.ErrNotFound, "policy"},
		"a malformed policy generation":  {func(r *host.AuthorizeRequest) { r.Policy.PolicyGeneration = "01" }, fault.ErrMalformed, "policy.policyGeneration"},
		"a delegation window without a delegation": {func(r *host.AuthorizeRequest) {
			r.Facts.DelegationValidity = r.Facts.ContextValidity
		}, fault.ErrUnsupported, "facts.delegationValidity"},
		"a provenance window without records": {func(r *host.AuthorizeRequest) {
			r.Facts.ProvenanceValidity = r.Facts.ContextValidity
		}, fault.ErrUnsupported, "facts.provenanceValidity"},
		"an argument bound exceeded": {func(r *host.AuthorizeRequest) {
			r.Proposal.Arguments = append([]byte(" "), make([]byte, host.DefaultMaxArgumentBytes)...)
		}, fault.ErrLimitExceeded, "arguments"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := payment()
			tc.mutate(&r)
			_, err := h.Authorize(r)
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
		})
	}
}

func TestHostLimits_ArgumentBoundIsConfigurable(t *testing.T) {
	t.Parallel()
	c := paymentsConfig()
	c.Limits.MaxArgumentBytes = len(testutil.PaymentsArguments)
	h := publishInto(t, c)
	if _, err := h.Authorize(payment()); err != nil {
		t.Fatalf("arguments exactly at the bound: %v", err)
	}
	c.Limits.MaxArgumentBytes--
	_, err := publishInto(t, c).Authorize(payment())
	testutil.CheckFault(t, err, fault.ErrLimitExceeded, "arguments")
}

func TestPublishPolicy(t *testing.T) {
	t.Parallel()
	h, err := host.New(paymentsConfig())
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.PublishPolicy(runtime, paymentsPolicy())
	testutil.CheckFault(t, err, fault.ErrUnauthorized, "publisher")

	next := paymentsPolicy()
	next.Generation = "2"
	_, err = h.PublishPolicy(admin, next)
	testutil.CheckFault(t, err, fault.ErrNotFound, "generation")

	first, err := h.PublishPolicy(admin, paymentsPolicy())
	if err != nil {
		t.Fatal(err)
	}
	again, err := h.PublishPolicy(admin, paymentsPolicy())
	if err != nil || again != first {
		t.Errorf("republishing identical content: (%p, %v), want the held snapshot %p", again, err, first)
	}
	if _, err := h.PublishPolicy(admin, next); err != nil {
		t.Errorf("the exact successor: %v", err)
	}
	dropped := next
	dropped.Generation = "3"
	dropped.Policies = nil
	_, err = h.PublishPolicy(admin, dropped)
	if !isCode(err, fault.ErrMissing) && !isCode(err, fault.ErrMismatch) {
		t.Errorf("a successor that drops every prior policy: err = %v, want a rejection", err)
	}
}

func TestValidate_OnlyExecutorsOfTheSameDomain(t *testing.T) {
	t.Parallel()
	h := newPaymentsHost()
	res, err := h.Authorize(payment())
	if err != nil || res.Authorization == nil {
		t.Fatalf("Authorize: %v, %v", res, err)
	}
	_, err = h.Validate(runtime, res.Authorization, expectations(), now)
	testutil.CheckFault(t, err, fault.ErrUnauthorized, "caller")

	twin := newPaymentsHost() // an equal Config is still another domain
	_, err = twin.Validate(executor, res.Authorization, expectations(), now)
	testutil.CheckFault(t, err, fault.ErrMixedDomain, "authorization")

	for name, at := range map[string]uint64{"at expiry": now + 120, "before issuance": now - 1} {
		_, err = h.Validate(executor, res.Authorization, expectations(), at)
		if !isCode(err, fault.ErrExpired) {
			t.Errorf("%s: err = %v, want Expired", name, err)
		}
	}
	if _, err := h.Validate(executor, res.Authorization, expectations(), now+119); err != nil {
		t.Errorf("one second before expiry: %v", err)
	}
}

func TestExplain_ReportsEveryRuleAndPredicate(t *testing.T) {
	t.Parallel()
	got, err := newPaymentsHost().Explain(payment())
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Rule, Result string
		Predicates   []string
	}
	var rows []row
	for _, r := range got {
		x := row{Rule: r.Rule.String(), Result: r.Result.String()}
		for _, p := range r.Predicates {
			x.Predicates = append(x.Predicates, p.String()+"="+p.Result.String())
		}
		rows = append(rows, x)
	}
	// alice of tenant acme pays with payments.submit: the allow rule's two
	// predicates hold; globex and bob are not she.
	want := []row{
		{"allow-acme-payments", "matched", []string{"{name: exactToolID, identifier: payments.submit}=matched", "{name: exactTenant, identifier: acme}=matched"}},
		{"confirm-bob", "notMatched", []string{"{name: exactSubject, identifier: bob}=notMatched"}},
		{"deny-globex", "notMatched", []string{"{name: exactTenant, identifier: globex}=notMatched"}},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("explanation (-want +got):\n%s", diff)
	}
}

// TestIntentBinding_DigestIsBoundAndRechecked: the agent-safe binding the
// user approved is bound at authorization; the executor's binding must have
// the same agent-safe.intent/1 digest (key order is not significant, any
// value is).
func TestIntentBinding_DigestIsBoundAndRechecked(t *testing.T) {
	t.Parallel()
	const approved = `{"actor":"alice","tenant":"acme","parameters":{"amount":12500,"currency":"eur"},"expiry":"2026-12-01T00:00:00Z","target":"payments.submit"}`
	const reordered = `{"target":"payments.submit","tenant":"acme","actor":"alice","expiry":"2026-12-01T00:00:00Z","parameters":{"currency":"eur","amount":12500}}`
	const changed = `{"actor":"alice","tenant":"acme","parameters":{"amount":99999,"currency":"eur"},"expiry":"2026-12-01T00:00:00Z","target":"payments.submit"}`
	h := newPaymentsHost()
	r := payment()
	r.Facts.IntentBinding = []byte(approved)
	res, err := h.Authorize(r)
	if err != nil || res.Authorization == nil {
		t.Fatalf("Authorize: %v %v", res, err)
	}
	unbound, err := h.Authorize(payment())
	if err != nil || unbound.Authorization == nil {
		t.Fatalf("Authorize without binding: %v", err)
	}
	tests := map[string]struct {
		unbound  bool
		binding  string
		wantErr  error
		wantPath string
	}{
		"the approved binding":                 {binding: approved},
		"the approved binding, keys reordered": {binding: reordered},
		"a changed parameter":                  {binding: changed, wantErr: fault.ErrMismatch, wantPath: "intentBinding"},
		"a binding that is not JSON":           {binding: `{"actor":`, wantErr: fault.ErrMalformed, wantPath: "intentBinding"},
		"an authorization with no bound binding": {
			unbound: true, binding: approved, wantErr: fault.ErrMismatch, wantPath: "intentBinding",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := res.Authorization
			if tc.unbound {
				a = unbound.Authorization
			}
			exp := expectations()
			exp.IntentBinding = []byte(tc.binding)
			_, err := h.Validate(executor, a, exp, now+1)
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
		})
	}
	r.Facts.Intent.Binding = "sha256:" + strings.Repeat("ab", 32)
	_, err = h.Authorize(r)
	testutil.CheckFault(t, err, fault.ErrMismatch, "facts.intent.binding")
}

// TestIntentBinding_ItsOwnExpiryIsEnforced: agent-safe.intent/1 asks
// every executor to refuse expired authority. The binding's own "expiry"
// (an RFC 3339 time) must lie after the validation time, whatever the
// Authorization's lifetime; a binding without a readable expiry rejects.
func TestIntentBinding_ItsOwnExpiryIsEnforced(t *testing.T) {
	t.Parallel()
	h := newPaymentsHost()
	binding := func(expiry string) string {
		return `{"actor":"alice","tenant":"acme","parameters":{"amount":12500},` + expiry + `"target":"payments.submit"}`
	}
	at := uint64(now + 10)
	atText := time.Unix(int64(at), 0).UTC()
	tests := map[string]struct {
		binding  string
		wantErr  error
		wantPath string
	}{
		"an expiry one second after the validation time": {binding: binding(`"expiry":"` + atText.Add(time.Second).Format(time.RFC3339) + `",`)},
		"an expiry with fractional seconds after it":     {binding: binding(`"expiry":"` + atText.Add(time.Millisecond).Format(time.RFC3339Nano) + `",`)},
		"an expiry at the validation time":               {binding: binding(`"expiry":"` + atText.Format(time.RFC3339) + `",`), wantErr: fault.ErrExpired, wantPath: "intentBinding.expiry"},
		"an expiry long past (2000-01-01)":               {binding: binding(`"expiry":"2000-01-01T00:00:00Z",`), wantErr: fault.ErrExpired, wantPath: "intentBinding.expiry"},
		"no expiry":                                      {binding: binding(``), wantErr: fault.ErrMissing, wantPath: "intentBinding.expiry"},
		"an expiry that is a number":                     {binding: binding(`"expiry":1700000020,`), wantErr: fault.ErrMalformed, wantPath: "intentBinding.expiry"},
		"an expiry that is not a time":                   {binding: binding(`"expiry":"tomorrow",`), wantErr: fault.ErrMalformed, wantPath: "intentBinding.expiry"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := payment()
			r.Facts.IntentBinding = []byte(tc.binding)
			res, err := h.Authorize(r)
			if err != nil || res.Authorization == nil {
				t.Fatalf("Authorize: %v %v", res, err)
			}
			exp := expectations()
			exp.IntentBinding = []byte(tc.binding)
			_, err = h.Validate(executor, res.Authorization, exp, at)
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
			_, err = h.ValidateForConsumption(executor, res.Authorization, exp, at)
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
		})
	}
}

// TestAuthorize_ArgumentErrorsNameTheArgumentPath: a rejected argument is
// located at arguments.<field> whichever layer finds it; decoding errors,
// which precede any field, are located at arguments (with an offset).
func TestAuthorize_ArgumentErrorsNameTheArgumentPath(t *testing.T) {
	t.Parallel()
	h := newPaymentsHost()
	const base = `"currency":"eur","amount":1,"debtor-account":"acct-1001","creditor-account":"acct-2002"`
	tests := map[string]struct {
		args     string
		wantErr  error
		wantPath string
	}{
		"a string where an integer is declared": {
			`{"currency":"eur","amount":"1","debtor-account":"acct-1001","creditor-account":"acct-2002"}`, fault.ErrKindMismatch, "arguments.amount",
		},
		"an enumeration case in a nested object": {`{` + base + `,"channel":{"kind":"fax"}}`, fault.ErrUnknownToken, "arguments.channel.kind"},
		"a resource identifier that is not one": {
			`{"currency":"eur","amount":1,"debtor-account":"ACCT 1","creditor-account":"acct-2002"}`, fault.ErrMalformed, "arguments.debtor-account",
		},
		"a duplicated member (decoder)": {`{` + base + `,"amount":2}`, fault.ErrDuplicate, "arguments"},
		"a fraction (decoder)":          {`{` + base + `,"memo":1.5}`, fault.ErrKindMismatch, "arguments"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := payment()
			r.Proposal.Arguments = []byte(tc.args)
			_, err := h.Authorize(r)
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
		})
	}
}

// TestNew_ReportsEveryViolation: a configuration with several problems is
// rejected with all of them, each at its path, in one answer.
func TestNew_ReportsEveryViolation(t *testing.T) {
	t.Parallel()
	c := paymentsConfig()
	c.MaxLifetime = 0
	c.AuthorityID = "Payments Host"
	c.Roles[1].Role = "root"
	c.Executors = []host.Subject{{Kind: "Robot", Name: "x"}}
	_, err := host.New(c)
	var got []string
	for _, f := range fault.All(err) {
		got = append(got, f.Path+" "+f.Code.String())
	}
	want := []string{"maxLifetime outOfRange", "roles[1].role unknownToken", "executors[0].kind unknownToken", "authorityID malformed"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("faults (-want +got):\n%s", diff)
	}
}
