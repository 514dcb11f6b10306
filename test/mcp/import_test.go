package mcp

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/yaml"
)

// importFixture is a saved tools/list answer with one MCP construct per tool
// (testdata/import-tools-list.json): two that narrow safely, five that must
// be refused.
var importFixture = filepath.Join("testdata", "import-tools-list.json")

// runToolgate runs the built toolgate binary and returns its exit code,
// stdout and stderr.
func runToolgate(args ...string) (int, string, string) {
	GinkgoHelper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(toolgate, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		Expect(err).NotTo(HaveOccurred())
	}
	return code, stdout.String(), stderr.String()
}

// finding is one "narrowed"/"refused" line of the import report.
type finding struct{ tool, pointer string }

// reportLines reads the report's lines of one kind ("narrowed" or
// "refused") into findings and their reasons (several at one pointer
// joined by "; ", in report order).
func reportLines(stdout, kind string) (map[finding]string, []string) {
	found := map[finding]string{}
	var order []string
	for _, line := range strings.Split(stdout, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), kind+" ")
		if !ok {
			continue
		}
		head, reason, _ := strings.Cut(strings.TrimSpace(rest), ": ")
		tool, ptr, _ := strings.Cut(head, " ")
		if ptr == "(root)" {
			ptr = ""
		}
		if prev, ok := found[finding{tool, ptr}]; ok {
			reason = prev + "; " + reason
		}
		found[finding{tool, ptr}] = reason
		order = append(order, tool)
	}
	return found, order
}

// draftRegistry is the part of the drafted ToolRegistry the spec reads.
type draftRegistry struct {
	Metadata struct {
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		SnapshotID  string `json:"snapshotID"`
		Definitions []struct {
			ToolID  string `json:"toolID"`
			Version string `json:"version"`
			Schema  struct {
				Root struct {
					Kind   string       `json:"kind"`
					Fields []draftField `json:"fields"`
				} `json:"root"`
			} `json:"schema"`
		} `json:"definitions"`
	} `json:"spec"`
}

type draftField struct {
	Name        string `json:"name"`
	Requirement string `json:"requirement"`
	Type        struct {
		Kind  string   `json:"kind"`
		Cases []string `json:"cases"`
	} `json:"type"`
}

func field(name, req, kind string, cases ...string) draftField {
	f := draftField{Name: name, Requirement: req}
	f.Type.Kind, f.Type.Cases = kind, cases
	return f
}

