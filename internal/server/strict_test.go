package server

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestStrictNamesAreTheWireTypes: the decoders switch on the index of a
// member name, so each list is the type's JSON names in field order.
func TestStrictNamesAreTheWireTypes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		names []string
		v     any
	}{
		{namesAuthorizeRequest, client.AuthorizeRequest{}}, {namesHostAuthority, client.HostAuthorityRef{}},
		{namesProposal, client.Proposal{}}, {namesRegistry, client.RegistrySelection{}},
		{namesPolicy, client.PolicySelection{}}, {namesFacts, client.Facts{}},
		{namesAssessment, client.Assessment{}}, {namesSecurity, client.SecurityContext{}},
		{namesIdentity, client.Identity{}}, {namesWindow, client.Window{}}, {namesIntent, client.Intent{}},
		{namesDelegation, client.Delegation{}}, {namesProvenance, client.Provenance{}},
		{namesRecord, client.ProvenanceRecord{}}, {namesInfluence, client.Influence{}},
		{namesCollection, client.InfluenceCollection{}}, {namesNode, client.InfluenceNode{}},
		{namesValidate, client.ValidateRequest{}}, {namesExpectations, client.Expectations{}},
	}
	for _, tc := range tests {
		typ := reflect.TypeOf(tc.v)
		var want []string
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			want = append(want, name)
		}
		if !slices.Equal(tc.names, want) || len(want) > 32 {
			t.Errorf("%s: names %v, want %v", typ.Name(), tc.names, want)
		}
	}
}

// seeds are complete request bodies: the API examples, every optional
// member filled, and a validate request.
func seeds(t testing.TB) (authorize, validate [][]byte) {
	dir := filepath.Join(testutil.RepoRoot(t), "examples", "api")
	for _, name := range []string{"authorize-allow.json", "authorize-confirm.json", "authorize-deny.json"} {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		authorize = append(authorize, raw)
	}
	var full client.AuthorizeRequest
	if err := json.Unmarshal(authorize[0], &full); err != nil {
		t.Fatal(err)
	}
	w := client.Window{IssuedAt: 1, NotBefore: 2, ExpiresAt: 3}
	full.Facts.SecurityContext.Identity.SessionIndependent = true
	full.Facts.SecurityContext.Identity.Delegation = "d\u00e9l\\\"\U0001F600"
	full.Facts.Intent.Binding = json.RawMessage(`{"a":[1,2.5e3,null,true,false,{"b":"\u00e9"}],"a":{}}`)
	full.Facts.Delegation = &client.Delegation{ID: "d", Subject: "s", Validity: w}
	full.Facts.Provenance = &client.Provenance{Records: []client.ProvenanceRecord{{ID: "r", Source: "s", Custody: "c",
		Transformations: []string{"t"}, Verification: "v"}, {}}, Validity: w}
	full.Facts.Influence = &client.Influence{Collections: []client.InfluenceCollection{{Boundary: "b", Completeness: "c", Evidence: "e"}},
		Nodes: []client.InfluenceNode{{ID: "n", Kind: "k", Boundary: "b", Parents: []string{}}}, Validity: w}
	b, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	authorize = append(authorize, b)
	exp, err := os.ReadFile(filepath.Join(dir, "expectations-allow.json"))
	if err != nil {
		t.Fatal(err)
	}
	var e client.Expectations
	if err := json.Unmarshal(exp, &e); err != nil {
		t.Fatal(err)
	}
	e.IntentBinding = json.RawMessage(`{"x":1}`)
	b, err = json.Marshal(client.ValidateRequest{Artifact: "aGVhZGVy.cmVjb3Jk.c2ln", Expectations: e})
	if err != nil {
		t.Fatal(err)
	}
	validate = append(validate, b)
	return authorize, validate
}

// differ reports how the strict decoder and the reference differ on body:
// accepting or rejecting differently, or decoding different values.
func differ[T any](body []byte, strict func(string, *T) error) string {
	var got, want T
	errGot, errWant := strict(string(body), &got), refDecode(body, &want)
	switch {
	case (errGot == nil) != (errWant == nil):
		return "strict: " + errString(errGot) + "; reference: " + errString(errWant)
	case errGot == nil && !reflect.DeepEqual(got, want):
		return "the decoded values differ"
	}
	if errGot != nil {
		var fe *fault.Error
		if !errors.As(errGot, &fe) {
			return "the strict decoder's error is not a *fault.Error"
		}
	}
	return ""
}

func errString(err error) string {
	if err == nil {
		return "accepted"
	}
	return err.Error()
}

func TestStrictDecoderAgreesWithTheReference(t *testing.T) {
	t.Parallel()
	authorize, validate := seeds(t)
	for i, b := range authorize {
		if d := differ(b, decodeAuthorize); d != "" {
			t.Errorf("authorize seed %d: %s", i, d)
		}
		var v client.AuthorizeRequest
		if err := decodeAuthorize(string(b), &v); err != nil {
			t.Errorf("authorize seed %d rejects: %v", i, err)
		}
	}
	for i, b := range validate {
		if d := differ(b, decodeValidate); d != "" {
			t.Errorf("validate seed %d: %s", i, d)
		}
	}
}

