package vocab_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

func tokens[T interface{ String() string }](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.String()
	}
	return out
}

// specVocabularies extracts the Section 48 token tables from the vendored spec
// text: "| Label | tok1, tok2(param), ... |" rows, the predicate table and the
// reason paragraph. Parameters in parentheses are dropped.
func specVocabularies(t *testing.T) map[string][]string {
	t.Helper()
	lines := testutil.SpecSection(t,
		"This section is normative unless a row is explicitly marked Reference. Tokens are exact",
		"Swift error enums and safe-field enums")
	params := regexp.MustCompile(`\([^)]*\)`)
	split := func(s string) []string {
		s = params.ReplaceAllString(s, "")
		var out []string
		for _, f := range strings.Split(s, ",") {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, f)
			}
		}
		return out
	}
	got := map[string][]string{}
	row := regexp.MustCompile(`^\| ([A-Z][A-Za-z /-]+) \| ([^|]+) \|`)
	pred := regexp.MustCompile(`^\| (\d\d) \| ([a-zA-Z]+)`)
	inReasons := false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "Policy stable reasons use this exact deterministic order"):
			inReasons = true
		case inReasons && strings.HasPrefix(l, "Reason collections"):
			inReasons = false
		case inReasons:
			got["Policy reason"] = append(got["Policy reason"], split(l)...)
		case pred.MatchString(l):
			got["Predicate"] = append(got["Predicate"], pred.FindStringSubmatch(l)[2])
		case row.MatchString(l):
			m := row.FindStringSubmatch(l)
			got[m[1]] = split(m[2])
		}
	}
	return got
}

func TestVocabulariesMatchSection48(t *testing.T) {
	t.Parallel()
	spec := specVocabularies(t)
	ours := map[string][]string{
		"Capability":                           tokens(vocab.AllCapability()),
		"Tool lifecycle":                       tokens(vocab.AllLifecycle()),
		"Tool risk":                            tokens(vocab.AllRisk()),
		"Tool side effect":                     tokens(vocab.AllSideEffect()),
		"Tool reversibility":                   tokens(vocab.AllReversibility()),
		"Schema field requirement":             tokens(vocab.AllRequirement()),
		"Schema value kind":                    tokens(vocab.AllValueKind()),
		"Untrusted Proposal trust class":       tokens(vocab.AllProposalTrust()),
		"Untrusted Proposal provenance source": tokens(vocab.AllProposalSource()),
		"Authentication assurance":             tokens(vocab.AllAssurance()),
		"Authentication method":                tokens(vocab.AllAuthMethod()),
		"Session binding":                      tokens(vocab.AllSessionBinding()),
		"Intent target":                        tokens(vocab.AllIntentTarget()),
		"Provenance coverage":                  tokens(vocab.AllProvenanceCoverage()),
		"Provenance source":                    tokens(vocab.AllProvenanceSource()),
		"Provenance verification":              tokens(vocab.AllVerification()),
		"Provenance trust":                     tokens(vocab.AllTrust()),
		"Provenance transformation":            tokens(vocab.AllTransformation()),
		"Influence completeness":               tokens(vocab.AllCompleteness()),
		"Influence kind":                       tokens(vocab.AllInfluenceKind()),
		"Host-attestation role":                tokens(vocab.AllRole()),
		"Host-attestation fact":                tokens(vocab.AllFact()),
		"Policy lifecycle":                     tokens(vocab.AllPolicyLifecycle()),
		"Policy effect/outcome":                tokens(vocab.AllEffect()),
		"Condition kind":                       tokens(vocab.AllConditionKind()),
		"Obligation kind":                      tokens(vocab.AllObligationKind()),
		"Predicate":                            tokens(vocab.AllPredicate()),
		"Policy reason":                        tokens(vocab.AllReason()),
		"Consumption contract":                 tokens(vocab.AllConsumptionContract()),
		"Validation outcome":                   tokens(vocab.AllValidationOutcome()),
	}
	for label, want := range ours {
		got, ok := spec[label]
		if !ok {
			t.Errorf("spec row %q not found in Section 48", label)
			continue
		}
		if diff := cmp.Diff(got, want); diff != "" {
			t.Errorf("%s tokens differ from Section 48 (-spec +ours):\n%s", label, diff)
		}
	}
	if n := len(spec["Predicate"]); n != 38 {
		t.Errorf("Section 48 lists %d predicates, want 38", n)
	}
}

func TestParseRejectsEverythingButExactTokens(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"empty token":            "",
		"case folded token":      "Data.Read",
		"surrounding space":      " data.read",
		"trailing space":         "data.read ",
		"prefix of a token":      "data",
		"token of another vocab": "active",
		"unicode lookalike":      "data\u2024read",
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := vocab.ParseCapability(in)
			if !errors.Is(err, fault.ErrUnknownToken) {
				t.Fatalf("ParseCapability: got %v, want unknownToken", err)
			}
		})
	}
	if _, err := vocab.ParseCapability("secret-customer-42"); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("error must reject without echoing the token: %v", err)
	}
	for _, c := range vocab.AllCapability() {
		got, err := vocab.ParseCapability(c.String())
		if err != nil || got != c {
			t.Errorf("ParseCapability(%q) = %v, %v; want round trip", c, got, err)
		}
	}
}

func TestZeroValuesAreInvalid(t *testing.T) {
	t.Parallel()
	if vocab.Capability(0).IsValid() || vocab.Predicate(0).IsValid() || vocab.Reason(0).IsValid() {
		t.Error("zero value of a vocabulary must be invalid")
	}
	if vocab.Capability(6).IsValid() || vocab.Predicate(39).IsValid() {
		t.Error("value past the last token must be invalid")
	}
	if got := vocab.Predicate(38).String(); got != "maximumContextAge" {
		t.Errorf("predicate 37 (order 38) = %q", got)
	}
}

func TestVersionsAcceptOnlyV1(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"v0", "v2", "V1", "1", "", "v1 "} {
		if _, err := vocab.ParseVersion(s); !errors.Is(err, fault.ErrUnsupported) {
			t.Errorf("ParseVersion(%q) = %v, want unsupported", s, err)
		}
	}
	if v, err := vocab.ParseVersion("v1"); err != nil || v != vocab.V1 {
		t.Errorf("ParseVersion(v1) = %v, %v", v, err)
	}
	if vocab.CheckVersion(2) == nil || vocab.CheckVersion(0) == nil || vocab.CheckVersion(vocab.V1) != nil {
		t.Error("CheckVersion must accept exactly V1")
	}
}
