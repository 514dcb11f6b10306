package mcp

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/yaml"
)

// importFixture is a saved tools/list answer with one MCP construct per tool
// (testdata/import-tools-list.json): two whose closed Schema narrows safely,
// five the closed Schema cannot hold; each has an argument profile.
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
			ToolID    string         `json:"toolID"`
			Version   string         `json:"version"`
			DocRef    string         `json:"docRef"`
			Arguments map[string]any `json:"arguments"`
			Schema    struct {
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
	It("drafts every tool of a varied tools/list with its argument profile, every choice's reason printed and listed", func() {
		out := filepath.Join(workDir, "import-e2e")
		code, stdout, stderr := runToolgate("registry", "import", "--from-file", importFixture, "--tool-prefix", "ops",
			"--out", out, "--namespace", "ops", "--snapshot-id", "ops-mcp", "--host-authority", "ops/ops-host")

		By("exiting 0: each construct has a profile choice (docs/arguments.md, Proposals from tools/list)")
		Expect(code).To(Equal(0), stderr)
		Expect(stdout).To(ContainSubstring("drafted ops-mcp generation 1: 7 tools (7 with an argument profile); 0 refusals"))

		By("printing the reason of every choice that needed judgment, at its pointer")
		chose, _ := reportLines(stdout, "chose   ")
		wantChose := map[finding]string{
			{"get_status", "/properties/count"}:                                        "decimal at scale 2", // number
			{"get_status", "/properties/count/minimum"}:                                "unsignedInteger",
			{"get_status", "/properties/ticket"}:                                       "SHA-256 and length", // free text
			{"set_mode", "/properties/target/oneOf"}:                                   "bound as a digest",  // two strings
			{"grep_text", "/properties/expr"}:                                          "SHA-256 and length", // the pattern is kept
			{"pick", "/properties/value/anyOf/0"}:                                      "SHA-256 and length",
			{"pick", "/properties/value/anyOf"}:                                        "union tagged by the kind", // string | boolean
			{"choose", "/properties/choice/oneOf"}:                                     "union tagged by the kind", // integer | object
			{"follow_chain", "/properties/start/properties/next/properties/back/$ref"}: "recursive value is json of the kinds its type names, bound as a digest",
			{"schedule", "/properties/at/format"}:                                      "not enforced", // date-time
			{"schedule", "/properties/at"}:                                             "SHA-256 and length",
			{"schedule", "/properties/contact/format"}:                                 "not enforced", // email
			{"schedule", "/properties/contact"}:                                        "SHA-256 and length",
			{"schedule", "/properties/every"}:                                          "SHA-256 and length",
			{"schedule", "/properties/name"}:                                           "SHA-256 and length",
		}
		Expect(chose).To(HaveLen(len(wantChose)), stdout)
		for f, words := range wantChose {
			Expect(chose).To(HaveKey(f), stdout)
			Expect(chose[f]).To(ContainSubstring(words))
		}
		Expect(stdout).NotTo(ContainSubstring("narrowed "))

		By("echoing no value of the server's schemas")
		for _, v := range []string{"^[a-z]{1,8}$", "^[0-9]+[smh]$", "date-time", "email", "a host name"} {
			Expect(stdout + stderr).NotTo(ContainSubstring(v))
		}

		By("drafting each tool bound to its profile, every suggestion listed in the annotation")
		raw, err := os.ReadFile(filepath.Join(out, "toolregistry.yaml"))
		Expect(err).NotTo(HaveOccurred())
		var reg draftRegistry
		Expect(yaml.Unmarshal(raw, &reg)).To(Succeed())
		listed := strings.Split(strings.TrimSpace(reg.Metadata.Annotations["import.toolgate.dev/unconfirmed"]), "\n")
		Expect(listed).To(HaveLen(7*4 + len(wantChose)))
		Expect(listed).To(ContainElements("ops-get-status-1 risk", "ops-get-status-1 arguments /properties/ticket",
			"ops-follow-chain-1 arguments /properties/start/properties/next/properties/back/$ref"))
		Expect(reg.Spec.SnapshotID).To(Equal("ops-mcp"))
		Expect(reg.Spec.Definitions).To(HaveLen(7))
		byTool := map[string][]draftField{}
		for _, d := range reg.Spec.Definitions {
			Expect(d.Version).To(Equal("1"))
			Expect(d.DocRef).To(MatchRegexp(`^argprofile\.[0-9a-f]{52}$`))
			Expect(d.Arguments).To(HaveKeyWithValue("profile", "toolgate.mcp-arguments/1"))
			Expect(d.Schema.Root.Kind).To(Equal("object"))
			byTool[d.ToolID] = d.Schema.Root.Fields
		}
		// The protocol Schema each profile derives to: a digest is
		// {length, sha256}, a decimal an integer, a rename a field name.
		Expect(byTool["ops.get-status"]).To(Equal([]draftField{
			field("count", "optional", "unsignedInteger"),
			field("ticket", "required", "object"),
			field("verbose", "optional", "bool"),
		}))
		Expect(byTool["ops.set-mode"]).To(Equal([]draftField{
			field("mode", "required", "enumeration", "fast", "safe"),
			field("target", "required", "object"),
		}))
		code, vout, _ := runToolgate("validate", "-f", filepath.Join(out, "toolregistry.yaml"))
		Expect(code).To(Equal(1))
		Expect(strings.Count(vout, "an unconfirmed import draft")).To(Equal(len(listed)))
		Expect(vout).To(ContainSubstring("spec.definitions[0].arguments/properties/ticket: malformed: an unconfirmed import draft"))

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
		Expect(mapped).To(Equal([]string{"get_status=ops.get-status@1", "set_mode=ops.set-mode@1", "grep_text=ops.grep-text@1",
			"pick=ops.pick@1", "choose=ops.choose@1", "follow_chain=ops.follow-chain@1", "schedule=ops.schedule@1"}))
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
