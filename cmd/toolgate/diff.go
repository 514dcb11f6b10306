package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/publication"
)

// diff compares two trees of manifests — the base of a pull request and
// its head — and reports, for every PolicySnapshot generation the head
// adds, whether it is a valid successor and what it changes: policies added
// or moved along their lifecycle, rules added or removed, and effects,
// reasons, conditions, scope and obligations changed, widened or narrowed.
// Each change has a kind of a closed set (changeKinds), so a pipeline can
// gate on it (--fail-on). It exits 1 when a new generation is not a valid
// successor or a change of a --fail-on kind occurs.

// diffOptions are diff's flags.
type diffOptions struct {
	out    *outputFlags
	failOn *kindList
}

func diffFlags(fs *pflag.FlagSet) *diffOptions {
	o := &diffOptions{out: ciOutputFlags(fs), failOn: &kindList{}}
	fs.Var(o.failOn, "fail-on", "exit 1 when a change of one of these kinds occurs (`KIND,...`; repeatable): "+strings.Join(changeKinds, ", "))
	return o
}

// The closed set of change kinds (docs/cli.md, "diff changes"). A rule that
// kept its identity and changed is reported by aspect; rule-changed is the
// rest, and --fail-on rule-changed selects every aspect too (keptRule).
const (
	changePolicyAdded       = "policy-added"
	changeLifecycleChanged  = "lifecycle-changed"
	changeRuleAdded         = "rule-added"
	changeRuleRemoved       = "rule-removed"
	changeRuleChanged       = "rule-changed"
	changeEffectChanged     = "effect-changed"
	changeReasonChanged     = "reason-changed"
	changeConditionChanged  = "condition-changed"
	changeScopeWidened      = "scope-widened"
	changeScopeNarrowed     = "scope-narrowed"
	changeObligationAdded   = "obligation-added"
	changeObligationRemoved = "obligation-removed"
)

var changeKinds = []string{changePolicyAdded, changeLifecycleChanged, changeRuleAdded, changeRuleRemoved, changeRuleChanged,
	changeEffectChanged, changeReasonChanged, changeConditionChanged, changeScopeWidened, changeScopeNarrowed,
	changeObligationAdded, changeObligationRemoved}

// keptRule reports whether kind is an aspect of a rule that kept its
// identity: what --fail-on rule-changed selects.
func keptRule(kind string) bool {
	switch kind {
	case changeRuleChanged, changeEffectChanged, changeReasonChanged, changeConditionChanged,
		changeScopeWidened, changeScopeNarrowed, changeObligationAdded, changeObligationRemoved:
		return true
	}
	return false
}

// kindList is --fail-on: change kinds, comma-separated, the flag
// repeatable. Its error names the set, never the rejected value.
type kindList struct{ kinds []string }

func (k *kindList) String() string { return strings.Join(k.kinds, ",") }
func (k *kindList) Type() string   { return "kinds" }

func (k *kindList) Set(s string) error {
	for _, x := range strings.Split(s, ",") {
		if !slices.Contains(changeKinds, x) {
			return fmt.Errorf("must be change kinds separated by commas, of %s", strings.Join(changeKinds, ", "))
		}
		if !slices.Contains(k.kinds, x) {
			k.kinds = append(k.kinds, x)
		}
	}
	return nil
}

// closedList is a flag value whose members are of a closed set: its error
// names the set (never the value), so it is shown as a choice's is.
type closedList interface{ closedList() }

func (*kindList) closedList() {}

// selects reports whether --fail-on selects a change of kind.
func (k *kindList) selects(kind string) bool {
	return slices.Contains(k.kinds, kind) || slices.Contains(k.kinds, changeRuleChanged) && keptRule(kind)
}

