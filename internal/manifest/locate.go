package manifest

import (
	"errors"
	"strings"

	"github.com/toolgate/toolgate/internal/engine/fault"
)

// SpecFault locates an engine rejection of a ToolRegistry or PolicySnapshot
// draft at the spec field it came from: the draft's top-level "id" and
// "generation" are spec.snapshotID and spec.snapshotGeneration (named so
// that they cannot be confused with metadata.generation); every other path
// is the spec field of the same name. Errors that are not engine faults are
// returned unchanged.
//
// It is the one locator of every caller (webhook, controllers, CLI), and it
// is idempotent: a path that is already an object path (spec…, metadata…)
// and the Host's "publisher" (the caller, not a field) are kept, so an
// error built from already located parts (the condition trees PolicyDraft
// decodes) is never located twice.
//
// Every rejection of a fault.Errors is located; the result is then a
// fault.Errors too.
func SpecFault(err error) error {
	var fe *fault.Error
	if !errors.As(err, &fe) {
		return err
	}
	var l fault.Errors
	for _, e := range fault.All(err) {
		if located(e.Path) {
			l.Add("", e)
			continue
		}
		c := *e
		c.Path = renameRoot(renameRoot(e.Path, "id", "snapshotID"), "generation", "snapshotGeneration")
		l.Add("spec", &c)
	}
	return l.Err()
}

// located reports whether path is already an object path, or names the
// publisher rather than a field.
func located(path string) bool {
	for _, root := range []string{"spec", "metadata", "publisher"} {
		if path == root || strings.HasPrefix(path, root+".") || strings.HasPrefix(path, root+"[") {
			return true
		}
	}
	return false
}

// renameRoot replaces the first path segment when it is exactly from.
func renameRoot(path, from, to string) string {
	if path == from || strings.HasPrefix(path, from+".") || strings.HasPrefix(path, from+"[") {
		return to + strings.TrimPrefix(path, from)
	}
	return path
}
