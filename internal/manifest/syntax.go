package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	goccy "github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/parser"
	yamlv3 "sigs.k8s.io/yaml/goyaml.v3"

	"github.com/toolgate/toolgate/internal/suggest"
)

// DocumentError is a YAML document that is not valid YAML or not a valid
// document of its kind, located at the file line and column of the
// offending key or token and, where known, the key path leading to it.
// Like every manifest error it names files, positions, paths and constant
// rules, never a value or an unknown key's text.
type DocumentError struct {
	File         string
	Document     int    // 1-based document number in the file
	Line, Column int    // file position; 0 when not known
	What         string // "a valid ToolRegistry document", "valid YAML", ...
	Path         string // key path, e.g. spec.definitions[1].version; "" at the root or when not known
	Reason       string
}

func (e *DocumentError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	fmt.Fprintf(&b, ": document %d: is not %s", e.Document, e.What)
	if e.Path != "" {
		b.WriteString(": " + e.Path)
	}
	if e.Reason != "" {
		b.WriteString(": " + e.Reason)
	}
	return b.String()
}

// Constant reasons of a DocumentError.
const (
	reasonSyntax    = "YAML syntax error here"
	reasonDuplicate = "a key appears twice in this mapping"
	reasonUnknown   = "unknown field: no such key is declared here"
	reasonType      = "wrong value type (quote numbers that are strings, e.g. \"1\")"
)

// LocateFile returns err, the strict decoding error of the single YAML
// document raw read from file, as a *DocumentError at the line and column
// of the offending token or key with the key path leading to it, where
// they can be placed; what completes "is not ...". newTarget, when not
// nil, returns a fresh value of the decoded type.
func LocateFile(file string, raw []byte, what string, err error, newTarget func() any) *DocumentError {
	e := &DocumentError{File: file, Document: 1, What: what}
	e.locate(raw, 1, err, newTarget)
	return e
}

// locate fills e's position, path and reason for err, the strict decoding
// error of raw (one document starting at file line first), decoded into a
// fresh value of newTarget() where that helps; it leaves them unset when
// it cannot place the problem exactly.
func (e *DocumentError) locate(raw []byte, first int, err error, newTarget func() any) {
	at := func(line, col int) {
		e.Line, e.Column = first+line-1, col
	}
	// Syntax errors and duplicate keys: goccy/go-yaml's parser reports the
	// token's line and column (yaml.v3 only the line).
	if _, perr := parser.ParseBytes(raw, 0); perr != nil {
		var se *goccy.SyntaxError
		if !errors.As(perr, &se) || se.Token == nil {
			return
		}
		at(se.Token.Position.Line, se.Token.Position.Column)
		e.Reason = reasonSyntax
		if strings.Contains(se.Message, "already defined") {
			e.Reason = reasonDuplicate
			e.Path = keyParent(raw, se.Token.Position.Line, se.Token.Position.Column)
		}
		return
	}
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		var root yamlv3.Node
		if yamlv3.Unmarshal(raw, &root) != nil {
			return
		}
		if n, path := typeMismatch(&root, strings.Split(ute.Field, "."), ""); n != nil {
			at(n.Line, n.Column)
			e.Path, e.Reason = path, reasonType
		}
		return
	}
	if _, name, ok := strings.Cut(err.Error(), "json: unknown field "); ok {
		// goccy/go-yaml places the unknown key; it is trusted only when it
		// names the key encoding/json refused.
		var ufe *goccy.UnknownFieldError
		var gerr error
		if newTarget != nil {
			gerr = goccy.UnmarshalWithOptions(raw, newTarget(), goccy.DisallowUnknownField())
		}
		line, col := 0, 0
		if errors.As(gerr, &ufe) && ufe.Token != nil && strings.HasSuffix(ufe.Message, name) {
			line, col = ufe.Token.Position.Line, ufe.Token.Position.Column
		} else if key, err := strconv.Unquote(name); err == nil {
			// goccy/go-yaml cannot decode every field type (raw JSON
			// subtrees); a key of that text found exactly once is the one.
			var root yamlv3.Node
			if yamlv3.Unmarshal(raw, &root) == nil {
				if ks := keysNamed(&root, key, nil); len(ks) == 1 {
					line, col = ks[0].Line, ks[0].Column
				}
			}
		}
		if line > 0 {
			at(line, col)
			e.Path = keyParent(raw, line, col)
			e.Reason = reasonUnknown
			// The nearest declared key is named (a key of the schema,
			// never the user's text).
			if key, err := strconv.Unquote(name); err == nil && newTarget != nil {
				if s, ok := suggest.Nearest(key, declaredKeys(reflect.TypeOf(newTarget()), e.Path)); ok {
					e.Reason += "; did you mean " + strconv.Quote(s) + "?"
				}
			}
		}
	}
}