func diff(o *diffOptions, paths []string, out io.Writer) error {
	mode, err := o.out.mode()
	if err != nil {
		return err
	}
	if len(paths) != 2 {
		return usageError{"diff needs the OLD and the NEW manifest file or directory"}
	}
	base, err := manifest.LoadPaths(paths[0])
	if err != nil {
		return fmt.Errorf("OLD: %w", err)
	}
	head, err := manifest.LoadPaths(paths[1])
	if err != nil {
		return fmt.Errorf("NEW: %w", err)
	}
	text := out
	if mode != formatText {
		text = io.Discard
	}
	added, invalid := 0, 0
	rep := diffReport{Generations: []generationDiff{}}
	for i := range head.HostAuthorities {
		ha := &head.HostAuthorities[i]
		a, n, err := diffDomain(text, base, head, ha, &rep.Generations)
		if err != nil {
			return err
		}
		added += a
		invalid += n
	}
	selected := map[string]int{}
	for _, g := range rep.Generations {
		for _, c := range g.Changes {
			if o.failOn.selects(c.Kind) {
				selected[c.Kind]++
			}
		}
	}
	rep.Valid = invalid == 0
	rep.Failed = len(selected) > 0
	switch {
	case mode == formatGitHub:
		diffGitHub(out, rep, o.failOn)
	case mode == formatJUnit:
		if err := diffJUnit(rep, o.failOn).write(out); err != nil {
			return err
		}
	case mode != formatText:
		if err := emit(out, mode, rep); err != nil {
			return err
		}
	case added == 0:
		// Silence would read as "diff did not run" in a pipeline log.
		fmt.Fprintln(out, "no changes: NEW adds no PolicySnapshot generation to OLD")
	}
	var failures []string
	if invalid > 0 {
		failures = append(failures, plural(invalid, "new generation is", "new generations are")+" not a valid successor")
	}
	if len(selected) > 0 {
		var counts []string
		for _, k := range changeKinds { // in the set's order, not the map's
			if n := selected[k]; n > 0 {
				counts = append(counts, fmt.Sprintf("%d %s", n, k))
			}
		}
		failures = append(failures, "changes of a --fail-on kind: "+strings.Join(counts, ", "))
	}
	if len(failures) > 0 {
		return fmt.Errorf("%s", strings.Join(failures, "; "))
	}
	return nil
}

// diffReport is diff's -o json|yaml document: one entry per generation
// only NEW has, in the order text prints them.
type diffReport struct {
	Valid bool `json:"valid"`
	// Failed says a change of a --fail-on kind occurred.
	Failed      bool             `json:"failed"`
	Generations []generationDiff `json:"generations"`
}

type generationDiff struct {
	Object         string `json:"object"` // namespace/name of the PolicySnapshot
	SnapshotID     string `json:"snapshotID"`
	Generation     string `json:"generation"`
	ValidSuccessor bool   `json:"validSuccessor"`
	// Findings say why it is not a valid successor.
	Findings []finding `json:"findings,omitempty"`
	// Changes are what it changes, in text's order: policies added or
	// moved along their lifecycle, then each new policy version's rule
	// changes.
	Changes []change `json:"changes,omitempty"`
}

// change is one structured change of a new generation. Text is the text
// output's line that reports it (a scope or obligation set that both lost
// and gained members is one line and two changes).
type change struct {
	Kind   string    `json:"kind"`
	Object objectRef `json:"object"`
	// Policy and Version name the policy version in NEW; ComparedWith is
	// the earlier version its rules are compared with (the latest OLD
	// holds), absent for a policy OLD does not have.
	Policy       string `json:"policy"`
	Version      string `json:"version"`
	ComparedWith string `json:"comparedWith,omitempty"`
	Rule         string `json:"rule,omitempty"`
	// Effect is the rule's effect (OLD's for a removed rule).
	Effect string `json:"effect,omitempty"`
	// Field is the set a scope change is in: capabilities or resources.
	Field string `json:"field,omitempty"`
	// From and To are an effect, reason or lifecycle before and after.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// Added and Removed are the members a scope or obligation set gained
	// or lost.
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	// Predicates names the predicates a changed condition added, removed
	// or gave another operand (empty when only its all/any structure
	// changed).
	Predicates []string `json:"predicates,omitempty"`
	// File and Line locate the change in NEW's manifest.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Text string `json:"text"`
}

