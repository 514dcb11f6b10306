package manifest

import (
	"k8s.io/apimachinery/pkg/util/validation"

	"slices"
	"strconv"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Bounds of the Kubernetes-side HostAuthority fields the engine does not
// see.
const (
	// MaxAuthorizationLifetimeSeconds is the Section 26 upper bound of an
	// Authorization lifetime.
	MaxAuthorizationLifetimeSeconds = 3600
	maxSubjectName                  = 253 // a Kubernetes object or RBAC subject name
)

// HostAuthorityDraft converts a HostAuthority spec into the engine's draft.
// The declared roles are exactly the roles that have a binding; a role bound
// twice rejects. The Kubernetes-only parts the engine never sees (subjects,
// executors, the lifetime bound) are checked here; every value of the draft
// is validated by authority.NewHostAuthority.
func HostAuthorityDraft(spec v1alpha1.HostAuthoritySpec) (authority.HostAuthorityDraft, error) {
	d := authority.HostAuthorityDraft{
		ID:           string(spec.AuthorityID),
		Capabilities: strs(spec.Capabilities),
		Resources:    strs(spec.Resources),
		Roles:        make([]string, 0, len(spec.Roles)),
	}
	for i, rb := range spec.Roles {
		p := "spec.roles" + fault.Index(i)
		if _, err := vocab.ParseRole(string(rb.Role)); err != nil {
			return authority.HostAuthorityDraft{}, fault.Within(p+".role", err)
		}
		if slices.Contains(d.Roles, string(rb.Role)) {
			return authority.HostAuthorityDraft{}, fault.At(p+".role", fault.Duplicate, "each role is bound once; list all its subjects in one binding")
		}
		if len(rb.Subjects) == 0 {
			return authority.HostAuthorityDraft{}, fault.At(p+".subjects", fault.Missing, "a role binding names at least one subject")
		}
		if err := checkSubjects(rb.Subjects, p+".subjects"); err != nil {
			return authority.HostAuthorityDraft{}, err
		}
		d.Roles = append(d.Roles, string(rb.Role))
	}
	if err := checkSubjects(spec.Executors, "spec.executors"); err != nil {
		return authority.HostAuthorityDraft{}, err
	}
	if _, err := AuthorizationLifetime(spec); err != nil {
		return authority.HostAuthorityDraft{}, err
	}
	return d, nil
}

// AuthorizationLifetime parses spec.maxAuthorizationLifetimeSeconds:
// canonical decimal text (digits only, no leading zero, sign or space) of
// 1–3,600 seconds (Sections 26 and 39).
func AuthorizationLifetime(spec v1alpha1.HostAuthoritySpec) (uint64, error) {
	const path = "spec.maxAuthorizationLifetimeSeconds"
	s := string(spec.MaxAuthorizationLifetimeSeconds)
	if s == "" {
		return 0, fault.At(path, fault.Missing, "the maximum authorization lifetime is required")
	}
	if !isCanonicalDecimal(s) {
		return 0, fault.At(path, fault.Malformed, "the maximum authorization lifetime is canonical decimal text, e.g. \"300\"")
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n < 1 || n > MaxAuthorizationLifetimeSeconds {
		return 0, fault.At(path, fault.OutOfRange, "the maximum authorization lifetime is 1–3,600 seconds")
	}
	return n, nil
}

// isCanonicalDecimal reports whether s is digits only without a leading
// zero ("0" itself is canonical).
func isCanonicalDecimal(s string) bool {
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// checkSubjects validates a list of RBAC-style subjects: a closed kind, a
// bounded name without whitespace or control characters, a namespace only
// on a ServiceAccount, and no subject listed twice.
func checkSubjects(subjects []v1alpha1.Subject, path string) error {
	for i, s := range subjects {
		p := path + fault.Index(i)
		switch s.Kind {
		case v1alpha1.SubjectKindServiceAccount, v1alpha1.SubjectKindUser, v1alpha1.SubjectKindGroup:
		default:
			return fault.At(p+".kind", fault.UnknownToken, "a subject kind is one of: ServiceAccount, User, Group")
		}
		if err := checkName(s.Name); err != nil {
			return fault.Within(p+".name", err)
		}
		if s.Namespace != "" {
			if s.Kind != v1alpha1.SubjectKindServiceAccount {
				return fault.At(p+".namespace", fault.Unsupported, "only a ServiceAccount subject has a namespace")
			}
			if !isDNSLabel(s.Namespace) {
				return fault.At(p+".namespace", fault.Malformed, "a namespace is a DNS-1123 label of 1–63 octets")
			}
		}
		for j := range i {
			if subjects[j] == s {
				return fault.At(p, fault.Duplicate, "subjects in one list are unique")
			}
		}
	}
	return nil
}

func checkName(n string) error {
	switch {
	case n == "":
		return fault.New(fault.Missing, "a subject names a ServiceAccount, User or Group")
	case len(n) > maxSubjectName:
		return fault.New(fault.LimitExceeded, "a subject name has at most 253 octets")
	}
	for i := 0; i < len(n); i++ {
		if n[i] <= 0x20 || n[i] >= 0x7f {
			return fault.New(fault.Malformed, "a subject name is printable ASCII without spaces")
		}
	}
	return nil
}

// isDNSLabel reports whether s is a valid Kubernetes namespace name.
func isDNSLabel(s string) bool { return len(validation.IsDNS1123Label(s)) == 0 }
