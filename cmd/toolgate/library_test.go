package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/internal/mcpgate"
	"github.com/toolgate/toolgate/internal/mcpgate/mcpimport"
)

// The policy library (examples/policy-library, docs/policy-arguments.md):
// every server's reviewed registry and starter policy validate, its policy
// tests pass with an allowed and a refused case for every rule, each
// definition is bound to its profile, and its MCP mapping loads in the
// gateway's loader with the registry's profile.
func TestThePolicyLibraryValidatesAndEveryRuleHasAnAllowedAndARefusedCase(t *testing.T) {
	t.Parallel()
	lib := filepath.Join("..", "..", "examples", "policy-library")
	servers := []string{"filesystem", "memory", "everything", "stripe", "mail", "github"}
	for _, s := range servers {
		t.Run(s, func(t *testing.T) {
			dir := filepath.Join(lib, s)
			reg := filepath.Join(dir, "toolregistry.yaml")
			if r := runCLI("", "validate", "-f", filepath.Join(lib, "hostauthority.yaml"), "-f", reg, "-f", filepath.Join(dir, "policy.yaml")); r.code != 0 || r.stdout != "3 objects valid\n" {
				t.Errorf("validate -f: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
			raw, err := os.ReadFile(filepath.Join(dir, "library.test.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var suite struct {
				Cases []struct {
					Expect struct {
						Outcome      string   `json:"outcome"`
						MatchedRules []string `json:"matchedRules"`
					} `json:"expect"`
				} `json:"cases"`
			}
			if err := yaml.Unmarshal(raw, &suite); err != nil {
				t.Fatal(err)
			}
			r := runCLI("", "test", dir)
			if want := fmt.Sprintf("%d passed, 0 failed\n", len(suite.Cases)); r.code != 0 || !strings.HasSuffix(r.stdout, want) || len(suite.Cases) < 2 {
				t.Errorf("toolgate test: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
			allowed, refused := map[string]bool{}, 0
			for _, c := range suite.Cases {
				if c.Expect.Outcome == "allow" {
					for _, m := range c.Expect.MatchedRules {
						allowed[m] = true
					}
				} else {
					refused++
				}
			}
			pol, err := os.ReadFile(filepath.Join(dir, "policy.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var ps struct {
				Spec struct {
					Policies []struct {
						Rules []struct {
							ID string `json:"id"`
						} `json:"rules"`
					} `json:"policies"`
				} `json:"spec"`
			}
			if err := yaml.Unmarshal(pol, &ps); err != nil {
				t.Fatal(err)
			}
			for _, rule := range ps.Spec.Policies[0].Rules {
				if !allowed[rule.ID] {
					t.Errorf("rule %s has no allowed case", rule.ID)
				}
			}
			if refused < len(ps.Spec.Policies[0].Rules) {
				t.Errorf("%d refused cases for %d rules", refused, len(ps.Spec.Policies[0].Rules))
			}

			// Each definition is bound to its profile, and the mapping
			// carries the same profile for the same toolID and version.
			rb, err := os.ReadFile(reg)
			if err != nil {
				t.Fatal(err)
			}
			var registry struct {
				Spec struct {
					Definitions []struct {
						ToolID, Version, DocRef string
						Arguments               json.RawMessage `json:"arguments"`
						Schema                  struct {
							Root json.RawMessage `json:"root"`
						} `json:"schema"`
					} `json:"definitions"`
				} `json:"spec"`
			}
			if err := yaml.Unmarshal(rb, &registry); err != nil {
				t.Fatal(err)
			}
			cfg, err := mcpgate.LoadConfig(filepath.Join(dir, "mcp", "mcp-gateway.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if len(cfg.Tools) != len(registry.Spec.Definitions) {
				t.Errorf("%d mapped tools for %d definitions", len(cfg.Tools), len(registry.Spec.Definitions))
			}
			for _, d := range registry.Spec.Definitions {
				if d.Arguments == nil {
					continue // a closed-Schema definition
				}
				docRef, root, err := mcpimport.BindingOf(d.Arguments)
				if err != nil || docRef != d.DocRef {
					t.Errorf("%s: not bound to its profile (%v)", d.ToolID, err)
				}
				var a, b any
				_ = json.Unmarshal(root, &a)
				_ = json.Unmarshal(d.Schema.Root, &b)
				if ra, _ := json.Marshal(a); string(ra) != string(must(json.Marshal(b))) {
					t.Errorf("%s: schema.root is not the profile's Schema", d.ToolID)
				}
				for _, m := range cfg.Tools {
					if m.ToolID == d.ToolID && m.Version == d.Version {
						var x, y any
						_ = json.Unmarshal(m.Arguments, &x)
						_ = json.Unmarshal(d.Arguments, &y)
						if string(must(json.Marshal(x))) != string(must(json.Marshal(y))) {
							t.Errorf("%s: the mapping's profile is not the registry's", d.ToolID)
						}
					}
				}
			}
		})
	}
}

func must(b []byte, _ error) []byte { return b }
