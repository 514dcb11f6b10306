package policy

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/engine/argpred"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Condition is one normalized, immutable condition node: an unordered all or
// any over 1–16 unique children, or one typed predicate. Children are held in
// Section 50 key order.
type Condition struct {
	kind     vocab.ConditionKind
	children []*Condition
	pred     predicate
	key      string
}

// Kind returns all, any or predicate.
func (c *Condition) Kind() vocab.ConditionKind { return c.kind }

// Len returns the number of children of a compound node; 0 for a predicate.
func (c *Condition) Len() int { return len(c.children) }

// Child returns child i in normalized order.
func (c *Condition) Child(i int) *Condition { return c.children[i] }

// Predicate returns the predicate of a predicate node; 0 for a compound
// and for an argument predicate.
func (c *Condition) Predicate() vocab.Predicate { return c.pred.name }

// Argument returns the argument predicate of an argument node; nil
// otherwise.
func (c *Condition) Argument() *argpred.Predicate { return c.pred.arg }

// Key returns the Section 50 normalization key:
//
//	all(children) -> "0[" + comma-joined child keys + "]"
//	any(children) -> "1[" + comma-joined child keys + "]"
//	predicate     -> "2:" + predicate key
//
// The key is an in-memory normalization rule, not a portable serialization.
func (c *Condition) Key() string { return c.key }

// eval returns the three-valued result of c. Within both all and any, any
// indeterminate child makes the compound indeterminate, so a false child of
// an all or a true child of an any never ends the loop: only an indeterminate
// child, which decides the compound whatever follows, does. Evaluation has no
// side effects, so stopping there cannot hide anything.
func (c *Condition) eval(v *view) result {
	if c.kind == vocab.ConditionPredicate {
		return c.pred.eval(v)
	}
	var nMatched int
	for _, ch := range c.children {
		switch ch.eval(v) {
		case indeterminate:
			return indeterminate
		case matched:
			nMatched++
		}
	}
	if c.kind == vocab.ConditionAll {
		return is(nMatched == len(c.children))
	}
	return is(nMatched > 0)
}

// compiler holds the per-publication state of condition compilation: the
// Host ceiling and the node budgets, which are checked at every node before
// any further work.
type compiler struct {
	ceiling   ceiling
	ruleNodes int
	nodes     int // across the whole snapshot

	// The argument-predicate state of the definition being compiled:
	// registries resolves an opt-in's Registry Snapshot; tools is the
	// definition's bound snapshot, nil when it did not opt in.
	registries Registries
	tools      argpred.Tools
	// unresolved: the definition's opt-in itself was rejected (reported
	// there); its argument nodes cannot be checked and are not reported
	// again.
	unresolved bool
}

// condition validates and normalizes one node at depth (root = 1). Paths are
// relative to the node.
func (k *compiler) condition(d *ConditionDraft, depth int) (*Condition, error) {
	k.ruleNodes++
	k.nodes++
	switch {
	case k.ruleNodes > MaxRuleNodes:
		return nil, fault.New(fault.LimitExceeded, "a rule condition has at most 64 nodes, counting the root")
	case k.nodes > MaxNodes:
		return nil, fault.New(fault.LimitExceeded, "a policy snapshot has at most 8192 condition nodes")
	case depth > MaxDepth:
		return nil, fault.New(fault.LimitExceeded, "a rule condition is at most 8 levels deep, counting the root")
	}
	forms := 0
	if d.All != nil {
		forms++
	}
	if d.Any != nil {
		forms++
	}
	if d.Predicate != nil {
		forms++
	}
	if d.Argument != nil {
		forms++
	}
	switch {
	case forms == 0:
		return nil, fault.New(fault.Missing, "a condition is exactly one of all, any or predicate (or argument, with the argument-predicate opt-in)")
	case forms > 1:
		return nil, fault.New(fault.Malformed, "a condition is exactly one of all, any or predicate (or argument, with the argument-predicate opt-in)")
	case d.Argument != nil:
		if k.unresolved {
			// Never published: the definition already carries the opt-in's
			// rejection. The node counter keeps sibling keys distinct.
			return &Condition{kind: vocab.ConditionPredicate, key: "3:unresolved:" + strconv.Itoa(k.nodes)}, nil
		}
		if k.tools == nil {
			return nil, fault.At("argument", fault.Unsupported, "argument predicates need the policy's opt-in to "+argpred.Vocabulary)
		}
		a, err := argpred.New(*d.Argument, k.tools, k.ceiling.hasResource)
		if err != nil {
			return nil, fault.Within("argument", err)
		}
		// "3:" after the Section 50 prefixes 0, 1 and 2: a Phase 1–6 key
		// is never an argument key, and Phase 1–6 trees keep their keys.
		return &Condition{kind: vocab.ConditionPredicate, pred: predicate{arg: a}, key: "3:" + a.Key()}, nil
	case d.Predicate != nil:
		p, err := newPredicate(d.Predicate, &k.ceiling)
		if err != nil {
			return nil, fault.Within("predicate", err)
		}
		return &Condition{kind: vocab.ConditionPredicate, pred: p, key: "2:" + p.key}, nil
	case d.All != nil:
		return k.compound(vocab.ConditionAll, "all", d.All, depth)
	default:
		return k.compound(vocab.ConditionAny, "any", d.Any, depth)
	}
}

func (k *compiler) compound(kind vocab.ConditionKind, name string, ds []ConditionDraft, depth int) (*Condition, error) {
	switch {
	case len(ds) == 0:
		return nil, fault.At(name, fault.Missing, "compound conditions have 1–16 children")
	case len(ds) > MaxChildren:
		return nil, fault.At(name, fault.LimitExceeded, "compound conditions have 1–16 children")
	}
	// Every child is checked, so that all the violations of a tree are
	// reported at once; a bound exceeded stops the walk, because every node
	// after it would exceed it too.
	children := make([]*Condition, len(ds))
	var errs fault.Errors
	for i := range ds {
		ch, err := k.condition(&ds[i], depth+1)
		if err != nil {
			errs.Add(name+fault.Index(i), err)
			if errors.Is(err, fault.ErrLimitExceeded) {
				break
			}
			continue
		}
		children[i] = ch
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	// Children are semantically unordered; normalize by key and reject
	// duplicates, reporting the later child in draft order.
	order := make([]int, len(children))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(children[a].key, children[b].key) })
	sorted := make([]*Condition, len(children))
	for i, j := range order {
		sorted[i] = children[j]
		if i > 0 && sorted[i-1].key == sorted[i].key {
			return nil, fault.At(name+fault.Index(max(j, order[i-1])), fault.Duplicate, "compound children are unique")
		}
	}
	var b strings.Builder
	b.WriteByte(byte('0' + kind - 1))
	b.WriteByte('[')
	for i, ch := range sorted {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(ch.key)
	}
	b.WriteByte(']')
	return &Condition{kind: kind, children: sorted, key: b.String()}, nil
}
