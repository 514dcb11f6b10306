package schema_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/engine/value"
	"github.com/toolgate/toolgate/internal/jsonexact"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestValidateKindMatrix crosses every JSON kind with every schema kind:
// only the matching pair accepts, and there is no coercion (Section 10).
func TestValidateKindMatrix(t *testing.T) {
	t.Parallel()
	kinds := map[string]schema.Draft{
		"string":          str(),
		"resourceID":      resource(),
		"bool":            boolean(),
		"signedInteger":   signed(),
		"unsignedInteger": unsigned(),
		"enumeration":     enum("alpha"),
		"array":           array(str()),
		"object":          object(),
	}
	// Each JSON sample is valid for every schema kind that takes its JSON kind.
	samples := map[string]struct {
		json   string
		accept []string
	}{
		"JSON object":  {json: `{}`, accept: []string{"object"}},
		"JSON array":   {json: `[]`, accept: []string{"array"}},
		"JSON string":  {json: `"alpha"`, accept: []string{"string", "resourceID", "enumeration"}},
		"JSON true":    {json: `true`, accept: []string{"bool"}},
		"JSON false":   {json: `false`, accept: []string{"bool"}},
		"JSON integer": {json: `7`, accept: []string{"signedInteger", "unsignedInteger"}},
		// Text is never parsed as a number or Boolean; it stays text.
		"numeric text": {json: `"7"`, accept: []string{"string", "resourceID"}},
		"boolean text": {json: `"true"`, accept: []string{"string", "resourceID"}},
	}
	for kindName, kind := range kinds {
		s := mustNew(t, object(req("v", kind)))
		for sampleName, sample := range samples {
			t.Run(kindName+" against "+sampleName, func(t *testing.T) {
				t.Parallel()
				wantOK := false
				for _, k := range sample.accept {
					wantOK = wantOK || k == kindName
				}
				_, err := s.Validate(decode(t, `{"v":`+sample.json+`}`))
				if wantOK {
					testutil.RequireFault(t, err, nil, "")
					return
				}
				// A JSON string that is not a declared case is a domain
				// error; every other mismatch is a kind error.
				wantErr := error(fault.ErrKindMismatch)
				if kindName == "enumeration" && sample.json[0] == '"' {
					wantErr = fault.ErrUnknownToken
				}
				testutil.RequireFault(t, err, wantErr, "arguments.v")
			})
		}
	}
}