// message is c as one line that names its object, policy version and
// rule.
func (c change) message() string {
	m := "PolicySnapshot " + objName(c.Object.Namespace, c.Object.Name) + ": "
	if c.Rule != "" {
		m += "policy " + c.Policy + " version " + c.Version + ": "
	}
	return m + c.Text
}

type objectRef struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// diffDomain publishes the base tree's generations of one HostAuthority,
// then each generation only the head has, and reports each (to out, and
// as entries of rep). It returns how many generations the head adds and how
// many of them are invalid.
func diffDomain(out io.Writer, base, head *manifest.Set, o *v1alpha1.HostAuthority, rep *[]generationDiff) (added, invalid int, err error) {
	where := fmt.Sprintf("HostAuthority %s/%s", o.Namespace, o.Name)
	a, err := publication.HostAuthority(o)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", where, err)
	}
	h, err := host.New(a.Config)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", where, err)
	}
	admin, _ := manifest.AdministratorOf(o)
	if err := publication.Into(base, h, o.Namespace, o.Name, admin); err != nil {
		return 0, 0, fmt.Errorf("OLD: %w", err)
	}
	var news []*v1alpha1.PolicySnapshot
	for i := range head.PolicySnapshots {
		p := &head.PolicySnapshots[i]
		if p.Namespace != o.Namespace || string(p.Spec.HostAuthorityRef.Name) != o.Name {
			continue
		}
		if _, err := h.Policy(string(p.Spec.SnapshotID), string(p.Spec.SnapshotGeneration)); err != nil {
			news = append(news, p)
		}
	}
	slices.SortFunc(news, func(a, b *v1alpha1.PolicySnapshot) int {
		return cmp.Or(strings.Compare(string(a.Spec.SnapshotID), string(b.Spec.SnapshotID)),
			cmp.Compare(len(a.Spec.SnapshotGeneration), len(b.Spec.SnapshotGeneration)),
			strings.Compare(string(a.Spec.SnapshotGeneration), string(b.Spec.SnapshotGeneration)))
	})
	for _, p := range news {
		id, gen := string(p.Spec.SnapshotID), string(p.Spec.SnapshotGeneration)
		g := generationDiff{Object: objName(p.Namespace, p.Name), SnapshotID: id, Generation: gen}
		next, err := publication.Policy(h, admin, p)
		if err != nil {
			invalid++
			fmt.Fprintf(out, "policy snapshot %s generation %s (%s/%s): NOT a valid successor: %s\n",
				id, gen, p.Namespace, p.Name, userMessage(err))
			g.Findings = findingsOf(located(head, objErr("PolicySnapshot", p, err)))
			*rep = append(*rep, g)
			continue
		}
		var prev *host.PolicySnapshot // nil for a first generation
		if pg, ok := publication.Previous(p); ok {
			prev, _ = h.Policy(id, pg)
		}
		fmt.Fprintf(out, "policy snapshot %s generation %s (%s/%s): valid successor\n", id, gen, p.Namespace, p.Name)
		d := &describer{head: head, obj: p}
		d.describe(prev, next)
		for _, l := range d.lines {
			fmt.Fprintf(out, "  %s\n", l)
		}
		g.ValidSuccessor = true
		g.Changes = d.changes
		*rep = append(*rep, g)
	}
	return len(news), invalid, nil
}

// describer collects what one new generation obj (read by head) changes:
// the text lines (indented below the generation's line) and the
// structured changes, each located in obj's manifest.
type describer struct {
	head    *manifest.Set
	obj     *v1alpha1.PolicySnapshot
	lines   []string
	changes []change
}

