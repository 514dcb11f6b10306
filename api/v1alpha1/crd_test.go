package v1alpha1

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/internal/engine/argpred"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// The generated CRDs (make manifests) are what the apiserver enforces; these
// tests pin the properties reviewers rely on and tie every CRD enum to the
// engine's Section 48 vocabulary so the two cannot drift.

const crdDir = "../../config/crd/bases"

// crd is the subset of apiextensions.k8s.io/v1 CustomResourceDefinition the
// tests read (the product module does not depend on apiextensions).
type crd struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Kind       string   `json:"kind"`
			ListKind   string   `json:"listKind"`
			Plural     string   `json:"plural"`
			ShortNames []string `json:"shortNames"`
			Categories []string `json:"categories"`
		} `json:"names"`
		Scope    string `json:"scope"`
		Versions []struct {
			Name    string `json:"name"`
			Served  bool   `json:"served"`
			Storage bool   `json:"storage"`
			Schema  struct {
				OpenAPIV3Schema schemaNode `json:"openAPIV3Schema"`
			} `json:"schema"`
			Subresources struct {
				Status *map[string]any `json:"status"`
			} `json:"subresources"`
			AdditionalPrinterColumns []struct {
				Name     string `json:"name"`
				Type     string `json:"type"`
				JSONPath string `json:"jsonPath"`
			} `json:"additionalPrinterColumns"`
		} `json:"versions"`
	} `json:"spec"`
}

type schemaNode struct {
	Type                   string                `json:"type"`
	Format                 string                `json:"format"`
	Enum                   []string              `json:"enum"`
	Minimum                *float64              `json:"minimum"`
	Maximum                *float64              `json:"maximum"`
	MinItems               *int                  `json:"minItems"`
	MaxItems               *int                  `json:"maxItems"`
	MinLength              *int                  `json:"minLength"`
	MaxLength              *int                  `json:"maxLength"`
	Pattern                string                `json:"pattern"`
	Required               []string              `json:"required"`
	ListType               string                `json:"x-kubernetes-list-type"`
	ListMapKeys            []string              `json:"x-kubernetes-list-map-keys"`
	Properties             map[string]schemaNode `json:"properties"`
	Items                  *schemaNode           `json:"items"`
	PreserveUnknownFields  *bool                 `json:"x-kubernetes-preserve-unknown-fields"`
	XKubernetesValidations []struct {
		Rule      string `json:"rule"`
		Message   string `json:"message"`
		FieldPath string `json:"fieldPath"`
		Reason    string `json:"reason"`
	} `json:"x-kubernetes-validations"`
}

// walk calls f for every node under n with its dotted path ("[]" marks list
// items).
func walk(path string, n schemaNode, f func(string, schemaNode)) {
	f(path, n)
	for _, k := range sortedKeys(n.Properties) {
		walk(path+"."+k, n.Properties[k], f)
	}
	if n.Items != nil {
		walk(path+"[]", *n.Items, f)
	}
}

func sortedKeys(m map[string]schemaNode) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func tokens[T interface{ String() string }](all []T) []string {
	out := make([]string, len(all))
	for i, v := range all {
		out[i] = v.String()
	}
	return out
}

// kindCase is what each CRD must declare.
type kindCase struct {
	file      string
	kind      string
	plural    string
	shortName string
	columns   []string
	// preserve lists the only paths stored as free JSON subtrees.
	preserve []string
	// enums maps every enum path in spec to its exact expected tokens.
	enums map[string][]string
	// noStatus: the kind has no status (Consumption records are facts).
	noStatus bool
}

