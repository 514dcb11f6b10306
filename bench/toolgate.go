package bench

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/lineage"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// Toolgate is the toolgate side: a published Policy Snapshot and, per
// input, an engine-built Evaluation Input and the Host's Selection.
type Toolgate struct {
	Snapshot   *policy.Snapshot
	Inputs     []*evalinput.Input
	Selections []policy.Selection
	PerTenant  bool
}

// ToolgateDraft writes rules as a Policy Snapshot: one policy "all" when
// perTenant is false, else one policy per tenant (4 × 128 for 512 rules);
// unindexed as toolgateRule says.
func ToolgateDraft(rules []Rule, perTenant, unindexed bool) policy.SnapshotDraft {
	d := policy.SnapshotDraft{ID: "peer-policy", Generation: "1"}
	index := map[string]int{}
	for _, r := range rules {
		id := "all"
		if perTenant {
			id = r.Tenant
		}
		i, ok := index[id]
		if !ok {
			i = len(d.Policies)
			index[id] = i
			d.Policies = append(d.Policies, policy.DefinitionDraft{ID: id, Generation: "1", Lifecycle: "active"})
		}
		d.Policies[i].Rules = append(d.Policies[i].Rules, toolgateRule(r, unindexed))
	}
	return d
}

func pred(p policy.PredicateDraft) policy.ConditionDraft { return policy.ConditionDraft{Predicate: &p} }

// toolgateRule writes r; unindexed puts its tenant and tool conditions in
// a one-child any, which means the same and which the index does not read.
func toolgateRule(r Rule, unindexed bool) policy.RuleDraft {
	exact := func(name, id string) policy.ConditionDraft {
		c := pred(policy.PredicateDraft{Name: name, Identifier: id})
		if unindexed {
			return policy.ConditionDraft{Any: []policy.ConditionDraft{c}}
		}
		return c
	}
	cs := []policy.ConditionDraft{exact("exactTenant", r.Tenant)}
	if r.Tool != "" {
		cs = append(cs, exact("exactToolID", r.Tool))
	}
	switch len(r.Risks) {
	case 0:
	case 1:
		cs = append(cs, pred(policy.PredicateDraft{Name: "riskIs", Value: r.Risks[0]}))
	default:
		var any []policy.ConditionDraft
		for _, risk := range r.Risks {
			any = append(any, pred(policy.PredicateDraft{Name: "riskIs", Value: risk}))
		}
		cs = append(cs, policy.ConditionDraft{Any: any})
	}
	out := policy.RuleDraft{ID: r.ID}
	if r.Allow {
		out.Effect, out.Reason = "allow", "allowRuleMatched"
		cs = append(cs, pred(policy.PredicateDraft{Name: "requestedCapabilitiesSubsetOf", Values: r.Caps}))
		if !r.ScopeOnly {
			cs = append(cs, pred(policy.PredicateDraft{Name: "requestedResourcesSubsetOf", Values: r.Res}))
		}
		if r.Verified {
			cs = append(cs, pred(policy.PredicateDraft{Name: "provenanceTrustIsOneOf", Values: []string{"hostVerified"}}))
		}
		if r.MaxAge != 0 {
			cs = append(cs, pred(policy.PredicateDraft{Name: "maximumIntentAge", Seconds: fmt.Sprint(r.MaxAge)}))
		}
		out.Scope = &policy.ScopeDraft{Capabilities: r.Caps, Resources: r.Res}
	} else {
		out.Effect, out.Reason = "deny", "denyRuleMatched"
		switch {
		case r.Caps != nil:
			cs = append(cs, pred(policy.PredicateDraft{Name: "requestedCapabilitiesInclude", Values: r.Caps}))
		case r.Res != nil:
			cs = append(cs, pred(policy.PredicateDraft{Name: "requestedResourcesInclude", Values: r.Res}))
		}
	}
	out.Condition = policy.ConditionDraft{All: cs}
	return out
}

// registryDraft holds the three tools. payments.submit derives its debtor
// and creditor Resources, email.send its mailbox and optional copy.
func registryDraft() registry.Draft {
	res := schema.Draft{Kind: "resourceID"}
	payments := testutil.PaymentsDefinition()
	email := testutil.Definition("email-send-1", "email.send", "1",
		testutil.WithSchema("email-send-args", schema.Draft{Kind: "object", Fields: []schema.FieldDraft{
			testutil.Field("mailbox", "required", res),
			testutil.Field("cc", "optional", res),
		}}),
		func(d *registry.DefinitionDraft) {
			d.Risk, d.SideEffect, d.Reversibility = "moderate", "externalCommunication", "irreversible"
			d.Capabilities = []string{"communication.external", "data.read"}
		})
	reports := testutil.Definition("reports-list-1", "reports.list", "1")
	return testutil.RegistryDraft(payments, email, reports)
}

