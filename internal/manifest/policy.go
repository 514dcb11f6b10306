package manifest

import (
	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/jsonexact"
)

// PolicyDraft converts a PolicySnapshot spec into the engine's draft. Only
// the recursive condition trees need decoding here; every value is
// validated by policy.Publish or policy.PublishSuccessor. The
// hostAuthorityRef is resolved by the caller, which owns the domains.
func PolicyDraft(spec v1alpha1.PolicySnapshotSpec) (policy.SnapshotDraft, error) {
	d := policy.SnapshotDraft{
		ID:         string(spec.SnapshotID),
		Generation: string(spec.SnapshotGeneration),
		Policies:   make([]policy.DefinitionDraft, len(spec.Policies)),
	}
	var errs fault.Errors // every condition tree is decoded: all violations are reported
	for i, pd := range spec.Policies {
		def := policy.DefinitionDraft{
			ID:         string(pd.ID),
			Generation: string(pd.Generation),
			Lifecycle:  string(pd.Lifecycle),
			Rules:      make([]policy.RuleDraft, len(pd.Rules)),
		}
		if a := pd.Arguments; a != nil {
			def.Arguments = &policy.ArgumentsDraft{Vocabulary: a.Vocabulary, RegistryID: string(a.Registry.SnapshotID), RegistryGeneration: string(a.Registry.Generation)}
		}
		for j, r := range pd.Rules {
			cond, err := ConditionDraft(r.Condition.Raw)
			if err != nil {
				errs.Add("spec.policies"+fault.Index(i)+".rules"+fault.Index(j)+".condition", err)
				continue
			}
			rule := policy.RuleDraft{ID: string(r.ID), Effect: string(r.Effect), Reason: string(r.Reason), Condition: cond}
			if r.Scope != nil {
				rule.Scope = &policy.ScopeDraft{Capabilities: strs(r.Scope.Capabilities), Resources: strs(r.Scope.Resources)}
			}
			for _, o := range r.Obligations {
				rule.Obligations = append(rule.Obligations, policy.ObligationDraft{Kind: string(o.Kind), Seconds: string(o.Seconds), Boundary: string(o.Boundary)})
			}
			def.Rules[j] = rule
		}
		d.Policies[i] = def
	}
	if err := errs.Err(); err != nil {
		return policy.SnapshotDraft{}, err
	}
	return d, nil
}

// conditionTreeDepth bounds decoding of a condition tree: a condition has at
// most 8 levels, and each level is at most three JSON containers deep
// (node, all/any list or predicate object, values list or window object).
const conditionTreeDepth = 3*policy.MaxDepth + 1

// ConditionDraft decodes one condition node tree from JSON: objects with
// the keys all, any (lists of nodes), predicate ({name, identifier,
// generation, value, values, count, seconds, window: {issuedAt, notBefore,
// expiresAt}}) and argument ({name, tool, version, path, value, values,
// scale, root, schemes, hosts}); every operand is a string or a list of strings. Unknown
// keys, duplicate keys and wrong JSON kinds reject; which keys a node or a
// predicate must have is the engine's rule.
func ConditionDraft(raw []byte) (policy.ConditionDraft, error) {
	if len(raw) == 0 {
		return policy.ConditionDraft{}, fault.New(fault.Missing, "a rule has a root condition node")
	}
	v, err := decodeTree(raw, conditionTreeDepth)
	if err != nil {
		return policy.ConditionDraft{}, err
	}
	return conditionNode(v, "")
}

// decodeTree decodes a JSON subtree with jsonexact and maps its errors onto
// the closed codes request construction uses for argument JSON;
// jsonexact's message names the reason and an offset only.
func decodeTree(raw []byte, depth int) (jsonexact.Value, error) {
	v, err := jsonexact.Decode(raw, jsonexact.Limits{MaxDepth: depth})
	if err != nil {
		return v, fault.New(request.JSONFaultCode(err), err.Error())
	}
	return v, nil
}

