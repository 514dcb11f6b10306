package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/server"
)

// shadowLog is a decision log of five authorizes beside shadow
// generation 3 (two allow→deny by one rule, one whose rules changed but
// not its outcome, one unchanged, one not evaluable), one without a
// shadow, a validate and a drop line.
func shadowLog(t *testing.T) string {
	t.Helper()
	base := server.Entry{Verb: "authorize", Namespace: "payments", HostAuthority: "payments-host",
		Selection: "primary-registry@1 payments-policy@2 payments-guardrails@2", Result: "decided"}
	with := func(id, outcome string, sh *server.ShadowEntry) server.Entry {
		e := base
		e.DecisionID, e.Outcome, e.Shadow = id, outcome, sh
		return e
	}
	entries := []server.Entry{
		with("d-1", "allow", &server.ShadowEntry{Generation: "3", Tool: "payments.submit", Outcome: "deny", Changed: true, RulesAdded: []string{"deny-payments-under-review"}}),
		with("d-2", "allow", &server.ShadowEntry{Generation: "3", Tool: "payments.submit", Outcome: "deny", Changed: true, RulesAdded: []string{"deny-payments-under-review"}}),
		with("d-3", "deny", &server.ShadowEntry{Generation: "3", Tool: "email.send", Outcome: "deny", Changed: true, RulesRemoved: []string{"deny-email-unauthenticated"}}),
		with("d-4", "allow", &server.ShadowEntry{Generation: "3", Tool: "accounts.lookup", Outcome: "allow"}),
		with("d-5", "allow", &server.ShadowEntry{Generation: "3", Tool: "accounts.lookup", Code: "notFound", Path: "shadow.policyID"}),
		with("d-6", "allow", nil),
		{Verb: "validate", Result: "valid"},
	}
	var b strings.Builder
	for _, e := range entries {
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteString(`{"time":"2026-12-01T00:00:00.000Z","verb":"dropped","dropped":2,"result":"dropped"}` + "\n")
	return writeFile(t, "decisions.jsonl", b.String())
}

// TestShadowReportCountsEveryDirectionAndRule: the JSON report counts the
// calls seen and changed, each direction with its tools, rules and example
// Decisions, and the calls the shadow could not be evaluated for.
func TestShadowReportCountsEveryDirectionAndRule(t *testing.T) {
	r := runCLI("", "shadow", "report", shadowLog(t), "-o", "json")
	succeeded(t, r)
	var got shadowReport
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	want := shadowReport{Shadows: []shadowSummary{{
		HostAuthority: "payments/payments-host", Snapshot: "payments-policy", Generation: "3",
		Seen: 5, Changed: 3, Unevaluable: 1,
		Changes: []shadowDirection{
			{Live: "allow", Shadow: "deny", Calls: 2, Tools: []shadowTool{{"payments.submit", 2}},
				Rules: []shadowRule{{"deny-payments-under-review", "added", 2}}, Examples: []string{"d-1", "d-2"}},
			{Live: "deny", Shadow: "deny", Calls: 1, Tools: []shadowTool{{"email.send", 1}},
				Rules: []shadowRule{{"deny-email-unauthenticated", "removed", 1}}, Examples: []string{"d-3"}},
		},
	}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("report (-want +got):\n%s", d)
	}
}

// TestShadowReportText: the text report names the same.
func TestShadowReportText(t *testing.T) {
	got := strings.Join(succeeded(t, runCLI("", "shadow", "report", shadowLog(t))), "\n")
	want := `payments/payments-host payments-policy@3 (shadow): 5 calls seen, 3 changed (60.0 %), 1 not evaluable
  allow -> deny: 2 (payments.submit 2)
    added deny-payments-under-review: 2
    e.g. d-1, d-2
  deny -> deny: 1 (email.send 1)
    removed deny-email-unauthenticated: 1
    e.g. d-3`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestShadowReportRejectsALineThatIsNoEntry: by its line number, without
// its content.
func TestShadowReportRejectsALineThatIsNoEntry(t *testing.T) {
	p := writeFile(t, "log", `{"verb":"authorize","result":"decided"}`+"\nsecret-argument-value\n")
	r := runCLI("", "shadow", "report", p)
	if r.code == 0 || !strings.Contains(r.stderr, ":2: not a decision-log line") || strings.Contains(r.stderr, "secret") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestShadowReportPromotionCheck: --fail-on and --max-changed exit 1,
// naming the threshold exceeded, after the report; within them, 0.
func TestShadowReportPromotionCheck(t *testing.T) {
	log := shadowLog(t)
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a direction that occurred", []string{"--fail-on", "allow-deny"}, 1, "changes 2 calls allow -> deny (--fail-on allow-deny)"},
		{"that direction on its tool", []string{"--fail-on", "allow-deny:payments.submit"}, 1, "(--fail-on allow-deny:payments.submit)"},
		{"that direction on another tool", []string{"--fail-on", "allow-deny:email.send"}, 0, ""},
		{"a direction that did not occur", []string{"--fail-on", "deny-allow,allow-requireConfirmation"}, 0, ""},
		{"more changed than allowed", []string{"--max-changed", "50"}, 1, "changes 3 of 5 calls, more than 50 %"},
		{"no more changed than allowed", []string{"--max-changed", "60"}, 0, ""},
		{"an unknown outcome is a usage error", []string{"--fail-on", "allow-maybe"}, 2, "LIVE-SHADOW[:TOOL]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runCLI("", append([]string{"shadow", "report", log}, c.args...)...)
			if r.code != c.code || !strings.Contains(r.stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, c.code, c.want)
			}
			if c.code != 2 && !strings.Contains(r.stdout, "5 calls seen") {
				t.Errorf("the report is not printed: %q", r.stdout)
			}
			if strings.Contains(r.stderr, "maybe") {
				t.Errorf("the rejected value is echoed: %q", r.stderr)
			}
		})
	}
}
