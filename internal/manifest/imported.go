package manifest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
)

// UnconfirmedImportAnnotation marks a ToolRegistry drafted by `toolgate
// registry import` whose human judgments are still suggestions. Its value
// lists them, one Unconfirmed a line; every path that publishes a
// ToolRegistry refuses it, whatever its value (docs/mcp.md, "Import and
// review"). Comments do not survive kubectl; an annotation does.
const UnconfirmedImportAnnotation = "import.toolgate.dev/unconfirmed"

// ImportConfirmMarker ends every suggested line of an import draft.
const ImportConfirmMarker = "# toolgate: confirm"

// The fields of a Tool Definition an import suggests.
const (
	ConfirmRisk          = "risk"
	ConfirmSideEffect    = "sideEffect"
	ConfirmReversibility = "reversibility"
	ConfirmCapabilities  = "capabilities"
	// ConfirmSchema: the closed Schema's string fields may be resource
	// identifiers (kind: resourceID).
	ConfirmSchema = "schema.root"
	// ConfirmArguments: one choice of the argument profile, named by the
	// inputSchema pointer its reason was printed with (none for the root).
	ConfirmArguments = "arguments"
)

var confirmFields = []string{ConfirmRisk, ConfirmSideEffect, ConfirmReversibility, ConfirmCapabilities, ConfirmSchema, ConfirmArguments}

// Unconfirmed is one suggested choice of an import draft: the definition
// (its id), the field, and for an argument-profile choice its pointer.
type Unconfirmed struct {
	Definition string
	Field      string
	Pointer    string
}

// String is the choice's line of the annotation: "ID FIELD[ POINTER]".
func (u Unconfirmed) String() string {
	s := u.Definition + " " + u.Field
	if u.Pointer != "" {
		s += " " + u.Pointer
	}
	return s
}

// FormatUnconfirmed is the annotation's value for the choices: one a line.
func FormatUnconfirmed(us []Unconfirmed) string {
	var b strings.Builder
	for _, u := range us {
		b.WriteString(u.String() + "\n")
	}
	return b.String()
}

// CheckConfirmed rejects an unconfirmed import draft, whatever the
// annotation's value: every choice it lists at once, each at its path in
// the definition it names (spec.definitions[i].risk,
// spec.definitions[i].arguments/properties/content), and a value that
// lists none, or a line naming no definition or field, at the annotation.
func CheckConfirmed(o *v1alpha1.ToolRegistry) error {
	v, ok := o.Annotations[UnconfirmedImportAnnotation]
	if !ok {
		return nil
	}
	const at = "metadata.annotations"
	var errs fault.Errors
	listed := 0
	for line := range strings.SplitSeq(v, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		listed++
		parts := strings.SplitN(line, " ", 3)
		i := slices.IndexFunc(o.Spec.Definitions, func(d v1alpha1.ToolDefinition) bool { return string(d.ID) == parts[0] })
		switch {
		case len(parts) < 2 || i < 0 || !slices.Contains(confirmFields, parts[1]) ||
			len(parts) == 3 && (parts[1] != ConfirmArguments || !strings.HasPrefix(parts[2], "/")):
			errs = append(errs, fault.At(at, fault.Malformed,
				"an unconfirmed import draft: the annotation "+UnconfirmedImportAnnotation+" lists a choice that names no definition and field of this draft; confirm the draft, then remove the line"))
		default:
			path := fmt.Sprintf("spec.definitions[%d].%s", i, parts[1])
			if len(parts) == 3 {
				path += parts[2]
			}
			errs = append(errs, fault.At(path, fault.Malformed,
				"an unconfirmed import draft: a suggestion; confirm or change it, then remove its line from the annotation "+UnconfirmedImportAnnotation))
		}
	}
	if listed == 0 {
		errs = append(errs, fault.At(at, fault.Malformed,
			"an unconfirmed import draft: confirm every line marked '"+ImportConfirmMarker+
				"' (capabilities, risk, sideEffect, reversibility, resource-identifier fields, argument-profile choices), then remove the annotation "+UnconfirmedImportAnnotation))
	}
	return errs.Err()
}
