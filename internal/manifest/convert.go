package manifest

import (
	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/jsonexact"
)

// RegistryDraft converts a ToolRegistry spec into the engine's draft. Only
// the recursive Schema trees need decoding here; every value is validated by
// registry.Publish.
func RegistryDraft(spec v1alpha1.ToolRegistrySpec) (registry.Draft, error) {
	d := registry.Draft{
		ID:          string(spec.SnapshotID),
		Generation:  string(spec.SnapshotGeneration),
		Definitions: make([]registry.DefinitionDraft, len(spec.Definitions)),
	}
	var errs fault.Errors // every Schema tree is decoded: all violations are reported
	for i, td := range spec.Definitions {
		root, err := SchemaDraft(td.Schema.Root.Raw)
		if err != nil {
			errs.Add("spec.definitions"+fault.Index(i)+".schema.root", err)
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
	}
	if err := errs.Err(); err != nil {
		return registry.Draft{}, err
	}
	return d, nil
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
