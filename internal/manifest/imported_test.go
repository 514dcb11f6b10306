package manifest

import (
	"errors"
	"slices"
	"testing"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
)

func TestAnUnconfirmedImportDraftIsRefusedWhateverTheAnnotationsValue(t *testing.T) {
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		refused     bool
	}{
		{"no annotations publish", nil, false},
		{"other annotations publish", map[string]string{"team": "payments"}, false},
		{"the unconfirmed annotation refuses", map[string]string{UnconfirmedImportAnnotation: "true"}, true},
		{"the unconfirmed annotation refuses even when false", map[string]string{UnconfirmedImportAnnotation: "false"}, true},
		{"the unconfirmed annotation refuses when empty", map[string]string{UnconfirmedImportAnnotation: ""}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &v1alpha1.ToolRegistry{}
			o.Annotations = tc.annotations
			err := CheckConfirmed(o)
			if (err != nil) != tc.refused {
				t.Fatalf("CheckConfirmed = %v, refused want %v", err, tc.refused)
			}
			var fe *fault.Error
			if tc.refused && (!errors.As(err, &fe) || fe.Path != "metadata.annotations") {
				t.Errorf("the refusal %v is not a fault at metadata.annotations", err)
			}
		})
	}
}

func TestEveryUnconfirmedChoiceIsReportedAtOnceAtItsPath(t *testing.T) {
	o := &v1alpha1.ToolRegistry{}
	o.Spec.Definitions = []v1alpha1.ToolDefinition{{ID: "fs-read-1"}, {ID: "fs-write-1"}}
	o.Annotations = map[string]string{UnconfirmedImportAnnotation: FormatUnconfirmed([]Unconfirmed{
		{Definition: "fs-write-1", Field: ConfirmRisk},
		{Definition: "fs-write-1", Field: ConfirmArguments, Pointer: "/properties/content"},
		{Definition: "fs-read-1", Field: ConfirmSchema},
		{Definition: "fs-gone-1", Field: ConfirmRisk},
		{Definition: "fs-read-1", Field: "title"},
		{Definition: "fs-read-1", Field: ConfirmRisk, Pointer: "/a"},
		{Definition: "fs-read-1", Field: ConfirmArguments},
	})}
	var got []string
	for _, e := range fault.All(CheckConfirmed(o)) {
		got = append(got, e.Path)
	}
	want := []string{"spec.definitions[1].risk", "spec.definitions[1].arguments/properties/content", "spec.definitions[0].schema.root",
		"metadata.annotations", "metadata.annotations", "metadata.annotations", "spec.definitions[0].arguments"}
	if !slices.Equal(got, want) {
		t.Errorf("paths = %q, want %q", got, want)
	}
	delete(o.Annotations, UnconfirmedImportAnnotation)
	if err := CheckConfirmed(o); err != nil {
		t.Errorf("a confirmed draft: %v", err)
	}
}
