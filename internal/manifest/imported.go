package manifest

import (
	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
)

// UnconfirmedImportAnnotation marks a ToolRegistry drafted by `toolgate
// registry import` whose human judgments (capabilities, risk, side effect,
// reversibility, resource-identifier fields) are still suggestions. Every
// path that publishes a ToolRegistry refuses it (docs/mcp.md, "Import and
// review").
const UnconfirmedImportAnnotation = "import.toolgate.dev/unconfirmed"

// ImportConfirmMarker ends every suggested line of an import draft.
const ImportConfirmMarker = "# toolgate: confirm"

// CheckConfirmed rejects an unconfirmed import draft, whatever the
// annotation's value.
func CheckConfirmed(o *v1alpha1.ToolRegistry) error {
	if _, ok := o.Annotations[UnconfirmedImportAnnotation]; !ok {
		return nil
	}
	return fault.At("metadata.annotations", fault.Malformed,
		"an unconfirmed import draft: confirm every line marked '"+ImportConfirmMarker+
			"' (capabilities, risk, sideEffect, reversibility, resource-identifier fields), then remove the annotation "+UnconfirmedImportAnnotation)
}