var _ = Describe("toolgate registry import", func() {
	// Every expectation below is written from the fixture's constructs and
	// the narrowing rules (docs/decisions.md, "MCP import"), not from the
	// importer's output.
	It("drafts the safely narrowable tools and reports every refusal of a varied tools/list at once", func() {
		out := filepath.Join(workDir, "import-e2e")
		code, stdout, stderr := runToolgate("registry", "import", "--from-file", importFixture, "--tool-prefix", "ops",
			"--out", out, "--namespace", "ops", "--snapshot-id", "ops-mcp", "--host-authority", "ops/ops-host")

		By("exiting 1 and naming the count of refused tools: grep_text, pick, choose, follow_chain, schedule")
		Expect(code).To(Equal(1), stderr)
		Expect(stderr).To(ContainSubstring("5 tools refused"))
		Expect(stdout).To(ContainSubstring("drafted ops-mcp generation 1: 2 tools; 7 refusals"))

		By("listing the complete refusal list, each with its pointer and a reason naming the construct")
		refused, _ := reportLines(stdout, "refused ")
		wantRefused := map[finding]string{
			{"grep_text", "/properties/expr/pattern"}:                                  "pattern",
			{"pick", "/properties/value/anyOf"}:                                        "differing shapes", // string | boolean
			{"choose", "/properties/choice/oneOf"}:                                     "differing shapes", // integer | object
			{"follow_chain", "/properties/start/properties/next/properties/back/$ref"}: "cycle",            // a → b → a
			{"schedule", "/properties/at/format"}:                                      "format",           // date-time: a string that means a time
			{"schedule", "/properties/contact/format"}:                                 "format",           // email
			{"schedule", "/properties/every/pattern"}:                                  "pattern",
		}
		Expect(refused).To(HaveLen(len(wantRefused)), stdout)
		for f, word := range wantRefused {
			Expect(refused).To(HaveKey(f), stdout)
			Expect(refused[f]).To(ContainSubstring(word))
		}

		By("reporting each narrowing of the drafted tools per field, and none of the refused ones")
		narrowed, tools := reportLines(stdout, "narrowed")
		const ascii = "string narrowed to printable ASCII (0x20–0x7E): any other character rejects"
		Expect(narrowed).To(Equal(map[finding]string{
			{"get_status", ""}:                         "object closed: members not declared in properties reject",
			{"get_status", "/properties/count/type"}:   "number read as integer: a fraction rejects",
			{"get_status", "/properties/count"}:        "integer with minimum 0 bounded to the protocol's unsigned 64-bit range",
			{"get_status", "/properties/ticket"}:       ascii + "; string bounded to the protocol's 1024 octets",
			{"set_mode", "/properties/target/oneOf/0"}: ascii + "; string bounded to the protocol's 1024 octets",
		}), stdout)
		Expect(slices.Compact(tools)).To(Equal([]string{"get_status", "set_mode"}))

		By("echoing no value of the server's schemas")
		for _, v := range []string{"^[a-z]{1,8}$", "^[0-9]+[smh]$", "date-time", "email", "a host name"} {
			Expect(stdout + stderr).NotTo(ContainSubstring(v))
		}

		By("drafting a closed Schema per mapped tool, unconfirmed")
		raw, err := os.ReadFile(filepath.Join(out, "toolregistry.yaml"))
		Expect(err).NotTo(HaveOccurred())
		var reg draftRegistry
		Expect(yaml.Unmarshal(raw, &reg)).To(Succeed())
		Expect(reg.Metadata.Annotations).To(HaveKeyWithValue("import.toolgate.dev/unconfirmed", "true"))
		Expect(reg.Spec.SnapshotID).To(Equal("ops-mcp"))
		Expect(reg.Spec.Definitions).To(HaveLen(2))
		byTool := map[string][]draftField{}
		for _, d := range reg.Spec.Definitions {
			Expect(d.Version).To(Equal("1"))
			Expect(d.Schema.Root.Kind).To(Equal("object"))
			byTool[d.ToolID] = d.Schema.Root.Fields
		}
		Expect(byTool).To(Equal(map[string][]draftField{
			"ops.get-status": {
				field("count", "optional", "unsignedInteger"),
				field("ticket", "required", "string"),
				field("verbose", "optional", "bool"),
			},
			"ops.set-mode": {
				field("mode", "required", "enumeration", "fast", "safe"),
				field("target", "required", "string"),
			},
		}))
		code, vout, _ := runToolgate("validate", "-f", filepath.Join(out, "toolregistry.yaml"))
		Expect(code).To(Equal(1))
		Expect(vout).To(ContainSubstring("an unconfirmed import draft"))

		By("mapping exactly the drafted tools to their toolID and version, with the server's own definitions under review")
		raw, err = os.ReadFile(filepath.Join(out, "mcp-gateway.yaml"))
		Expect(err).NotTo(HaveOccurred())
		var mapping struct {
			Tools []struct {
				Name, ToolID, Version string
				Definition            struct {
					Description string          `json:"description"`
					InputSchema json.RawMessage `json:"inputSchema"`
				} `json:"definition"`
			} `json:"tools"`
		}
		Expect(yaml.Unmarshal(raw, &mapping)).To(Succeed())
		fixture := fixtureTools()
		var mapped []string
		for _, m := range mapping.Tools {
			mapped = append(mapped, m.Name+"="+m.ToolID+"@"+m.Version)
			Expect(m.Definition.Description).To(Equal(fixture[m.Name].Description))
			Expect(m.Definition.InputSchema).To(MatchJSON(fixture[m.Name].InputSchema))
		}
		Expect(mapped).To(Equal([]string{"get_status=ops.get-status@1", "set_mode=ops.set-mode@1"}))
	})
})

type fixtureTool struct {
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

func fixtureTools() map[string]fixtureTool {
	GinkgoHelper()
	raw, err := os.ReadFile(importFixture)
	Expect(err).NotTo(HaveOccurred())
	var list struct {
		Result struct {
			Tools []struct {
				Name string `json:"name"`
				fixtureTool
			} `json:"tools"`
		} `json:"result"`
	}
	Expect(json.Unmarshal(raw, &list)).To(Succeed())
	out := map[string]fixtureTool{}
	for _, t := range list.Result.Tools {
		out[t.Name] = t.fixtureTool
	}
	return out
}