func kindCases() []kindCase {
	return []kindCase{
		{
			file:      "stk.toolgate.dev_toolregistries.yaml",
			kind:      "ToolRegistry",
			plural:    "toolregistries",
			shortName: "treg",
			columns:   []string{"Snapshot", "Generation", "Ready", "Age"},
			preserve:  []string{"spec.definitions[].arguments", "spec.definitions[].schema.root"},
			enums: map[string][]string{
				"spec.definitions[].capabilities[]": tokens(vocab.AllCapability()),
				"spec.definitions[].lifecycle":      tokens(vocab.AllLifecycle()),
				"spec.definitions[].risk":           tokens(vocab.AllRisk()),
				"spec.definitions[].sideEffect":     tokens(vocab.AllSideEffect()),
				"spec.definitions[].reversibility":  tokens(vocab.AllReversibility()),
				"spec.definitions[].schema.version": {vocab.V1.String()},
			},
		},
		{
			file:      "stk.toolgate.dev_hostauthorities.yaml",
			kind:      "HostAuthority",
			plural:    "hostauthorities",
			shortName: "hauth",
			columns:   []string{"Authority", "Ready", "Age"},
			enums: map[string][]string{
				"spec.capabilities[]": tokens(vocab.AllCapability()),
				"spec.roles[].role":   tokens(vocab.AllRole()),
				// Kubernetes RBAC subject kinds, not a protocol vocabulary.
				"spec.roles[].subjects[].kind":         {"ServiceAccount", "User", "Group"},
				"spec.executors[].kind":                {"ServiceAccount", "User", "Group"},
				"spec.confirmations.confirmers[].kind": {"ServiceAccount", "User", "Group"},
			},
		},
		{
			file:      "stk.toolgate.dev_policysnapshots.yaml",
			kind:      "PolicySnapshot",
			plural:    "policysnapshots",
			shortName: "psnap",
			columns:   []string{"Snapshot", "Generation", "HostAuthority", "Shadow-Of", "Shadow-Until", "Ready", "Age"},
			preserve:  []string{"spec.policies[].rules[].condition"},
			enums: map[string][]string{
				"spec.policies[].lifecycle":                    tokens(vocab.AllPolicyLifecycle()),
				"spec.policies[].arguments.vocabulary":         {argpred.Vocabulary},
				"spec.policies[].rules[].effect":               tokens(vocab.AllEffect()),
				"spec.policies[].rules[].reason":               tokens(vocab.AllReason()),
				"spec.policies[].rules[].scope.capabilities[]": tokens(vocab.AllCapability()),
				"spec.policies[].rules[].obligations[].kind":   tokens(vocab.AllObligationKind()),
			},
		},
		{
			file:      "stk.toolgate.dev_consumptions.yaml",
			kind:      "Consumption",
			plural:    "consumptions",
			shortName: "cons",
			columns:   []string{"Domain", "Authorization", "Expires", "Age"},
			noStatus:  true,
		},
		{
			file:      "stk.toolgate.dev_identityclaims.yaml",
			kind:      "IdentityClaim",
			plural:    "identityclaims",
			shortName: "idclaim",
			columns:   []string{"Domain", "Identity", "Authorization", "Expires", "Age"},
			// Not a protocol vocabulary: which identity the object claims.
			enums:    map[string][]string{"spec.identity": {"authorization", "replay", "consumption"}},
			noStatus: true,
		},
	}
}

func loadCRD(t *testing.T, file string) crd {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(crdDir, file))
	if err != nil {
		t.Fatalf("read %s (run make manifests): %v", file, err)
	}
	var c crd
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatalf("parse %s: %v", file, err)
	}
	return c
}

func TestCRDs(t *testing.T) {
	for _, tc := range kindCases() {
		t.Run(tc.kind, func(t *testing.T) {
			c := loadCRD(t, tc.file)
			if c.APIVersion != "apiextensions.k8s.io/v1" || c.Kind != "CustomResourceDefinition" {
				t.Fatalf("not a v1 CRD: %s %s", c.APIVersion, c.Kind)
			}
			if want := tc.plural + "." + Group; c.Metadata.Name != want {
				t.Errorf("name = %q, want %q", c.Metadata.Name, want)
			}
			if c.Spec.Group != Group {
				t.Errorf("group = %q, want %q", c.Spec.Group, Group)
			}
			if c.Spec.Names.Kind != tc.kind || c.Spec.Names.ListKind != tc.kind+"List" {
				t.Errorf("names = %s/%s, want %s/%sList", c.Spec.Names.Kind, c.Spec.Names.ListKind, tc.kind, tc.kind)
			}
			if c.Spec.Scope != "Namespaced" {
				t.Errorf("scope = %q, want Namespaced", c.Spec.Scope)
			}
			if !slices.Equal(c.Spec.Names.ShortNames, []string{tc.shortName}) {
				t.Errorf("shortNames = %v, want [%s]", c.Spec.Names.ShortNames, tc.shortName)
			}
			if !slices.Equal(c.Spec.Names.Categories, []string{"toolgate"}) {
				t.Errorf("categories = %v, want [toolgate]", c.Spec.Names.Categories)
			}
			if len(c.Spec.Versions) != 1 {
				t.Fatalf("versions = %d, want exactly v1alpha1", len(c.Spec.Versions))
			}
			v := c.Spec.Versions[0]
			if v.Name != Version || !v.Served || !v.Storage {
				t.Errorf("version %q served=%v storage=%v, want %s served and storage", v.Name, v.Served, v.Storage, Version)
			}
			if (v.Subresources.Status == nil) != tc.noStatus {
				t.Errorf("status subresource present = %v, want %v", v.Subresources.Status != nil, !tc.noStatus)
			}
			var cols []string
			for _, col := range v.AdditionalPrinterColumns {
				cols = append(cols, col.Name)
			}
			if !slices.Equal(cols, tc.columns) {
				t.Errorf("printer columns = %v, want %v", cols, tc.columns)
			}

			root := v.Schema.OpenAPIV3Schema
			spec, ok := root.Properties["spec"]
			if !ok {
				t.Fatal("schema has no spec")
			}
			immutable := false
			for _, xv := range spec.XKubernetesValidations {
				if xv.Rule == "self == oldSelf" && strings.HasPrefix(xv.Message, "spec is immutable") {
					immutable = true
				}
			}
			if !immutable {
				t.Errorf("spec lacks the immutability rule: %+v", spec.XKubernetesValidations)
			}
			if tc.noStatus {
				if _, ok := root.Properties["status"]; ok {
					t.Error("status declared, want none")
				}
			} else {
				var got []string
				for p := range root.Properties["status"].Properties {
					got = append(got, p)
				}
				sort.Strings(got)
				if want := []string{"conditions", "contentDigest", "observedGeneration", "publishedBy"}; !slices.Equal(got, want) {
					t.Errorf("status fields = %v, want %v", got, want)
				}
			}

			// Free JSON subtrees: exactly the declared ones, each an object
			// that keeps unknown fields and declares none.
			var preserved []string
			walk("", root, func(path string, n schemaNode) {
				if n.PreserveUnknownFields == nil || !*n.PreserveUnknownFields {
					return
				}
				path = strings.TrimPrefix(path, ".")
				preserved = append(preserved, path)
				if n.Type != "object" || len(n.Properties) != 0 {
					t.Errorf("%s: type %q with %d properties, want a bare object", path, n.Type, len(n.Properties))
				}
			})
			if !slices.Equal(preserved, tc.preserve) {
				t.Errorf("preserve-unknown-fields at %v, want exactly %v", preserved, tc.preserve)
			}

			// Every enum under spec is accounted for and equals its
			// vocabulary, in order.
			seen := map[string]bool{}
			walk("", spec, func(path string, n schemaNode) {
				if n.Enum == nil {
					return
				}
				path = "spec" + path
				seen[path] = true
				want, ok := tc.enums[path]
				if !ok {
					t.Errorf("%s: enum %v has no expected vocabulary in this test", path, n.Enum)
					return
				}
				if !slices.Equal(n.Enum, want) {
					t.Errorf("%s: enum = %v, want %v", path, n.Enum, want)
				}
			})
			for path := range tc.enums {
				if !seen[path] {
					t.Errorf("%s: expected an enum, found none", path)
				}
			}
		})
	}
}