// declaredKeys are the JSON keys the type t declares at path (keys and
// sequence indices, as keyParent writes it), nil where the path does not
// lead to a struct.
func declaredKeys(t reflect.Type, path string) []string {
	for _, seg := range strings.Split(path, ".") {
		seg, _, _ = strings.Cut(seg, "[")
		t = structOf(t)
		if seg == "" || t == nil {
			continue
		}
		f, ok := fieldByKey(t, seg)
		if !ok {
			return nil
		}
		t = f.Type
	}
	t = structOf(t)
	if t == nil {
		return nil
	}
	var keys []string
	eachKey(t, func(key string, _ reflect.StructField) bool { keys = append(keys, key); return true })
	return keys
}

// structOf is the struct under t's pointers, slices and arrays, or nil.
func structOf(t reflect.Type) reflect.Type {
	for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	return t
}

func fieldByKey(t reflect.Type, key string) (found reflect.StructField, ok bool) {
	eachKey(t, func(k string, f reflect.StructField) bool {
		if k == key {
			found, ok = f, true
		}
		return !ok
	})
	return found, ok
}

// eachKey calls fn with each JSON key of struct t and its field, the keys
// of inlined (embedded or ",inline") structs included, until fn returns
// false.
func eachKey(t reflect.Type, fn func(key string, f reflect.StructField) bool) bool {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		switch {
		case name == "-" || (!f.IsExported() && !f.Anonymous):
			continue
		case name == "" && (f.Anonymous || strings.Contains(opts, "inline")):
			if st := structOf(f.Type); st != nil {
				if !eachKey(st, fn) {
					return false
				}
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		if !fn(name, f) {
			return false
		}
	}
	return true
}

// keysNamed appends every mapping key under n whose text is key.
func keysNamed(n *yamlv3.Node, key string, out []*yamlv3.Node) []*yamlv3.Node {
	if n.Kind == yamlv3.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				out = append(out, n.Content[i])
			}
		}
	}
	for _, c := range n.Content {
		out = keysNamed(c, key, out)
	}
	return out
}

// keyParent returns the key path of the mapping holding the key at line
// and column of raw ("" for the root or when not found).
func keyParent(raw []byte, line, col int) string {
	var root yamlv3.Node
	if yamlv3.Unmarshal(raw, &root) != nil || len(root.Content) == 0 {
		return ""
	}
	path, _ := findKey(root.Content[0], line, col, "")
	return path
}

func findKey(n *yamlv3.Node, line, col int, path string) (string, bool) {
	switch n.Kind {
	case yamlv3.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Line == line && k.Column == col {
				return path, true
			}
			if p, ok := findKey(n.Content[i+1], line, col, joinKey(path, k.Value)); ok {
				return p, true
			}
		}
	case yamlv3.SequenceNode:
		for i, c := range n.Content {
			if p, ok := findKey(c, line, col, path+"["+strconv.Itoa(i)+"]"); ok {
				return p, true
			}
		}
	}
	return "", false
}

func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// typeMismatch follows segs (encoding/json's field path: keys without
// sequence indices) from n and returns the first node at its end that is
// not a string scalar, with its path including the indices; string fields
// are the only ones a YAML scalar can mistype here.
func typeMismatch(n *yamlv3.Node, segs []string, path string) (*yamlv3.Node, string) {
	if n.Kind == yamlv3.DocumentNode && len(n.Content) > 0 {
		return typeMismatch(n.Content[0], segs, path)
	}
	if len(segs) == 0 {
		if n.Kind == yamlv3.ScalarNode && n.Tag == "!!str" {
			return nil, ""
		}
		return n, path
	}
	switch n.Kind {
	case yamlv3.SequenceNode:
		for i, c := range n.Content {
			if m, p := typeMismatch(c, segs, path+"["+strconv.Itoa(i)+"]"); m != nil {
				return m, p
			}
		}
	case yamlv3.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == segs[0] {
				return typeMismatch(n.Content[i+1], segs[1:], joinKey(path, segs[0]))
			}
		}
	}
	return nil, ""
}
