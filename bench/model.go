// Package bench runs one authorization decision in toolgate, OPA, cedar-go
// and cel-go on the same generated, seeded policies and inputs. It is a
// separate module (the product never depends on it); `make bench-peers` runs
// it. See docs/performance.md ("toolgate and its peers").
package bench

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// The decision every engine makes: tenant-scoped rules over the tool, its
// risk, the requested Capabilities and Resources, the trust of every
// Provenance record and the age of the Intent. A deny rule that matches
// denies; otherwise an allow rule that matches allows; otherwise deny.

// Tools of the registry, with their fixed risk and Capability maximum.
var Tools = []Tool{
	{ID: "payments.submit", Risk: "high", Capabilities: []string{"data.read", "financial.transfer"}, Resources: true},
	{ID: "email.send", Risk: "moderate", Capabilities: []string{"communication.external", "data.read"}, Resources: true},
	{ID: "reports.list", Risk: "low", Capabilities: []string{"data.read"}},
}

// Tool is one registry tool.
type Tool struct {
	ID           string
	Risk         string
	Capabilities []string
	Resources    bool // its arguments name two Resources
}

var (
	// Tenants are the four tenants; a 512-rule snapshot holds one policy of
	// 128 rules per tenant in toolgate.
	Tenants   = []string{"acme", "globex", "initech", "umbrella"}
	Risks     = []string{"low", "moderate", "high", "critical"}
	Resources = []string{"acct-1001", "acct-1002", "acct-1003", "acct-1004", "box-1", "box-2"}
	Trusts    = []string{"hostVerified", "untrusted"}
)

// Rule is one generated rule. Every condition is optional except the
// tenant; an allow rule's scope is its Capability and Resource sets.
type Rule struct {
	ID       string
	Allow    bool
	Tenant   string
	Tool     string   // "" for any tool
	Risks    []string // nil for any risk
	Caps     []string // allow: requested ⊆ Caps (and the scope); deny: requested ∋ Caps[0]
	Res      []string // allow: requested ⊆ Res (and the scope); deny: requested ∋ Res[0]
	Verified bool     // every Provenance record is hostVerified
	MaxAge   uint64   // 0: no age condition; else now - intent issuedAt ≤ MaxAge
	// ScopeOnly keeps the allow rule's Resource set as scope only, without
	// the matching condition (see Difference).
	ScopeOnly bool
}

// Input is one request's facts.
type Input struct {
	Tenant    string
	Tool      string
	Risk      string
	Caps      []string // requested, sorted
	Res       []string // requested, sorted
	Trusts    []string // one per Provenance record
	Now       uint64   // evaluation time
	IntentAt  uint64   // Intent issuedAt
	ToolIndex int
}

// Age is the Intent's age at evaluation.
func (in Input) Age() int64 { return int64(in.Now) - int64(in.IntentAt) }

// Generate draws n rules for seed: every tenant gets n/len(Tenants) rules
// (so a 512-rule set is four tenant policies of 128), about one in ten is
// a deny.
func Generate(seed uint64, n int) []Rule {
	r := rand.New(rand.NewPCG(seed, 0xb5))
	rules := make([]Rule, 0, n)
	for i := range n {
		t := Tenants[i%len(Tenants)]
		rule := Rule{ID: fmt.Sprintf("rule-%03d", i), Tenant: t, Allow: r.IntN(10) != 0}
		tool := Tools[r.IntN(len(Tools))]
		if r.IntN(5) != 0 {
			rule.Tool = tool.ID
		}
		if r.IntN(2) == 0 {
			rule.Risks = pickSet(r, Risks, 2)
		}
		if rule.Allow {
			rule.Caps = pickSet(r, []string{"communication.external", "data.read", "financial.transfer"}, 3)
			rule.Res = pickSet(r, Resources, 8)
			rule.Verified = r.IntN(2) == 0
			if r.IntN(2) == 0 {
				rule.MaxAge = uint64(60 + r.IntN(600))
			}
			rule.ScopeOnly = r.IntN(16) == 0
		} else {
			switch r.IntN(3) {
			case 0:
				rule.Caps = []string{"communication.external"}
				rule.Risks = []string{"moderate"}
			case 1:
				rule.Res = []string{Resources[r.IntN(len(Resources))]}
			default:
				// critical-risk tools: none in the registry today
				rule.Risks = []string{"critical"}
			}
		}
		rules = append(rules, rule)
	}
	return rules
}

