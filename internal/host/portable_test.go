package host_test

import (
	"bytes"
	"testing"

	"github.com/toolgate/toolgate/internal/artifact"
	"github.com/toolgate/toolgate/internal/engine/evidence"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/lineage"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/testutil"
)

// portableFixtures are allow requests that exercise every kind of fact the
// record carries.
func portableFixtures() map[string]host.AuthorizeRequest {
	withLineage := payment()
	withLineage.Facts.Assessment.ProvenanceIDs = []string{"prov-form"}
	withLineage.Facts.Assessment.InfluenceIDs = []string{"chat"}
	withLineage.Facts.ProvenanceRecords = []lineage.RecordDraft{{
		ID: "prov-form", Source: "directUserInput", Custody: "form-1", Transformations: []string{"extracted"}, Verification: "hostVerified",
	}}
	withLineage.Facts.ProvenanceValidity = withLineage.Facts.ContextValidity
	withLineage.Facts.InfluenceCollections = []lineage.CollectionDraft{{Boundary: "chat", Completeness: "complete", Evidence: "run-1"}}
	withLineage.Facts.InfluenceNodes = []lineage.NodeDraft{{ID: "n-1", Kind: "userPrompt", Boundary: "chat"}}
	withLineage.Facts.InfluenceValidity = withLineage.Facts.ContextValidity

	delegated := payment()
	delegated.Facts.SecurityContext.Identity.Delegation = "delegation-7"
	delegated.Facts.Intent.Identity.Delegation = "delegation-7"
	delegated.Facts.Delegation = &evidence.DelegationDraft{ID: "delegation-7", Subject: "alice"}
	delegated.Facts.DelegationValidity = delegated.Facts.ContextValidity

	bound := payment()
	bound.Facts.IntentBinding = []byte(`{"actor":"alice","tenant":"acme","parameters":{"amount":12500},"expiry":"x","target":"payments.submit"}`)

	whitespace := payment()
	whitespace.Proposal.Arguments = []byte(" {\n  \"currency\" : \"eur\",\t\"amount\":12500, \"debtor-account\":\"acct-2002\", \"creditor-account\":\"acct-1001\"} ")

	tool := payment()
	tool.Facts.IntentTarget = host.TargetTool
	return map[string]host.AuthorizeRequest{
		"minimal facts": payment(), "provenance and influence": withLineage, "a delegation": delegated,
		"an agent-safe binding": bound, "arguments with whitespace": whitespace, "a bounded-tool intent": tool,
	}
}

func issue(t *testing.T, h *host.Host, r host.AuthorizeRequest) *host.Result {
	t.Helper()
	res, err := h.Authorize(r)
	if err != nil || res.Authorization == nil || res.Portable == nil {
		t.Fatalf("Authorize: %v (ineligible: %v)", err, res)
	}
	return res
}

// TestRebuild_RoundTrip: a replica of the same Host rebuilds every
// fixture's Authorization in its own domain, with the same complete
// Consumption Binding, and the rebuilt Authorization validates there. In
// the issuing Host the rebuild is the same Authorization.
func TestRebuild_RoundTrip(t *testing.T) {
	t.Parallel()
	for name, r := range portableFixtures() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h, replica := newPaymentsHost(), newPaymentsHost()
			res := issue(t, h, r)
			same, err := h.Rebuild(verified(res.Portable))
			if err != nil || !same.Equal(res.Authorization) {
				t.Fatalf("rebuild in the issuing host: equal=%v, err=%v", err == nil && same.Equal(res.Authorization), err)
			}
			got, err := replica.Rebuild(verified(res.Portable))
			if err != nil {
				t.Fatalf("rebuild in a replica: %v", err)
			}
			if !got.Binding().Digest().Equal(res.Authorization.Binding().Digest()) {
				t.Error("the replica's rebuild binds another Consumption Binding")
			}
			if !replica.Domain().Same(got.Domain()) || h.Domain().Same(got.Domain()) {
				t.Error("a rebuild belongs to the rebuilding host's own domain")
			}
			exp := expectations()
			exp.Identity = r.Facts.SecurityContext.Identity
			exp.Arguments = r.Proposal.Arguments
			if _, err := replica.Validate(executor, got, exp, now+1); err != nil {
				t.Errorf("the rebuilt authorization does not validate in the replica: %v", err)
			}
		})
	}
}

