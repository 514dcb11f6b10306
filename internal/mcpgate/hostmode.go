// Host mode: the gateway authorizes a tools/call on the authenticated
// client's behalf, then consumes and forwards it in the same step
// (docs/mcp.md, "Host mode"). It supplies only the Host evidence it can
// attest: the Security Context of the verified client, the Proposal
// Assessment of the call it received, and the standing tool-bounded Intent
// of its reviewed mapping. It never supplies Provenance or Influence.

package mcpgate

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/mcpgate/clientauth"
)

// Host mode's refusal codes beside the service's and the _meta mode's
// (docs/mcp.md, "Host mode").
const (
	// RefusalUnauthenticated: no verified client identity reached the
	// call (the gateway runs without clientAuth: a configuration error).
	RefusalUnauthenticated = "unauthenticated"
	// RefusalIdentityUnmapped: the verified client has no protocol
	// subject or tenant under the reviewed mapping.
	RefusalIdentityUnmapped = "identityUnmapped"
	// RefusalUnexpectedAuthorization: a Host-mode call carried an
	// Authorization under params._meta; the gateway authorizes itself.
	RefusalUnexpectedAuthorization = "unexpectedAuthorization"
	// RefusalDeny and RefusalRequireConfirmation: the Decision's outcome.
	RefusalDeny                = "deny"
	RefusalRequireConfirmation = "requireConfirmation"
	// RefusalIneligible: an allow Decision issuance did not accept.
	RefusalIneligible = "ineligible"
)

// hostAssurance is the only assurance the gateway can attest: it verified
// a token, not how its subject signed in to the token's issuer.
const hostAssurance = "unknown"

