package manifest

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/host"
)

// HostConfig converts one HostAuthority object into the Host façade's
// configuration. Every value is validated by host.New.
func HostConfig(o *v1alpha1.HostAuthority) (host.Config, error) {
	if _, err := HostAuthorityDraft(o.Spec); err != nil {
		return host.Config{}, err
	}
	lifetime, err := AuthorizationLifetime(o.Spec)
	if err != nil {
		return host.Config{}, err
	}
	subjects := func(in []v1alpha1.Subject) []host.Subject {
		out := make([]host.Subject, 0, len(in))
		for _, s := range in {
			out = append(out, host.Subject{Kind: string(s.Kind), Name: s.Name, Namespace: s.Namespace})
		}
		return out
	}
	c := host.Config{
		Description:  o.Namespace + "/" + o.Name,
		Namespace:    o.Namespace,
		AuthorityID:  string(o.Spec.AuthorityID),
		Capabilities: strs(o.Spec.Capabilities),
		Resources:    strs(o.Spec.Resources),
		Executors:    subjects(o.Spec.Executors),
		MaxLifetime:  lifetime,
	}
	for _, rb := range o.Spec.Roles {
		c.Roles = append(c.Roles, host.RoleBinding{Role: string(rb.Role), Subjects: subjects(rb.Subjects)})
	}
	if cf := o.Spec.Confirmations; cf != nil {
		req, err := confirmationSeconds(cf.RequestLifetimeSeconds, "spec.confirmations.requestLifetimeSeconds")
		if err != nil {
			return host.Config{}, err
		}
		ans, err := confirmationSeconds(cf.AnswerLifetimeSeconds, "spec.confirmations.answerLifetimeSeconds")
		if err != nil {
			return host.Config{}, err
		}
		if err := checkSubjects(cf.Confirmers, "spec.confirmations.confirmers"); err != nil {
			return host.Config{}, err
		}
		c.Confirmations = &host.ConfirmationConfig{
			Confirmers: subjects(cf.Confirmers), RequestLifetime: req, AnswerLifetime: ans,
			AllowSelfConfirmation: cf.AllowSelfConfirmation,
		}
	}
	return c, nil
}

// confirmationSeconds parses a confirmation lifetime: canonical decimal
// text of 1–3,600 seconds.
func confirmationSeconds(v v1alpha1.Seconds, path string) (uint64, error) {
	s := string(v)
	if s == "" {
		return 0, fault.At(path, fault.Missing, "a confirmation lifetime is required")
	}
	if !isCanonicalDecimal(s) {
		return 0, fault.At(path, fault.Malformed, "a confirmation lifetime is canonical decimal text, e.g. \"600\"")
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n < 1 || n > MaxAuthorizationLifetimeSeconds {
		return 0, fault.At(path, fault.OutOfRange, "a confirmation lifetime is 1–3,600 seconds")
	}
	return n, nil
}

// HostAuthority returns the HostAuthority namespace/name of s.
func (s *Set) HostAuthority(namespace, name string) (*v1alpha1.HostAuthority, bool) {
	i := slices.IndexFunc(s.HostAuthorities, func(o v1alpha1.HostAuthority) bool { return o.Namespace == namespace && o.Name == name })
	if i < 0 {
		return nil, false
	}
	return &s.HostAuthorities[i], true
}

// AdministratorOf returns a caller that holds policyAdministrationAuthority
// in the HostAuthority: its first bound subject, as the authenticator would
// report it. The offline CLI publishes as this caller.
func AdministratorOf(o *v1alpha1.HostAuthority) (host.Caller, bool) {
	for _, rb := range o.Spec.Roles {
		if rb.Role != "policyAdministrationAuthority" || len(rb.Subjects) == 0 {
			continue
		}
		s := rb.Subjects[0]
		switch string(s.Kind) {
		case host.KindServiceAccount:
			ns := cmp.Or(s.Namespace, o.Namespace)
			return host.Caller{Name: "system:serviceaccount:" + ns + ":" + s.Name}, true
		case host.KindUser:
			return host.Caller{Name: s.Name}, true
		case host.KindGroup:
			return host.Caller{Name: "toolgate-cli", Groups: []string{s.Name}}, true
		}
	}
	return host.Caller{}, false
}
