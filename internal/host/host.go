package host

import (
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/toolgate/toolgate/internal/argprofile"
	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/authz"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Subject kinds, as in Kubernetes RBAC.
const (
	KindServiceAccount = "ServiceAccount"
	KindUser           = "User"
	KindGroup          = "Group"
)

// Subject names one authenticated identity, as an RBAC subject does.
type Subject struct {
	Kind      string // ServiceAccount, User or Group
	Name      string
	Namespace string // ServiceAccount only; Config.Namespace when empty
}

// Caller is an authenticated caller as the service's authenticator reports
// it: a user name (system:serviceaccount:<namespace>:<name> for a
// ServiceAccount, as Kubernetes TokenReview reports it) and its groups.
type Caller struct {
	Name   string
	Groups []string
}

// RoleBinding grants one protocol role to subjects.
type RoleBinding struct {
	Role     string // one of the six Section 48 roles
	Subjects []Subject
}

// Config is the complete description of one Host authority domain: the
// content of one HostAuthority object.
type Config struct {
	// Description is non-authoritative diagnostics (for example
	// namespace/name and UID of the HostAuthority object).
	Description string
	// Instance identifies this incarnation of the domain's configuration —
	// the HostAuthority object's UID in a cluster. It is bound into every
	// portable issuance record, so that a recreated HostAuthority with
	// identical content never rebuilds the old one's Authorizations.
	Instance string
	// Namespace is the namespace of a ServiceAccount subject that names
	// none.
	Namespace string

	// AuthorityID, Capabilities and Resources are the Host Authority
	// ceiling (Section 14): a controlled identity, 1–8 Capabilities and 0–16
	// Resources, any order.
	AuthorityID  string
	Capabilities []string
	Resources    []string
	// Roles binds each declared role to the subjects that hold it; a role
	// is declared in the domain exactly when it has a binding.
	Roles []RoleBinding
	// Executors are the subjects that may validate (and, in the service,
	// consume) this domain's Authorizations.
	Executors []Subject
	// MaxLifetime bounds every Authorization of the domain, 1–3,600
	// seconds (Section 26).
	MaxLifetime uint64
	// Limits are the Host limits; the zero value means DefaultLimits.
	Limits Limits
	// Confirmations opts the domain in to the toolgate.confirmations/1
	// extension (docs/confirmation.md); nil is exactly Phase 1–6.
	Confirmations *ConfirmationConfig
}

// Host is one Host authority domain: the sole owner of its Boundary and
// Role Authorities, and the registry of the exact snapshots it serves.
type Host struct {
	boundary  boundary.Boundary
	instance  string
	authority *authority.HostAuthority
	roles     map[vocab.Role]*authority.RoleAuthority
	bindings  map[vocab.Role][]Subject
	executors []Subject
	namespace string
	maxLife   uint64
	limits    Limits

	confirm *confirmations // nil unless the domain opted in

	mu         sync.RWMutex
	registries map[snapshotKey]*registry.Snapshot
	policies   map[snapshotKey]*policy.Snapshot
	// profiles are the argument profiles of the held registries'
	// definitions, by docRef (docs/arguments.md, "Binding").
	profiles map[string]*argprofile.Profile
	// shadows are the held policy generations published as shadows
	// (shadow.go): held, never the highest a Current selection finds.
	shadows map[snapshotKey]bool
}

type snapshotKey struct{ id, generation string }

// New creates a fresh Host authority domain from cfg, or rejects it with
// every problem located at its Config path. Two Hosts created from equal
// Configs are distinct domains: nothing one issues validates in the other.
func New(cfg Config) (*Host, error) {
	var errs fault.Errors
	limits, err := cfg.Limits.orDefault()
	errs.Add("limits", err)
	if cfg.MaxLifetime == 0 || cfg.MaxLifetime > authz.MaxLifetime {
		errs.Add("", fault.At("maxLifetime", fault.OutOfRange, "the maximum authorization lifetime is 1–3600 seconds"))
	}
	h := &Host{
		boundary:   boundary.New(cfg.Description),
		instance:   cfg.Instance,
		roles:      map[vocab.Role]*authority.RoleAuthority{},
		bindings:   map[vocab.Role][]Subject{},
		namespace:  cfg.Namespace,
		maxLife:    cfg.MaxLifetime,
		limits:     limits,
		registries: map[snapshotKey]*registry.Snapshot{},
		policies:   map[snapshotKey]*policy.Snapshot{},
		profiles:   map[string]*argprofile.Profile{},
	}
	declared := make([]string, 0, len(cfg.Roles))
	for i, rb := range cfg.Roles {
		p := "roles" + fault.Index(i)
		if len(rb.Subjects) == 0 {
			errs.Add("", fault.At(p+".subjects", fault.Missing, "a role binding names at least one subject"))
		}
		errs.Add(p+".subjects", checkSubjects(rb.Subjects))
		role, err := vocab.ParseRole(rb.Role)
		if err != nil {
			errs.Add(p+".role", err)
			continue
		}
		if _, dup := h.bindings[role]; dup {
			errs.Add("", fault.At(p+".role", fault.Duplicate, "each role is bound once; list all its subjects in one binding"))
			continue
		}
		h.bindings[role] = slices.Clone(rb.Subjects)
		declared = append(declared, rb.Role)
	}
	errs.Add("executors", checkSubjects(cfg.Executors))
	h.confirm, err = newConfirmations(h.boundary, cfg.Confirmations)
	errs.Add("confirmations", err)
	h.executors = slices.Clone(cfg.Executors)
	h.authority, err = authority.NewHostAuthority(h.boundary, authority.HostAuthorityDraft{
		ID: cfg.AuthorityID, Capabilities: cfg.Capabilities, Resources: cfg.Resources, Roles: declared,
	})
	for _, e := range fault.All(err) {
		errs.Add("", renameAuthorityFault(e))
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	for role := range h.bindings {
		ra, err := authority.Grant(h.boundary, h.authority, role, issuerID(role))
		if err != nil {
			return nil, err // unreachable: every role is declared and issuerID is a controlled identity
		}
		h.roles[role] = ra
	}
	return h, nil
}

// renameAuthorityFault locates a Host Authority rejection at the Config
// field it came from ("id" is AuthorityID, "roles" the bindings).
func renameAuthorityFault(err error) error {
	var fe *fault.Error
	if errors.As(err, &fe) && (fe.Path == "id" || strings.HasPrefix(fe.Path, "id.")) {
		c := *fe
		c.Path = "authorityID" + strings.TrimPrefix(fe.Path, "id")
		return &c
	}
	return err
}

// issuerID is the controlled identity of the Host's Role Authority for
// role: one issuer per role, so that no issuer identity ever holds two
// roles in one composition (Section 14, duplicate conflicting role
// issuers). authenticationAuthority becomes authentication-authority.
func issuerID(role vocab.Role) string {
	var b strings.Builder
	for _, c := range role.String() {
		if 'A' <= c && c <= 'Z' {
			b.WriteByte('-')
			c += 'a' - 'A'
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Domain returns the identity of the Host's domain, for comparison with the
// Domain of any artifact.
func (h *Host) Domain() boundary.Domain { return h.boundary.Domain() }

// Authority returns the Host Authority ceiling (public content).
func (h *Host) Authority() *authority.HostAuthority { return h.authority }

// MaxLifetime returns the domain's maximum Authorization lifetime in
// seconds.
func (h *Host) MaxLifetime() uint64 { return h.maxLife }

// Limits returns the Host limits in force.
func (h *Host) Limits() Limits { return h.limits }

// HasRole reports whether c holds role in this domain.
func (h *Host) HasRole(c Caller, role vocab.Role) bool {
	return slices.ContainsFunc(h.bindings[role], func(s Subject) bool { return s.matches(c, h.namespace) })
}

// IsExecutor reports whether c may validate and consume this domain's
// Authorizations.
func (h *Host) IsExecutor(c Caller) bool {
	return slices.ContainsFunc(h.executors, func(s Subject) bool { return s.matches(c, h.namespace) })
}

// role returns the Host's Role Authority for role when c holds it.
func (h *Host) role(c Caller, role vocab.Role, path string) (*authority.RoleAuthority, error) {
	ra, ok := h.roles[role]
	if !ok {
		return nil, fault.At(path, fault.Unauthorized, "this host authority does not declare the role this fact requires")
	}
	if !h.HasRole(c, role) {
		return nil, fault.At(path, fault.Unauthorized, "the caller does not hold the role this fact requires")
	}
	return ra, nil
}

func (s Subject) matches(c Caller, defaultNamespace string) bool {
	switch s.Kind {
	case KindServiceAccount:
		ns := s.Namespace
		if ns == "" {
			ns = defaultNamespace
		}
		// c.Name == "system:serviceaccount:"+ns+":"+s.Name, piece by
		// piece: no concatenation per check.
		rest, ok := strings.CutPrefix(c.Name, "system:serviceaccount:")
		if ok {
			rest, ok = strings.CutPrefix(rest, ns)
		}
		if ok {
			rest, ok = strings.CutPrefix(rest, ":")
		}
		return ok && rest == s.Name
	case KindUser:
		return c.Name == s.Name
	case KindGroup:
		return slices.Contains(c.Groups, s.Name)
	default:
		return false
	}
}

func checkSubjects(subjects []Subject) error {
	for i, s := range subjects {
		p := fault.Index(i)
		switch s.Kind {
		case KindServiceAccount, KindUser, KindGroup:
		default:
			return fault.At(p+".kind", fault.UnknownToken, "a subject kind is one of: ServiceAccount, User, Group")
		}
		if s.Name == "" {
			return fault.At(p+".name", fault.Missing, "a subject names a ServiceAccount, User or Group")
		}
		if s.Namespace != "" && s.Kind != KindServiceAccount {
			return fault.At(p+".namespace", fault.Unsupported, "only a ServiceAccount subject has a namespace")
		}
		if slices.Contains(subjects[:i], s) {
			return fault.At(p, fault.Duplicate, "subjects in one list are unique")
		}
	}
	return nil
}

// PublishRegistry publishes one Registry Snapshot generation into the
// domain. Publishing the same content again returns the snapshot already
// held; different content under a held identity and generation rejects
// (fault.Mismatch): a generation is immutable. The argument profiles of
// its definitions are checked against them (CheckProfileBinding) and held
// with it.
func (h *Host) PublishRegistry(d RegistryDraft) (*registry.Snapshot, error) {
	s, profiles, err := publishDraft(d)
	if err != nil {
		return nil, err
	}
	k := snapshotKey{s.ID().String(), s.Generation().String()}
	h.mu.Lock()
	defer h.mu.Unlock()
	s, err = hold(h.registries, k, s, "this registry snapshot generation is already published with other content")
	if err != nil {
		return nil, err
	}
	// A docRef is the profile's digest reference, so equal snapshot
	// content means equal profiles: keeping the first is exact.
	for ref, p := range profiles {
		if _, ok := h.profiles[ref]; !ok {
			h.profiles[ref] = p
		}
	}
	return s, nil
}

// PublishPolicy publishes one Policy Snapshot generation on behalf of
// publisher, who must hold policyAdministrationAuthority (fault.Unauthorized
// at "publisher"). Generation 1 is an initial publication; generation n+1
// must be the exact successor of generation n, which must already be held
// (fault.NotFound at "generation" otherwise). Republishing identical content
// returns the snapshot already held.
func (h *Host) PublishPolicy(publisher Caller, d policy.SnapshotDraft) (*policy.Snapshot, error) {
	admin, err := h.role(publisher, vocab.PolicyAdministrationAuthority, "publisher")
	if err != nil {
		return nil, err
	}
	gen, err := ident.ParseGeneration(d.Generation)
	if err != nil {
		return nil, fault.Within("generation", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var s *policy.Snapshot
	regs := heldRegistries{h} // h.mu is held: read the map directly
	if p, ok := gen.Previous(); !ok {
		s, err = policy.PublishWith(admin, d, regs)
	} else {
		prev, ok := h.policies[snapshotKey{d.ID, p.String()}]
		if !ok {
			return nil, fault.At("generation", fault.NotFound, "the previous generation of this policy snapshot must be published first")
		}
		s, err = policy.PublishSuccessorWith(admin, prev, d, regs)
	}
	if err != nil {
		return nil, err
	}
	k := snapshotKey{s.ID().String(), s.Generation().String()}
	return hold(h.policies, k, s, "this policy snapshot generation is already published with other content")
}

// heldRegistries resolves a policy definition's argument-predicate opt-in
// to a Registry Snapshot held in the domain; its caller holds h.mu.
type heldRegistries struct{ h *Host }

func (r heldRegistries) Registry(id, generation string) (*registry.Snapshot, error) {
	if s, ok := r.h.registries[snapshotKey{id, generation}]; ok {
		return s, nil
	}
	return nil, fault.New(fault.NotFound, "no registry snapshot with exactly this identity and generation is published in this domain")
}

// hold keeps the published snapshot s under k in held, or returns the one
// already held there when its content is equal; other content under the
// same identity and generation is fault.Mismatch at "generation"
// (conflict). The caller holds h.mu.
func hold[S interface{ Equal(S) bool }](held map[snapshotKey]S, k snapshotKey, s S, conflict string) (S, error) {
	if prev, ok := held[k]; ok {
		if !prev.Equal(s) {
			var none S
			return none, fault.At("generation", fault.Mismatch, conflict)
		}
		return prev, nil
	}
	held[k] = s
	return s, nil
}

// Registry returns the held Registry Snapshot with exactly this identity
// and generation (fault.NotFound otherwise). There is no "latest".
func (h *Host) Registry(id, generation string) (*registry.Snapshot, error) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if s, ok := h.registries[snapshotKey{id, generation}]; ok {
		return s, nil
	}
	return nil, fault.New(fault.NotFound, "no registry snapshot with exactly this identity and generation is published in this domain")
}

// Policy returns the held Policy Snapshot with exactly this identity and
// generation (fault.NotFound otherwise). There is no "latest".
func (h *Host) Policy(id, generation string) (*policy.Snapshot, error) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if s, ok := h.policies[snapshotKey{id, generation}]; ok {
		return s, nil
	}
	return nil, fault.New(fault.NotFound, "no policy snapshot with exactly this identity and generation is published in this domain")
}