// line adds one text line at depth (0 for a policy, 2 for a rule) and
// the changes it reports, each with the line as its text.
func (d *describer) line(depth int, text string, cs ...change) {
	d.lines = append(d.lines, strings.Repeat("  ", depth)+text)
	for _, c := range cs {
		c.Object = objectRef{Kind: "PolicySnapshot", Namespace: d.obj.Namespace, Name: d.obj.Name}
		c.Text = text
		d.changes = append(d.changes, c)
	}
}

// at locates path (an object path of obj) in its manifest: the file and
// the line of the deepest node the path reaches.
func (d *describer) at(path string) (string, int) {
	var le *manifest.LocatedError
	if err := d.head.Locate("PolicySnapshot", d.obj.Namespace, d.obj.Name, fault.At(path, fault.Mismatch, "")); errors.As(err, &le) && len(le.Lines) > 0 {
		return le.File, le.Lines[0]
	}
	return "", 0
}

// policyPath is the object path of policy version id/generation in obj,
// and of its rule ruleID when not "" (the version itself when it has no
// such rule).
func (d *describer) policyPath(id, generation, ruleID string) string {
	for i, p := range d.obj.Spec.Policies {
		if string(p.ID) != id || string(p.Generation) != generation {
			continue
		}
		path := "spec.policies" + fault.Index(i)
		if ruleID == "" {
			return path
		}
		for j, r := range p.Rules {
			if string(r.ID) == ruleID {
				return path + ".rules" + fault.Index(j)
			}
		}
		return path // the version that no longer has the rule
	}
	return "spec.policies"
}

// located is c at path.
func (d *describer) located(c change, path string) change {
	c.File, c.Line = d.at(path)
	return c
}

// describe lists what next changes relative to prev (nil for a first
// generation).
func (d *describer) describe(prev, next *host.PolicySnapshot) {
	latest := map[string]*host.PolicyDefinition{} // prev's latest version of each policy
	held := map[string]*host.PolicyDefinition{}   // prev's versions by id/generation
	if prev != nil {
		for i := range prev.Len() {
			p := prev.Policy(i)
			held[p.ID().String()+"/"+p.Generation().String()] = p
			if l, ok := latest[p.ID().String()]; !ok || l.Generation().Compare(p.Generation()) < 0 {
				latest[p.ID().String()] = p
			}
		}
	}
	for i := range next.Len() {
		p := next.Policy(i)
		id, gen := p.ID().String(), p.Generation().String()
		name := fmt.Sprintf("policy %s version %s", id, gen)
		base := change{Policy: id, Version: gen}
		at := d.policyPath(id, gen, "")
		if old, ok := held[id+"/"+gen]; ok {
			if old.Lifecycle() != p.Lifecycle() {
				c := base
				c.Kind, c.From, c.To = changeLifecycleChanged, old.Lifecycle().String(), p.Lifecycle().String()
				d.line(0, fmt.Sprintf("%s: %s → %s", name, old.Lifecycle(), p.Lifecycle()), d.located(c, at+".lifecycle"))
			}
			continue
		}
		before, compared := latest[id]
		c := base
		c.Kind = changePolicyAdded
		if compared {
			c.ComparedWith = before.Generation().String()
		}
		d.line(0, fmt.Sprintf("%s: added (%s, %s)", name, p.Lifecycle(), plural(p.Len(), "rule", "rules")), d.located(c, at))
		if compared {
			base.ComparedWith = before.Generation().String()
			d.line(1, fmt.Sprintf("compared with version %s:", before.Generation()))
			d.describeRules(base, before, p)
		}
	}
}

