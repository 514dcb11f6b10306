package server

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/jsonlex"
	"github.com/toolgate/toolgate/internal/serving"
)

// ShadowEntry is a decision-log entry's record of the shadow generation
// evaluated beside the live Decision (docs/shadow.md, "The decision log"):
// the shadow's generation, the tool called (its registry identity), the shadow's outcome, whether it decided otherwise, and
// what differs — rule identities, reason tokens, scope and obligation
// kinds, never an argument value. Code and Path are set, and Outcome is
// not, when the shadow could not be evaluated. The live outcome is the
// entry's own Outcome.
type ShadowEntry struct {
	Generation          string   `json:"generation"`
	Tool                string   `json:"tool"`
	Outcome             string   `json:"outcome,omitempty"`
	Changed             bool     `json:"changed"`
	RulesAdded          []string `json:"rulesAdded,omitempty"`
	RulesRemoved        []string `json:"rulesRemoved,omitempty"`
	ReasonsAdded        []string `json:"reasonsAdded,omitempty"`
	ReasonsRemoved      []string `json:"reasonsRemoved,omitempty"`
	CapabilitiesAdded   []string `json:"capabilitiesAdded,omitempty"`
	CapabilitiesRemoved []string `json:"capabilitiesRemoved,omitempty"`
	ResourcesAdded      []string `json:"resourcesAdded,omitempty"`
	ResourcesRemoved    []string `json:"resourcesRemoved,omitempty"`
	ObligationsAdded    []string `json:"obligationsAdded,omitempty"`
	ObligationsRemoved  []string `json:"obligationsRemoved,omitempty"`
	Code                string   `json:"code,omitempty"`
	Path                string   `json:"path,omitempty"`
}

// shadowEntryOf records the shadow sh's result r beside the live Decision.
func shadowEntryOf(sh serving.Shadow, live *host.Decision, r host.ShadowResult) *ShadowEntry {
	e := &ShadowEntry{Generation: sh.Generation, Tool: live.Input().ToolID().String()}
	if r.Err != nil {
		w := apiError(r.Err)
		e.Code, e.Path = w.Code, w.Path
		return e
	}
	d := host.Compare(live, r.Decision)
	e.Outcome, e.Changed = d.Shadow, d.Changed()
	e.RulesAdded, e.RulesRemoved = d.RulesAdded, d.RulesRemoved
	e.ReasonsAdded, e.ReasonsRemoved = d.ReasonsAdded, d.ReasonsRemoved
	e.CapabilitiesAdded, e.CapabilitiesRemoved = d.CapabilitiesAdded, d.CapabilitiesRemoved
	e.ResourcesAdded, e.ResourcesRemoved = d.ResourcesAdded, d.ResourcesRemoved
	e.ObligationsAdded, e.ObligationsRemoved = d.ObligationsAdded, d.ObligationsRemoved
	return e
}

// appendJSON appends e as encoding/json would marshal it
// (TestShadowEntryJSONIsEncodingJSON).
func (e *ShadowEntry) appendJSON(b []byte) []byte {
	b = append(b, `{"generation":`...)
	b = jsonlex.AppendString(b, e.Generation, jsonlex.HTMLSafe)
	b = appendField(b, "tool", e.Tool, false)
	b = appendField(b, "outcome", e.Outcome, true)
	if e.Changed {
		b = append(b, `,"changed":true`...)
	} else {
		b = append(b, `,"changed":false`...)
	}
	b = appendList(b, "rulesAdded", e.RulesAdded)
	b = appendList(b, "rulesRemoved", e.RulesRemoved)
	b = appendList(b, "reasonsAdded", e.ReasonsAdded)
	b = appendList(b, "reasonsRemoved", e.ReasonsRemoved)
	b = appendList(b, "capabilitiesAdded", e.CapabilitiesAdded)
	b = appendList(b, "capabilitiesRemoved", e.CapabilitiesRemoved)
	b = appendList(b, "resourcesAdded", e.ResourcesAdded)
	b = appendList(b, "resourcesRemoved", e.ResourcesRemoved)
	b = appendList(b, "obligationsAdded", e.ObligationsAdded)
	b = appendList(b, "obligationsRemoved", e.ObligationsRemoved)
	b = appendField(b, "code", e.Code, true)
	b = appendField(b, "path", e.Path, true)
	return append(b, '}')
}

// shadowMetrics count shadow evaluations by tool and outcome pair (the
// shadow outcome "error" when it could not be evaluated), and the rules
// behind each change by tool, rule and whether the shadow matched it
// where the live Decision did not (added) or the reverse (removed).
type shadowMetrics struct {
	pairs children[[3]string, prometheus.Counter] // tool, live, shadow
	rules children[[3]string, prometheus.Counter] // tool, rule, added|removed
}

func newShadowMetrics(reg *prometheus.Registry) *shadowMetrics {
	pairs := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "toolgate_shadow_decisions_total",
		Help: "Shadow evaluations beside the current generation by tool and outcome pair (shadow=error: not evaluable).",
	}, []string{"tool", "live", "shadow"})
	rules := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "toolgate_shadow_rule_changes_total",
		Help: "Rules behind shadow differences by tool, rule and change (added: matched only by the shadow; removed: only by the live decision).",
	}, []string{"tool", "rule", "change"})
	m := &shadowMetrics{}
	m.pairs.make = func(v [3]string) prometheus.Counter { return pairs.WithLabelValues(v[0], v[1], v[2]) }
	m.rules.make = func(v [3]string) prometheus.Counter { return rules.WithLabelValues(v[0], v[1], v[2]) }
	reg.MustRegister(pairs, rules)
	return m
}

// observe counts one shadow evaluation of a call to tool.
func (m *shadowMetrics) observe(tool, live string, e *ShadowEntry) {
	shadow := e.Outcome
	if e.Code != "" {
		shadow = "error"
	}
	m.pairs.get([3]string{tool, live, shadow}).Inc()
	for _, r := range e.RulesAdded {
		m.rules.get([3]string{tool, r, "added"}).Inc()
	}
	for _, r := range e.RulesRemoved {
		m.rules.get([3]string{tool, r, "removed"}).Inc()
	}
}

// decide runs r in d: with the domain's open shadow of the selected policy
// snapshot evaluated beside it when the request selected the current
// generation (requested is the generation the request named), plainly
// otherwise. The shadow is recorded in q's log entry and the metrics; the
// live result is Authorize's, whatever the shadow did.
func (s *Server) decide(q *call, d *serving.Domain, r host.AuthorizeRequest, requested string, sel serving.Selection, definitionCurrent bool) (*host.Result, string, error) {
	sh, ok := d.ShadowOf(requested, sel, q.now)
	if !ok {
		return d.Authorize(r)
	}
	res, envelope, shadow, err := d.AuthorizeShadowed(r, sh, definitionCurrent)
	if err != nil {
		return nil, "", err
	}
	q.entry.Shadow = shadowEntryOf(sh, res.Decision, shadow)
	s.metrics.shadow.observe(q.entry.Shadow.Tool, res.Decision.Outcome().String(), q.entry.Shadow)
	return res, envelope, nil
}
