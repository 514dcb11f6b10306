package manifest

import (
	"fmt"
	"strconv"
	"strings"

	yamlv3 "sigs.k8s.io/yaml/goyaml.v3"

	"github.com/toolgate/toolgate/internal/engine/fault"
)

type objectKey struct{ kind, namespace, name string }

type origin struct {
	file string
	line int // the document's first line in the file
	raw  []byte
}

// LocatedError is every rejection of one object read from a file, each with
// the YAML line of the deepest node its path reaches. It names files, lines,
// field paths and constant rules, never a value; errors.Is and errors.As see
// the faults.
type LocatedError struct {
	Kind, Namespace, Name string
	File                  string
	Faults                []*fault.Error
	Lines                 []int // Lines[i] locates Faults[i]
}

// Error implements error: one line per rejection, "file:line: Kind
// namespace/name: engine: path: code: rule".
func (e *LocatedError) Error() string {
	var b strings.Builder
	for i, f := range e.Faults {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s:%d: %s %s/%s: %s", e.File, e.Lines[i], e.Kind, e.Namespace, e.Name, f.Error())
	}
	return b.String()
}

// Unwrap returns the rejections.
func (e *LocatedError) Unwrap() error { return fault.Errors(e.Faults) }

// Locate returns err, a rejection of the object kind namespace/name read by
// s, as a *LocatedError with the file and YAML line of every fault's path
// (paths are spec paths as the webhook reports them, for example
// spec.definitions[2].schema.root.fields[0].name). err is returned unchanged
// when it holds no fault or the object was not read from a file.
func (s *Set) Locate(kind, namespace, name string, err error) error {
	o, ok := s.origins[objectKey{kind, namespace, name}]
	if !ok || fault.CodeOf(err) == 0 {
		return err
	}
	var root yamlv3.Node
	if yamlv3.Unmarshal(o.raw, &root) != nil {
		return err
	}
	le := &LocatedError{Kind: kind, Namespace: namespace, Name: name, File: o.file}
	for _, f := range fault.All(err) {
		le.Faults = append(le.Faults, f)
		le.Lines = append(le.Lines, o.line+nodeLine(&root, f.Path)-1)
	}
	return le
}

// nodeLine returns the line of the deepest node of doc that path reaches.
func nodeLine(doc *yamlv3.Node, path string) int {
	n := doc
	if n.Kind == yamlv3.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := n.Line
	for _, seg := range segments(path) {
		next := child(n, seg)
		if next == nil {
			break
		}
		n, line = next, next.Line
	}
	return line
}

// segments splits "a.b[2].c" into "a", "b", "[2]", "c".
func segments(path string) []string {
	var out []string
	for _, part := range strings.Split(path, ".") {
		for part != "" {
			i := strings.IndexByte(part, '[')
			switch {
			case i < 0:
				out = append(out, part)
				part = ""
			case i > 0:
				out = append(out, part[:i])
				part = part[i:]
			default:
				j := strings.IndexByte(part, ']')
				if j < 0 {
					return out
				}
				out = append(out, part[:j+1])
				part = part[j+1:]
			}
		}
	}
	return out
}

func child(n *yamlv3.Node, seg string) *yamlv3.Node {
	if strings.HasPrefix(seg, "[") {
		i, err := strconv.Atoi(strings.Trim(seg, "[]"))
		if err != nil || n.Kind != yamlv3.SequenceNode || i < 0 || i >= len(n.Content) {
			return nil
		}
		return n.Content[i]
	}
	if n.Kind != yamlv3.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == seg {
			return n.Content[i+1]
		}
	}
	return nil
}

// Duplicates returns, for every document that names an object (kind,
// namespace and name) an earlier document already named, a *LocatedError
// at that document's metadata.name: the apiserver keeps one object per
// name, so kubectl apply would read the later document as an edit of the
// first, not as a second object.
func (s *Set) Duplicates() []error {
	var out []error
	for _, d := range s.dups {
		line := d.at.nameLine()
		out = append(out, &LocatedError{
			Kind: d.key.kind, Namespace: d.key.namespace, Name: d.key.name, File: d.at.file,
			Faults: []*fault.Error{fault.At("metadata.name", fault.Duplicate,
				"another "+d.key.kind+" with this namespace and name is at "+d.first.where()+"; one object per name")},
			Lines: []int{line},
		})
	}
	return out
}

// Where returns "file:line" of the document that first named the object,
// or false when it was not read from a file.
func (s *Set) Where(kind, namespace, name string) (string, bool) {
	o, ok := s.origins[objectKey{kind, namespace, name}]
	if !ok {
		return "", false
	}
	return o.where(), true
}

func (o origin) where() string { return o.file + ":" + strconv.Itoa(o.nameLine()) }

// nameLine returns the file line of the document's metadata.name.
func (o origin) nameLine() int {
	var root yamlv3.Node
	if yamlv3.Unmarshal(o.raw, &root) != nil {
		return o.line
	}
	return o.line + nodeLine(&root, "metadata.name") - 1
}
