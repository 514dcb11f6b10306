package publication

import (
	"fmt"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/manifest"
)

// Result is the outcome of one PolicySnapshot object of a chain.
type Result struct {
	Object *v1alpha1.PolicySnapshot
	// Snapshot is the published generation, nil when Err is set.
	Snapshot *policy.Snapshot
	// Err holds every violation of the object, at its object paths.
	Err error
}

// Chain publishes objects in h on behalf of publisher in generation order,
// each as the exact successor of the generation before it, and returns one
// Result per object in that order. Nothing stops at the first problem: a
// generation whose predecessor was rejected is rejected too (h does not
// hold the predecessor: spec.snapshotGeneration notFound), so every invalid
// object of the chain is reported.
func Chain(h *host.Host, publisher host.Caller, objects []*v1alpha1.PolicySnapshot) []Result {
	ordered := InGenerationOrder(objects)
	out := make([]Result, len(ordered))
	for i, o := range ordered {
		s, err := Policy(h, publisher, o)
		out[i] = Result{Object: o, Snapshot: s, Err: err}
	}
	return out
}

// Into publishes into h, the Host of the HostAuthority namespace/name,
// every ToolRegistry of its namespace and then the chains of every
// PolicySnapshot that references it, as publisher. It rejects with the
// first object that failed, named by kind, namespace and name (the
// standalone service, decide and test refuse a manifest set with any
// invalid object; validate reports each through Chain).
func Into(set *manifest.Set, h *host.Host, namespace, name string, publisher host.Caller) error {
	for _, o := range set.ToolRegistries {
		if o.Namespace != namespace {
			continue
		}
		d, _, err := ToolRegistry(&o)
		if err == nil {
			_, err = h.PublishRegistry(d)
		}
		if err != nil {
			return fmt.Errorf("ToolRegistry %s/%s: %w", o.Namespace, o.Name, err)
		}
	}
	var refs []*v1alpha1.PolicySnapshot
	for i := range set.PolicySnapshots {
		if o := &set.PolicySnapshots[i]; o.Namespace == namespace && string(o.Spec.HostAuthorityRef.Name) == name {
			refs = append(refs, o)
		}
	}
	for _, r := range Chain(h, publisher, refs) {
		if r.Err != nil {
			return fmt.Errorf("PolicySnapshot %s/%s: %w", r.Object.Namespace, r.Object.Name, r.Err)
		}
	}
	return nil
}

// Admission is everything the validating webhook reads for one
// PolicySnapshot create: the object, the admission user, the referenced
// HostAuthority and the PolicySnapshots of the namespace (from which the
// candidate's earlier generations are taken).
type Admission struct {
	Candidate *v1alpha1.PolicySnapshot
	Publisher host.Caller
	// Authority is the HostAuthority spec.hostAuthorityRef names in the
	// candidate's namespace; nil when it does not exist.
	Authority *v1alpha1.HostAuthority
	// Earlier holds PolicySnapshots of the namespace, any order: those of
	// other chains and of generations not before the candidate's are
	// ignored. A nil Earlier with a candidate of generation n > 1 rejects:
	// generation n−1 is missing.
	Earlier []v1alpha1.PolicySnapshot
	// EarlierUnreadable says the caller could not read the earlier
	// generations: a successor then rejects (fail closed).
	EarlierUnreadable bool
	// Registries holds ToolRegistries of the namespace, read when the
	// candidate opts in to argument predicates (NeedsRegistries): the
	// scratch domain holds those that publish, so an opt-in naming one
	// resolves and its predicates are checked against its Schemas. One
	// that is absent or invalid is not held, and an opt-in naming it
	// rejects (notFound).
	Registries []v1alpha1.ToolRegistry
}

// NeedsRegistries reports whether a policy of o opts in to argument
// predicates, whose publication reads the ToolRegistries of the namespace.
func NeedsRegistries(o *v1alpha1.PolicySnapshot) bool {
	for _, p := range o.Spec.Policies {
		if p.Arguments != nil {
			return true
		}
	}
	return false
}

// Admit decides one PolicySnapshot create, purely, as the webhook's one
// validation call: the candidate must convert, its HostAuthority must exist
// and build a domain, the publisher must hold policyAdministrationAuthority
// there (else the result is only the publisher's rejection, see
// NotAdministrator), and the candidate must publish in a scratch domain of
// that HostAuthority after its earlier generations 1..n−1, each of which
// must exist and publish. Every violation is returned at once, at its object
// path; the candidate's own violations are reported even when the domain
// cannot be built.
func Admit(a Admission) (*policy.Snapshot, error) {
	var errs fault.Errors
	_, err := Draft(a.Candidate)
	errs.Add("", err)
	const ref = "spec.hostAuthorityRef.name"
	if a.Authority == nil {
		errs.Add("", fault.At(ref, fault.NotFound, "the referenced HostAuthority does not exist in this namespace"))
		return nil, errs.Err()
	}
	cfg, err := manifest.HostConfig(a.Authority)
	var h *host.Host
	if err == nil {
		h, err = host.New(cfg)
	}
	if err != nil {
		errs.Add("", fault.At(ref, fault.Ineligible, "the referenced HostAuthority is not valid"))
		return nil, errs.Err()
	}
	if !h.HasRole(a.Publisher, vocab.PolicyAdministrationAuthority) {
		return nil, fault.At("publisher", fault.Unauthorized, "the admission user does not hold policyAdministrationAuthority in the referenced HostAuthority")
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	for i := range a.Registries {
		r := &a.Registries[i]
		if r.Namespace != a.Candidate.Namespace || manifest.CheckConfirmed(r) != nil {
			continue
		}
		if d, err := manifest.RegistryDraft(r.Spec); err == nil {
			_, _ = h.PublishRegistry(d) // an invalid or conflicting one is simply not held
		}
	}
	if err := earlier(h, a); err != nil {
		return nil, err
	}
	return Policy(h, a.Publisher, a.Candidate)
}

// earlier publishes generations 1..n−1 of the candidate's chain into the
// scratch domain h. A missing or invalid earlier generation is one
// violation of the candidate, at spec.snapshotGeneration: the earlier
// object's own violations are its own (reported when it was admitted).
func earlier(h *host.Host, a Admission) error {
	n := generation(a.Candidate)
	if n <= 1 {
		return nil // generation 1, or a generation Policy rejects
	}
	const at = "spec.snapshotGeneration"
	if a.EarlierUnreadable {
		return fault.At(at, fault.NotFound, "the earlier generations of this policy snapshot could not be read")
	}
	byGen := map[uint64]*v1alpha1.PolicySnapshot{}
	for i := range a.Earlier {
		if p := &a.Earlier[i]; SameChain(p, a.Candidate) {
			if g := generation(p); g > 0 && g < n {
				byGen[g] = p
			}
		}
	}
	for g := uint64(1); g < n; g++ {
		p, ok := byGen[g]
		if !ok {
			return fault.At(at, fault.NotFound, "every earlier generation of this policy snapshot must exist; a successor is the exact next generation")
		}
		if _, err := Policy(h, a.Publisher, p); err != nil {
			return fault.At(at, fault.Ineligible, "an earlier generation of this policy snapshot does not publish in this HostAuthority")
		}
	}
	return nil
}