func conditionNode(v jsonexact.Value, path string) (policy.ConditionDraft, error) {
	var d policy.ConditionDraft
	err := members(v, path, "a condition node is an object {all}, {any}, {predicate} or {argument}",
		"condition nodes have only the keys all, any, predicate and argument",
		func(name string, x jsonexact.Value, p string) (known bool, err error) {
			switch name {
			case "all":
				d.All, err = conditionList(x, p)
			case "any":
				d.Any, err = conditionList(x, p)
			case "predicate":
				d.Predicate, err = predicateDraft(x, p)
			case "argument":
				d.Argument, err = argumentDraft(x, p)
			default:
				return false, nil
			}
			return true, err
		})
	return d, err
}

// conditionList returns a non-nil list, so an empty compound reaches the
// engine as an empty compound (and rejects there) rather than as absent.
func conditionList(v jsonexact.Value, path string) ([]policy.ConditionDraft, error) {
	if v.Kind() != jsonexact.Array {
		return nil, fault.At(path, fault.KindMismatch, "all and any are lists of condition nodes")
	}
	out := make([]policy.ConditionDraft, 0, len(v.Elems()))
	for i, e := range v.Elems() {
		c, err := conditionNode(e, path+fault.Index(i))
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func predicateDraft(v jsonexact.Value, path string) (*policy.PredicateDraft, error) {
	d := &policy.PredicateDraft{}
	err := members(v, path, "a predicate is an object {name, operands...}",
		"predicates have only the keys name, identifier, generation, value, values, count, seconds and window",
		func(name string, x jsonexact.Value, p string) (known bool, err error) {
			switch name {
			case "name":
				d.Name, err = text(x, p)
			case "identifier":
				d.Identifier, err = text(x, p)
			case "generation":
				d.Generation, err = text(x, p)
			case "value":
				d.Value, err = text(x, p)
			case "values":
				d.Values, err = texts(x, p)
			case "count":
				d.Count, err = text(x, p)
			case "seconds":
				d.Seconds, err = text(x, p)
			case "window":
				d.Window, err = windowDraft(x, p)
			default:
				return false, nil
			}
			return true, err
		})
	if err != nil {
		return nil, err
	}
	return d, nil
}

func argumentDraft(v jsonexact.Value, path string) (*policy.ArgumentDraft, error) {
	d := &policy.ArgumentDraft{}
	err := members(v, path, "an argument predicate is an object {name, tool, version, path, operands...}",
		"argument predicates have only the keys name, tool, version, path, value, values, scale, root, schemes and hosts",
		func(name string, x jsonexact.Value, p string) (known bool, err error) {
			switch name {
			case "name":
				d.Name, err = text(x, p)
			case "tool":
				d.Tool, err = text(x, p)
			case "version":
				d.Version, err = text(x, p)
			case "path":
				d.Path, err = text(x, p)
			case "value":
				d.Value, err = text(x, p)
			case "values":
				d.Values, err = texts(x, p)
			case "scale":
				d.Scale, err = text(x, p)
			case "root":
				d.Root, err = text(x, p)
			case "schemes":
				d.Schemes, err = texts(x, p)
			case "hosts":
				d.Hosts, err = texts(x, p)
			default:
				return false, nil
			}
			return true, err
		})
	if err != nil {
		return nil, err
	}
	return d, nil
}

func windowDraft(v jsonexact.Value, path string) (*policy.WindowDraft, error) {
	w := &policy.WindowDraft{}
	err := members(v, path, "a window is an object {issuedAt, notBefore, expiresAt}",
		"windows have only the keys issuedAt, notBefore and expiresAt",
		func(name string, x jsonexact.Value, p string) (known bool, err error) {
			switch name {
			case "issuedAt":
				w.IssuedAt, err = text(x, p)
			case "notBefore":
				w.NotBefore, err = text(x, p)
			case "expiresAt":
				w.ExpiresAt, err = text(x, p)
			default:
				return false, nil
			}
			return true, err
		})
	if err != nil {
		return nil, err
	}
	return w, nil
}