func arguments(in Input) string {
	switch in.Tool {
	case "payments.submit":
		return fmt.Sprintf(`{"currency":"eur","amount":100,"debtor-account":%q,"creditor-account":%q}`, in.Res[0], in.Res[len(in.Res)-1])
	case "email.send":
		if len(in.Res) == 2 {
			return fmt.Sprintf(`{"mailbox":%q,"cc":%q}`, in.Res[0], in.Res[1])
		}
		return fmt.Sprintf(`{"mailbox":%q}`, in.Res[0])
	}
	return `{}`
}

// NewToolgate publishes rules and builds every input in one Host domain.
func NewToolgate(tb testing.TB, rules []Rule, inputs []Input, perTenant, unindexed bool) *Toolgate {
	tb.Helper()
	b := boundary.New("peer benchmark host")
	t := &Toolgate{PerTenant: perTenant}
	for i, in := range inputs {
		spec := testutil.DefaultInputSpec()
		spec.Registry = registryDraft()
		spec.Proposal.ToolID, spec.Proposal.Arguments = in.Tool, []byte(arguments(in))
		spec.Host.Resources = Resources
		spec.Context.Identity.Tenant, spec.Intent.Identity.Tenant = in.Tenant, in.Tenant
		spec.Intent.Capabilities = Tools[in.ToolIndex].Capabilities
		spec.Intent.Resources = in.Res
		spec.RequestedCapabilities = in.Caps
		spec.Records, spec.Assessment.ProvenanceIDs = nil, nil
		for j, trust := range in.Trusts {
			id := fmt.Sprintf("prov-%d", j)
			rec := lineage.RecordDraft{ID: id, Source: "directUserInput", Custody: "custody-1",
				Transformations: []string{"extracted"}, Verification: "hostVerified"}
			if trust != "hostVerified" {
				rec.Source, rec.Verification = "emailContent", "unverified"
			}
			spec.Records = append(spec.Records, rec)
			spec.Assessment.ProvenanceIDs = append(spec.Assessment.ProvenanceIDs, id)
		}
		f := testutil.BuildInput(tb, b, spec)
		now, err := epoch.New(in.Now)
		if err != nil {
			tb.Fatal(err)
		}
		f.Draft.EvaluationTime = now
		got := f.New(tb)
		if i == 0 {
			if t.Snapshot, err = policy.Publish(f.Admin, ToolgateDraft(rules, perTenant, unindexed)); err != nil {
				tb.Fatalf("policy.Publish: %v", err)
			}
		}
		if got.Risk().String() != in.Risk || strings.Join(resourceTokens(got), ",") != strings.Join(in.Res, ",") {
			tb.Fatalf("input %d: built risk %v resources %v, want %s %v", i, got.Risk(), resourceTokens(got), in.Risk, in.Res)
		}
		t.Inputs = append(t.Inputs, got)
		sel := policy.Selection{SnapshotID: t.Snapshot.ID(), SnapshotGeneration: t.Snapshot.Generation()}
		def := t.Snapshot.Policy(0)
		if perTenant {
			for p := range t.Snapshot.Len() {
				if t.Snapshot.Policy(p).ID().String() == in.Tenant {
					def = t.Snapshot.Policy(p)
				}
			}
		}
		sel.PolicyID, sel.PolicyGeneration = def.ID(), def.Generation()
		t.Selections = append(t.Selections, sel)
	}
	return t
}

func resourceTokens(in *evalinput.Input) []string {
	var out []string
	for _, r := range in.RequestedResources() {
		out = append(out, r.String())
	}
	return out
}

// Decide evaluates input i: true for allow.
func (t *Toolgate) Decide(i int) (bool, *policy.Decision, error) {
	d, err := policy.Evaluate(t.Inputs[i], t.Snapshot, t.Selections[i], "decision-1")
	if err != nil {
		return false, nil, err
	}
	return d.Outcome() == vocab.Allow, d, nil
}
