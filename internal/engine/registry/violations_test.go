package registry_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestPublishReportsEveryViolation proves that registry publication reports
// every violation of every definition, including inside Schemas, each at its
// path, and never a rejected value.
func TestPublishReportsEveryViolation(t *testing.T) {
	t.Parallel()
	defs := threeDefinitions()
	defs[0].ToolID = "SECRET-no-dot"
	defs[0].Risk = "SECRET-risk"
	defs[2].Schema.Version = "v9"
	defs[2].Schema.Root.Fields = append(defs[2].Schema.Root.Fields,
		schema.FieldDraft{Name: "SECRET Name", Requirement: "required", Type: schema.Draft{Kind: "string"}},
		schema.FieldDraft{Name: "ok", Requirement: "sometimes", Type: schema.Draft{Kind: "SECRET-kind"}},
	)
	n := len(defs[2].Schema.Root.Fields)
	_, err := registry.Publish(registry.Draft{ID: "snap", Generation: "0", Definitions: defs})
	testutil.CheckFaultList(t, err, []string{
		"generation malformed",
		"definitions[0].toolID malformed",
		"definitions[0].risk unknownToken",
		"definitions[2].schema.version unsupported",
		"definitions[2].schema.root.fields[" + itoa(n-2) + "].name malformed",
		"definitions[2].schema.root.fields[" + itoa(n-1) + "].requirement unknownToken",
		"definitions[2].schema.root.fields[" + itoa(n-1) + "].type.kind unknownToken",
	})
	if s := err.Error(); containsSecret(s) {
		t.Errorf("the rejection echoes a rejected value: %s", s)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func containsSecret(s string) bool { return strings.Contains(s, "SECRET") }
