package main

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/publication"
)

// diff compares two trees of manifests — the base of a pull request and
// its head — and reports, for every PolicySnapshot generation the head
// adds, whether it is a valid successor and what it changes: policies added
// or retired, rules added or removed, and effects, conditions, scope and
// obligations changed, widened or narrowed. It exits 1 when a new
// generation is not a valid successor.
func diff(of *outputFlags, paths []string, out io.Writer) error {
	mode, _ := of.mode() // no --format: one flag, no conflict
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
		o := &head.HostAuthorities[i]
		a, n, err := diffDomain(text, base, head, o, &rep.Generations)
		if err != nil {
			return err
		}
		added += a
		invalid += n
	}
	switch {
	case mode != formatText:
		rep.Valid = invalid == 0
		if err := emit(out, mode, rep); err != nil {
			return err
		}
	case added == 0:
		// Silence would read as "diff did not run" in a pipeline log.
		fmt.Fprintln(out, "no changes: NEW adds no PolicySnapshot generation to OLD")
	}
	if invalid > 0 {
		return fmt.Errorf("%s is not a valid successor", plural(invalid, "new generation", "new generations"))
	}
	return nil
}

// diffReport is diff's -o json|yaml document: one entry per generation
// only NEW has, in the order text prints them.
type diffReport struct {
	Valid       bool             `json:"valid"`
	Generations []generationDiff `json:"generations"`
}

type generationDiff struct {
	Object         string `json:"object"` // namespace/name of the PolicySnapshot
	SnapshotID     string `json:"snapshotID"`
	Generation     string `json:"generation"`
	ValidSuccessor bool   `json:"validSuccessor"`
	// Findings say why it is not a valid successor.
	Findings []finding `json:"findings,omitempty"`
	// Changes are text's lines under the generation: policies added or
	// moved along their lifecycle, then, indented under each new policy
	// version, its rule changes.
	Changes []string `json:"changes,omitempty"`
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
		var changes bytes.Buffer
		describe(&changes, prev, next)
		_, _ = out.Write(changes.Bytes())
		g.ValidSuccessor = true
		for l := range strings.Lines(changes.String()) {
			g.Changes = append(g.Changes, strings.TrimSuffix(strings.TrimPrefix(l, "  "), "\n"))
		}
		*rep = append(*rep, g)
	}
	return len(news), invalid, nil
}

// describe lists what next changes relative to prev (nil for a first
// generation).
func describe(out io.Writer, prev, next *host.PolicySnapshot) {
	latest := map[string]*host.PolicyDefinition{} // prev's latest version of each policy
	held := map[string]*host.PolicyDefinition{}   // prev's versions by id/generation
	if prev != nil {
		for i := range prev.Len() {
			d := prev.Policy(i)
			held[d.ID().String()+"/"+d.Generation().String()] = d
			if l, ok := latest[d.ID().String()]; !ok || l.Generation().Compare(d.Generation()) < 0 {
				latest[d.ID().String()] = d
			}
		}
	}
	for i := range next.Len() {
		d := next.Policy(i)
		name := fmt.Sprintf("policy %s version %s", d.ID(), d.Generation())
		if old, ok := held[d.ID().String()+"/"+d.Generation().String()]; ok {
			if old.Lifecycle() != d.Lifecycle() {
				fmt.Fprintf(out, "  %s: %s → %s\n", name, old.Lifecycle(), d.Lifecycle())
			}
			continue
		}
		fmt.Fprintf(out, "  %s: added (%s, %s)\n", name, d.Lifecycle(), plural(d.Len(), "rule", "rules"))
		if before, ok := latest[d.ID().String()]; ok {
			fmt.Fprintf(out, "    compared with version %s:\n", before.Generation())
			describeRules(out, before, d)
		}
	}
}

// describeRules lists the rule changes from policy version a to b.
func describeRules(out io.Writer, a, b *host.PolicyDefinition) {
	rules := func(d *host.PolicyDefinition) map[string]*host.PolicyRule {
		m := map[string]*host.PolicyRule{}
		for i := range d.Len() {
			m[d.Rule(i).ID().String()] = d.Rule(i)
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
		switch {
		case !inA:
			fmt.Fprintf(out, "      rule %s: added (%s, %s)\n", id, y.Effect(), y.Reason())
			changed = true
		case !inB:
			fmt.Fprintf(out, "      rule %s: removed (was %s)\n", id, x.Effect())
			changed = true
		case !x.Digest().Equal(y.Digest()):
			changed = true
			for _, c := range ruleChanges(x, y) {
				fmt.Fprintf(out, "      rule %s: %s\n", id, c)
			}
		}
	}
	if !changed {
		fmt.Fprintln(out, "      no rule changed")
	}
}

// ruleChanges describes how rule y differs from rule x with the same
// identity.
func ruleChanges(x, y *host.PolicyRule) []string {
	var out []string
	if x.Effect() != y.Effect() {
		out = append(out, fmt.Sprintf("effect %s → %s", x.Effect(), y.Effect()))
	}
	if x.Reason() != y.Reason() {
		out = append(out, fmt.Sprintf("reason %s → %s", x.Reason(), y.Reason()))
	}
	if x.Condition().Key() != y.Condition().Key() {
		out = append(out, "condition changed")
	}
	if c := setChange("capabilities", tokens(x.Capabilities()), tokens(y.Capabilities())); c != "" {
		out = append(out, c)
	}
	if c := setChange("resources", tokens(x.Resources()), tokens(y.Resources())); c != "" {
		out = append(out, c)
	}
	ox, oy := obligations(x), obligations(y)
	if c := setChange("obligations", ox, oy); c != "" {
		out = append(out, c)
	}
	if len(out) == 0 {
		out = append(out, "changed")
	}
	return out
}

// setChange says whether a set was widened (a superset), narrowed (a
// subset) or changed, and lists what came and went.
func setChange(what string, a, b []string) string {
	var gone, came []string
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
	switch {
	case len(gone) == 0 && len(came) == 0:
		return ""
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
