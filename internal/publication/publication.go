// Package publication is the one admission and publication path of
// toolgate's API objects: one function per kind decides whether an object
// is admitted, with every violation located at a field of the object.
//
//   - HostAuthority: the name rule, the Host configuration and a scratch
//     domain built from it, the superseded grace;
//   - ToolRegistry: the name rule, the unconfirmed-import refusal, the
//     engine's Registry Snapshot rules (Section 9);
//   - PolicySnapshot (Policy, Admit, Chain, Into): how a generation is
//     published in a HostAuthority's domain as the exact successor of the
//     generation before it; and, beside admission, the authoring check
//     (Undefined over InScope): rules naming what no registry in scope
//     defines, an error offline and a warning in the webhook.
//
// Every caller goes through this package — the validating webhook, the
// controllers, the CLI's validate, registry and policy validate, diff, test
// and decide, the standalone service's manifest loader and the MCP
// importer — so an object is accepted or rejected the same way everywhere,
// with the same violations at the same paths, and a rule added here applies
// on every path (TestOneAdmissionPathPerKind in internal/arch keeps the
// parts from being called elsewhere). The successor rules themselves (exact
// next generation, every prior policy version kept with identical rule
// content, one-way lifecycles) are the engine's (policy.PublishSuccessor,
// through host.Host.PublishPolicy).
//
// Nothing here reads a cluster, a file or a clock: callers read what they
// need (the object, its earlier generations, its HostAuthority) and make one
// call. Every rejection is a *fault.Error or a fault.Errors whose paths are
// object paths (spec.…, metadata.name) and whose rules are constant: no
// rejected value is ever echoed (Section 38).
package publication

import (
	"cmp"
	"slices"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/manifest"
)

// Draft converts the PolicySnapshot o into the engine's draft with the rules
// that need no domain: the CRD's object-name rule (which the apiserver
// enforces with CEL, and which makes two objects claiming one generation
// impossible) and the conversion of the spec. Every violation is returned,
// located at its object path.
func Draft(o *v1alpha1.PolicySnapshot) (policy.SnapshotDraft, error) {
	var errs fault.Errors
	errs.Add("", manifest.CheckPolicyName(o))
	errs.Add("", checkShadowShape(o))
	if sh := o.Spec.Shadow; sh != nil && !o.CreationTimestamp.IsZero() {
		// In a cluster the window opened at creation: every path that
		// reads the object checks it the same way, now or on a restart.
		errs.Add("", checkShadowWindow(sh.Until.Time, o.CreationTimestamp.Time))
	}
	d, err := manifest.PolicyDraft(o.Spec)
	errs.Add("", manifest.SpecFault(err))
	if err := errs.Err(); err != nil {
		return policy.SnapshotDraft{}, err
	}
	return d, nil
}

// Policy publishes the PolicySnapshot o in h on behalf of publisher:
// generation 1 as an initial publication, generation n > 1 as the exact
// successor of generation n−1, which h must already hold. It returns the
// published snapshot (the one h already holds for identical content), or
// every violation located at its object path; a publisher without
// policyAdministrationAuthority is fault.Unauthorized at "publisher"
// (see NotAdministrator).
func Policy(h *host.Host, publisher host.Caller, o *v1alpha1.PolicySnapshot) (*policy.Snapshot, error) {
	d, err := Draft(o)
	if err != nil {
		return nil, err
	}
	s, err := h.PublishPolicy(publisher, d)
	if err != nil {
		return nil, manifest.SpecFault(err)
	}
	if o.Spec.Shadow != nil {
		// Held, never the Host's current generation (docs/shadow.md).
		if err := h.MarkShadow(s.ID().String(), s.Generation().String()); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// NotAdministrator reports whether err rejects the publisher itself: the
// caller does not hold policyAdministrationAuthority in the domain. The
// webhook answers such a rejection with Forbidden, not Invalid.
func NotAdministrator(err error) bool {
	for _, e := range fault.All(err) {
		if e.Code == fault.Unauthorized && e.Path == "publisher" {
			return true
		}
	}
	return false
}

// InGenerationOrder returns objects ordered by snapshot generation, equal
// generations in their given order, so that each generation can publish as
// the successor of the one before it. A generation that does not parse
// sorts first and is then rejected by Draft.
func InGenerationOrder(objects []*v1alpha1.PolicySnapshot) []*v1alpha1.PolicySnapshot {
	out := slices.Clone(objects)
	slices.SortStableFunc(out, func(a, b *v1alpha1.PolicySnapshot) int { return cmp.Compare(generation(a), generation(b)) })
	return out
}

// generation is o's snapshot generation, 0 when it does not parse.
func generation(o *v1alpha1.PolicySnapshot) uint64 {
	g, err := ident.ParseGeneration(string(o.Spec.SnapshotGeneration))
	if err != nil {
		return 0
	}
	return g.Uint64()
}

// Previous returns the generation before o's as decimal text, and false for
// generation 1 or a generation that does not parse: the one generation o is
// the successor of.
func Previous(o *v1alpha1.PolicySnapshot) (string, bool) {
	g, err := ident.ParseGeneration(string(o.Spec.SnapshotGeneration))
	if err != nil {
		return "", false
	}
	p, ok := g.Previous()
	if !ok {
		return "", false
	}
	return p.String(), true
}

// SameChain reports whether a and b are generations of one chain: the same
// namespace, snapshot identity and HostAuthority.
func SameChain(a, b *v1alpha1.PolicySnapshot) bool {
	return a.Namespace == b.Namespace && a.Spec.SnapshotID == b.Spec.SnapshotID && a.Spec.HostAuthorityRef == b.Spec.HostAuthorityRef
}
