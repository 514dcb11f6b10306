// Package manifest reads toolgate's custom-resource manifests from YAML files
// strictly (duplicate keys and unknown fields reject) and converts their
// specs into the engine's untrusted drafts. It is the one adapter between
// the Kubernetes API types and the engine; the engine then validates every
// value.
package manifest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/api/v1alpha1"
)

// Group is the API group of toolgate's resources.
const Group = "stk.toolgate.dev"

// Set holds the objects read from one or more manifest files, in file and
// document order.
type Set struct {
	ToolRegistries  []v1alpha1.ToolRegistry
	HostAuthorities []v1alpha1.HostAuthority
	PolicySnapshots []v1alpha1.PolicySnapshot
	Revocations     []v1alpha1.Revocation

	// origins records where each object was first read, for Locate.
	origins map[objectKey]origin
	// dups records every later document repeating an object's kind,
	// namespace and name, in file and document order.
	dups []duplicate
}

// duplicate is a document naming an object another document already named.
type duplicate struct {
	key   objectKey
	at    origin
	first origin
}

// File is one manifest file's name and content.
type File struct {
	Name string
	Data []byte
}

type header struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// LoadPaths reads every .yaml/.yml file named by paths; a directory is read
// non-recursively in lexical order, skipping kustomize's own file
// (kustomization.yaml, kustomization.yml, Kustomization), which lists
// manifests but is not one. A file named explicitly is always read.
func LoadPaths(paths ...string) (*Set, error) {
	var files []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			files = append(files, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if ext := filepath.Ext(e.Name()); !e.IsDir() && (ext == ".yaml" || ext == ".yml") && !IsKustomization(e.Name()) {
				files = append(files, filepath.Join(p, e.Name()))
			}
		}
	}
	slices.Sort(files)
	contents := make([]File, 0, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		contents = append(contents, File{Name: f, Data: b})
	}
	return ParseFiles(contents...)
}

// ParseFiles reads the YAML documents of files, in the order given, into
// one Set: what LoadPaths does once the files are read, for manifests read
// from elsewhere (a git revision).
func ParseFiles(files ...File) (*Set, error) {
	set := &Set{}
	for _, f := range files {
		if err := set.add(f.Name, f.Data); err != nil {
			return nil, err
		}
	}
	return set, nil
}

// Parse reads the YAML documents of one file's content into a Set.
func Parse(name string, data []byte) (*Set, error) {
	set := &Set{}
	if err := set.add(name, data); err != nil {
		return nil, err
	}
	return set, nil
}

func (s *Set) add(name string, data []byte) error {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	offset := 0 // where the search for the next document's text starts
	for doc := 1; ; doc++ {
		raw, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: document %d: %w", name, doc, err)
		}
		line := 1
		if i := bytes.Index(data[offset:], raw); i >= 0 {
			line = 1 + bytes.Count(data[:offset+i], []byte("\n"))
			offset += i + len(raw)
		}
		record := func(kind, namespace, objName string) {
			if s.origins == nil {
				s.origins = map[objectKey]origin{}
			}
			k, o := objectKey{kind, namespace, objName}, origin{file: name, line: line, raw: raw}
			if first, ok := s.origins[k]; ok {
				s.dups = append(s.dups, duplicate{key: k, at: o, first: first})
				return
			}
			s.origins[k] = o
		}
		if len(bytes.TrimSpace(raw)) == 0 || isCommentOnly(raw) {
			continue
		}
		var h header
		if err := yaml.Unmarshal(raw, &h); err != nil {
			e := &DocumentError{File: name, Document: doc, What: strings.TrimPrefix(notYAMLObject, "is not ")}
			e.locate(raw, line, err, nil)
			return e
		}
		if h.APIVersion == "v1" && h.Kind == "Namespace" {
			// The namespace the manifests live in, installed with them
			// by kubectl apply -k; it carries no toolgate content.
			continue
		}
		if h.APIVersion != v1alpha1.GroupVersion {
			return fmt.Errorf("%s: document %d: apiVersion must be %s", name, doc, v1alpha1.GroupVersion)
		}
		var obj metav1.Object
		var target func() any
		switch h.Kind {
		case "ToolRegistry":
			obj, err = appendDecoded(raw, &s.ToolRegistries)
			target = func() any { return new(v1alpha1.ToolRegistry) }
		case "HostAuthority":
			obj, err = appendDecoded(raw, &s.HostAuthorities)
			target = func() any { return new(v1alpha1.HostAuthority) }
		case "PolicySnapshot":
			obj, err = appendDecoded(raw, &s.PolicySnapshots)
			target = func() any { return new(v1alpha1.PolicySnapshot) }
		case "Revocation":
			obj, err = appendDecoded(raw, &s.Revocations)
			target = func() any { return new(v1alpha1.Revocation) }
		default:
			return fmt.Errorf("%s: document %d: kind is not a toolgate kind this build reads (%s)", name, doc, knownKinds)
		}
		if err != nil {
			e := &DocumentError{File: name, Document: doc, What: "a valid " + h.Kind + " document"}
			if e.locate(raw, line, err, target); e.Reason == "" {
				e.Reason = invalidDocument
			}
			return e
		}
		record(h.Kind, obj.GetNamespace(), obj.GetName())
	}
}

// Fixed rejection sentences. The YAML and JSON decoders' own messages quote
// the input (an unknown field's name, a duplicated key, a value that does
// not fit its type), and manifest errors are printed and logged, so they are
// replaced by constant text; the file name and document number locate the
// problem.
const (
	notYAMLObject   = "is not a valid YAML mapping with string apiVersion and kind"
	invalidDocument = "unknown field, duplicate key or wrong value type"
	knownKinds      = "HostAuthority, PolicySnapshot, Revocation, ToolRegistry"
)

// appendDecoded decodes one YAML document strictly (decodeStrict) and
// appends it to list, returning the appended object's metadata.
func appendDecoded[T any, P interface {
	*T
	metav1.Object
}](raw []byte, list *[]T) (metav1.Object, error) {
	var v T
	if err := decodeStrict(raw, &v); err != nil {
		return nil, err
	}
	*list = append(*list, v)
	return P(&(*list)[len(*list)-1]), nil
}

// decodeStrict decodes one YAML document into obj: duplicate keys and
// unknown fields reject, and so does a value of the wrong JSON type.
// yaml.UnmarshalStrict is not used because it converts YAML scalars to
// strings when the target field is a string, so an unquoted "version: 1"
// would silently become "1"; converting without a target keeps 1 a number,
// which a string field rejects.
func decodeStrict(raw []byte, obj any) error {
	j, err := yaml.YAMLToJSONStrict(raw)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	return dec.Decode(obj)
}

// IsKustomization reports whether a file name is one kustomize reads as its
// configuration.
func IsKustomization(name string) bool {
	switch name {
	case "kustomization.yaml", "kustomization.yml", "Kustomization":
		return true
	}
	return false
}

func isCommentOnly(doc []byte) bool {
	for _, l := range strings.Split(string(doc), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			return false
		}
	}
	return true
}
