package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/server"
)

// decideRequest is one authorization request file: the body of the
// authorize API, plus what the service would supply itself: the
// authenticated caller and the time.
type decideRequest struct {
	client.AuthorizeRequest
	Caller struct {
		Name   string   `json:"name"`
		Groups []string `json:"groups,omitempty"`
	} `json:"caller"`
	Time uint64 `json:"time"`
}

// decide acts as the Host of one HostAuthority on the shipped manifests:
// it publishes the registry and policy generations, runs Authorize on one
// request file and prints the complete Decision and, on an eligible allow,
// the Authorization. --explain adds every rule's and predicate's result.
// decideOptions are decide's flags.
type decideOptions struct {
	manifests, request string
	explain            bool
	out                *outputFlags
}

func decideFlags(fs *pflag.FlagSet) *decideOptions {
	var o decideOptions
	manifestsFlag(fs, &o.manifests)
	fs.StringVar(&o.request, "request", "", "authorization request `FILE` (YAML or JSON)")
	required(fs, "manifests", "request")
	fs.BoolVar(&o.explain, "explain", false, "show every rule's and predicate's result")
	o.out = addOutputFlags(fs, false)
	return &o
}

// manifestsFlag declares --manifests, the manifests a verb plays the Host
// of (decide, serve).
func manifestsFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "manifests", "", "file or directory (`PATH`) of HostAuthority, ToolRegistry and PolicySnapshot manifests")
}

func decide(o *decideOptions, rest []string, out io.Writer) error {
	mode, _ := o.out.mode() // no --format: one flag, no conflict
	if len(rest) != 0 {
		return usageError{"decide takes flags only"}
	}
	set, err := manifest.LoadPaths(o.manifests)
	if err != nil {
		return err
	}
	wr, err := parseFile(o.request, "request", parseDecideRequest)
	if err != nil {
		return locateRequest(o.request, err)
	}
	h, err := loadHost(set, wr.HostAuthority.Namespace, wr.HostAuthority.Name)
	if err != nil {
		return err
	}
	r := server.HostRequest(wr.AuthorizeRequest, host.Caller{Name: wr.Caller.Name, Groups: wr.Caller.Groups}, wr.Time)
	// The manifests' every generation is served: current is the highest.
	if err := h.SelectCurrent(&r); err != nil {
		return fmt.Errorf("rejected: %w", err)
	}
	res, err := h.Authorize(r)
	if err != nil {
		return fmt.Errorf("rejected: %w", err)
	}
	if mode != formatText {
		return writeDecision(out, mode, h, r, res, o.explain)
	}
	printDecision(out, res)
	if o.explain {
		rules, err := h.Explain(r)
		if err != nil {
			return err
		}
		printExplanation(out, rules)
	}
	return denied(res)
}

// errDenied is decide's exit 1 for a deny (docs/cli.md, exit codes): the
// Decision is on stdout, this line on stderr.
var errDenied = errors.New("the decision is deny")

func denied(res *host.Result) error {
	if res.Decision.Outcome().String() == "deny" {
		return errDenied
	}
	return nil
}

// printExplanation prints every rule and, under it, each of its predicates
// in the words of the PolicySnapshot manifest (name and operand as the
// author wrote them), with their results aligned in one column.
func printExplanation(out io.Writer, rules []host.RuleResult) {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  rule / predicate\teffect / operand\tresult\treason")
	for _, rr := range rules {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", rr.Rule, rr.Effect, rr.Result, rr.Reason)
		for _, p := range rr.Predicates {
			// The result is a cell (tab-terminated) like the rules', so
			// the column runs through every line and the reasons line up.
			fmt.Fprintf(tw, "    %s\t%s\t%s\t\n", p.Name(), p.Operand(), p.Result)
		}
	}
	_ = tw.Flush() // a bytes.Buffer does not fail
	fmt.Fprintln(out, "rules:")
	for l := range strings.Lines(b.String()) {
		fmt.Fprintln(out, strings.TrimRight(l, " \n")) // the predicates' empty reason cell
	}
}

