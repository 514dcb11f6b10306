package manifest

import (
	"regexp"
	"strconv"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
)

// Grace is a HostAuthority's spec.supersededGrace as numbers: how far
// behind the current generation a new Authorization may select (docs/crds.md,
// "Current generations"). The zero value is the default: only the current
// generation.
type Grace struct {
	// Generations behind the current one that stay selectable (0: none by
	// count).
	Generations uint64
	// Seconds after the successor's creation that a superseded generation
	// stays selectable (0: none by time).
	Seconds uint64
}

var (
	graceGenerations = regexp.MustCompile(`^([1-9]|1[0-6])$`)
	graceSeconds     = regexp.MustCompile(v1alpha1.SecondsPattern)
)

// GraceOf returns the Grace of a HostAuthority's supersededGrace at path
// (spec.supersededGrace or rollout.supersededGrace; nil: the zero Grace),
// checked as the CRD schema does, every violation below path.
func GraceOf(path string, g *v1alpha1.SupersededGrace) (Grace, error) {
	if g == nil {
		return Grace{}, nil
	}
	var errs fault.Errors
	var out Grace
	if g.Generations == "" && g.Seconds == "" {
		errs.Add(path, fault.New(fault.Missing, "set generations, seconds, or both"))
	}
	if g.Generations != "" {
		if !graceGenerations.MatchString(g.Generations) {
			errs.Add(path+".generations", fault.New(fault.Malformed, "generations is 1–16 as canonical decimal text"))
		}
		out.Generations, _ = strconv.ParseUint(g.Generations, 10, 64)
	}
	if g.Seconds != "" {
		if !graceSeconds.MatchString(string(g.Seconds)) {
			errs.Add(path+".seconds", fault.New(fault.Malformed, "seconds is 1–3,600 as canonical decimal text"))
		}
		out.Seconds, _ = strconv.ParseUint(string(g.Seconds), 10, 64)
	}
	if err := errs.Err(); err != nil {
		return Grace{}, err
	}
	return out, nil
}
