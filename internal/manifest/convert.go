package manifest

import (
	"errors"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/argprofile"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/jsonexact"
)

// RegistryDraft converts a ToolRegistry spec into the Host's draft. Only
// the recursive Schema trees and the argument profiles need decoding here;
// every value is validated by registry.Publish. Each definition's argument
// profile is parsed (argprofile.Parse) and bound to it
// (host.CheckProfileBinding): its docRef is the profile's reference and its
// Schema root the profile's Schema (docs/arguments.md, "Binding").
func RegistryDraft(spec v1alpha1.ToolRegistrySpec) (host.RegistryDraft, error) {
	d := host.RegistryDraft{Draft: registry.Draft{
		ID:          string(spec.SnapshotID),
		Generation:  string(spec.SnapshotGeneration),
		Definitions: make([]registry.DefinitionDraft, len(spec.Definitions)),
	}}
	var errs fault.Errors // every Schema tree and profile is decoded: all violations are reported
	for i, td := range spec.Definitions {
		at := "spec.definitions" + fault.Index(i)
		prof, perr := profileOf(td.Arguments)
		errs.Add(at+".arguments", perr)
		if prof != nil {
			if d.Profiles == nil {
				d.Profiles = make([]*argprofile.Profile, len(spec.Definitions))
			}
			d.Profiles[i] = prof
		}
		root, err := SchemaDraft(td.Schema.Root.Raw)
		if err != nil {
			errs.Add(at+".schema.root", err)
			continue
		}
		d.Definitions[i] = registry.DefinitionDraft{
			ID:            string(td.ID),
			ToolID:        string(td.ToolID),
			Version:       string(td.Version),
			Lifecycle:     string(td.Lifecycle),
			Risk:          string(td.Risk),
			SideEffect:    string(td.SideEffect),
			Reversibility: string(td.Reversibility),
			Capabilities:  strs(td.Capabilities),
			Title:         td.Title,
			Summary:       td.Summary,
			DocRef:        td.DocRef,
			Schema:        registry.SchemaDraft{ID: string(td.Schema.ID), Version: string(td.Schema.Version), Root: root},
		}
		if perr == nil {
			errs.Add(at, host.CheckProfileBinding(d.Definitions[i], prof))
		}
	}
	if err := errs.Err(); err != nil {
		return host.RegistryDraft{}, err
	}
	return d, nil
}

// profileOf parses a definition's argument profile, or returns nil when it
// has none. Every refusal is located in the profile document (its draft
// path after "arguments"); argprofile's messages name fields and types,
// never values.
func profileOf(raw *apiextensionsv1.JSON) (*argprofile.Profile, error) {
	if raw == nil {
		return nil, nil
	}
	p, err := argprofile.Parse(raw.Raw)
	if err == nil {
		return p, nil
	}
	var list argprofile.Errors
	if !errors.As(err, &list) || len(list) == 0 {
		return nil, fault.New(fault.Malformed, "not a valid argument profile")
	}
	var errs fault.Errors
	for _, e := range list {
		path := e.Path
		if path == "(document)" {
			path = ""
		}
		errs.Add("", fault.At(path, fault.Malformed, "argument profile: "+e.Rule))
	}
	return nil, errs.Err()
}

// strs converts a list of typed API strings to the engine's plain strings;
// nil stays nil (the engine treats absent and empty alike).
func strs[T ~string](in []T) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, v := range in {
		out[i] = string(v)
	}
	return out
}

// schemaTreeDepth bounds decoding of a Schema tree: a Schema has at most 8
// levels, and each level is at most three JSON containers deep (node, fields
// array, field object).
const schemaTreeDepth = 3*schema.MaxDepth + 1

// SchemaDraft decodes one Schema node tree from JSON: objects with exactly
// the keys kind, cases, items and fields (each field: name, requirement,
// type). Unknown keys, duplicate keys and wrong JSON kinds reject.
func SchemaDraft(raw []byte) (schema.Draft, error) {
	if len(raw) == 0 {
		return schema.Draft{}, fault.New(fault.Missing, "a schema root node is required")
	}
	v, err := decodeTree(raw, schemaTreeDepth)
	if err != nil {
		return schema.Draft{}, err
	}
	return nodeDraft(v, "")
}

func nodeDraft(v jsonexact.Value, path string) (schema.Draft, error) {
	var d schema.Draft
	err := members(v, path, "a schema node is an object {kind, cases, items, fields}",
		"schema nodes have only the keys kind, cases, items and fields",
		func(name string, x jsonexact.Value, p string) (known bool, err error) {
			switch name {
			case "kind":
				d.Kind, err = text(x, p)
			case "cases":
				d.Cases, err = texts(x, p)
			case "items":
				var items schema.Draft
				items, err = nodeDraft(x, p)
				d.Items = &items
			case "fields":
				d.Fields, err = fieldDrafts(x, p)
			default:
				return false, nil
			}
			return true, err
		})
	return d, err
}

func fieldDrafts(v jsonexact.Value, path string) ([]schema.FieldDraft, error) {
	if v.Kind() != jsonexact.Array {
		return nil, fault.At(path, fault.KindMismatch, "fields is a list of {name, requirement, type}")
	}
	out := make([]schema.FieldDraft, 0, len(v.Elems()))
	for i, e := range v.Elems() {
		var f schema.FieldDraft
		err := members(e, path+fault.Index(i), "a field is an object {name, requirement, type}",
			"fields have only the keys name, requirement and type",
			func(name string, x jsonexact.Value, p string) (known bool, err error) {
				switch name {
				case "name":
					f.Name, err = text(x, p)
				case "requirement":
					f.Requirement, err = text(x, p)
				case "type":
					f.Type, err = nodeDraft(x, p)
				default:
					return false, nil
				}
				return true, err
			})
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// members decodes the JSON object v at path one member at a time: decode
// sets the member called name from its value x at path p and reports
// whether the object has such a member. A v that is not an object is
// fault.KindMismatch (notObject), a member decode does not know is
// fault.UnknownField (only), both at path; the first error stops decoding.
func members(v jsonexact.Value, path, notObject, only string, decode func(name string, x jsonexact.Value, p string) (bool, error)) error {
	if v.Kind() != jsonexact.Object {
		return fault.At(path, fault.KindMismatch, notObject)
	}
	for _, m := range v.Members() {
		known, err := decode(m.Name, m.Value, fault.Join(path, m.Name))
		if !known {
			return fault.At(path, fault.UnknownField, only)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func text(v jsonexact.Value, path string) (string, error) {
	if v.Kind() != jsonexact.String {
		return "", fault.At(path, fault.KindMismatch, "expected a string")
	}
	return v.Text(), nil
}

func texts(v jsonexact.Value, path string) ([]string, error) {
	if v.Kind() != jsonexact.Array {
		return nil, fault.At(path, fault.KindMismatch, "expected a list of strings")
	}
	out := make([]string, 0, len(v.Elems()))
	for i, e := range v.Elems() {
		s, err := text(e, path+fault.Index(i))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}
