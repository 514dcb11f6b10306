package v1alpha1

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestVocabularyConstants ties every Go constant of a closed vocabulary to
// the engine's Section 48 vocabulary, in Section 48 order (TestCRDs ties
// the CRD enums to the same vocabulary).
func TestVocabularyConstants(t *testing.T) {
	cases := map[string]struct{ got, want []string }{
		"Capability": {strs(CapabilityCommunicationExternal, CapabilityDataRead, CapabilityDataWrite,
			CapabilityFinancialTransfer, CapabilityResourceDelete), tokens(vocab.AllCapability())},
		"Lifecycle": {strs(LifecycleActive, LifecycleDeprecated, LifecycleRetired), tokens(vocab.AllLifecycle())},
		"Risk":      {strs(RiskLow, RiskModerate, RiskHigh, RiskCritical), tokens(vocab.AllRisk())},
		"SideEffect": {strs(SideEffectReadOnly, SideEffectReversibleMutation, SideEffectIrreversibleMutation,
			SideEffectExternalCommunication, SideEffectFinancial), tokens(vocab.AllSideEffect())},
		"Reversibility": {strs(ReversibilityNotApplicable, ReversibilityReversible, ReversibilityCompensatable,
			ReversibilityIrreversible), tokens(vocab.AllReversibility())},
		"SchemaVersion": {strs(SchemaVersionV1), []string{vocab.V1.String()}},
		"Role": {strs(RoleAuthenticationAuthority, RoleIntentCaptureAuthority, RoleProvenanceAuthority,
			RoleInfluenceCollector, RoleDelegationAuthority, RolePolicyAdministrationAuthority), tokens(vocab.AllRole())},
		"PolicyLifecycle": {strs(PolicyLifecycleActive, PolicyLifecycleDeprecated, PolicyLifecycleRetired),
			tokens(vocab.AllPolicyLifecycle())},
		"Effect": {strs(EffectDeny, EffectRequireConfirmation, EffectAllow), tokens(vocab.AllEffect())},
		"ObligationKind": {strs(ObligationKindRequireConfirmation, ObligationKindMaximumEvaluationAgeSeconds,
			ObligationKindRequireCompleteInfluenceBoundary, ObligationKindRequireSingleUseAuthorization,
			ObligationKindRequireAuditEvent), tokens(vocab.AllObligationKind())},
		"PolicyReason": {strs(PolicyReasonPolicyMissing, PolicyReasonPolicyUnknown, PolicyReasonPolicyRetired,
			PolicyReasonPolicyInvalid, PolicyReasonNoAllowRuleMatched, PolicyReasonDenyRuleMatched,
			PolicyReasonConfirmationRuleMatched, PolicyReasonAllowRuleMatched, PolicyReasonConditionIndeterminate,
			PolicyReasonUnsupportedInputVersion, PolicyReasonToolMismatch, PolicyReasonLifecycleDenied,
			PolicyReasonCapabilityNotPermitted, PolicyReasonResourceNotPermitted, PolicyReasonAssuranceInsufficient,
			PolicyReasonAuthenticationMethodMissing, PolicyReasonProvenanceInsufficient, PolicyReasonInfluenceIncomplete,
			PolicyReasonInfluenceKindDenied, PolicyReasonTenantMismatch, PolicyReasonSubjectMismatch,
			PolicyReasonSessionMismatch, PolicyReasonDelegationRequired, PolicyReasonEvaluationTooOld,
			PolicyReasonObligationUnsatisfiedAtPolicyStage, PolicyReasonPolicyLimitExceeded), tokens(vocab.AllReason())},
	}
	for name, tc := range cases {
		if !slices.Equal(tc.got, tc.want) {
			t.Errorf("%s constants = %v, want the Section 48 vocabulary %v", name, tc.got, tc.want)
		}
	}
}