// hostCall is a tools/call in Host mode. sessionID is the MCP session's
// (empty under 2026-07-28, which has none).
func (g *Gateway) hostCall(ctx context.Context, mt *mappedTool, p *mcp.CallToolParamsRaw, sessionID string) *mcp.CallToolResult {
	if !(*g.live.Load())[mt.Name] {
		return g.refuse(ctx, mt.Name, Refusal{Code: "definitionChanged", Path: "params.name",
			Message: "the upstream's definition of this tool differs from the reviewed one; it is withheld until a review"})
	}
	args := []byte(p.Arguments)
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("{}")
	}
	if len(args) > g.cfg.MaxArgs() {
		return g.refuse(ctx, mt.Name, Refusal{Code: "limitExceeded", Path: "params.arguments",
			Message: fmt.Sprintf("arguments exceed %d bytes", g.cfg.MaxArgs())})
	}
	if _, ok := p.Meta[MetaKey]; ok {
		// Nothing the client attaches is evidence here; taking it would
		// let a client choose what it is authorized under.
		return g.refuse(ctx, mt.Name, Refusal{Code: RefusalUnexpectedAuthorization, Path: "params._meta." + MetaKey,
			Message: "this gateway authorizes calls itself (Host mode); send the call without an Authorization"})
	}
	id, ok := clientauth.IdentityFrom(ctx)
	if !ok {
		return g.refuse(ctx, mt.Name, Refusal{Code: RefusalUnauthenticated, Message: "no verified client identity reached the call"})
	}
	h := g.cfg.Host
	subject, tenant, ok := h.Identity.resolve(id)
	if !ok {
		return g.refuse(ctx, mt.Name, Refusal{Code: RefusalIdentityUnmapped, Path: "client",
			Message: "the verified client has no protocol subject or tenant under the gateway's reviewed mapping"})
	}
	ht, _ := h.tool(mt.Name) // the configuration maps every tool
	now := time.Now()
	ids, err := freshIdentities()
	if err != nil {
		return g.refuse(ctx, mt.Name, Refusal{Code: "unavailable", Message: "no identities could be generated; nothing was authorized"})
	}
	window, ok := h.window(now, id.Expiry)
	if !ok {
		return g.refuse(ctx, mt.Name, Refusal{Code: "expired", Path: "client", Message: "the client's credential has expired"})
	}
	identity := client.Identity{Subject: subject, Tenant: tenant, Session: hostSession(sessionID, id)}
	caps := slices.Clone(ht.Capabilities)
	req := client.AuthorizeRequest{
		HostAuthority: client.HostAuthorityRef{Namespace: g.cfg.HostAuthority.Namespace, Name: g.cfg.HostAuthority.Name},
		Proposal:      client.Proposal{ProposalID: ids.proposal, ToolID: mt.ToolID, Version: mt.Version, Arguments: json.RawMessage(args)},
		Registry:      client.RegistrySelection{SnapshotID: h.Registry.SnapshotID, Generation: h.Registry.Generation},
		Policy: client.PolicySelection{SnapshotID: h.Policy.SnapshotID, SnapshotGeneration: h.Policy.SnapshotGeneration,
			PolicyID: h.Policy.PolicyID, PolicyGeneration: h.Policy.PolicyGeneration},
		DecisionID: ids.decision,
		Facts: client.Facts{
			Assessment: client.Assessment{AssessmentID: ids.assessment},
			SecurityContext: client.SecurityContext{ID: ids.context, Identity: identity,
				Assurance: hostAssurance, Validity: window},
			// The standing Intent of the reviewed mapping: bounded to
			// the tool, its ceiling the configured capabilities. It is
			// not the user's intent for this call, and no policy may
			// read it as such (docs/mcp.md, "Host mode").
			Intent: client.Intent{ID: ids.intent, Identity: identity, Target: "tool", Capabilities: caps,
				RenewalGeneration: "1", Validity: window},
		},
		RequestedCapabilities: caps,
		RequestedResources:    []string{},
		AuthorizationID:       ids.authorization, ReplayID: ids.replay, ConsumptionID: ids.consumption,
		MaxLifetimeSeconds: h.lifetime(),
	}
	api := g.api.Load()
	// As the consume, the authorize is not interrupted by a client's
	// cancellation: the call stops before forwarding instead.
	ar, err := api.Authorize(context.WithoutCancel(ctx), req)
	if err != nil {
		return g.refuse(ctx, mt.Name, serviceRefusal(err, "authorize"))
	}
	if o := ar.Decision.Outcome; o != "allow" {
		code := RefusalDeny
		if o == "requireConfirmation" {
			code = RefusalRequireConfirmation
		}
		// Reasons and rule identities are the policy's tokens, never a
		// value of the call.
		return g.refuse(ctx, mt.Name, Refusal{Code: code, Path: "decision",
			Message: "the policy decided " + o + " (" + strings.Join(ar.Decision.Reasons, ", ") + ")"})
	}
	if ctx.Err() != nil {
		// Cancelled while authorizing: nothing is consumed, so the
		// Authorization simply expires unused.
		return g.refuse(ctx, mt.Name, Refusal{Code: "cancelled",
			Message: "the client cancelled the call before it was consumed; nothing was forwarded"})
	}
	if ar.Authorization == nil {
		return g.refuse(ctx, mt.Name, Refusal{Code: RefusalIneligible, Path: "decision",
			Message: "the policy allowed the call but no Authorization was issued (" + strings.Join(ar.Decision.Reasons, ", ") + ")"})
	}
	exp := client.Expectations{
		AuthorizationID: ids.authorization, ReplayID: ids.replay, ConsumptionID: ids.consumption,
		ProposalID: ids.proposal, ToolID: mt.ToolID, Version: mt.Version,
		Arguments: json.RawMessage(args), Identity: identity,
		Capabilities: nonNil(ar.Decision.Capabilities), Resources: nonNil(ar.Decision.Resources),
	}
	res, err := api.Consume(context.WithoutCancel(ctx), client.ValidateRequest{Artifact: ar.Authorization.Artifact, Expectations: exp})
	if err != nil {
		return g.refuse(ctx, mt.Name, serviceRefusal(err, "consume"))
	}
	return g.execute(ctx, mt, p, args, Record{Time: time.Now().UTC(), Event: "consumed", Tool: mt.Name, ToolID: mt.ToolID, Version: mt.Version,
		AuthorizationID: ids.authorization, ConsumptionID: ids.consumption, Binding: res.Binding})
}