func TestValidateScalars(t *testing.T) {
	t.Parallel()
	mustStr := func(s string) value.Value {
		v, err := value.String(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	mustRes := func(s string) value.Value {
		r, err := ident.ParseResource(s)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := value.Resource(r)
		return v
	}
	mustEnum := func(s string) value.Value {
		n, err := ident.ParseName(s)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := value.Enum(n)
		return v
	}
	s1024, s1025 := strings.Repeat("x", 1024), strings.Repeat("x", 1025)
	r64, r65 := strings.Repeat("r", 64), strings.Repeat("r", 65)
	cases := map[string]struct {
		typ      schema.Draft
		json     string
		want     value.Value
		wantErr  error
		wantPath string
	}{
		"empty string accepts":                      {typ: str(), json: `""`, want: mustStr("")},
		"1024-octet string accepts":                 {typ: str(), json: `"` + s1024 + `"`, want: mustStr(s1024)},
		"1025-octet string rejects":                 {typ: str(), json: `"` + s1025 + `"`, wantErr: fault.ErrLimitExceeded},
		"leading and trailing spaces are preserved": {typ: str(), json: `"  a b  "`, want: mustStr("  a b  ")},
		"all printable ASCII accepts":               {typ: str(), json: `" !\"#$%&'()*+,-./0123456789:;<=>?@AZ[\\]^_` + "`" + `az{|}~"`, want: mustStr(" !\"#$%&'()*+,-./0123456789:;<=>?@AZ[\\]^_`az{|}~")},
		"newline rejects":                           {typ: str(), json: `"a\nb"`, wantErr: fault.ErrMalformed},
		"tab rejects":                               {typ: str(), json: `"a\tb"`, wantErr: fault.ErrMalformed},
		"unit separator 0x1F rejects":               {typ: str(), json: `"a\u001fb"`, wantErr: fault.ErrMalformed},
		"DEL 0x7F rejects":                          {typ: str(), json: `"a\u007fb"`, wantErr: fault.ErrMalformed},
		"embedded NUL rejects":                      {typ: str(), json: `"a\u0000b"`, wantErr: fault.ErrMalformed},
		"non-ASCII rejects":                         {typ: str(), json: `"caf\u00e9"`, wantErr: fault.ErrMalformed},
		"raw UTF-8 rejects":                         {typ: str(), json: "\"caf\xc3\xa9\"", wantErr: fault.ErrMalformed},
		"decomposed accent rejects":                 {typ: str(), json: `"e\u0301"`, wantErr: fault.ErrMalformed},
		"resource accepts":                          {typ: resource(), json: `"acct-1"`, want: mustRes("acct-1")},
		"64-octet resource accepts":                 {typ: resource(), json: `"` + r64 + `"`, want: mustRes(r64)},
		"65-octet resource rejects":                 {typ: resource(), json: `"` + r65 + `"`, wantErr: fault.ErrMalformed},
		"uppercase resource rejects":                {typ: resource(), json: `"Acct-1"`, wantErr: fault.ErrMalformed},
		"empty resource rejects":                    {typ: resource(), json: `""`, wantErr: fault.ErrMalformed},
		"resource with a slash rejects":             {typ: resource(), json: `"acct/1"`, wantErr: fault.ErrMalformed},
		"true accepts":                              {typ: boolean(), json: `true`, want: value.Bool(true)},
		"false accepts":                             {typ: boolean(), json: `false`, want: value.Bool(false)},
		"int64 minimum accepts":                     {typ: signed(), json: `-9223372036854775808`, want: value.Signed(-1 << 63)},
		"int64 maximum accepts":                     {typ: signed(), json: `9223372036854775807`, want: value.Signed(1<<63 - 1)},
		"int64 maximum plus one rejects":            {typ: signed(), json: `9223372036854775808`, wantErr: fault.ErrOutOfRange},
		"uint64 maximum as signed rejects":          {typ: signed(), json: `18446744073709551615`, wantErr: fault.ErrOutOfRange},
		"uint64 maximum accepts":                    {typ: unsigned(), json: `18446744073709551615`, want: value.Unsigned(1<<64 - 1)},
		"unsigned zero accepts":                     {typ: unsigned(), json: `0`, want: value.Unsigned(0)},
		"minus one as unsigned rejects":             {typ: unsigned(), json: `-1`, wantErr: fault.ErrOutOfRange},
		"int64 minimum as unsigned rejects":         {typ: unsigned(), json: `-9223372036854775808`, wantErr: fault.ErrOutOfRange},
		"declared case accepts":                     {typ: enum("chf", "usd"), json: `"usd"`, want: mustEnum("usd")},
		"case-folded case rejects":                  {typ: enum("chf", "usd"), json: `"USD"`, wantErr: fault.ErrUnknownToken},
		"case with whitespace rejects":              {typ: enum("chf", "usd"), json: `" usd"`, wantErr: fault.ErrUnknownToken},
		"undeclared case rejects":                   {typ: enum("chf", "usd"), json: `"eur"`, wantErr: fault.ErrUnknownToken},
		"empty case rejects":                        {typ: enum("chf", "usd"), json: `""`, wantErr: fault.ErrUnknownToken},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := mustNew(t, object(req("amount", tc.typ)))
			args, err := s.Validate(decode(t, `{"amount":`+tc.json+`}`))
			wantPath := ""
			if tc.wantErr != nil {
				wantPath = "arguments.amount"
			}
			testutil.RequireFault(t, err, tc.wantErr, wantPath)
			if tc.wantErr != nil {
				return
			}
			got, _ := args.Root().Lookup("amount")
			if !tc.want.Equal(got) {
				t.Errorf("value = %#v, want %#v", got, tc.want)
			}
		})
	}
}

