package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/evidence"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/lineage"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/manifest"
)

// decideRequest is one authorization request file: the shape the authorize
// API will carry, plus the HostAuthority it is decided in.
type decideRequest struct {
	HostAuthority struct {
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
	} `json:"hostAuthority"`
	Caller struct {
		Name   string   `json:"name"`
		Groups []string `json:"groups,omitempty"`
	} `json:"caller"`
	Time     uint64 `json:"time"`
	Proposal struct {
		ProposalID string          `json:"proposalID"`
		ToolID     string          `json:"toolID"`
		Version    string          `json:"version"`
		Arguments  json.RawMessage `json:"arguments"`
	} `json:"proposal"`
	Registry              host.RegistrySelection `json:"registry"`
	Policy                host.PolicySelection   `json:"policy"`
	DecisionID            string                 `json:"decisionID"`
	Facts                 wireFacts              `json:"facts"`
	RequestedCapabilities []string               `json:"requestedCapabilities"`
	RequestedResources    []string               `json:"requestedResources"`
	AuthorizationID       string                 `json:"authorizationID"`
	ReplayID              string                 `json:"replayID"`
	ConsumptionID         string                 `json:"consumptionID"`
	MaxLifetime           uint64                 `json:"maxLifetimeSeconds"`
}

type wireWindow struct {
	IssuedAt  uint64 `json:"issuedAt"`
	NotBefore uint64 `json:"notBefore"`
	ExpiresAt uint64 `json:"expiresAt"`
}

type wireIdentity struct {
	Subject            string `json:"subject"`
	Tenant             string `json:"tenant,omitempty"`
	Session            string `json:"session,omitempty"`
	SessionIndependent bool   `json:"sessionIndependent,omitempty"`
	Delegation         string `json:"delegation,omitempty"`
}

type wireFacts struct {
	Assessment struct {
		AssessmentID  string   `json:"assessmentID"`
		ProvenanceIDs []string `json:"provenanceIDs,omitempty"`
		InfluenceIDs  []string `json:"influenceIDs,omitempty"`
	} `json:"assessment"`
	SecurityContext struct {
		ID        string       `json:"id"`
		Identity  wireIdentity `json:"identity"`
		Assurance string       `json:"assurance"`
		Methods   []string     `json:"methods,omitempty"`
		Validity  wireWindow   `json:"validity"`
	} `json:"securityContext"`
	Intent struct {
		ID                string       `json:"id"`
		Identity          wireIdentity `json:"identity"`
		Target            string       `json:"target"`
		Capabilities      []string     `json:"capabilities"`
		Resources         []string     `json:"resources,omitempty"`
		RenewalGeneration string       `json:"renewalGeneration"`
		Display           string       `json:"display,omitempty"`
		Validity          wireWindow   `json:"validity"`
		// Binding is the agent-safe.intent/1 binding document the user
		// approved; its digest is bound into the Intent.
		Binding json.RawMessage `json:"binding,omitempty"`
	} `json:"intent"`
	Delegation *struct {
		ID       string     `json:"id"`
		Subject  string     `json:"subject"`
		Validity wireWindow `json:"validity"`
	} `json:"delegation,omitempty"`
	Provenance *struct {
		Records []struct {
			ID              string   `json:"id"`
			Source          string   `json:"source"`
			Custody         string   `json:"custody"`
			Transformations []string `json:"transformations,omitempty"`
			Verification    string   `json:"verification"`
		} `json:"records"`
		Validity wireWindow `json:"validity"`
	} `json:"provenance,omitempty"`
	Influence *struct {
		Collections []struct {
			Boundary     string `json:"boundary"`
			Completeness string `json:"completeness"`
			Evidence     string `json:"evidence,omitempty"`
		} `json:"collections"`
		Nodes []struct {
			ID       string   `json:"id"`
			Kind     string   `json:"kind"`
			Boundary string   `json:"boundary"`
			Parents  []string `json:"parents,omitempty"`
		} `json:"nodes"`
		Validity wireWindow `json:"validity"`
	} `json:"influence,omitempty"`
}

