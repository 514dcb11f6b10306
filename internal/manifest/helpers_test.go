package manifest_test

import (
	"errors"
	"strings"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/manifest"
)

// newHostAuthority converts spec and creates the engine Host Authority in
// the domain of b, as host.New does with a Config: engine rejections are
// located at the spec field they came from (the engine's "id" is
// spec.authorityID). Only tests hold a Boundary outside the Host.
func newHostAuthority(b boundary.Boundary, spec v1alpha1.HostAuthoritySpec) (*authority.HostAuthority, error) {
	d, err := manifest.HostAuthorityDraft(spec)
	if err != nil {
		return nil, err
	}
	h, err := authority.NewHostAuthority(b, d)
	if err != nil {
		var fe *fault.Error
		if errors.As(err, &fe) && (fe.Path == "id" || strings.HasPrefix(fe.Path, "id.")) {
			c := *fe
			c.Path = "authorityID" + strings.TrimPrefix(fe.Path, "id")
			err = &c
		}
		return nil, fault.Within("spec", err)
	}
	return h, nil
}