// describeRules lists the rule changes from policy version a to b; base
// names b and a.
func (d *describer) describeRules(base change, a, b *host.PolicyDefinition) {
	rules := func(p *host.PolicyDefinition) map[string]*host.PolicyRule {
		m := map[string]*host.PolicyRule{}
		for i := range p.Len() {
			m[p.Rule(i).ID().String()] = p.Rule(i)
		}
		return m
	}
	ra, rb := rules(a), rules(b)
	ids := slices.Sorted(func(yield func(string) bool) {
		for id := range ra {
			if !yield(id) {
				return
			}
		}
		for id := range rb {
			if _, dup := ra[id]; !dup && !yield(id) {
				return
			}
		}
	})
	changed := false
	for _, id := range ids {
		x, inA := ra[id]
		y, inB := rb[id]
		at := d.policyPath(base.Policy, base.Version, id)
		c := base
		c.Rule = id
		switch {
		case !inA:
			c.Kind, c.Effect = changeRuleAdded, y.Effect().String()
			d.line(2, fmt.Sprintf("rule %s: added (%s, %s)", id, y.Effect(), y.Reason()), d.located(c, at))
			changed = true
		case !inB:
			c.Kind, c.Effect = changeRuleRemoved, x.Effect().String()
			d.line(2, fmt.Sprintf("rule %s: removed (was %s)", id, x.Effect()), d.located(c, at))
			changed = true
		case !x.Digest().Equal(y.Digest()):
			changed = true
			c.Effect = y.Effect().String()
			d.ruleChanges(c, at, x, y)
		}
	}
	if !changed {
		d.line(2, "no rule changed")
	}
}

// ruleChanges lists how rule y differs from rule x with the same identity
// (base names it, at is its path in NEW): one line per aspect.
func (d *describer) ruleChanges(base change, at string, x, y *host.PolicyRule) {
	prefix := "rule " + base.Rule + ": "
	n := len(d.changes)
	if x.Effect() != y.Effect() {
		c := base
		c.Kind, c.From, c.To = changeEffectChanged, x.Effect().String(), y.Effect().String()
		d.line(2, prefix+fmt.Sprintf("effect %s → %s", x.Effect(), y.Effect()), d.located(c, at+".effect"))
	}
	if x.Reason() != y.Reason() {
		c := base
		c.Kind, c.From, c.To = changeReasonChanged, x.Reason().String(), y.Reason().String()
		d.line(2, prefix+fmt.Sprintf("reason %s → %s", x.Reason(), y.Reason()), d.located(c, at+".reason"))
	}
	if x.Condition().Key() != y.Condition().Key() {
		c := base
		c.Kind, c.Predicates = changeConditionChanged, changedPredicates(x.Condition(), y.Condition())
		text := "condition changed: only its all/any structure"
		if len(c.Predicates) > 0 {
			text = "condition changed: " + strings.Join(c.Predicates, ", ")
		}
		d.line(2, prefix+text, d.located(c, at+".condition"))
	}
	for _, s := range []struct {
		field string
		a, b  []string
	}{
		{"capabilities", tokens(x.Capabilities()), tokens(y.Capabilities())},
		{"resources", tokens(x.Resources()), tokens(y.Resources())},
	} {
		gone, came := setDelta(s.a, s.b)
		if len(gone)+len(came) == 0 {
			continue
		}
		var cs []change
		if len(came) > 0 {
			c := base
			c.Kind, c.Field, c.Added = changeScopeWidened, s.field, came
			cs = append(cs, d.located(c, at+".scope."+s.field))
		}
		if len(gone) > 0 {
			c := base
			c.Kind, c.Field, c.Removed = changeScopeNarrowed, s.field, gone
			cs = append(cs, d.located(c, at+".scope."+s.field))
		}
		d.line(2, prefix+setChange(s.field, gone, came), cs...)
	}
	if gone, came := setDelta(obligations(x), obligations(y)); len(gone)+len(came) > 0 {
		var cs []change
		if len(came) > 0 {
			c := base
			c.Kind, c.Added = changeObligationAdded, came
			cs = append(cs, d.located(c, at+".obligations"))
		}
		if len(gone) > 0 {
			c := base
			c.Kind, c.Removed = changeObligationRemoved, gone
			cs = append(cs, d.located(c, at+".obligations"))
		}
		d.line(2, prefix+setChange("obligations", gone, came), cs...)
	}
	if len(d.changes) == n {
		c := base
		c.Kind = changeRuleChanged
		d.line(2, prefix+"changed", d.located(c, at))
	}
}

