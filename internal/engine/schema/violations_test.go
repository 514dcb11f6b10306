package schema_test

import (
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestNewReportsEveryViolation proves that Schema publication reports the
// violations of every field and every enumeration case, each at its draft
// path, without echoing a rejected name.
func TestNewReportsEveryViolation(t *testing.T) {
	t.Parallel()
	d := object(
		req("ok", enum("a", "SECRET Case", "a", "b")),
		schema.FieldDraft{Name: "SECRET Field", Requirement: "required", Type: str()},
		schema.FieldDraft{Name: "fine", Requirement: "sometimes", Type: schema.Draft{Kind: "SECRET-kind"}},
		req("ok", str()),
	)
	_, err := schema.New(testID, vocab.V1, d)
	testutil.CheckFaultList(t, err, []string{
		"fields[1].name malformed",
		"fields[2].requirement unknownToken",
		"fields[3].name duplicate",
		"fields[0].type.cases[1] malformed",
		"fields[0].type.cases[2] duplicate",
		"fields[2].type.kind unknownToken",
	})
	if strings.Contains(err.Error(), "SECRET") {
		t.Errorf("the rejection echoes a rejected value: %v", err)
	}
}
