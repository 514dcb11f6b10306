package mcpimport

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/argprofile"
)

// ProfileChange is one line of a re-import's profile diff: a tool whose
// proposed (or carried-over) argument profile differs from the previous
// import's reviewed one.
type ProfileChange struct {
	Tool string
	// Kind is added (no previous profile), changed, or refused (a
	// previous profile, none proposed now).
	Kind              string
	OldDigest, Digest string
	// Pointers are the argument pointers whose choice changed (a member
	// by its MCP name, an array's elements as "*", a union's alternative
	// as "(kind)"), sorted.
	Pointers []string
}

func (c ProfileChange) String() string {
	switch c.Kind {
	case "added":
		return fmt.Sprintf("profile    %s: proposed %s (no previous profile)", c.Tool, c.Digest)
	case "refused":
		return fmt.Sprintf("profile    %s: the previous profile %s has no successor (see the profile refusals)", c.Tool, c.OldDigest)
	}
	return fmt.Sprintf("profile    %s: changed (%s -> %s) at %s", c.Tool, c.OldDigest, c.Digest, strings.Join(c.Pointers, ", "))
}

// Accepted is the proposal's profile when the proposer refused nothing
// and argprofile.New accepts it.
func (pp ProfileProposal) Accepted() (*argprofile.Profile, bool) {
	if len(pp.Refused) > 0 {
		return nil, false
	}
	p, err := argprofile.New(pp.Draft)
	return p, err == nil
}

// markJudgment appends ConfirmMarker to the lines of one profile's YAML
// that carry a choice the proposer made by judgment.
func markJudgment(y []byte) []byte {
	lines := strings.Split(strings.TrimRight(string(y), "\n"), "\n")
	for i, line := range lines {
		t := strings.TrimLeft(line, "- ")
		indent := len(line) - len(t)
		judged := t == "choice: text" || t == "choice: json" || t == "choice: union" || t == "choice: decimal" ||
			strings.HasPrefix(t, "bind: ") || strings.HasPrefix(t, "scale: ") || strings.HasPrefix(t, "header: ") || t == "unsigned: true"
		// An array without maxItems is bounded to the protocol's 64.
		judged = judged || t == "choice: array" && !slices.Contains(siblings(lines, i, indent), "maxItems")
		// A rename: field: or case: differs from the json: beside it
		// (keys are sorted, so json: follows at the same indentation).
		if k, v, ok := strings.Cut(t, ": "); ok && (k == "field" || k == "case") {
			for _, next := range lines[i+1:] {
				nt := strings.TrimLeft(next, " ")
				if len(next)-len(nt) < indent {
					break
				}
				if jv, ok := strings.CutPrefix(nt, "json: "); ok && len(next)-len(nt) == indent {
					judged = judged || unquote(jv) != unquote(v)
					break
				}
			}
		}
		if judged {
			lines[i] += "  " + ConfirmMarker
		}
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}

// siblings are the keys at line i's indentation in its mapping.
func siblings(lines []string, i, indent int) []string {
	var keys []string
	for j := i + 1; j < len(lines); j++ {
		t := strings.TrimLeft(lines[j], " ")
		switch d := len(lines[j]) - len(t); {
		case d < indent || strings.HasPrefix(t, "- ") && d == indent:
			return keys
		case d == indent:
			k, _, _ := strings.Cut(t, ":")
			keys = append(keys, k)
		}
	}
	return keys
}

func unquote(v string) string {
	var s string
	if yaml.Unmarshal([]byte(v), &s) != nil {
		return v
	}
	return s
}

// commentSafe keeps a YAML comment on one line: a name or pointer of the
// server's with a control character is shown with '?' in its place.
func commentSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029 || r == 0x85 {
			return '?'
		}
		return r
	}, s)
}

// profileChange compares a tool's previous reviewed profile with the
// current one; ok is false when they are the same profile.
func profileChange(tool string, prev *argprofile.Draft, cur ProfileProposal) (ProfileChange, bool) {
	now, accepted := cur.Accepted()
	switch {
	case prev == nil && !accepted:
		return ProfileChange{}, false
	case prev == nil:
		return ProfileChange{Tool: tool, Kind: "added", Digest: now.Digest().String()}, true
	}
	old, err := argprofile.New(*prev)
	if err != nil {
		return ProfileChange{}, false // ParseProfiles built it
	}
	if !accepted {
		return ProfileChange{Tool: tool, Kind: "refused", OldDigest: old.Digest().String()}, true
	}
	if old.Digest().Equal(now.Digest()) {
		return ProfileChange{}, false
	}
	a, b := map[string]string{}, map[string]string{}
	flatten(prev.Arguments, "", a)
	flatten(cur.Draft.Arguments, "", b)
	var ptrs []string
	for p, v := range a {
		if b[p] != v {
			ptrs = append(ptrs, p)
		}
	}
	for p := range b {
		if _, had := a[p]; !had {
			ptrs = append(ptrs, p)
		}
	}
	if prev.Limits != cur.Draft.Limits {
		ptrs = append(ptrs, "(limits)")
	}
	slices.Sort(ptrs)
	return ProfileChange{Tool: tool, Kind: "changed", OldDigest: old.Digest().String(), Digest: now.Digest().String(), Pointers: ptrs}, true
}

// flatten records each node's own choice (its children by name only) at
// its argument pointer.
func flatten(n argprofile.NodeDraft, ptr string, out map[string]string) {
	own := n
	own.Items, own.Members, own.Alternatives = nil, nil, nil
	for _, m := range n.Members {
		own.Members = append(own.Members, argprofile.MemberDraft{JSON: m.JSON, Field: m.Field, Required: m.Required, Header: m.Header})
		flatten(m.Value, ptr+"/"+escape(m.JSON), out)
	}
	for _, a := range n.Alternatives {
		own.Alternatives = append(own.Alternatives, argprofile.AlternativeDraft{When: a.When, Tag: a.Tag})
		if a.Value != nil {
			flatten(*a.Value, ptr+"("+a.When+")", out)
		}
	}
	if n.Items != nil {
		flatten(*n.Items, ptr+"/*", out)
	}
	b, _ := json.Marshal(own)
	out[pointer(ptr)] = string(b)
}

// Bind makes d carry the profile draft: arguments the draft, docRef its
// DocRef and schema.root its Schema (docs/arguments.md, Binding). A draft
// New refuses leaves d unchanged.
func Bind(d *v1alpha1.ToolDefinition, draft argprofile.Draft) error {
	p, err := argprofile.New(draft)
	if err != nil {
		return err
	}
	args, err := json.Marshal(draft)
	if err != nil {
		return err
	}
	root, err := json.Marshal(nodeOf(p.Schema()))
	if err != nil {
		return err
	}
	d.Arguments, d.DocRef, d.Schema.Root = &apiextensionsv1.JSON{Raw: args}, p.DocRef(), apiextensionsv1.JSON{Raw: root}
	return nil
}

// BindingOf is the docRef and schema.root (JSON) a definition carrying the
// profile document arguments must have; the document is read strictly, as
// argprofile.Parse reads it.
func BindingOf(arguments []byte) (docRef string, root []byte, err error) {
	p, err := argprofile.Parse(arguments)
	if err != nil {
		return "", nil, err
	}
	root, err = json.Marshal(nodeOf(p.Schema()))
	return p.DocRef(), root, err
}

// Reviewed reports whether the profile (or its absence) was carried over
// from the previous import's reviewed definition.
func (pp ProfileProposal) Reviewed() bool { return pp.reviewed }
