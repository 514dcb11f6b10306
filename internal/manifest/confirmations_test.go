package manifest_test

import (
	"testing"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestConfirmationsConversion: spec.confirmations opts a domain in to
// toolgate.confirmations/1; absent, the Host configuration has none, and
// each malformed field is located at its spec path without echoing input.
func TestConfirmationsConversion(t *testing.T) {
	t.Parallel()
	with := func(c *v1alpha1.Confirmations) *v1alpha1.HostAuthority {
		return &v1alpha1.HostAuthority{Spec: hostSpec(func(s *v1alpha1.HostAuthoritySpec) { s.Confirmations = c })}
	}
	valid := func() *v1alpha1.Confirmations {
		return &v1alpha1.Confirmations{
			Confirmers:             []v1alpha1.Subject{{Kind: "Group", Name: "payments-approvers"}},
			RequestLifetimeSeconds: "900", AnswerLifetimeSeconds: "300",
		}
	}
	cfg, err := manifest.HostConfig(with(nil))
	if err != nil || cfg.Confirmations != nil {
		t.Fatalf("absent: %v %+v", err, cfg.Confirmations)
	}
	cfg, err = manifest.HostConfig(with(valid()))
	if err != nil || cfg.Confirmations == nil || cfg.Confirmations.RequestLifetime != 900 ||
		cfg.Confirmations.AnswerLifetime != 300 || cfg.Confirmations.AllowSelfConfirmation ||
		len(cfg.Confirmations.Confirmers) != 1 || cfg.Confirmations.Confirmers[0].Name != "payments-approvers" {
		t.Fatalf("present: %v %+v", err, cfg.Confirmations)
	}
	for name, tc := range map[string]struct {
		mod  func(*v1alpha1.Confirmations)
		code error
		path string
	}{
		"no request lifetime":     {func(c *v1alpha1.Confirmations) { c.RequestLifetimeSeconds = "" }, fault.ErrMissing, "spec.confirmations.requestLifetimeSeconds"},
		"a leading zero":          {func(c *v1alpha1.Confirmations) { c.AnswerLifetimeSeconds = "0300" }, fault.ErrMalformed, "spec.confirmations.answerLifetimeSeconds"},
		"beyond an hour":          {func(c *v1alpha1.Confirmations) { c.RequestLifetimeSeconds = "3601" }, fault.ErrOutOfRange, "spec.confirmations.requestLifetimeSeconds"},
		"an unknown subject kind": {func(c *v1alpha1.Confirmations) { c.Confirmers[0].Kind = "Robot" }, fault.ErrUnknownToken, "spec.confirmations.confirmers[0].kind"},
	} {
		t.Run(name, func(t *testing.T) {
			c := valid()
			tc.mod(c)
			_, err := manifest.HostConfig(with(c))
			testutil.CheckFault(t, err, tc.code, tc.path)
		})
	}
}