func TestValidateObjects(t *testing.T) {
	t.Parallel()
	payments := object(
		req("recipient", str()),
		opt("memo", str()),
		opt("details", object(req("account", resource()), opt("note", str()))),
	)
	members := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf("%q:\"v\"", fname(i))
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	cases := map[string]struct {
		draft      schema.Draft
		json       string
		wantFields []string
		wantErr    error
		wantPath   string
	}{
		"required present, optional absent adds nothing": {
			draft: payments, json: `{"recipient":"Ada"}`, wantFields: []string{"recipient"},
		},
		"fields come out in name order": {
			draft: payments, json: `{"recipient":"Ada","memo":"m","details":{"account":"a"}}`,
			wantFields: []string{"details", "memo", "recipient"},
		},
		"missing required field names the declared field": {
			draft: payments, json: `{"memo":"m"}`, wantErr: fault.ErrMissing, wantPath: "arguments.recipient",
		},
		"missing nested required field": {
			draft: payments, json: `{"recipient":"Ada","details":{"note":"n"}}`,
			wantErr: fault.ErrMissing, wantPath: "arguments.details.account",
		},
		"unknown field rejects at the object": {
			draft: payments, json: `{"recipient":"Ada","extra":1}`, wantErr: fault.ErrUnknownField, wantPath: "arguments",
		},
		"unknown nested field rejects at the nested object": {
			draft: payments, json: `{"recipient":"Ada","details":{"account":"a","Account":"b"}}`,
			wantErr: fault.ErrUnknownField, wantPath: "arguments.details",
		},
		"unknown field outranks a missing required field": {
			draft: payments, json: `{"extra":1}`, wantErr: fault.ErrUnknownField, wantPath: "arguments",
		},
		"errors follow field-name order, not input order": {
			draft: payments, json: `{"recipient":7,"memo":7}`, wantErr: fault.ErrKindMismatch, wantPath: "arguments.memo",
		},
		"empty object schema accepts only {}": {
			draft: object(), json: `{}`, wantFields: []string{},
		},
		"empty object schema rejects any member": {
			draft: object(), json: `{"a":1}`, wantErr: fault.ErrUnknownField, wantPath: "arguments",
		},
		"64 input members accept": {
			draft: object(manyFields(64, str())...), json: members(64), wantFields: fieldNames(64),
		},
		"65 input members reject before other checks": {
			draft: object(manyFields(64, str())...), json: members(65), wantErr: fault.ErrLimitExceeded, wantPath: "arguments",
		},
		"a root that is not an object rejects": {
			draft: payments, json: `[{"recipient":"Ada"}]`, wantErr: fault.ErrKindMismatch, wantPath: "arguments",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			args, err := mustNew(t, tc.draft).Validate(decode(t, tc.json))
			testutil.RequireFault(t, err, tc.wantErr, tc.wantPath)
			if tc.wantErr != nil {
				if !args.IsZero() || args.Resources() != nil {
					t.Error("a rejection must return the zero Arguments")
				}
				return
			}
			got := []string{}
			for i := range args.Root().Len() {
				got = append(got, args.Root().Field(i).Name().String())
			}
			if diff := cmp.Diff(tc.wantFields, got); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}
}

func fieldNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fname(i)
	}
	return out
}

