package publication

import (
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/manifest"
)

// One admission function per kind: HostAuthority and ToolRegistry here,
// PolicySnapshot in Policy and Admit. The webhook, the controllers, the
// CLI's validate, the standalone loader and the importer call these and
// add nothing, so a rule added here applies on every path and `toolgate
// validate -f` agrees with the webhook by construction.

// AdmittedHostAuthority is a HostAuthority that passed every rule: the Host
// configuration its spec converts to (host.New accepts it) and its
// superseded grace. It holds no Host: a domain, and the Boundary in it, is
// the caller's own (host.New(Config), with the instance of its key set
// where it serves).
type AdmittedHostAuthority struct {
	Config host.Config
	Grace  manifest.Grace
}

// HostAuthority admits one HostAuthority: its metadata.name is its
// spec.authorityID (the CRD's CEL rule), its spec converts into a Host
// configuration from which a scratch domain builds, and its
// spec.supersededGrace is well formed. Every violation is returned at once,
// at its object path. The caller builds the domain it serves from
// Config (setting the instance its key set names).
func HostAuthority(o *v1alpha1.HostAuthority) (AdmittedHostAuthority, error) {
	var errs fault.Errors
	errs.Add("", manifest.CheckHostAuthorityName(o))
	cfg, err := manifest.HostConfig(o)
	if err == nil {
		_, err = host.New(cfg) // a scratch domain: the Host's own rules
		err = fault.Within("spec", err)
	}
	errs.Add("", err)
	grace, err := manifest.GraceOf("spec.supersededGrace", o.Spec.SupersededGrace)
	errs.Add("", err)
	if o.Rollout != nil && o.Rollout.SupersededGrace != nil {
		// The mutable setting, when present, is the grace in force.
		grace, err = manifest.GraceOf("rollout.supersededGrace", o.Rollout.SupersededGrace)
		errs.Add("", err)
	}
	if err := errs.Err(); err != nil {
		return AdmittedHostAuthority{}, err
	}
	return AdmittedHostAuthority{Config: cfg, Grace: grace}, nil
}

// HostAuthorityUpdate admits an update of a HostAuthority by the admission
// user by: the updated object admits (HostAuthority), and a changed
// rollout is made by a user that holds policyAdministrationAuthority in
// the domain — widening the grace lets superseded policy generations keep
// issuing, a change of policy as much as publishing one (fault.Unauthorized
// at "publisher"; see NotAdministrator). The spec's immutability and the
// publisher annotations are the caller's (the webhook's) to check.
func HostAuthorityUpdate(old, o *v1alpha1.HostAuthority, by host.Caller) error {
	a, err := HostAuthority(o)
	if err != nil {
		return err
	}
	if equality.Semantic.DeepEqual(old.Rollout, o.Rollout) {
		return nil
	}
	h, err := host.New(a.Config) // a scratch domain, for its role bindings
	if err != nil {
		return err
	}
	if !h.HasRole(by, vocab.PolicyAdministrationAuthority) {
		return fault.At("publisher", fault.Unauthorized, "the admission user does not hold policyAdministrationAuthority in this HostAuthority")
	}
	return nil
}

// ToolRegistry admits one ToolRegistry: its metadata.name is
// <spec.snapshotID>-<spec.snapshotGeneration> (the CRD's CEL rule), it is
// not an unconfirmed import draft (docs/mcp.md, "Import and review"), and
// its spec converts and publishes as a Registry Snapshot with the engine's
// complete rules (Section 9). It returns the draft, which a domain
// publishes (host.Host.PublishRegistry), and the snapshot published outside
// any domain; or every violation at once, at its object path.
func ToolRegistry(o *v1alpha1.ToolRegistry) (host.RegistryDraft, *host.RegistrySnapshot, error) {
	var errs fault.Errors
	errs.Add("", manifest.CheckRegistryName(o))
	errs.Add("", manifest.CheckConfirmed(o))
	d, err := manifest.RegistryDraft(o.Spec)
	var s *host.RegistrySnapshot
	if err == nil {
		s, err = host.PublishRegistryDraft(d)
	}
	errs.Add("", manifest.SpecFault(err))
	if err := errs.Err(); err != nil {
		return host.RegistryDraft{}, nil, err
	}
	return d, s, nil
}