func strs[T ~string](vs ...T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// specNode returns the CRD schema node at a dotted path under the root
// ("[]" steps into list items).
func specNode(t *testing.T, file, path string) schemaNode {
	t.Helper()
	n := loadCRD(t, file).Spec.Versions[0].Schema.OpenAPIV3Schema
	for _, step := range strings.Split(path, ".") {
		name, items := strings.CutSuffix(step, "[]")
		next, ok := n.Properties[name]
		if !ok {
			t.Fatalf("%s: no property %q on the way to %s", file, name, path)
		}
		n = next
		if items {
			if n.Items == nil {
				t.Fatalf("%s: %s is not a list", file, path)
			}
			n = *n.Items
		}
	}
	return n
}

// limit is one Section 39 row's inclusive bound.
type limit struct{ lo, hi int }

// section39 reads the Section 39 limits table and returns the bound of the
// row whose item column is exactly item: the first "a–b" range in its bound
// column, or "Maximum b" (lo -1: the minimum comes from the grammar).
func section39(t *testing.T, item string) limit {
	t.Helper()
	rangeRe := regexp.MustCompile(`(\d[\d,]*)\s*–\s*(\d[\d,]*)`)
	maxRe := regexp.MustCompile(`^Maximum (\d[\d,]*)`)
	num := func(s string) int {
		n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
		if err != nil {
			t.Fatalf("Section 39 %q: %v", item, err)
		}
		return n
	}
	for _, l := range testutil.SpecSection(t, "| Area and item | Exact inclusive bound and scope |", "| Threat | Protocol control |") {
		cols := strings.Split(l, "|")
		if len(cols) < 3 || strings.TrimSpace(cols[1]) != item {
			continue
		}
		bound := strings.TrimSpace(cols[2])
		if m := rangeRe.FindStringSubmatch(bound); m != nil {
			return limit{num(m[1]), num(m[2])}
		}
		if m := maxRe.FindStringSubmatch(bound); m != nil {
			return limit{-1, num(m[1])}
		}
		t.Fatalf("Section 39 %q: no bound in %q", item, bound)
	}
	t.Fatalf("Section 39 has no row %q", item)
	return limit{}
}

// TestSection39Bounds: every list and string bound in the CRDs is the one
// the Section 39 limits table states for that item. Lists: minItems is the
// lower bound when it is positive (absent when zero is accepted), maxItems
// the upper. Strings: minLength and maxLength are the octet bounds.
func TestSection39Bounds(t *testing.T) {
	const (
		treg  = "stk.toolgate.dev_toolregistries.yaml"
		psnap = "stk.toolgate.dev_policysnapshots.yaml"
		hauth = "stk.toolgate.dev_hostauthorities.yaml"
		cons  = "stk.toolgate.dev_consumptions.yaml"
	)
	type use struct{ file, path string }
	lists := map[string][]use{
		"Definitions per Registry Snapshot":         {{treg, "spec.definitions"}},
		"Capabilities per Tool Definition":          {{treg, "spec.definitions[].capabilities"}},
		"Policies per Policy Snapshot":              {{psnap, "spec.policies"}},
		"Rules per Policy":                          {{psnap, "spec.policies[].rules"}},
		"Obligations per rule":                      {{psnap, "spec.policies[].rules[].obligations"}},
		"Capabilities per policy constraint":        {{psnap, "spec.policies[].rules[].scope.capabilities"}},
		"Resources per policy constraint":           {{psnap, "spec.policies[].rules[].scope.resources"}},
		"Host, intended, or requested Capabilities": {{hauth, "spec.capabilities"}},
		"Host, intended, or requested Resources":    {{hauth, "spec.resources"}},
	}
	for item, uses := range lists {
		l := section39(t, item)
		for _, u := range uses {
			n := specNode(t, u.file, u.path)
			if n.MaxItems == nil || *n.MaxItems != l.hi {
				t.Errorf("%s %s: maxItems = %v, want %d (Section 39 %q)", u.file, u.path, deref(n.MaxItems), l.hi, item)
			}
			if l.lo > 0 && (n.MinItems == nil || *n.MinItems != l.lo) {
				t.Errorf("%s %s: minItems = %v, want %d (Section 39 %q)", u.file, u.path, deref(n.MinItems), l.lo, item)
			}
			if l.lo <= 0 && n.MinItems != nil {
				t.Errorf("%s %s: minItems = %d, want none: zero is accepted (Section 39 %q)", u.file, u.path, *n.MinItems, item)
			}
		}
	}
	strings39 := map[string][]use{
		"Definition or Registry Snapshot identity": {{treg, "spec.snapshotID"}, {treg, "spec.definitions[].id"}},
		"Schema identity":                          {{treg, "spec.definitions[].schema.id"}},
		"Tool display title":                       {{treg, "spec.definitions[].title"}},
		"Tool safe summary":                        {{treg, "spec.definitions[].summary"}},
		"Documentation reference":                  {{treg, "spec.definitions[].docRef"}},
		"Tool or Registry Snapshot numeric generation text": {
			{treg, "spec.snapshotGeneration"}, {treg, "spec.definitions[].version"},
			{psnap, "spec.snapshotGeneration"}, {psnap, "spec.policies[].generation"},
		},
		"Policy-family identity": {
			{psnap, "spec.snapshotID"}, {psnap, "spec.policies[].id"}, {psnap, "spec.policies[].rules[].id"},
		},
		"Restricted Phase 4 identity": {
			{hauth, "spec.authorityID"}, {psnap, "spec.hostAuthorityRef.name"},
			{psnap, "spec.policies[].rules[].obligations[].boundary"}, {cons, "spec.domain"},
		},
		"Authorization-family identity": {{cons, "spec.authorizationID"}},
		"Tool Identifier total":         {{treg, "spec.definitions[].toolID"}},
	}
	for item, uses := range strings39 {
		l := section39(t, item)
		for _, u := range uses {
			n := specNode(t, u.file, u.path)
			if n.MaxLength == nil || *n.MaxLength != l.hi {
				t.Errorf("%s %s: maxLength = %v, want %d (Section 39 %q)", u.file, u.path, deref(n.MaxLength), l.hi, item)
			}
			if l.lo > 0 && (n.MinLength == nil || *n.MinLength != l.lo) {
				t.Errorf("%s %s: minLength = %v, want %d (Section 39 %q)", u.file, u.path, deref(n.MinLength), l.lo, item)
			}
		}
	}
	// Resources are lower-token(64) (Section 49); their length bound is
	// the lower-token bound.
	for _, u := range []use{{hauth, "spec.resources[]"}, {psnap, "spec.policies[].rules[].scope.resources[]"}} {
		if n := specNode(t, u.file, u.path); n.MaxLength == nil || *n.MaxLength != 64 || n.Pattern != LowerTokenPattern {
			t.Errorf("%s %s: maxLength %v pattern %q, want a lower-token(64)", u.file, u.path, deref(n.MaxLength), n.Pattern)
		}
	}
	// The seconds bounds are in the pattern (canonical decimal 1–3,600).
	for item, u := range map[string]use{
		"Maximum evaluation-age obligation": {psnap, "spec.policies[].rules[].obligations[].seconds"},
		"Authorization maximum lifetime":    {hauth, "spec.maxAuthorizationLifetimeSeconds"},
	} {
		l := section39(t, item)
		n := specNode(t, u.file, u.path)
		if n.Type != "string" || n.Pattern != SecondsPattern {
			t.Errorf("%s %s: type %q pattern %q, want the Seconds pattern", u.file, u.path, n.Type, n.Pattern)
		}
		re := regexp.MustCompile(n.Pattern)
		for v := l.lo - 1; v <= l.hi+1; v++ {
			if want := v >= l.lo && v <= l.hi; re.MatchString(strconv.Itoa(v)) != want {
				t.Errorf("%s: %d accepted = %v, want %v (Section 39 %q)", u.path, v, !want, want, item)
			}
		}
	}
	// Exactly six roles (Section 39 "Closed Role Authority kinds").
	if n := specNode(t, hauth, "spec.roles"); n.MaxItems == nil || *n.MaxItems != len(vocab.AllRole()) ||
		n.ListType != "map" || !slices.Equal(n.ListMapKeys, []string{"role"}) {
		t.Errorf("spec.roles: maxItems %v, list %s %v; want at most 6, each role once", deref(n.MaxItems), n.ListType, n.ListMapKeys)
	}
}

func deref(p *int) any {
	if p == nil {
		return "none"
	}
	return *p
}

// TestPatterns: each identifier field carries its Section 49 grammar, and
// the grammars accept and reject what Section 49 says. The apiserver
// evaluates patterns with Go's RE2 regexp, as this test does.
func TestPatterns(t *testing.T) {
	fields := map[string]map[string]string{
		"stk.toolgate.dev_toolregistries.yaml": {
			"spec.snapshotID": LowerTokenPattern, "spec.snapshotGeneration": GenerationPattern,
			"spec.definitions[].id": LowerTokenPattern, "spec.definitions[].toolID": ToolIdentifierPattern,
			"spec.definitions[].version": GenerationPattern, "spec.definitions[].schema.id": LowerTokenPattern,
		},
		"stk.toolgate.dev_policysnapshots.yaml": {
			"spec.snapshotID": LowerTokenPattern, "spec.snapshotGeneration": GenerationPattern,
			"spec.hostAuthorityRef.name": LowerTokenPattern,
			"spec.policies[].id":         LowerTokenPattern, "spec.policies[].generation": GenerationPattern,
			"spec.policies[].rules[].id":                     LowerTokenPattern,
			"spec.policies[].rules[].obligations[].boundary": LowerTokenPattern,
		},
		"stk.toolgate.dev_hostauthorities.yaml": {"spec.authorityID": LowerTokenPattern},
		"stk.toolgate.dev_consumptions.yaml": {
			"spec.domain": LowerTokenPattern, "spec.authorizationID": LowerTokenPattern,
			"spec.bindingDigest": SHA256HexPattern,
		},
	}
	for file, paths := range fields {
		for path, want := range paths {
			if n := specNode(t, file, path); n.Type != "string" || n.Pattern != want {
				t.Errorf("%s %s: type %q pattern %q, want string %q", file, path, n.Type, n.Pattern, want)
			}
		}
	}
	// The generation overflow rule (a 20-digit value above 2^64-1) is a
	// CEL rule next to the pattern; the envtest suite proves it rejects.
	gen := specNode(t, "stk.toolgate.dev_toolregistries.yaml", "spec.snapshotGeneration")
	if len(gen.XKubernetesValidations) != 1 || gen.XKubernetesValidations[0].Rule != "size(self) < 20 || self <= '18446744073709551615'" {
		t.Errorf("snapshotGeneration rules = %+v, want the 2^64-1 bound", gen.XKubernetesValidations)
	}

	seg := func(n int) string { return strings.Repeat("a", n) }
	// match reports whether v satisfies the pattern and the length bound.
	match := func(pattern string, maxLen int, v string) bool {
		return len(v) <= maxLen && regexp.MustCompile(pattern).MatchString(v)
	}
	cases := []struct {
		name    string
		pattern string
		maxLen  int
		value   string
		want    bool
	}{
		// lower-token(64): one lower-alnum, or 2–64 octets, first and last
		// lower-alnum, interior lower-alnum or "-"; no dot.
		{"lower-token: one letter", LowerTokenPattern, 64, "a", true},
		{"lower-token: one digit", LowerTokenPattern, 64, "7", true},
		{"lower-token: consecutive interior hyphens", LowerTokenPattern, 64, "a--b", true},
		{"lower-token: 64 octets", LowerTokenPattern, 64, seg(64), true},
		{"lower-token: 65 octets", LowerTokenPattern, 64, seg(65), false},
		{"lower-token: empty", LowerTokenPattern, 64, "", false},
		{"lower-token: leading hyphen", LowerTokenPattern, 64, "-a", false},
		{"lower-token: trailing hyphen", LowerTokenPattern, 64, "a-", false},
		{"lower-token: a dot", LowerTokenPattern, 64, "a.b", false},
		{"lower-token: upper case", LowerTokenPattern, 64, "Ab", false},
		{"lower-token: spaces and punctuation", LowerTokenPattern, 64, "NOT A TOKEN!!", false},
		{"lower-token: a newline after a valid token", LowerTokenPattern, 64, "a\n", false},
		// Tool Identifier: 2–8 dot-separated lower-token(32) segments, 128
		// octets in total.
		{"tool id: two segments", ToolIdentifierPattern, 128, "payments.submit", true},
		{"tool id: one segment", ToolIdentifierPattern, 128, "payments", false},
		{"tool id: eight segments", ToolIdentifierPattern, 128, "a.b.c.d.e.f.g.h", true},
		{"tool id: nine segments", ToolIdentifierPattern, 128, "a.b.c.d.e.f.g.h.i", false},
		{"tool id: a 32-octet segment", ToolIdentifierPattern, 128, seg(32) + ".b", true},
		{"tool id: a 33-octet segment", ToolIdentifierPattern, 128, seg(33) + ".b", false},
		{"tool id: 128 octets", ToolIdentifierPattern, 128, seg(32) + "." + seg(32) + "." + seg(32) + "." + seg(29), true},
		{"tool id: 129 octets", ToolIdentifierPattern, 128, seg(32) + "." + seg(32) + "." + seg(32) + "." + seg(30), false},
		{"tool id: empty segment", ToolIdentifierPattern, 128, "a..b", false},
		{"tool id: hyphen at a segment edge", ToolIdentifierPattern, 128, "a-.b", false},
		{"tool id: upper case", ToolIdentifierPattern, 128, "Payments.submit", false},
		// Generation: canonical decimal 1–18446744073709551615, first digit
		// 1–9, at most 20 octets; leading zero, sign, whitespace, decimal
		// point or suffix rejects.
		{"generation: 1", GenerationPattern, 20, "1", true},
		{"generation: 2^64-1", GenerationPattern, 20, "18446744073709551615", true},
		{"generation: zero", GenerationPattern, 20, "0", false},
		{"generation: leading zero", GenerationPattern, 20, "07", false},
		{"generation: sign", GenerationPattern, 20, "-7", false},
		{"generation: plus", GenerationPattern, 20, "+7", false},
		{"generation: space", GenerationPattern, 20, " 7", false},
		{"generation: decimal point", GenerationPattern, 20, "1.0", false},
		{"generation: exponent", GenerationPattern, 20, "1e3", false},
		{"generation: 21 digits", GenerationPattern, 20, "100000000000000000000", false},
		// SHA-256 as 64 lowercase hex digits.
		{"digest: 64 hex", SHA256HexPattern, 64, strings.Repeat("0f", 32), true},
		{"digest: upper case", SHA256HexPattern, 64, strings.Repeat("0F", 32), false},
		{"digest: prefixed", SHA256HexPattern, 64, "sha256:" + strings.Repeat("0f", 32), false},
		{"digest: 63 hex", SHA256HexPattern, 64, strings.Repeat("0", 63), false},
	}
	for _, tc := range cases {
		if got := match(tc.pattern, tc.maxLen, tc.value); got != tc.want {
			t.Errorf("%s: accepted = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestIdentityRules: the CEL rules that make an object's name its protocol
// identity, so the apiserver's name uniqueness rejects a second object
// claiming the same identity.
func TestIdentityRules(t *testing.T) {
	want := map[string]string{
		"stk.toolgate.dev_toolregistries.yaml":  "self.metadata.name == self.spec.snapshotID + '-' + self.spec.snapshotGeneration",
		"stk.toolgate.dev_policysnapshots.yaml": "self.metadata.name == self.spec.snapshotID + '-' + self.spec.snapshotGeneration",
		"stk.toolgate.dev_hostauthorities.yaml": "self.metadata.name == self.spec.authorityID",
		"stk.toolgate.dev_consumptions.yaml":    "self.metadata.name == self.spec.domain + '.' + self.spec.bindingDigest",
	}
	for file, rule := range want {
		root := loadCRD(t, file).Spec.Versions[0].Schema.OpenAPIV3Schema
		var rules []string
		for _, xv := range root.XKubernetesValidations {
			rules = append(rules, xv.Rule)
		}
		if !slices.Equal(rules, []string{rule}) {
			t.Errorf("%s: root rules = %q, want exactly %q", file, rules, rule)
		}
		if _, ok := root.Properties["spec"].Properties["generation"]; ok {
			t.Errorf("%s: spec.generation exists; it collides with metadata.generation", file)
		}
	}
}
