package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cedar-policy/cedar-go"
	cedartypes "github.com/cedar-policy/cedar-go/types"
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/interpreter"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// Each peer expresses every rule as written by a user of that engine, with
// no hand-made index: OPA as one partial set per effect, cedar-go as permit
// and forbid policies, cel-go as one compiled program per rule. Inputs are
// converted to each engine's native value once, outside the measured call.

func quoted(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, ", ")
}

// --- OPA ---

// RegoModule writes rules as one Rego v1 module.
func RegoModule(rules []Rule) string {
	var b strings.Builder
	b.WriteString("package peers\n\ndefault allow := false\n\nallow if {\n")
	// A partial set without any rule is undefined: refer only to the sets
	// that have rules.
	if slices.ContainsFunc(rules, func(r Rule) bool { return !r.Allow }) {
		b.WriteString("\tcount(deny_rules) == 0\n")
	}
	if slices.ContainsFunc(rules, func(r Rule) bool { return r.Allow }) {
		b.WriteString("\tcount(allow_rules) > 0\n")
	} else {
		b.WriteString("\tfalse\n")
	}
	b.WriteString("}\n")
	for _, r := range rules {
		set := "deny_rules"
		if r.Allow {
			set = "allow_rules"
		}
		fmt.Fprintf(&b, "\n%s contains %q if {\n\tinput.tenant == %q\n", set, r.ID, r.Tenant)
		if r.Tool != "" {
			fmt.Fprintf(&b, "\tinput.tool == %q\n", r.Tool)
		}
		if r.Risks != nil {
			fmt.Fprintf(&b, "\tinput.risk in {%s}\n", quoted(r.Risks))
		}
		if r.Allow {
			fmt.Fprintf(&b, "\tevery c in input.caps { c in {%s} }\n", quoted(r.Caps))
			if !r.ScopeOnly {
				fmt.Fprintf(&b, "\tevery x in input.res { x in {%s} }\n", quoted(r.Res))
			}
			if r.Verified {
				b.WriteString("\tevery t in input.trusts { t == \"hostVerified\" }\n")
			}
			if r.MaxAge != 0 {
				fmt.Fprintf(&b, "\tinput.now - input.intent_at <= %d\n", r.MaxAge)
			}
		} else {
			switch {
			case r.Caps != nil:
				fmt.Fprintf(&b, "\t%q in input.caps\n", r.Caps[0])
			case r.Res != nil:
				fmt.Fprintf(&b, "\t%q in input.res\n", r.Res[0])
			}
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// InputDoc is one input as OPA's input document.
func InputDoc(in Input) map[string]any {
	list := func(xs []string) []any {
		out := make([]any, len(xs))
		for i, x := range xs {
			out[i] = x
		}
		return out
	}
	return map[string]any{
		"tenant": in.Tenant, "tool": in.Tool, "risk": in.Risk, "caps": list(in.Caps), "res": list(in.Res),
		"trusts": list(in.Trusts), "now": int64(in.Now), "intent_at": int64(in.IntentAt),
	}
}

// OPA is a prepared query data.peers.allow and the inputs as AST values.
type OPA struct {
	query  rego.PreparedEvalQuery
	inputs []ast.Value
}

func NewOPA(rules []Rule, inputs []Input) (*OPA, error) {
	q, err := rego.New(rego.Query("data.peers.allow"), rego.Module("peers.rego", RegoModule(rules))).
		PrepareForEval(context.Background())
	if err != nil {
		return nil, err
	}
	o := &OPA{query: q}
	for _, in := range inputs {
		v, err := ast.InterfaceToValue(InputDoc(in))
		if err != nil {
			return nil, err
		}
		o.inputs = append(o.inputs, v)
	}
	return o, nil
}

func (o *OPA) Decide(i int) (bool, error) {
	rs, err := o.query.Eval(context.Background(), rego.EvalParsedInput(o.inputs[i]))
	if err != nil {
		return false, err
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return false, fmt.Errorf("opa: unexpected result %v", rs)
	}
	allow, ok := rs[0].Expressions[0].Value.(bool)
	if !ok {
		return false, fmt.Errorf("opa: non-boolean result %v", rs[0].Expressions[0].Value)
	}
	return allow, nil
}

// --- cedar-go ---

// CedarPolicies writes rules as Cedar permit and forbid policies.
func CedarPolicies(rules []Rule) string {
	var b strings.Builder
	for _, r := range rules {
		effect := "forbid"
		if r.Allow {
			effect = "permit"
		}
		conds := []string{fmt.Sprintf("context.tenant == %q", r.Tenant)}
		if r.Tool != "" {
			conds = append(conds, fmt.Sprintf("context.tool == %q", r.Tool))
		}
		if r.Risks != nil {
			conds = append(conds, fmt.Sprintf("[%s].contains(context.risk)", quoted(r.Risks)))
		}
		if r.Allow {
			conds = append(conds, fmt.Sprintf("[%s].containsAll(context.caps)", quoted(r.Caps)))
			if !r.ScopeOnly {
				conds = append(conds, fmt.Sprintf("[%s].containsAll(context.res)", quoted(r.Res)))
			}
			if r.Verified {
				conds = append(conds, `["hostVerified"].containsAll(context.trusts)`)
			}
			if r.MaxAge != 0 {
				conds = append(conds, fmt.Sprintf("context.now - context.intentAt <= %d", r.MaxAge))
			}
		} else {
			switch {
			case r.Caps != nil:
				conds = append(conds, fmt.Sprintf("context.caps.contains(%q)", r.Caps[0]))
			case r.Res != nil:
				conds = append(conds, fmt.Sprintf("context.res.contains(%q)", r.Res[0]))
			}
		}
		fmt.Fprintf(&b, "@id(%q)\n%s (principal, action, resource) when { %s };\n", r.ID, effect, strings.Join(conds, " && "))
	}
	return b.String()
}

// Cedar is a policy set and the requests.
type Cedar struct {
	set      *cedar.PolicySet
	requests []cedar.Request
}

func NewCedar(rules []Rule, inputs []Input) (*Cedar, error) {
	ps, err := cedar.NewPolicySetFromBytes("peers.cedar", []byte(CedarPolicies(rules)))
	if err != nil {
		return nil, err
	}
	c := &Cedar{set: ps}
	set := func(xs []string) cedartypes.Set {
		vs := make([]cedartypes.Value, len(xs))
		for i, x := range xs {
			vs[i] = cedartypes.String(x)
		}
		return cedartypes.NewSet(vs...)
	}
	for _, in := range inputs {
		c.requests = append(c.requests, cedar.Request{
			Principal: cedartypes.NewEntityUID("Agent", "agent"),
			Action:    cedartypes.NewEntityUID("Action", "call"),
			Resource:  cedartypes.NewEntityUID("Tool", cedartypes.String(in.Tool)),
			Context: cedartypes.NewRecord(cedartypes.RecordMap{
				"tenant": cedartypes.String(in.Tenant), "tool": cedartypes.String(in.Tool), "risk": cedartypes.String(in.Risk),
				"caps": set(in.Caps), "res": set(in.Res), "trusts": set(in.Trusts),
				"now": cedartypes.Long(in.Now), "intentAt": cedartypes.Long(in.IntentAt),
			}),
		})
	}
	return c, nil
}

func (c *Cedar) Decide(i int) (bool, error) {
	d, diag := cedar.Authorize(c.set, cedartypes.EntityMap{}, c.requests[i])
	if len(diag.Errors) > 0 {
		return false, fmt.Errorf("cedar: %v", diag.Errors)
	}
	return d == cedar.Allow, nil
}

// --- cel-go ---

// CELExpression writes one rule as a CEL expression.
func CELExpression(r Rule) string {
	conds := []string{fmt.Sprintf("tenant == %q", r.Tenant)}
	if r.Tool != "" {
		conds = append(conds, fmt.Sprintf("tool == %q", r.Tool))
	}
	if r.Risks != nil {
		conds = append(conds, fmt.Sprintf("risk in [%s]", quoted(r.Risks)))
	}
	if r.Allow {
		conds = append(conds, fmt.Sprintf("caps.all(c, c in [%s])", quoted(r.Caps)))
		if !r.ScopeOnly {
			conds = append(conds, fmt.Sprintf("res.all(x, x in [%s])", quoted(r.Res)))
		}
		if r.Verified {
			conds = append(conds, `trusts.all(t, t == "hostVerified")`)
		}
		if r.MaxAge != 0 {
			conds = append(conds, fmt.Sprintf("now - intent_at <= %d", r.MaxAge))
		}
	} else {
		switch {
		case r.Caps != nil:
			conds = append(conds, fmt.Sprintf("%q in caps", r.Caps[0]))
		case r.Res != nil:
			conds = append(conds, fmt.Sprintf("%q in res", r.Res[0]))
		}
	}
	return strings.Join(conds, " && ")
}

// CEL holds one program per rule and the activations. Every rule is
// evaluated (as toolgate, OPA and cedar-go do); deny overrides allow.
type CEL struct {
	programs []cel.Program
	allow    []bool
	inputs   []interpreter.Activation
}

func NewCEL(rules []Rule, inputs []Input) (*CEL, error) {
	env, err := cel.NewEnv(
		cel.Variable("tenant", cel.StringType), cel.Variable("tool", cel.StringType), cel.Variable("risk", cel.StringType),
		cel.Variable("caps", cel.ListType(cel.StringType)), cel.Variable("res", cel.ListType(cel.StringType)),
		cel.Variable("trusts", cel.ListType(cel.StringType)),
		cel.Variable("now", cel.IntType), cel.Variable("intent_at", cel.IntType),
	)
	if err != nil {
		return nil, err
	}
	c := &CEL{}
	for _, r := range rules {
		a, iss := env.Compile(CELExpression(r))
		if iss.Err() != nil {
			return nil, fmt.Errorf("cel: %s: %w", r.ID, iss.Err())
		}
		p, err := env.Program(a, cel.EvalOptions(cel.OptOptimize))
		if err != nil {
			return nil, err
		}
		c.programs = append(c.programs, p)
		c.allow = append(c.allow, r.Allow)
	}
	for _, in := range inputs {
		doc := InputDoc(in)
		for _, k := range []string{"caps", "res", "trusts"} {
			xs := doc[k].([]any)
			ss := make([]string, len(xs))
			for i, x := range xs {
				ss[i] = x.(string)
			}
			doc[k] = ss
		}
		act, err := interpreter.NewActivation(doc)
		if err != nil {
			return nil, err
		}
		c.inputs = append(c.inputs, act)
	}
	return c, nil
}

func (c *CEL) Decide(i int) (bool, error) {
	denied, allowed := false, false
	for j, p := range c.programs {
		v, _, err := p.Eval(c.inputs[i])
		if err != nil {
			return false, err
		}
		if v.Value() == true {
			if c.allow[j] {
				allowed = true
			} else {
				denied = true
			}
		}
	}
	return allowed && !denied, nil
}
