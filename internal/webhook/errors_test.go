package webhook_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/webhook"
)

func TestFieldErrorsKeepsEveryViolationAndNoValue(t *testing.T) {
	t.Parallel()
	var l fault.Errors
	l.Add("spec.definitions[0]", fault.At("toolID", fault.Malformed, "a tool identifier has 2–8 segments"))
	l.Add("spec.policies[1]", fault.At("id", fault.Duplicate, "unique"))
	l.Add("spec", fault.At("roles", fault.Missing, "required"))
	l.Add("spec", fault.At("publisher", fault.Unauthorized, "no role"))
	got := webhook.FieldErrors(l.Err())
	type row struct {
		Type  field.ErrorType
		Field string
	}
	var rows []row
	for _, e := range got {
		rows = append(rows, row{e.Type, e.Field})
		if strings.Contains(e.Error(), "<omitted>") || strings.Contains(e.Error(), "OmitValue") {
			t.Errorf("%q renders a placeholder value", e.Error())
		}
	}
	want := []row{
		{field.ErrorTypeInvalid, "spec.definitions[0].toolID"},
		{field.ErrorTypeDuplicate, "spec.policies[1].id"},
		{field.ErrorTypeRequired, "spec.roles"},
		{field.ErrorTypeForbidden, "spec.publisher"},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("field errors (-want +got):\n%s", diff)
	}
	if got, want := got[0].Error(), "spec.definitions[0].toolID: Invalid value: malformed: a tool identifier has 2–8 segments"; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
}
