package server

import (
	"errors"

	"github.com/toolgate/toolgate/internal/artifact"
)

// artifactCode is the stable code of an envelope that does not open:
// revokedKey for one signed by a revoked key (the executor should ask for a
// new Authorization, not retry), artifact for every other reason.
func artifactCode(err error) string {
	if errors.Is(err, artifact.ErrRevokedKey) {
		return "revokedKey"
	}
	return "artifact"
}
