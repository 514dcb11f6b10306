package store

import (
	"time"

	"github.com/toolgate/toolgate/internal/consume"
)

// KeyRetireAfter is how long a rotated-out signing key keeps verifying in a
// domain whose longest Authorization lifetime is maxLifetime seconds: every
// artifact it signed expires within maxLifetime of the rotation, and a
// replica whose clock runs up to consume.MaxClockSkew behind still takes it
// for unexpired until then. The one definition for the cluster and
// standalone (docs/decisions.md, "Key management").
func KeyRetireAfter(maxLifetime uint64) time.Duration {
	return time.Duration(maxLifetime)*time.Second + consume.MaxClockSkew
}
