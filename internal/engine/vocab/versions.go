package vocab

import "github.com/toolgate/toolgate/internal/engine/fault"

// Version is a closed protocol representation version. Every versioned
// protocol value of Phase 1–6 (Schema, canonicalization, Intent, Security
// Context, Evaluation Input, Policy Decision, Authorization) accepts exactly
// version 1; zero and every other version are unsupported.
type Version uint16

// V1 is the only accepted version.
const V1 Version = 1

// IsValid reports whether v is the accepted version.
func (v Version) IsValid() bool { return v == V1 }

// String returns "v1" for the accepted version.
func (v Version) String() string {
	if v == V1 {
		return "v1"
	}
	return "unsupported version"
}

// ParseVersion parses the exact token "v1".
func ParseVersion(s string) (Version, error) {
	if s == "v1" {
		return V1, nil
	}
	return 0, fault.New(fault.Unsupported, "version must be v1")
}

// CheckVersion rejects every version other than V1.
func CheckVersion(v Version) error {
	if v != V1 {
		return fault.New(fault.Unsupported, "version must be v1")
	}
	return nil
}
