package argprofile_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/argprofile"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/jsonexact"
	"sigs.k8s.io/yaml"
)

// oneMember builds a profile whose arguments are {"v": <node>}, v optional.
func oneMember(t testing.TB, nodeYAML string) *argprofile.Profile {
	t.Helper()
	var n argprofile.NodeDraft
	if err := yaml.UnmarshalStrict([]byte(nodeYAML), &n); err != nil {
		t.Fatalf("node %s: %v", nodeYAML, err)
	}
	p, err := argprofile.New(argprofile.Draft{
		Profile: argprofile.Version, Tool: "t",
		Arguments: argprofile.NodeDraft{Choice: "object", Members: []argprofile.MemberDraft{{JSON: "v", Field: "v", Value: n}}},
	})
	if err != nil {
		t.Fatalf("New(%s): %v", nodeYAML, err)
	}
	return p
}

// mustValidate checks that out is accepted by the core: decoded by
// jsonexact.Decode and validated against the profile's own protocol Schema.
func mustValidate(t testing.TB, p *argprofile.Profile, out []byte) {
	t.Helper()
	s, err := schema.New(mustID(t), vocab.V1, p.Schema())
	if err != nil {
		t.Fatalf("schema.New(profile.Schema()): %v", err)
	}
	v, err := jsonexact.Decode(out, jsonexact.Limits{MaxDepth: schema.MaxDepth})
	if err != nil {
		t.Fatalf("core decode of %s: %v", out, err)
	}
	if _, err := s.Validate(v); err != nil {
		t.Fatalf("core validation of %s: %v", out, err)
	}
}

