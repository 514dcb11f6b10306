package manifest

import (
	"errors"
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
