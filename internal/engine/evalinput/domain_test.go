package evalinput_test

import (
	"testing"

	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
)

// TestNewRejectsEveryPieceFromAnotherDomain substitutes, one piece at a
// time, the matching piece of a complete second input with identical
// content built in another Host domain (Section 17: "All inputs MUST belong
// to the same exact Host authority domain"; Section 13; P-016).
func TestNewRejectsEveryPieceFromAnotherDomain(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		substitute func(d *evalinput.Draft, other evalinput.Draft)
		retained   func(own, other boundary.Boundary) boundary.Boundary // the boundary New is given; own when nil
		wantErr    error
		wantPath   string
	}{
		"the other domain's pieces, each in its own domain, are a valid input": {
			substitute: func(d *evalinput.Draft, other evalinput.Draft) { *d = other },
			retained:   func(_, other boundary.Boundary) boundary.Boundary { return other },
		},
		"canonical request assessed in the other domain": {
			substitute: func(d *evalinput.Draft, o evalinput.Draft) { d.Request = o.Request },
			wantErr:    fault.ErrMixedDomain, wantPath: "request.assessment",
		},
		"host authority of the other domain": {
			substitute: func(d *evalinput.Draft, o evalinput.Draft) { d.Host = o.Host },
			wantErr:    fault.ErrMixedDomain, wantPath: "host",
		},
		"security context attested in the other domain": {
			substitute: func(d *evalinput.Draft, o evalinput.Draft) { d.SecurityContext = o.SecurityContext },
			wantErr:    fault.ErrMixedDomain, wantPath: "securityContext",
		},
		"intent captured in the other domain": {
			substitute: func(d *evalinput.Draft, o evalinput.Draft) { d.Intent = o.Intent },
			wantErr:    fault.ErrMixedDomain, wantPath: "intent",
		},
		"delegation attested in the other domain": {
			substitute: func(d *evalinput.Draft, o evalinput.Draft) { d.Delegation = o.Delegation },
			wantErr:    fault.ErrMixedDomain, wantPath: "delegation",
		},
		"provenance attested in the other domain": {
			substitute: func(d *evalinput.Draft, o evalinput.Draft) { d.Provenance = o.Provenance },
			wantErr:    fault.ErrMixedDomain, wantPath: "provenance",
		},
		"influence collected in the other domain": {
			substitute: func(d *evalinput.Draft, o evalinput.Draft) { d.Influence = o.Influence },
			wantErr:    fault.ErrMixedDomain, wantPath: "influence",
		},
		"this domain's pieces presented with the other domain's boundary": {
			substitute: func(*evalinput.Draft, evalinput.Draft) {},
			retained:   func(_, other boundary.Boundary) boundary.Boundary { return other },
			wantErr:    fault.ErrMixedDomain, wantPath: "request.assessment",
		},
		"this domain's pieces presented with a recreated boundary of the same description": {
			substitute: func(*evalinput.Draft, evalinput.Draft) {},
			retained:   func(boundary.Boundary, boundary.Boundary) boundary.Boundary { return boundary.New("payments-host") },
			wantErr:    fault.ErrMixedDomain, wantPath: "request.assessment",
		},
		"no retained boundary": {
			substitute: func(*evalinput.Draft, evalinput.Draft) {},
			retained:   func(boundary.Boundary, boundary.Boundary) boundary.Boundary { return boundary.Boundary{} },
			wantErr:    fault.ErrMissing, wantPath: "domain",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			own := buildIn(t, boundary.New("payments-host"), delegated)
			other := buildIn(t, boundary.New("payments-host"), delegated)
			d := own.Draft
			tc.substitute(&d, other.Draft)
			b := own.Boundary
			if tc.retained != nil {
				b = tc.retained(own.Boundary, other.Boundary)
			}
			in, err := evalinput.New(b, d)
			checkReject(t, in, err, tc.wantErr, tc.wantPath)
		})
	}
}

// TestNewRejectsMissingPieces removes one required piece at a time
// (Section 17: "Unknown, absent ... required evidence MUST reject"; P-002:
// no Intent, no input).
func TestNewRejectsMissingPieces(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		mutate   func(d *evalinput.Draft)
		wantErr  error
		wantPath string
	}{
		"no canonical request": {mutate: func(d *evalinput.Draft) { d.Request = nil }, wantErr: fault.ErrMissing, wantPath: "request"},
		"no host authority":    {mutate: func(d *evalinput.Draft) { d.Host = nil }, wantErr: fault.ErrMissing, wantPath: "host"},
		"no security context":  {mutate: func(d *evalinput.Draft) { d.SecurityContext = nil }, wantErr: fault.ErrMissing, wantPath: "securityContext"},
		"no intent (P-002)":    {mutate: func(d *evalinput.Draft) { d.Intent = nil }, wantErr: fault.ErrMissing, wantPath: "intent"},
		"no provenance":        {mutate: func(d *evalinput.Draft) { d.Provenance = nil }, wantErr: fault.ErrMissing, wantPath: "provenance"},
		"no influence":         {mutate: func(d *evalinput.Draft) { d.Influence = nil }, wantErr: fault.ErrMissing, wantPath: "influence"},
		"no delegation although the identity names one": {
			mutate: func(d *evalinput.Draft) { d.Delegation = nil }, wantErr: fault.ErrMissing, wantPath: "delegation",
		},
		"no requested capabilities (nil)": {
			mutate: func(d *evalinput.Draft) { d.RequestedCapabilities = nil }, wantErr: fault.ErrMissing, wantPath: "requestedCapabilities",
		},
		"no requested capabilities (empty)": {
			mutate:  func(d *evalinput.Draft) { d.RequestedCapabilities = []string{} },
			wantErr: fault.ErrMissing, wantPath: "requestedCapabilities",
		},
		"no expected renewal generation": {
			mutate: func(d *evalinput.Draft) { d.ExpectedRenewal = ident.Generation{} }, wantErr: fault.ErrMissing, wantPath: "expectedRenewal",
		},
		// epoch.Time has no unset state: the zero value is epoch second 0,
		// which lies before every window. It is never read as "now".
		"zero evaluation time is epoch 0, not now": {
			mutate: func(d *evalinput.Draft) { d.EvaluationTime = at(t, 0) }, wantErr: fault.ErrExpired, wantPath: "securityContext.validity",
		},
		"every piece missing reports the first": {
			mutate: func(d *evalinput.Draft) { *d = evalinput.Draft{} }, wantErr: fault.ErrMissing, wantPath: "request",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := build(t, delegated)
			d := f.Draft
			tc.mutate(&d)
			in, err := evalinput.New(f.Boundary, d)
			checkReject(t, in, err, tc.wantErr, tc.wantPath)
		})
	}
}