func TestValidateArrays(t *testing.T) {
	t.Parallel()
	elems := func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat("1,", n), ",") + "]" }
	d := object(
		opt("counts", array(unsigned())),
		opt("items", array(object(req("account", resource())))),
		opt("matrix", array(array(signed()))),
	)
	cases := map[string]struct {
		json     string
		wantJSON string
		wantErr  error
		wantPath string
	}{
		"empty array accepts": {json: `{"counts":[]}`, wantJSON: `{"counts":[]}`},
		"64 elements accept":  {json: `{"counts":` + elems(64) + `}`, wantJSON: `{"counts":` + elems(64) + `}`},
		"65 elements reject":  {json: `{"counts":` + elems(65) + `}`, wantErr: fault.ErrLimitExceeded, wantPath: "arguments.counts"},
		"order and duplicates are preserved": {
			json: `{"counts":[3,1,3,2]}`, wantJSON: `{"counts":[3,1,3,2]}`,
		},
		"element error names its index": {
			json:    `{"items":[{"account":"a"},{"account":"b"},{"account":"c"},{"account":"D"}]}`,
			wantErr: fault.ErrMalformed, wantPath: "arguments.items[3].account",
		},
		"nested array error names both indices": {
			json: `{"matrix":[[1],[2,3,"4"]]}`, wantErr: fault.ErrKindMismatch, wantPath: "arguments.matrix[1][2]",
		},
		"missing field inside an element": {
			json: `{"items":[{}]}`, wantErr: fault.ErrMissing, wantPath: "arguments.items[0].account",
		},
		"nested arrays round-trip": {
			json: `{"matrix":[[],[-1,0],[9223372036854775807]]}`, wantJSON: `{"matrix":[[],[-1,0],[9223372036854775807]]}`,
		},
	}
	s := mustNew(t, d)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			args, err := s.Validate(decode(t, tc.json))
			testutil.RequireFault(t, err, tc.wantErr, tc.wantPath)
			if tc.wantErr != nil {
				return
			}
			if diff := cmp.Diff(tc.wantJSON, string(renderJSON(args.Root()))); diff != "" {
				t.Errorf("rendered root (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateIsIndependentOfInputOrder(t *testing.T) {
	t.Parallel()
	s := mustNew(t, richDraft())
	a, err := s.Validate(decode(t, `{"recipient":"z","source":"s","amount":1,"currency":"usd","details":{"memo":"m","account":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Validate(decode(t, `{"details":{"account":"x","memo":"m"},"currency":"usd","amount":1,"source":"s","recipient":"z"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !a.Root().Equal(b.Root()) {
		t.Errorf("roots differ:\n%s\n%s", renderJSON(a.Root()), renderJSON(b.Root()))
	}
	if diff := cmp.Diff(resourceStrings(a.Resources()), resourceStrings(b.Resources())); diff != "" {
		t.Errorf("resources (-a +b):\n%s", diff)
	}
}

func TestValidateAcceptsTheDeepestSchema(t *testing.T) {
	t.Parallel()
	s := mustNew(t, chain(8))
	js := strings.Repeat(`{"n":`, 7) + `"leaf"` + strings.Repeat(`}`, 7)
	args, err := s.Validate(decode(t, js))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(renderJSON(args.Root())); got != js {
		t.Errorf("root = %s, want %s", got, js)
	}
	// One level too shallow an input is a kind mismatch at the deepest field.
	_, err = s.Validate(decode(t, strings.Repeat(`{"n":`, 6)+`"leaf"`+strings.Repeat(`}`, 6)))
	testutil.RequireFault(t, err, fault.ErrKindMismatch, "arguments"+strings.Repeat(".n", 6))
}

func TestValidateRejectsTheZeroJSONValue(t *testing.T) {
	t.Parallel()
	_, err := mustNew(t, object()).Validate(jsonexact.Value{})
	testutil.RequireFault(t, err, fault.ErrKindMismatch, "arguments")
}

// TestValidateErrorsNeverEchoInput proves Section 38's rule for every kind of
// rejection: the error text names declared fields at most, never input.
func TestValidateErrorsNeverEchoInput(t *testing.T) {
	t.Parallel()
	const secret = "secret-value-123"
	s := mustNew(t, richDraft())
	base := `"recipient":"a","source":"b","amount":1,"currency":"usd"`
	inputs := map[string]string{
		"as an unknown field name":        `{` + base + `,"` + secret + `":1}`,
		"as an unknown nested field name": `{` + base + `,"details":{"` + secret + `":"x"}}`,
		"as an enumeration value":         `{"recipient":"a","source":"b","amount":1,"currency":"` + secret + `"}`,
		"as a malformed resource":         `{"recipient":"a","source":"` + strings.ToUpper(secret) + `","amount":1,"currency":"usd"}`,
		"as a string with a control":      `{"recipient":"` + secret + `\n","source":"b","amount":1,"currency":"usd"}`,
		"as an oversized string":          `{"recipient":"` + strings.Repeat(secret, 100) + `","source":"b","amount":1,"currency":"usd"}`,
		"as a string for an integer":      `{"recipient":"a","source":"b","amount":"` + secret + `","currency":"usd"}`,
		"as an array element":             `{` + base + `,"approvers":["ok","` + secret + `!"]}`,
	}
	for name, js := range inputs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := s.Validate(decode(t, js))
			if err == nil {
				t.Fatal("input unexpectedly accepted")
			}
			var fe *fault.Error
			if !errors.As(err, &fe) {
				t.Fatalf("error %T is not a *fault.Error", err)
			}
			if strings.Contains(strings.ToLower(err.Error()), secret) {
				t.Errorf("error echoes input: %v", err)
			}
		})
	}
}

func TestArgumentsDigestCoversContent(t *testing.T) {
	t.Parallel()
	s := mustNew(t, richDraft())
	sum := func(js string) string {
		args, err := s.Validate(decode(t, js))
		if err != nil {
			t.Fatal(err)
		}
		b := digestBuilder()
		args.WriteDigest(b)
		return b.Sum().String()
	}
	a := sum(`{"recipient":"a","source":"b","amount":1,"currency":"usd"}`)
	if a != sum(`{"currency":"usd","amount":1,"source":"b","recipient":"a"}`) {
		t.Error("member order changed the digest")
	}
	for _, other := range []string{
		`{"recipient":"a","source":"c","amount":1,"currency":"usd"}`,
		`{"recipient":"a","source":"b","amount":2,"currency":"usd"}`,
		`{"recipient":"a","source":"b","amount":1,"currency":"usd","urgent":false}`,
		`{"recipient":"a ","source":"b","amount":1,"currency":"usd"}`,
	} {
		if sum(other) == a {
			t.Errorf("different arguments %s share a digest", other)
		}
	}
	var zero schema.Arguments
	b := digestBuilder()
	zero.WriteDigest(b)
	if b.Sum().String() == a {
		t.Error("zero Arguments share a digest with validated ones")
	}
}

func digestBuilder() *digest.Builder { return digest.New("toolgate.test.arguments/1") }