// locateRequest returns err, the rejection of the request file at path, as
// a manifest.DocumentError at the line and column of the problem when the
// file's strict decoding places it; else err.
func locateRequest(path string, err error) error {
	raw, rerr := os.ReadFile(path)
	if rerr != nil {
		return err
	}
	derr := func() error {
		j, err := yaml.YAMLToJSONStrict(raw)
		if err != nil {
			return err
		}
		dec := json.NewDecoder(bytes.NewReader(j))
		dec.DisallowUnknownFields()
		var r decideRequest
		return dec.Decode(&r)
	}()
	if derr == nil {
		return err
	}
	e := manifest.LocateFile(path, raw, "a request (see examples/requests/ for its shape)", derr, func() any { return new(decideRequest) })
	if e.Reason == "" {
		return err
	}
	return e
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

func obligationText(o host.Obligation) string {
	switch {
	case o.Seconds() != 0:
		return fmt.Sprintf("%s %d s", o.Kind(), o.Seconds())
	case !o.Boundary().IsZero():
		return fmt.Sprintf("%s %s", o.Kind(), o.Boundary())
	default:
		return o.Kind().String()
	}
}

// decision is decide's -o json|yaml document: the Decision in the
// authorize API's shape, the Authorization's facts (never the artifact),
// why none was issued, and with --explain every rule's result.
type decision struct {
	Decision      client.Decision `json:"decision"`
	Authorization *authorization  `json:"authorization,omitempty"`
	Ineligible    string          `json:"ineligible,omitempty"`
	Rules         []explainedRule `json:"rules,omitempty"`
}

type authorization struct {
	ID             string `json:"id"`
	ConsumptionID  string `json:"consumptionID"`
	IssuedAt       uint64 `json:"issuedAt"`
	ExpiresAt      uint64 `json:"expiresAt"`
	BindingDigest  string `json:"bindingDigest"`
	IntentBinding  string `json:"intentBinding,omitempty"`
	PortableOctets int    `json:"portableOctets"`
}

type explainedRule struct {
	Rule       string               `json:"rule"`
	Effect     string               `json:"effect"`
	Result     string               `json:"result"`
	Reason     string               `json:"reason"`
	Predicates []explainedPredicate `json:"predicates"`
}

type explainedPredicate struct {
	Predicate string `json:"predicate"`
	Operand   string `json:"operand,omitempty"`
	Result    string `json:"result"`
}

func writeDecision(out io.Writer, mode string, h *host.Host, r host.AuthorizeRequest, res *host.Result, explain bool) error {
	doc := decision{Decision: server.WireDecision(res.Decision)}
	switch {
	case res.Authorization != nil:
		a := res.Authorization
		doc.Authorization = &authorization{ID: a.ID().String(), ConsumptionID: a.ConsumptionID().String(),
			IssuedAt: a.IssuedAt().Seconds(), ExpiresAt: a.ExpiresAt().Seconds(),
			BindingDigest: a.Binding().Digest().String(), PortableOctets: len(res.Portable)}
		if d, ok := a.Input().Intent().Binding(); ok {
			doc.Authorization.IntentBinding = d.String()
		}
	case res.Ineligible != nil:
		doc.Ineligible = userMessage(res.Ineligible)
	default:
		doc.Ineligible = "only an allow is eligible"
	}
	if explain {
		rules, err := h.Explain(r)
		if err != nil {
			return err
		}
		doc.Rules = []explainedRule{}
		for _, rr := range rules {
			e := explainedRule{Rule: rr.Rule.String(), Effect: rr.Effect.String(), Result: rr.Result.String(),
				Reason: rr.Reason.String(), Predicates: []explainedPredicate{}}
			for _, p := range rr.Predicates {
				e.Predicates = append(e.Predicates, explainedPredicate{Predicate: p.Name(), Operand: p.Operand(), Result: p.Result.String()})
			}
			doc.Rules = append(doc.Rules, e)
		}
	}
	if err := emit(out, mode, doc); err != nil {
		return err
	}
	return denied(res)
}
