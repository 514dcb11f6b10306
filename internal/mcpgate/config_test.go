package mcpgate

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func sample(t testing.TB) string {
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

// TestAWellFormedAuthorizationMetaReadsAsEncodingJSONReadsIt: the direct
// reading of the SDK's decoded _meta gives what encoding/json gives for the
// same object's JSON, member for member.
func TestAWellFormedAuthorizationMetaReadsAsEncodingJSONReadsIt(t *testing.T) {
	for name, raw := range map[string]string{
		"every member": `{"artifact":"a.b.c","authorizationID":"authz-1","replayID":"r-1","consumptionID":"c-1","proposalID":"p-1",` +
			`"identity":{"subject":"agent","tenant":"t","session":"s","sessionIndependent":true,"delegation":"d"},` +
			`"capabilities":["pay","read"],"resources":["acct:1"],"intentBinding":{"intent":"x","n":[1,2]}}`,
		"nulls read as absent": `{"artifact":"a","capabilities":null,"resources":null,"identity":null,"intentBinding":null,"replayID":null}`,
		"empty lists":          `{"artifact":"a","capabilities":[],"resources":[]}`,
	} {
		t.Run(name, func(t *testing.T) {
			var generic map[string]any
			if err := json.Unmarshal([]byte(raw), &generic); err != nil {
				t.Fatal(err)
			}
			var want AuthorizationMeta
			if err := json.Unmarshal([]byte(raw), &want); err != nil {
				t.Fatal(err)
			}
			got, r := decodeMeta(mcp.Meta{MetaKey: generic})
			if r != nil {
				t.Fatalf("refused: %+v", r)
			}
			if diff := cmp.Diff(want, *got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-encoding/json +decodeMeta):\n%s", diff)
			}
		})
	}
}

func TestTheAuthorizationMetaIsReadStrictlyWithoutEchoingIt(t *testing.T) {
	secret := "artifact-secret-value"
	for name, tc := range map[string]struct {
		meta mcp.Meta
		code string
	}{
		"absent":                          {mcp.Meta{"other": 1}, "missing"},
		"a string":                        {mcp.Meta{MetaKey: secret}, "kindMismatch"},
		"an unknown member":               {mcp.Meta{MetaKey: map[string]any{"artifact": secret, "toolID": "x"}}, "malformed"},
		"a wrong type":                    {mcp.Meta{MetaKey: map[string]any{"artifact": secret, "capabilities": "x"}}, "malformed"},
		"no artifact":                     {mcp.Meta{MetaKey: map[string]any{"authorizationID": "a"}}, "missing"},
		"a number for an ID":              {mcp.Meta{MetaKey: map[string]any{"artifact": secret, "replayID": 7.0}}, "malformed"},
		"a non-string capability":         {mcp.Meta{MetaKey: map[string]any{"artifact": secret, "capabilities": []any{"a", 1.0}}}, "malformed"},
		"an identity that is a string":    {mcp.Meta{MetaKey: map[string]any{"artifact": secret, "identity": secret}}, "malformed"},
		"an unknown identity member":      {mcp.Meta{MetaKey: map[string]any{"artifact": secret, "identity": map[string]any{"subject": "s", "role": "admin"}}}, "malformed"},
		"a string for sessionIndependent": {mcp.Meta{MetaKey: map[string]any{"artifact": secret, "identity": map[string]any{"sessionIndependent": "true"}}}, "malformed"},
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