func pickSet(r *rand.Rand, from []string, max int) []string {
	var out []string
	for range 1 + r.IntN(max) {
		if v := from[r.IntN(len(from))]; !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// Inputs draws n inputs for seed.
func Inputs(seed uint64, n int) []Input {
	r := rand.New(rand.NewPCG(seed, 0x1b))
	out := make([]Input, 0, n)
	for i := range n {
		ti := r.IntN(len(Tools))
		tool := Tools[ti]
		in := Input{Tenant: Tenants[r.IntN(len(Tenants))], Tool: tool.ID, Risk: tool.Risk, ToolIndex: ti,
			Caps: pickSet(r, tool.Capabilities, len(tool.Capabilities)), IntentAt: 1000, Now: uint64(1000 + r.IntN(999))}
		if tool.Resources {
			base := 0
			if tool.ID == "email.send" {
				base = 4
			}
			a, b := base+r.IntN(2), base+2+r.IntN(2)
			if tool.ID == "email.send" {
				a, b = 4, 5
				if r.IntN(2) == 0 {
					b = 4
				}
			}
			in.Res = []string{Resources[a]}
			if b != a && b < len(Resources) {
				in.Res = append(in.Res, Resources[b])
			}
			slices.Sort(in.Res)
		}
		// Every input has one or two records, except every 16th: no record
		// at all (see Difference).
		if i%16 != 15 {
			for range 1 + r.IntN(2) {
				in.Trusts = append(in.Trusts, Trusts[r.IntN(3)/2])
			}
		}
		out = append(out, in)
	}
	return out
}

// Matches is the common reading of rule r for input in, as OPA, cedar-go
// and cel-go express it.
func (r Rule) Matches(in Input) bool {
	if in.Tenant != r.Tenant || (r.Tool != "" && in.Tool != r.Tool) || (r.Risks != nil && !slices.Contains(r.Risks, in.Risk)) {
		return false
	}
	if r.Allow {
		return subset(in.Caps, r.Caps) && (r.ScopeOnly || subset(in.Res, r.Res)) &&
			(!r.Verified || allVerified(in.Trusts)) && (r.MaxAge == 0 || in.Age() <= int64(r.MaxAge))
	}
	switch {
	case r.Caps != nil:
		return slices.Contains(in.Caps, r.Caps[0])
	case r.Res != nil:
		return slices.Contains(in.Res, r.Res[0])
	}
	return true
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func allVerified(ts []string) bool {
	for _, t := range ts {
		if t != "hostVerified" {
			return false
		}
	}
	return true
}

// Decide is the common decision: true for allow.
func Decide(rules []Rule, in Input) bool {
	allow := false
	for _, r := range rules {
		if r.Matches(in) {
			if !r.Allow {
				return false
			}
			allow = true
		}
	}
	return allow
}

// Difference returns why the protocol's Decision (toolgate, evaluating the
// policy selected holds) differs from the common reading for in, or ""
// when it does not. Two protocol rules have no counterpart in what the
// peers express here:
//
//   - Missing evidence is indeterminate (Section 20): "every Provenance
//     record is hostVerified" (provenanceTrustIsOneOf) is indeterminate
//     without any record, and any indeterminate condition of any rule of the
//     selected policy, whatever its other conditions, denies
//     (conditionIndeterminate); the peers read "every" over nothing as true.
//   - Scope loss (Sections 21, 33): a non-deny outcome whose requested
//     Resources do not all survive the intersection with every matched
//     non-deny rule's scope becomes a deny (resourceNotPermitted). A
//     ScopeOnly rule matches without checking Resources, so its scope can
//     drop one.
func Difference(selected []Rule, in Input) string {
	if !Decide(selected, in) {
		return "" // both deny
	}
	if len(in.Trusts) == 0 {
		for _, r := range selected {
			if r.Verified {
				return "conditionIndeterminate: provenanceTrustIsOneOf over no Provenance record in " + r.ID + " (Section 20)"
			}
		}
	}
	for _, r := range selected {
		if r.Allow && r.Matches(in) && !subset(in.Res, r.Res) {
			return "resourceNotPermitted: scope loss against " + r.ID + "'s scope (Sections 21, 33)"
		}
	}
	return ""
}

// Selected returns the rules of the policy toolgate selects for in: all of
// them in a single-policy snapshot, the tenant's policy otherwise.
func Selected(rules []Rule, perTenant bool, in Input) []Rule {
	if !perTenant {
		return rules
	}
	var out []Rule
	for _, r := range rules {
		if r.Tenant == in.Tenant {
			out = append(out, r)
		}
	}
	return out
}
