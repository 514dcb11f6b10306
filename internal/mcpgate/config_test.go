package mcpgate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func sample(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "config", "mcp", "gateway.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func TestTheShippedConfigurationLoads(t *testing.T) {
	c, err := ParseConfig([]byte(sample(t)))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Tools) != 1 || c.Tools[0].ToolID != "payments.submit" || c.MaxArgs() != 65536 {
		t.Fatalf("unexpected configuration: %+v", c)
	}
}

func TestConfigurationRejects(t *testing.T) {
	for name, tc := range map[string]struct {
		edit func(string) string
		path string
	}{
		"an unknown field": {func(s string) string {
			return strings.Replace(s, "outcomeLog:", "outcomeLogs: x\noutcomeLog:", 1)
		}, "(document)"},
		"a duplicate key": {func(s string) string {
			return strings.Replace(s, "maxArgumentBytes: 65536", "maxArgumentBytes: 65536\nmaxArgumentBytes: 1", 1)
		}, "(document)"},
		"a reviewed description edited without a new digest": {func(s string) string {
			return strings.Replace(s, "to a creditor account.", "to any account.", 1)
		}, "tools[0].definitionDigest"},
		"a reviewed schema edited without a new digest": {func(s string) string {
			return strings.Replace(s, "amount: {type: integer, minimum: 0}", "amount: {type: integer}", 1)
		}, "tools[0].definitionDigest"},
		"an input schema that is not an object schema": {func(s string) string {
			return strings.Replace(s, "    inputSchema:\n      type: object\n", "    inputSchema:\n      type: array\n", 1)
		}, "tools[0].definition.inputSchema"},
		"a missing version": {func(s string) string { return strings.Replace(s, `  version: "1"`, "", 1) }, "tools[0].version"},
		"a missing token file": {func(s string) string {
			return strings.Replace(s, "tokenFile: .state/mcp-executor.token", "tokenFile: \"\"", 1)
		}, "toolgate.tokenFile"},
		"an unusable output schema": {func(s string) string {
			return strings.Replace(s, "      paymentID: {type: string}", "      paymentID: {type: 7}", 1)
		}, "tools[0].outputSchema"},
	} {
		t.Run(name, func(t *testing.T) {
			edited := tc.edit(sample(t))
			if edited == sample(t) {
				t.Fatal("the edit did not apply")
			}
			_, err := ParseConfig([]byte(edited))
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a *ConfigError", err)
			}
			if !strings.Contains(err.Error(), tc.path+":") {
				t.Fatalf("got %v, want one at %s", err, tc.path)
			}
		})
	}
}

func TestTheDigestIgnoresLayoutAndKeyOrderButNotContent(t *testing.T) {
	base := Definition{Description: "d", InputSchema: []byte(`{"type":"object","properties":{"a":{"type":"integer","maximum":1000000}}}`)}
	d0, err := base.Digest()
	if err != nil {
		t.Fatal(err)
	}
	same := map[string]Definition{
		"reordered and spaced":              {Description: "d", InputSchema: []byte(` { "properties" : {"a":{"maximum":1000000,"type":"integer"}}, "type":"object" }`)},
		"a number as the SDK re-encodes it": {Description: "d", InputSchema: []byte(`{"type":"object","properties":{"a":{"type":"integer","maximum":1e+06}}}`)},
	}
	for name, d := range same {
		if got, _ := d.Digest(); got != d0 {
			t.Errorf("%s: digest differs", name)
		}
	}
	differ := map[string]Definition{
		"description":  {Description: "d.", InputSchema: base.InputSchema},
		"a bound":      {Description: "d", InputSchema: []byte(`{"type":"object","properties":{"a":{"type":"integer","maximum":1000001}}}`)},
		"an extra key": {Description: "d", InputSchema: []byte(`{"type":"object","properties":{"a":{"type":"integer","maximum":1000000}},"additionalProperties":true}`)},
	}
	for name, d := range differ {
		if got, _ := d.Digest(); got == d0 {
			t.Errorf("a changed %s has the same digest", name)
		}
	}
}

func TestAConsumedCallWithoutAnOutcomeReadsAsUncertain(t *testing.T) {
	log := `{"event":"consumed","tool":"t","binding":"sha256:a","authorizationID":"a"}
{"event":"outcome","tool":"t","binding":"sha256:a","authorizationID":"a","outcome":"completed"}
{"event":"consumed","tool":"t","binding":"sha256:b","authorizationID":"b"}
`
	recs, err := ReadOutcomes(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, r := range recs {
		got = append(got, r.AuthorizationID+"="+r.Outcome+"/"+r.Reason)
	}
	want := "a=completed/ b=uncertain/noOutcomeRecorded"
	if strings.Join(got, " ") != want {
		t.Fatalf("got %v, want %s", got, want)
	}
	if _, err := ReadOutcomes(strings.NewReader("not json\n")); err == nil {
		t.Fatal("a broken line must reject")
	}
}

func TestTheAuthorizationMetaIsReadStrictlyWithoutEchoingIt(t *testing.T) {
	secret := "artifact-secret-value"
	for name, tc := range map[string]struct {
		meta mcp.Meta
		code string
	}{
		"absent":            {mcp.Meta{"other": 1}, "missing"},
		"a string":          {mcp.Meta{MetaKey: secret}, "kindMismatch"},
		"an unknown member": {mcp.Meta{MetaKey: map[string]any{"artifact": secret, "toolID": "x"}}, "malformed"},
		"a wrong type":      {mcp.Meta{MetaKey: map[string]any{"artifact": secret, "capabilities": "x"}}, "malformed"},
		"no artifact":       {mcp.Meta{MetaKey: map[string]any{"authorizationID": "a"}}, "missing"},
	} {
		t.Run(name, func(t *testing.T) {
			_, r := decodeMeta(tc.meta)
			if r == nil || r.Code != tc.code {
				t.Fatalf("got %+v, want code %s", r, tc.code)
			}
			if strings.Contains(r.Message+r.Path, secret) {
				t.Fatal("the refusal echoes the value")
			}
		})
	}
}