// TestStrictDecoderFaults: one fault in an otherwise valid body gets the
// former code and path.
func TestStrictDecoderFaults(t *testing.T) {
	t.Parallel()
	authorize, _ := seeds(t)
	full := string(authorize[3])
	tests := map[string]string{
		"duplicate top":         strings.Replace(full, `{"hostAuthority"`, `{"decisionID":"x","hostAuthority"`, 1),
		"duplicate nested":      strings.Replace(full, `"subject":"alice"`, `"subject":"alice","subject":"bob"`, 1),
		"duplicate in array":    strings.Replace(full, `"custody":"c"`, `"custody":"c","custody":"c"`, 1),
		"null":                  strings.Replace(full, `"toolID":"payments.submit"`, `"toolID":null`, 1),
		"null in array":         strings.Replace(full, `"methods":[`, `"methods":[null,`, 1),
		"null window":           strings.Replace(full, `"issuedAt":1,`, `"issuedAt":null,`, 1),
		"null object":           strings.Replace(full, `"delegation":{"id":"d","subject":"s","validity":{"issuedAt":1,"notBefore":2,"expiresAt":3}}`, `"delegation":null`, 1),
		"unknown top":           strings.Replace(full, `{"hostAuthority"`, `{"Surprise":1,"hostAuthority"`, 1),
		"miscased nested":       strings.Replace(full, `"assurance"`, `"Assurance"`, 1),
		"miscased in array":     strings.Replace(full, `"custody"`, `"Custody"`, 1),
		"string for number":     strings.Replace(full, `"maxLifetimeSeconds":60`, `"maxLifetimeSeconds":"60"`, 1),
		"negative number":       strings.Replace(full, `"maxLifetimeSeconds":60`, `"maxLifetimeSeconds":-60`, 1),
		"fraction":              strings.Replace(full, `"maxLifetimeSeconds":60`, `"maxLifetimeSeconds":6.5`, 1),
		"overflow":              strings.Replace(full, `"maxLifetimeSeconds":60`, `"maxLifetimeSeconds":18446744073709551616`, 1),
		"number for string":     strings.Replace(full, `"decisionID":"decision-20261130-0001"`, `"decisionID":1`, 1),
		"object for string":     strings.Replace(full, `"decisionID":"decision-20261130-0001"`, `"decisionID":{}`, 1),
		"string for object":     strings.Replace(full, `"registry":{"snapshotID":"primary-registry","generation":"1"}`, `"registry":"x"`, 1),
		"number in array":       strings.Replace(full, `"methods":[`, `"methods":[1,`, 1),
		"string for array":      `{"requestedCapabilities":"x"}`,
		"string for bool":       strings.Replace(full, `"sessionIndependent":true`, `"sessionIndependent":"true"`, 1),
		"number in window":      strings.Replace(full, `"notBefore":2`, `"notBefore":"2"`, 1),
		"not an object":         `[1]`,
		"numbers":               `1 2 3`,
		"numbers then garbage":  `1 2 x`,
		"a string":              `"x"`,
		"null body":             `null`,
		"empty":                 ``,
		"trailing":              full + ` {}`,
		"trailing garbage":      full + ` x`,
		"truncated":             full[:len(full)-1],
		"bad raw":               strings.Replace(full, `"arguments":{`, `"arguments":{,`, 1),
		"bad escape":            strings.Replace(full, `"decisionID":"`, `"decisionID":"\x`, 1),
		"leading zero":          strings.Replace(full, `"maxLifetimeSeconds":60`, `"maxLifetimeSeconds":060`, 1),
		"raw null":              `{"proposal":{"arguments":null},"facts":{"intent":{"binding":null}}}`,
		"escaped name":          strings.Replace(full, `"decisionID"`, `"decision\u0049D"`, 1),
		"control character":     strings.Replace(full, `"decisionID":"`, "\"decisionID\":\"\t", 1),
		"lone surrogate":        strings.Replace(full, `"decisionID":"`, `"decisionID":"\ud800`, 1),
		"surrogate pair":        strings.Replace(full, `"decisionID":"`, `"decisionID":"\ud83d\ude00`, 1),
		"empty arrays":          strings.Replace(full, `"methods":["knowledgeFactor","possessionFactor"]`, `"methods":[]`, 1),
		"whitespace everywhere": strings.Join(strings.Split(full, ","), " ,\n\t "),
	}
	for name, body := range tests {
		var got client.AuthorizeRequest
		var want client.AuthorizeRequest
		errGot, errWant := decodeAuthorize(body, &got), refDecode([]byte(body), &want)
		if fault.CodeOf(errGot) != fault.CodeOf(errWant) || pathOf(errGot) != pathOf(errWant) {
			t.Errorf("%s: strict %s; reference %s", name, errString(errGot), errString(errWant))
		}
		if errGot == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the decoded values differ", name)
		}
	}
}

func pathOf(err error) string {
	var fe *fault.Error
	if errors.As(err, &fe) {
		return fe.Path
	}
	return ""
}

// FuzzStrictDecoder checks the single-pass decoder against the former two
// passes: the same bodies accept, with the same values.
//
//	go test ./internal/server -run '^$' -fuzz FuzzStrictDecoder -fuzztime 60s
func FuzzStrictDecoder(f *testing.F) {
	authorize, validate := seeds(f)
	for _, b := range authorize {
		f.Add(false, b)
	}
	for _, b := range validate {
		f.Add(true, b)
	}
	f.Add(false, []byte(`{"decisionID":"a","decisionID":"b"}`))
	f.Add(false, []byte(`{"hostAuthority":{"namespace":"\u00e9\ud800"},"proposal":{"arguments":[{"a":1,"a":null}]}}`))
	f.Add(true, []byte(`{"expectations":{"identity":{"sessionIndependent":false},"capabilities":[]}} `))
	f.Fuzz(func(t *testing.T, isValidate bool, body []byte) {
		if !utf8.Valid(body) {
			return // readBody rejects it before either decoder
		}
		var d string
		if isValidate {
			d = differ(body, decodeValidate)
		} else {
			d = differ(body, decodeAuthorize)
		}
		if d != "" {
			t.Error(d)
		}
	})
}