// serviceRefusal is the refusal of a failed authorize or consume: the
// service's code at its path under the verb, or unavailable.
func serviceRefusal(err error, verb string) Refusal {
	var ae *client.APIError
	switch {
	case errors.As(err, &ae):
		path := verb
		if ae.Err.Path != "" {
			path += "(" + ae.Err.Path + ")"
		}
		return Refusal{Code: ae.Err.Code, Path: path, Message: "the toolgate service refused the call's " + verb}
	default:
		return Refusal{Code: "unavailable", Path: verb, Message: "the toolgate service did not answer; nothing was forwarded"}
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// resolve maps the verified client to its protocol subject and tenant.
func (m IdentityMapping) resolve(id clientauth.Identity) (subject, tenant string, ok bool) {
	if len(m.Subjects) > 0 {
		i := slices.IndexFunc(m.Subjects, func(s SubjectMapping) bool { return s.Issuer == id.Issuer && s.Subject == id.Subject })
		if i < 0 {
			return "", "", false
		}
		subject = m.Subjects[i].As
	} else {
		subject = id.Subject
	}
	if !controlledRe.MatchString(subject) {
		return "", "", false
	}
	tenant = m.Tenant
	if m.TenantGroupPrefix != "" {
		// Exactly one group names the tenant: two would be a guess.
		var found []string
		for _, g := range id.Groups {
			if t, ok := strings.CutPrefix(g, m.TenantGroupPrefix); ok {
				found = append(found, t)
			}
		}
		if len(found) != 1 {
			return "", "", false
		}
		tenant = found[0]
	}
	if !controlledRe.MatchString(tenant) {
		return "", "", false
	}
	return subject, tenant, true
}

// window is the validity of the evidence the gateway attests at now: from
// now (backdated by the clock skew it tolerates) until the credential's
// expiry, or for contextLifetime when it has none. ok is false for an
// expired credential.
func (h *HostConfig) window(now time.Time, expiry time.Time) (client.Window, bool) {
	t := uint64(now.Unix())
	end := t + h.contextLifetime()
	if !expiry.IsZero() {
		if !expiry.After(now) {
			return client.Window{}, false
		}
		if e := uint64(expiry.Unix()); e < end {
			end = e
		}
	}
	start := t - hostClockSkewSeconds
	if end <= t {
		// A credential expiring within this second: nothing to attest.
		return client.Window{}, false
	}
	return client.Window{IssuedAt: start, NotBefore: start, ExpiresAt: end}, true
}

// hostSession is the protocol session of a call: the MCP session's, or,
// without one (2026-07-28), the credential's (issuer, subject, expiry). A
// digest, so neither a session id nor a subject is repeated in it.
func hostSession(sessionID string, id clientauth.Identity) string {
	h := sha256.New()
	prefix := "mcp-"
	if sessionID != "" {
		h.Write([]byte("mcp-session\x00" + sessionID))
	} else {
		prefix = "cred-"
		fmt.Fprintf(h, "credential\x00%s\x00%s\x00%d", id.Issuer, id.Subject, id.Expiry.Unix())
	}
	return prefix + hex.EncodeToString(h.Sum(nil))[:32]
}

// hostIdentities are the fresh identities of one Host-mode call: the
// gateway generates them, so no client can name, reuse or replay one.
type hostIdentities struct {
	proposal, decision, assessment, context, intent, authorization, replay, consumption string
}

func freshIdentities() (hostIdentities, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return hostIdentities{}, err
	}
	n := hex.EncodeToString(b[:])
	return hostIdentities{
		proposal: "hp-" + n, decision: "hd-" + n, assessment: "ha-" + n, context: "hc-" + n,
		intent: "hi-" + n, authorization: "hz-" + n, replay: "hr-" + n, consumption: "hn-" + n,
	}, nil
}