// TestRebuild_EveryChangedByteRejects changes every byte of a record, one
// at a time, up and down; no changed record rebuilds.
func TestRebuild_EveryChangedByteRejects(t *testing.T) {
	t.Parallel()
	h := newPaymentsHost()
	r := portableFixtures()["provenance and influence"]
	b := issue(t, h, r).Portable
	for i := range b {
		for _, delta := range []byte{1, 0xff} {
			c := bytes.Clone(b)
			c[i] += delta
			if _, err := h.Rebuild(verified(c)); err == nil {
				t.Fatalf("byte %d changed by %+d (%q → %q) still rebuilds", i, int8(delta), b[i], c[i])
			}
		}
	}
	for _, c := range [][]byte{nil, {}, b[:len(b)-1], append(bytes.Clone(b), ' '), append(bytes.Clone(b), b...)} {
		if _, err := h.Rebuild(verified(c)); !isCode(err, fault.ErrMalformed) {
			t.Errorf("a truncated, padded or doubled record: err = %v, want Malformed", err)
		}
	}
}

func TestRebuild_FailsClosedInAnotherDomainOrState(t *testing.T) {
	t.Parallel()
	b := issue(t, newPaymentsHost(), payment()).Portable

	recreated := paymentsConfig()
	recreated.Instance = "uid-2" // the HostAuthority was deleted and created again
	narrower := paymentsConfig()
	narrower.Resources = []string{"acct-1001", "acct-2002"}
	noPolicy, err := host.New(paymentsConfig())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := noPolicy.PublishRegistry(host.RegistryDraft{Draft: testutil.RegistryDraft(testutil.PaymentsDefinition())}); err != nil {
		t.Fatal(err)
	}
	otherRegistry := func() *host.Host {
		h, err := host.New(paymentsConfig())
		if err != nil {
			t.Fatal(err)
		}
		d := testutil.PaymentsDefinition()
		d.Summary = "Submits one payment (reworded)."
		if _, err := h.PublishRegistry(host.RegistryDraft{Draft: testutil.RegistryDraft(d)}); err != nil {
			t.Fatal(err)
		}
		if _, err := h.PublishPolicy(admin, paymentsPolicy()); err != nil {
			t.Fatal(err)
		}
		return h
	}()
	tests := map[string]struct {
		h        *host.Host
		wantErr  error
		wantPath string
	}{
		"a recreated host authority":               {publishInto(t, recreated), fault.ErrMismatch, "record.instance"},
		"a host authority with other content":      {publishInto(t, narrower), fault.ErrMismatch, "record.authorityDigest"},
		"a replica without the policy generation":  {noPolicy, fault.ErrNotFound, "record.request.policy"},
		"a registry generation with other content": {otherRegistry, fault.ErrMismatch, "record.registryDigest"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a, err := tc.h.Rebuild(verified(b))
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
			if a != nil {
				t.Error("a rejected rebuild returned an authorization")
			}
		})
	}
}

// TestRebuild_RejectsVersion1: a canonical-JSON record of version 1 (an
// artifact issued before the binary record) is unsupported, not
// malformed, and never rebuilds.
func TestRebuild_RejectsVersion1(t *testing.T) {
	t.Parallel()
	h := newPaymentsHost()
	a, err := h.Rebuild(verified([]byte(`{"Version":"toolgate.authorization/1","Instance":"uid-1","AuthorityDigest":"sha256:00"}`)))
	if !isCode(err, fault.ErrUnsupported) || a != nil {
		t.Errorf("err = %v, want unsupported", err)
	}
}

// TestRebuild_OnlyAVerifiedRecord: the zero artifact.Verified — no
// envelope was verified — never rebuilds, so an unverified record has no
// route into the issuance re-run.
func TestRebuild_OnlyAVerifiedRecord(t *testing.T) {
	t.Parallel()
	a, err := newPaymentsHost().Rebuild(artifact.Verified{})
	testutil.CheckFault(t, err, fault.ErrMissing, "record")
	if a != nil {
		t.Error("the zero Verified rebuilt an authorization")
	}
}