// Each row is one rule of docs/arguments.md: what a choice accepts and the
// protocol value it gives, or the code it refuses with. Every accepted
// output is checked by the core itself.
func TestEveryConstraintRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rule, node, in, want string
		code                 argprofile.Code
	}{
		{"string passes printable ASCII unchanged", `{choice: string}`, `"a b~"`, `"a b~"`, 0},
		{"string refuses a newline", `{choice: string}`, `"a\nb"`, "", argprofile.CodeNotASCII},
		{"string refuses non-ASCII", `{choice: string}`, `"é"`, "", argprofile.CodeNotASCII},
		{"string refuses over 1024 octets", `{choice: string}`, `"` + strings.Repeat("a", 1025) + `"`, "", argprofile.CodeNotASCII},
		{"string refuses a number", `{choice: string}`, `1`, "", argprofile.CodeKind},
		{"string refuses null", `{choice: string}`, `null`, "", argprofile.CodeKind},
		{"string as resourceID", `{choice: string, resource: true}`, `"acct-1"`, `"acct-1"`, 0},
		{"maxLength counts code points", `{choice: text, bind: escaped, maxLength: 2}`, `"éé"`, `"\\u{e9}\\u{e9}"`, 0},
		{"over maxLength refuses", `{choice: string, maxLength: 2}`, `"abc"`, "", argprofile.CodeTooLong},
		{"under minLength refuses", `{choice: string, minLength: 2}`, `"a"`, "", argprofile.CodeTooShort},
		{"pattern matches anywhere", `{choice: string, pattern: "[0-9]"}`, `"ab1"`, `"ab1"`, 0},
		{"pattern refuses", `{choice: string, pattern: "^[a-z]+$"}`, `"ab1"`, "", argprofile.CodePattern},
		{"format date holds a calendar day", `{choice: string, format: date}`, `"2024-02-29"`, `"2024-02-29"`, 0},
		{"format date refuses a day that does not exist", `{choice: string, format: date}`, `"2023-02-29"`, "", argprofile.CodeFormat},
		{"format uuid", `{choice: string, format: uuid}`, `"123e4567-E89B-12d3-a456-426614174000"`, `"123e4567-E89B-12d3-a456-426614174000"`, 0},
		{"format uuid refuses", `{choice: string, format: uuid}`, `"123e4567e89b12d3a456426614174000"`, "", argprofile.CodeFormat},
		{"const string", `{choice: string, const: "x"}`, `"y"`, "", argprofile.CodeConst},
		{"text digest binds the exact UTF-8 octets and their length", `{choice: text, bind: digest}`, `"a\nb"`,
			`{"length":3,"sha256":"7e18f737311b2dc3b2f269dd78396b0351f14fb66efa879f768cb23181883c78"}`, 0},
		{"text escaped keeps printable ASCII and escapes the rest", `{choice: text, bind: escaped}`, `"a\\b\nc😀"`, `"a\\\\b\\u{a}c\\u{1f600}"`, 0},
		{"text escaped refuses a result over 1024 octets", `{choice: text, bind: escaped}`, `"` + strings.Repeat(`\n`, 205) + `"`, "", argprofile.CodeTooLong},
		{"text over maxOctets refuses", `{choice: text, bind: digest, maxOctets: 3}`, `"abcd"`, "", argprofile.CodeTooLarge},
		{"integer", `{choice: integer}`, `-42`, `-42`, 0},
		{"integer refuses a fraction, even .0", `{choice: integer}`, `1.0`, "", argprofile.CodeFraction},
		{"integer refuses an exponent", `{choice: integer}`, `1e2`, "", argprofile.CodeExponent},
		{"integer refuses a string", `{choice: integer}`, `"1"`, "", argprofile.CodeKind},
		{"integer refuses outside int64", `{choice: integer}`, `9223372036854775808`, "", argprofile.CodeOutOfRange},
		{"unsigned integer takes up to 2^64-1", `{choice: integer, unsigned: true}`, `18446744073709551615`, `18446744073709551615`, 0},
		{"unsigned integer refuses a negative", `{choice: integer, unsigned: true}`, `-1`, "", argprofile.CodeOutOfRange},
		{"minimum is inclusive", `{choice: integer, minimum: 1}`, `1`, `1`, 0},
		{"below minimum refuses", `{choice: integer, minimum: 1}`, `0`, "", argprofile.CodeOutOfRange},
		{"above maximum refuses", `{choice: integer, maximum: 5}`, `6`, "", argprofile.CodeOutOfRange},
		{"const integer compares numerically", `{choice: integer, const: 7}`, `8`, "", argprofile.CodeConst},
		{"decimal scales", `{choice: decimal, scale: 2}`, `12.5`, `1250`, 0},
		{"decimal takes an integer", `{choice: decimal, scale: 2}`, `-3`, `-300`, 0},
		{"decimal refuses more fraction digits than the scale, never rounds", `{choice: decimal, scale: 2}`, `0.125`, "", argprofile.CodeFraction},
		{"decimal refuses trailing zeros beyond the scale as written", `{choice: decimal, scale: 2}`, `1.500`, "", argprofile.CodeFraction},
		{"decimal refuses an exponent", `{choice: decimal, scale: 2}`, `1e-2`, "", argprofile.CodeExponent},
		{"decimal bounds are decimal text", `{choice: decimal, scale: 2, maximum: "0.5"}`, `0.51`, "", argprofile.CodeOutOfRange},
		{"decimal refuses past the 64-bit domain after scaling", `{choice: decimal, scale: 18}`, `10`, "", argprofile.CodeOutOfRange},
		{"a very long integer is out of range without arithmetic on it", `{choice: integer}`, strings.Repeat("9", 60000), "", argprofile.CodeOutOfRange},
		{"bool", `{choice: bool}`, `true`, `true`, 0},
		{"bool refuses 1", `{choice: bool}`, `1`, "", argprofile.CodeKind},
		{"const bool", `{choice: bool, const: false}`, `true`, "", argprofile.CodeConst},
		{"enum renames a case", `{choice: enum, cases: [{json: "In Progress", case: in-progress}]}`, `"In Progress"`, `"in-progress"`, 0},
		{"enum refuses another case, even differing only in case", `{choice: enum, cases: [{json: "Open", case: open}]}`, `"open"`, "", argprofile.CodeCase},
		{"array keeps order and duplicates", `{choice: array, items: {choice: integer}}`, `[2,1,2]`, `[2,1,2]`, 0},
		{"array over maxItems refuses", `{choice: array, maxItems: 2, items: {choice: integer}}`, `[1,2,3]`, "", argprofile.CodeTooManyItems},
		{"array under minItems refuses", `{choice: array, minItems: 1, items: {choice: integer}}`, `[]`, "", argprofile.CodeTooFewItems},
		{"array over 64 refuses by default", `{choice: array, items: {choice: bool}}`, `[` + strings.Repeat("true,", 64) + `true]`, "", argprofile.CodeTooManyItems},
		{"object renames members and emits them in field order", `{choice: object, members: [{json: zName, field: a-name, value: {choice: bool}}, {json: aName, field: b-name, value: {choice: bool}}]}`,
			`{"aName":true,"zName":false}`, `{"a-name":false,"b-name":true}`, 0},
		{"object is closed", `{choice: object, members: [{json: a, field: a, value: {choice: bool}}]}`, `{"a":true,"b":1}`, "", argprofile.CodeUnknownMember},
		{"required member missing refuses", `{choice: object, members: [{json: a, field: a, required: true, value: {choice: bool}}]}`, `{}`, "", argprofile.CodeMissing},
		{"an absent optional member stays absent", `{choice: object, members: [{json: a, field: a, value: {choice: bool}}]}`, `{}`, `{}`, 0},
		{"union tags the JSON kind", `{choice: union, alternatives: [{when: string, tag: text, value: {choice: string}}, {when: "null", tag: none}]}`, `"x"`, `{"tag":"text","text":"x"}`, 0},
		{"union null alternative is its tag alone", `{choice: union, alternatives: [{when: string, tag: text, value: {choice: string}}, {when: "null", tag: none}]}`, `null`, `{"tag":"none"}`, 0},
		{"union tag sorts after a later field name", `{choice: union, alternatives: [{when: integer, tag: zint, value: {choice: integer}}, {when: "null", tag: none}]}`, `5`, `{"tag":"zint","zint":5}`, 0},
		{"union refuses a kind no alternative takes", `{choice: union, alternatives: [{when: string, tag: text, value: {choice: string}}, {when: "null", tag: none}]}`, `1`, "", argprofile.CodeKind},
		{"json binds the RFC 8785 form", `{choice: json}`, `{"b": 1.50, "a": [true, null]}`,
			`{"length":25,"sha256":"10ab843e0579ffa73417d6bca190d6a5cec0ef198550dc9b7bb0be6a229f3dea"}`, 0},
		{"json refuses a number the double conversion would change", `{choice: json}`, `[9007199254740993]`, "", argprofile.CodeInexactNumber},
		{"json refuses a number with more digits than its double", `{choice: json}`, `0.10000000000000001`, "", argprofile.CodeInexactNumber},
		{"json over maxOctets refuses", `{choice: json, maxOctets: 4}`, `[1,2,3]`, "", argprofile.CodeTooLarge},
		{"json without kinds takes any kind", `{choice: json}`, `5`, `{"length":1,"sha256":"ef2d127de37b942baad06145e54b0c619a1f22327b2ebbcfbec78f5564afe39d"}`, 0},
		{"json kinds object takes an object", `{choice: json, kinds: [object]}`, `{}`, `{"length":2,"sha256":"44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"}`, 0},
		{"json kinds object refuses an array", `{choice: json, kinds: [object]}`, `[]`, "", argprofile.CodeKind},
		{"json kinds object refuses a number", `{choice: json, kinds: [object]}`, `5`, "", argprofile.CodeKind},
		{"json kinds object refuses null", `{choice: json, kinds: [object]}`, `null`, "", argprofile.CodeKind},
		{"json kinds are a list: one of them holds", `{choice: json, kinds: [array, "null"]}`, `null`, `{"length":4,"sha256":"74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b"}`, 0},
		{"json kinds boolean refuses a string", `{choice: json, kinds: [boolean]}`, `"true"`, "", argprofile.CodeKind},
		{"json kinds string refuses an object", `{choice: json, kinds: [string]}`, `{"a":"b"}`, "", argprofile.CodeKind},
		{"json kinds integer takes an integer literal", `{choice: json, kinds: [integer]}`, `-5`, `{"length":2,"sha256":"37aa1ccf80e481832b2db282d4d4f895ee1e31219b7d0f6aee8dc8968828341b"}`, 0},
		{"json kinds integer refuses a fraction, even .0", `{choice: json, kinds: [integer]}`, `5.0`, "", argprofile.CodeKind},
		{"json kinds integer refuses an exponent", `{choice: json, kinds: [integer]}`, `5e0`, "", argprofile.CodeKind},
		{"json kinds number takes a fraction", `{choice: json, kinds: [number]}`, `5.5`, `{"length":3,"sha256":"4819f5315cb49422b0b21be64e48bb69c9c157cf41c6631994f931ab9fba86bd"}`, 0},
		{"json kinds are checked before the numbers inside", `{choice: json, kinds: [object]}`, `[9007199254740993]`, "", argprofile.CodeKind},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			t.Parallel()
			p := oneMember(t, tc.node)
			out, err := p.Derive([]byte(`{"v":` + tc.in + `}`))
			if tc.code != 0 {
				var e *argprofile.Error
				if !errors.As(err, &e) || e.Code != tc.code || e.Path != "/v" && e.Path != "/v/a" {
					t.Fatalf("Derive = %s, %v; want %v at /v", out, err, tc.code)
				}
				if out != nil {
					t.Fatalf("a refusal returned output %s", out)
				}
				return
			}
			if err != nil {
				t.Fatalf("Derive: %v", err)
			}
			if want := `{"v":` + tc.want + `}`; string(out) != want {
				t.Fatalf("Derive = %s, want %s", out, want)
			}
			mustValidate(t, p, out)
		})
	}
}

func mustID(t testing.TB) ident.SchemaID {
	t.Helper()
	id, err := ident.ParseSchemaID("argprofile-test")
	if err != nil {
		t.Fatal(err)
	}
	return id
}
