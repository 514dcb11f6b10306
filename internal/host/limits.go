package host

import (
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/request"
)

// Limits are the Host's own bounds on untrusted input, in addition to the
// protocol limits of Section 39 that the engine enforces everywhere. Every
// limit a user can meet is listed in docs/limits.md.
type Limits struct {
	// MaxArgumentBytes bounds the raw argument JSON text of a Proposal
	// before it is decoded. The protocol bounds the canonical form (65,536
	// octets); raw JSON may carry insignificant whitespace, so the raw bound
	// is larger, but finite. 0 means DefaultMaxArgumentBytes.
	MaxArgumentBytes int
}

// Bounds of Limits.MaxArgumentBytes: the default, and the largest value a
// Host may configure (beyond it one request could hold a replica's memory).
const (
	DefaultMaxArgumentBytes = request.MaxArgumentBytes
	MaxMaxArgumentBytes     = 16 << 20
)

// DefaultLimits returns the limits a Host uses when none are configured.
func DefaultLimits() Limits { return Limits{MaxArgumentBytes: DefaultMaxArgumentBytes} }

func (l Limits) orDefault() (Limits, error) {
	switch {
	case l.MaxArgumentBytes == 0:
		l.MaxArgumentBytes = DefaultMaxArgumentBytes
	case l.MaxArgumentBytes < 0 || l.MaxArgumentBytes > MaxMaxArgumentBytes:
		return Limits{}, fault.At("maxArgumentBytes", fault.OutOfRange, "the raw argument bound is 1 octet to 16 MiB")
	}
	return l, nil
}