// decide acts as the Host of one HostAuthority on the shipped manifests:
// it publishes the registry and policy generations, runs Authorize on one
// request file and prints the complete Decision and, on an eligible allow,
// the Authorization. --explain adds every rule's and predicate's result.
func decide(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("decide", flag.ContinueOnError)
	manifests := fs.String("manifests", "", "file or directory of HostAuthority, ToolRegistry and PolicySnapshot manifests")
	reqFile := fs.String("request", "", "authorization request file (YAML or JSON)")
	explain := fs.Bool("explain", false, "show every rule's and predicate's result")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *manifests == "" || *reqFile == "" || len(rest) != 0 {
		return usageError{"decide needs --manifests PATH and --request FILE"}
	}
	set, err := manifest.LoadPaths(*manifests)
	if err != nil {
		return err
	}
	raw, err := os.ReadFile(*reqFile)
	if err != nil {
		return err
	}
	wr, err := parseDecideRequest(raw)
	if err != nil {
		return fmt.Errorf("request: %w", err)
	}
	ns, name := wr.HostAuthority.Namespace, wr.HostAuthority.Name
	obj, ok := set.HostAuthority(ns, name)
	if !ok {
		return errors.New("request: hostAuthority names no HostAuthority in the manifests")
	}
	cfg, err := manifest.HostConfig(obj)
	if err != nil {
		return fmt.Errorf("HostAuthority %s/%s: %w", ns, name, err)
	}
	h, err := host.New(cfg)
	if err != nil {
		return fmt.Errorf("HostAuthority %s/%s: %w", ns, name, fault.Within("spec", err))
	}
	admin, _ := manifest.AdministratorOf(obj)
	if err := set.PublishInto(h, ns, name, admin); err != nil {
		return err
	}
	r := wr.authorizeRequest()
	res, err := h.Authorize(r)
	if err != nil {
		return fmt.Errorf("rejected: %w", err)
	}
	printDecision(out, res)
	if *explain {
		rules, err := h.Explain(r)
		if err != nil {
			return err
		}
		fmt.Fprintln(out, "rules:")
		for _, rr := range rules {
			fmt.Fprintf(out, "  %-28s %-20s %-13s %s\n", rr.Rule, rr.Effect, rr.Result, rr.Reason)
			for _, p := range rr.Predicates {
				fmt.Fprintf(out, "      %-13s %s\n", p.Result, p)
			}
		}
	}
	return nil
}

// parseDecideRequest reads a YAML or JSON request strictly: duplicate keys
// and unknown fields reject, and no rejected value is echoed.
func parseDecideRequest(raw []byte) (decideRequest, error) {
	var r decideRequest
	j, err := yaml.YAMLToJSONStrict(raw)
	if err != nil {
		return r, errors.New("not valid YAML or JSON, or a key appears twice")
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		var ue *json.UnmarshalTypeError
		switch {
		case errors.As(err, &ue):
			return r, fmt.Errorf("%s: wrong type", ue.Field)
		case strings.HasPrefix(err.Error(), "json: unknown field"):
			return r, errors.New("unknown field (see docs/decide.md for the request shape)")
		default:
			return r, errors.New("malformed request")
		}
	}
	return r, nil
}

func (w wireIdentity) draft() principal.Draft {
	return principal.Draft{Subject: w.Subject, Tenant: w.Tenant, Session: w.Session,
		SessionIndependent: w.SessionIndependent, Delegation: w.Delegation}
}

func (w wireWindow) window() host.Window {
	return host.Window{IssuedAt: w.IssuedAt, NotBefore: w.NotBefore, ExpiresAt: w.ExpiresAt}
}