// TestKustomization checks config/crd/kustomization.yaml lists exactly the
// generated CRDs.
func TestKustomization(t *testing.T) {
	data, err := os.ReadFile("../../config/crd/kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		Resources []string `json:"resources"`
	}
	if err := yaml.Unmarshal(data, &k); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(crdDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range files {
		want = append(want, "bases/"+filepath.Base(f))
	}
	got := slices.Clone(k.Resources)
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Errorf("kustomization resources = %v, want %v", got, want)
	}
}

func TestScheme(t *testing.T) {
	if SchemeGroupVersion.String() != GroupVersion {
		t.Fatalf("SchemeGroupVersion = %s, GroupVersion = %s", SchemeGroupVersion, GroupVersion)
	}
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"HostAuthority", "HostAuthorityList", "ToolRegistry", "ToolRegistryList", "PolicySnapshot", "PolicySnapshotList", "Consumption", "ConsumptionList", "IdentityClaim", "IdentityClaimList"} {
		if !s.Recognizes(SchemeGroupVersion.WithKind(kind)) {
			t.Errorf("scheme does not recognize %s", kind)
		}
	}
}

// TestCELRulesNameFieldAndReason: every CEL rule names a reason the
// apiserver reports as the cause type, and a fieldPath, when it has one,
// reaches a property of the node the rule sits on — the apiserver refuses
// a CRD whose fieldPath reaches none. A rule tying metadata.name to the
// spec points at the spec field naming the identity: controller-gen
// publishes metadata without properties, so ".metadata.name" is no valid
// fieldPath (docs/decisions.md).
func TestCELRulesNameFieldAndReason(t *testing.T) {
	t.Parallel()
	reasons := []string{"FieldValueRequired", "FieldValueInvalid", "FieldValueForbidden", "FieldValueDuplicate"}
	files, err := filepath.Glob(filepath.Join(crdDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in %s: %v", crdDir, err)
	}
	nameRules := 0
	for _, f := range files {
		c := loadCRD(t, filepath.Base(f))
		for _, v := range c.Spec.Versions {
			walk(c.Spec.Names.Kind, v.Schema.OpenAPIV3Schema, func(path string, n schemaNode) {
				for _, xv := range n.XKubernetesValidations {
					if !slices.Contains(reasons, xv.Reason) {
						t.Errorf("%s: rule %q has reason %q, want one of %v", path, xv.Rule, xv.Reason, reasons)
					}
					if strings.Contains(xv.Rule, "self.metadata.name") {
						nameRules++
						if !strings.HasPrefix(xv.FieldPath, ".spec.") {
							t.Errorf("%s: the name rule has fieldPath %q, want the spec field naming the identity", path, xv.FieldPath)
						}
					}
					if xv.FieldPath == "" {
						continue
					}
					at := n
					for _, seg := range strings.Split(strings.TrimPrefix(xv.FieldPath, "."), ".") {
						next, ok := at.Properties[seg]
						if !ok {
							t.Errorf("%s: rule %q has fieldPath %q, which reaches no property", path, xv.Rule, xv.FieldPath)
							break
						}
						at = next
					}
				}
			})
		}
	}
	// ToolRegistry, PolicySnapshot, HostAuthority, Consumption, IdentityClaim.
	if nameRules != 5 {
		t.Errorf("found %d name rules, want 5", nameRules)
	}
}