// changedPredicates names, sorted and once each, the predicates of one
// condition whose node (name and operands) the other lacks.
func changedPredicates(x, y *host.PolicyCondition) []string {
	kx, ky := leaves(x, nil), leaves(y, nil)
	var names []string
	for _, pair := range [][2][]predicateLeaf{{kx, ky}, {ky, kx}} {
		for _, l := range pair[0] {
			if !slices.ContainsFunc(pair[1], func(m predicateLeaf) bool { return m.key == l.key }) {
				names = append(names, l.name)
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

type predicateLeaf struct{ name, key string }

// leaves appends the predicate nodes of c to out.
func leaves(c *host.PolicyCondition, out []predicateLeaf) []predicateLeaf {
	if c.Len() > 0 {
		for i := range c.Len() {
			out = leaves(c.Child(i), out)
		}
		return out
	}
	name := c.Predicate().String()
	if a := c.Argument(); a != nil {
		name = "argument " + a.Name().String()
	}
	return append(out, predicateLeaf{name: name, key: c.Key()})
}

// setDelta is what b lost and gained relative to a.
func setDelta(a, b []string) (gone, came []string) {
	for _, x := range a {
		if !slices.Contains(b, x) {
			gone = append(gone, x)
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			came = append(came, x)
		}
	}
	return gone, came
}

// setChange says whether a set was widened (a superset), narrowed (a
// subset) or changed, and lists what came and went.
func setChange(what string, gone, came []string) string {
	switch {
	case len(gone) == 0:
		return fmt.Sprintf("%s widened: + %s", what, strings.Join(came, ", "))
	case len(came) == 0:
		return fmt.Sprintf("%s narrowed: − %s", what, strings.Join(gone, ", "))
	default:
		return fmt.Sprintf("%s changed: − %s; + %s", what, strings.Join(gone, ", "), strings.Join(came, ", "))
	}
}

func tokens[T fmt.Stringer](xs []T) []string {
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		out = append(out, x.String())
	}
	return out
}

func obligations(r *host.PolicyRule) []string {
	var out []string
	for _, o := range r.Obligations() {
		out = append(out, obligationText(o))
	}
	return out
}

// diffGitHub writes one workflow command per finding of an invalid
// generation (an error) and per change: an error for a kind --fail-on
// selects, a warning otherwise, at its file and line in NEW.
func diffGitHub(out io.Writer, rep diffReport, failOn *kindList) {
	for _, g := range rep.Generations {
		for _, f := range g.Findings {
			githubCommand(out, "error", f.File, f.Line, f.Column, "toolgate diff: not a valid successor", f.text())
		}
		for _, c := range g.Changes {
			level := "warning"
			if failOn.selects(c.Kind) {
				level = "error"
			}
			githubCommand(out, level, c.File, c.Line, 0, "toolgate diff: "+c.Kind, c.message())
		}
	}
}

// diffJUnit is one test case per new generation, failed when it is not a
// valid successor or makes a change --fail-on selects.
func diffJUnit(rep diffReport, failOn *kindList) *junitSuites {
	j := &junitSuites{Name: "toolgate diff"}
	for _, g := range rep.Generations {
		c := junitCase{Name: "PolicySnapshot " + g.Object, ClassName: "diff.PolicySnapshot"}
		fs := slices.Clone(g.Findings)
		for _, ch := range g.Changes {
			if failOn.selects(ch.Kind) {
				fs = append(fs, finding{File: ch.File, Line: ch.Line, Reason: reasonInvalid, Message: ch.Kind + ": " + ch.message()})
			}
		}
		if len(fs) > 0 {
			c.File, c.Line, c.Failure = fs[0].File, fs[0].Line, junitFailureOf(fs)
		}
		j.add("toolgate diff", c)
	}
	return j
}