func (wr decideRequest) authorizeRequest() host.AuthorizeRequest {
	f := wr.Facts
	r := host.AuthorizeRequest{
		Caller: host.Caller{Name: wr.Caller.Name, Groups: wr.Caller.Groups},
		Time:   wr.Time,
		Proposal: request.Proposal{
			ProposalID: wr.Proposal.ProposalID, ToolID: wr.Proposal.ToolID, Version: wr.Proposal.Version,
			Arguments: wr.Proposal.Arguments,
		},
		Registry: wr.Registry, Policy: wr.Policy, DecisionID: wr.DecisionID,
		RequestedCapabilities: wr.RequestedCapabilities, RequestedResources: wr.RequestedResources,
		AuthorizationID: wr.AuthorizationID, ReplayID: wr.ReplayID, ConsumptionID: wr.ConsumptionID,
		MaxLifetime: wr.MaxLifetime,
		Facts: host.Facts{
			Assessment: assessment.Draft{
				ProposalID: wr.Proposal.ProposalID, AssessmentID: f.Assessment.AssessmentID,
				ProvenanceIDs: f.Assessment.ProvenanceIDs, InfluenceIDs: f.Assessment.InfluenceIDs,
			},
			SecurityContext: evidence.SecurityContextDraft{
				ID: f.SecurityContext.ID, Identity: f.SecurityContext.Identity.draft(),
				Assurance: f.SecurityContext.Assurance, Methods: f.SecurityContext.Methods,
			},
			ContextValidity: f.SecurityContext.Validity.window(),
			Intent: evidence.IntentDraft{
				ID: f.Intent.ID, Identity: f.Intent.Identity.draft(), Capabilities: f.Intent.Capabilities,
				Resources: f.Intent.Resources, RenewalGeneration: f.Intent.RenewalGeneration, Display: f.Intent.Display,
			},
			IntentTarget:   f.Intent.Target,
			IntentBinding:  f.Intent.Binding,
			IntentValidity: f.Intent.Validity.window(),
		},
	}
	if d := f.Delegation; d != nil {
		r.Facts.Delegation = &evidence.DelegationDraft{ID: d.ID, Subject: d.Subject}
		r.Facts.DelegationValidity = d.Validity.window()
	}
	if p := f.Provenance; p != nil {
		for _, x := range p.Records {
			r.Facts.ProvenanceRecords = append(r.Facts.ProvenanceRecords, lineage.RecordDraft{
				ID: x.ID, Source: x.Source, Custody: x.Custody, Transformations: x.Transformations, Verification: x.Verification,
			})
		}
		r.Facts.ProvenanceValidity = p.Validity.window()
	}
	if in := f.Influence; in != nil {
		for _, c := range in.Collections {
			r.Facts.InfluenceCollections = append(r.Facts.InfluenceCollections, lineage.CollectionDraft{
				Boundary: c.Boundary, Completeness: c.Completeness, Evidence: c.Evidence,
			})
		}
		for _, n := range in.Nodes {
			r.Facts.InfluenceNodes = append(r.Facts.InfluenceNodes, lineage.NodeDraft{
				ID: n.ID, Kind: n.Kind, Boundary: n.Boundary, Parents: n.Parents,
			})
		}
		r.Facts.InfluenceValidity = in.Validity.window()
	}
	return r
}

func printDecision(out io.Writer, res *host.Result) {
	d := res.Decision
	fmt.Fprintf(out, "decision %s: %s\n", d.ID(), d.Outcome())
	fmt.Fprintf(out, "  reasons:       %v\n", d.Reasons())
	fmt.Fprintf(out, "  matched rules: %v\n", d.MatchedRules())
	fmt.Fprintf(out, "  scope:         capabilities %v, resources %v\n", d.Capabilities(), d.Resources())
	for _, o := range d.Obligations() {
		fmt.Fprintf(out, "  obligation:    %s\n", obligationText(o))
	}
	switch {
	case res.Authorization != nil:
		a := res.Authorization
		fmt.Fprintf(out, "authorization %s: single use, valid [%d, %d), consumption %s\n",
			a.ID(), a.IssuedAt().Seconds(), a.ExpiresAt().Seconds(), a.ConsumptionID())
		fmt.Fprintf(out, "  binding digest: %s\n", a.Binding().Digest())
		if d, ok := a.Input().Intent().Binding(); ok {
			fmt.Fprintf(out, "  intent binding: %s\n", d)
		}
		fmt.Fprintf(out, "  portable record: %d octets (%s)\n", len(res.Portable), host.PortableVersion)
	case res.Ineligible != nil:
		fmt.Fprintf(out, "no authorization: %v\n", res.Ineligible)
	default:
		fmt.Fprintln(out, "no authorization: only an allow is eligible")
	}
}

func obligationText(o policy.Obligation) string {
	switch {
	case o.Seconds() != 0:
		return fmt.Sprintf("%s %d s", o.Kind(), o.Seconds())
	case !o.Boundary().IsZero():
		return fmt.Sprintf("%s %s", o.Kind(), o.Boundary())
	default:
		return o.Kind().String()
	}
}
