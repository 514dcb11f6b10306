// Host mode's configuration: the reviewed terms under which the gateway
// authorizes on an unmodified MCP client's behalf (docs/mcp.md, "Host
// mode").

package mcpgate

import (
	"fmt"
	"regexp"
	"slices"
)

// Host mode defaults and bounds.
const (
	// DefaultHostLifetimeSeconds is the Authorization lifetime the gateway
	// asks for unless host.maxLifetimeSeconds says otherwise: it consumes
	// the Authorization within the same call, so a short one suffices.
	DefaultHostLifetimeSeconds = 30
	// DefaultContextLifetimeSeconds bounds the Security Context of a
	// client whose credential has no expiry (a token file).
	DefaultContextLifetimeSeconds = 300
	// hostClockSkewSeconds backdates the evidence the gateway attests, so
	// a service whose clock trails the gateway's by up to this much does
	// not see it as issued in its future.
	hostClockSkewSeconds = 30
)

// HostConfig, present, puts the gateway in Host mode: it authorizes each
// tools/call itself, as the Host of what it can attest (the client's
// verified identity, the call it received, its clock), then consumes and
// forwards it. Absent, the gateway consumes the Authorization an agent
// runtime attached under params._meta.
type HostConfig struct {
	// Registry and Policy are what every Authorization selects: exact
	// generations, or client.Current ("current") for the service to
	// resolve at each call (docs/api.md, "Current generations").
	Registry HostRegistry `json:"registry"`
	Policy   HostPolicy   `json:"policy"`
	// Identity maps the verified client to a protocol subject and tenant.
	Identity IdentityMapping `json:"identity"`
	// Tools are the capabilities each mapped tool's calls request; every
	// mapped tool needs one entry.
	Tools []HostTool `json:"tools"`
	// MaxLifetimeSeconds is the lifetime asked for (default 30).
	MaxLifetimeSeconds uint64 `json:"maxLifetimeSeconds,omitempty"`
	// ContextLifetimeSeconds bounds a Security Context whose credential
	// has no expiry (default 300).
	ContextLifetimeSeconds uint64 `json:"contextLifetimeSeconds,omitempty"`
}

// HostRegistry selects one Registry Snapshot exactly.
type HostRegistry struct {
	SnapshotID string `json:"snapshotID"`
	Generation string `json:"generation"`
}

// HostPolicy selects one Policy Snapshot and one Policy in it exactly.
type HostPolicy struct {
	SnapshotID         string `json:"snapshotID"`
	SnapshotGeneration string `json:"snapshotGeneration"`
	PolicyID           string `json:"policyID"`
	PolicyGeneration   string `json:"policyGeneration"`
}

// IdentityMapping is the reviewed mapping from a verified client (issuer,
// subject, groups) to the protocol's subject and tenant.
type IdentityMapping struct {
	// Subjects, when not empty, is the complete table: a client whose
	// issuer and subject are not in it is refused. Empty, the verified
	// subject is the protocol subject, if it meets the identity grammar.
	Subjects []SubjectMapping `json:"subjects,omitempty"`
	// Tenant is the one tenant of every client; or TenantGroupPrefix: the
	// tenant is the rest of the client's one group with this prefix.
	Tenant            string `json:"tenant,omitempty"`
	TenantGroupPrefix string `json:"tenantGroupPrefix,omitempty"`
}

// SubjectMapping maps one verified (issuer, subject) to a protocol subject.
type SubjectMapping struct {
	Issuer  string `json:"issuer"`
	Subject string `json:"subject"`
	As      string `json:"as"`
}

// HostTool is what a mapped tool's calls request.
type HostTool struct {
	Name string `json:"name"`
	// Capabilities are requested for every call, and are the standing
	// Intent's ceiling (docs/mcp.md, "Host mode").
	Capabilities []string `json:"capabilities"`
}

