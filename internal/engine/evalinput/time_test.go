package evalinput_test

import (
	"testing"

	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/evidence"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestNewChecksEveryValidityWindowAtEvaluationTime rechecks each window at
// the explicit evaluation time (Section 17 "Evaluation time": "Every
// applicable inclusive/exclusive validity boundary"; Section 15: windows
// are [notBefore, expiresAt)). One piece at a time gets the narrower window
// [1200, 1800) while every other piece keeps [1000, 2000), so each boundary
// is attributed to exactly that piece.
//
// The Security Context, Intent and Delegation windows are checked first
// against the evidence itself ("securityContext.validity", ...); Provenance
// and Influence carry theirs only on their attestations, located by
// attestation composition at "attestations[i].validity", i in composition
// input order: Security Context, Intent, Delegation, Provenance, Influence.
func TestNewChecksEveryValidityWindowAtEvaluationTime(t *testing.T) {
	t.Parallel()
	const from, until = 1_200, 1_800
	pieces := map[string]struct {
		path    string
		narrate func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft, v epoch.Validity)
	}{
		"security context": {"securityContext.validity", func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft, v epoch.Validity) {
			d.SecurityContext = context(t, f, v, nil)
		}},
		"intent": {"intent.validity", func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft, v epoch.Validity) {
			d.Intent = intent(t, f, evidence.ExactRequest(f.Request), v, nil)
		}},
		"delegation": {"delegation.validity", func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft, v epoch.Validity) {
			d.Delegation = delegation(t, f, v, *f.Spec.Delegation)
		}},
		"provenance attestation": {"attestations[3].validity", func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft, v epoch.Validity) {
			d.Provenance = provenance(t, f, v, f.Assessment, f.Identity)
		}},
		"influence attestation": {"attestations[4].validity", func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft, v epoch.Validity) {
			d.Influence = influence(t, f, v, f.Assessment, f.Identity)
		}},
	}
	type row struct {
		piece    string
		at       uint64
		wantErr  error
		wantPath string
	}
	tests := map[string]row{}
	for piece, p := range pieces {
		path := p.path
		tests[piece+" window, at notBefore (inclusive)"] = row{piece: piece, at: from}
		tests[piece+" window, one second before notBefore (future evidence)"] = row{piece, from - 1, fault.ErrExpired, path}
		tests[piece+" window, one second before expiresAt"] = row{piece: piece, at: until - 1}
		tests[piece+" window, at expiresAt (exclusive: stale)"] = row{piece, until, fault.ErrExpired, path}
	}
	tests["shared window, at notBefore"] = row{at: notBefore}
	tests["shared window, one second before notBefore"] = row{"", notBefore - 1, fault.ErrExpired, "securityContext.validity"}
	tests["shared window, one second before expiresAt"] = row{at: expiresAt - 1}
	tests["shared window, at expiresAt"] = row{"", expiresAt, fault.ErrExpired, "securityContext.validity"}
	tests["at the last explicit second, 2100-01-01"] = row{"", epoch.Max, fault.ErrExpired, "securityContext.validity"}

	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := build(t, delegated)
			d := f.Draft
			if tc.piece != "" {
				pieces[tc.piece].narrate(t, f, &d, window(t, from-100, from, until))
			}
			d.EvaluationTime = at(t, tc.at)
			in, err := evalinput.New(f.Boundary, d)
			checkReject(t, in, err, tc.wantErr, tc.wantPath)
			if err == nil && in.EvaluationTime() != d.EvaluationTime {
				t.Errorf("EvaluationTime = %v, want %v", in.EvaluationTime(), d.EvaluationTime)
			}
		})
	}
}
