package publication

import (
	"time"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
)

// MaxShadowWindow bounds how long a shadow generation is evaluated: its
// spec.shadow.until is at most this long after the object's creation
// (docs/shadow.md, "Invariants").
const MaxShadowWindow = 7 * 24 * time.Hour

// Shadow is an admitted spec.shadow: the generation the object shadows and
// the end of its window.
type Shadow struct {
	Of    string
	Until time.Time
}

// ShadowOf returns o's admitted spec.shadow, or false when o is no shadow.
// The window opened at the object's creation: a shadow needs
// metadata.creationTimestamp (set by the apiserver in a cluster, written
// in a standalone manifest), so that every path and every later load
// bounds it the same way. A window that has passed since is admitted: such
// a shadow is simply no longer evaluated.
func ShadowOf(o *v1alpha1.PolicySnapshot) (Shadow, bool, error) {
	if o.Spec.Shadow == nil {
		return Shadow{}, false, nil
	}
	var errs fault.Errors
	errs.Add("", checkShadowShape(o))
	if o.CreationTimestamp.IsZero() {
		errs.Add("", fault.At("metadata.creationTimestamp", fault.Missing, "a shadow's window opens at the object's creation: it needs a creation time"))
	} else {
		errs.Add("", checkShadowWindow(o.Spec.Shadow.Until.Time, o.CreationTimestamp.Time))
	}
	if err := errs.Err(); err != nil {
		return Shadow{}, false, err
	}
	return Shadow{Of: string(o.Spec.Shadow.Of), Until: o.Spec.Shadow.Until.Time}, true, nil
}

// checkShadowShape is the part of spec.shadow that needs no clock: a
// shadow shadows exactly the generation before its own, so generation 1
// is never one, and names when it ends.
func checkShadowShape(o *v1alpha1.PolicySnapshot) error {
	sh := o.Spec.Shadow
	if sh == nil {
		return nil
	}
	var errs fault.Errors
	prev, ok := Previous(o)
	switch {
	case !ok:
		errs.Add("", fault.At("spec.shadow", fault.Unsupported, "generation 1 has no generation to shadow: a shadow is a successor generation"))
	case string(sh.Of) != prev:
		errs.Add("", fault.At("spec.shadow.of", fault.Mismatch, "a shadow shadows exactly the generation before its own"))
	}
	if sh.Until.IsZero() {
		errs.Add("", fault.At("spec.shadow.until", fault.Missing, "a shadow names the end of its window"))
	}
	return errs.Err()
}

// checkShadowWindow bounds a window ending at until that opened at
// created.
func checkShadowWindow(until, created time.Time) error {
	if until.IsZero() {
		return nil // checkShadowShape reports it
	}
	if !until.After(created) {
		return fault.At("spec.shadow.until", fault.OutOfRange, "a shadow's window ends after the object's creation")
	}
	if until.Sub(created) > MaxShadowWindow {
		return fault.At("spec.shadow.until", fault.OutOfRange, "a shadow's window is at most 7 days from the object's creation")
	}
	return nil
}