// controlledRe is the protocol's lower-token(64) grammar of subjects,
// tenants and sessions (Section 49); the service is the final judge, the
// gateway only refuses early what it would refuse.
var controlledRe = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$`)

func (h *HostConfig) lifetime() uint64 {
	if h.MaxLifetimeSeconds == 0 {
		return DefaultHostLifetimeSeconds
	}
	return h.MaxLifetimeSeconds
}

func (h *HostConfig) contextLifetime() uint64 {
	if h.ContextLifetimeSeconds == 0 {
		return DefaultContextLifetimeSeconds
	}
	return h.ContextLifetimeSeconds
}

// tool returns the entry of the mapped tool name.
func (h *HostConfig) tool(name string) (HostTool, bool) {
	i := slices.IndexFunc(h.Tools, func(t HostTool) bool { return t.Name == name })
	if i < 0 {
		return HostTool{}, false
	}
	return h.Tools[i], true
}

// checkHost reports every invalid field of the host block of c.
func (c *Config) checkHost() []error {
	h := c.Host
	if h == nil {
		return nil
	}
	var errs []error
	bad := func(path, reason string) { errs = append(errs, &ConfigError{Path: "host." + path, Reason: reason}) }
	if c.ClientAuth == nil {
		errs = append(errs, &ConfigError{Path: "clientAuth", Reason: "is required in Host mode: the gateway attests the verified client's identity"})
	}
	if h.Registry.SnapshotID == "" || h.Registry.Generation == "" {
		bad("registry", "must name the Registry Snapshot (snapshotID and generation)")
	}
	if h.Policy.SnapshotID == "" || h.Policy.SnapshotGeneration == "" || h.Policy.PolicyID == "" || h.Policy.PolicyGeneration == "" {
		bad("policy", "must name the Policy Snapshot and Policy (snapshotID, snapshotGeneration, policyID, policyGeneration)")
	}
	m := h.Identity
	switch {
	case m.Tenant != "" && m.TenantGroupPrefix != "":
		bad("identity", "names tenant and tenantGroupPrefix; exactly one")
	case m.Tenant == "" && m.TenantGroupPrefix == "":
		bad("identity", "must name tenant or tenantGroupPrefix")
	case m.Tenant != "" && !controlledRe.MatchString(m.Tenant):
		bad("identity.tenant", "must be a protocol identity (a–z, 0–9, interior -, at most 64)")
	}
	seen := map[[2]string]bool{}
	for i, s := range m.Subjects {
		p := fmt.Sprintf("identity.subjects[%d]", i)
		if s.Issuer == "" || s.Subject == "" {
			bad(p, "must name the verified issuer and subject")
		}
		if !controlledRe.MatchString(s.As) {
			bad(p+".as", "must be a protocol identity (a–z, 0–9, interior -, at most 64)")
		}
		if k := [2]string{s.Issuer, s.Subject}; seen[k] {
			bad(p, "maps an issuer and subject an earlier entry maps")
		} else {
			seen[k] = true
		}
	}
	if h.MaxLifetimeSeconds > 3600 {
		bad("maxLifetimeSeconds", "must lie in 0..3600 (0: the default, 30)")
	}
	if h.ContextLifetimeSeconds > 86400 {
		bad("contextLifetimeSeconds", "must lie in 0..86400 (0: the default, 300)")
	}
	named := map[string]bool{}
	for i, t := range h.Tools {
		p := fmt.Sprintf("tools[%d]", i)
		if named[t.Name] {
			bad(p+".name", "names a tool an earlier entry names")
		}
		named[t.Name] = true
		if !slices.ContainsFunc(c.Tools, func(m ToolMapping) bool { return m.Name == t.Name }) {
			bad(p+".name", "must be a mapped tool (tools[].name)")
		}
		if len(t.Capabilities) == 0 {
			bad(p+".capabilities", "must name at least one capability")
		}
	}
	for i, t := range c.Tools {
		if !named[t.Name] {
			errs = append(errs, &ConfigError{Path: fmt.Sprintf("tools[%d].name", i), Reason: "has no host.tools entry: Host mode must know what its calls request"})
		}
	}
	return errs
}
