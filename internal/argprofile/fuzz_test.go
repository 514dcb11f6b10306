package argprofile_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/argprofile"
	"github.com/toolgate/toolgate/internal/jsonexact"
)

// FuzzDerive feeds arbitrary argument bytes to the sample profile: Derive
// never panics; an accepted call is accepted by the core against the
// profile's Schema, derives the same octets again, and derives the same
// octets from its compact re-spelling (the same JSON value), and its
// filter (json, kinds [object]) is an object; a refusal returns nothing
// and never quotes the input.
func FuzzDerive(f *testing.F) {
	f.Add([]byte(sampleCall))
	f.Add([]byte(`{"entityType":"Person","query":"","since":null,"filter":[1.5e3,{"a":null}],"minScore":1}`))
	f.Add([]byte(`{"entityType":"In Progress","query":"\u00e9\n","label":"\\u{41}","tags":[]}`))
	f.Add([]byte(`{"entityType":1,"query":{},"max_results":-0,"minScore":1.000}`))
	f.Add([]byte(`{"a":1,"a":2}`))
	f.Add([]byte(`{"entityType":"Person","query":"q","filter":{}}`))
	f.Add([]byte(`{"entityType":"Person","query":"q","filter":{"a":[5]}}`))
	f.Add([]byte(`{"entityType":"Person","query":"q","filter":[]}`))
	f.Add([]byte(`{"entityType":"Person","query":"q","filter":5}`))
	f.Add([]byte(`{"entityType":"Person","query":"q","filter":null}`))
	f.Add([]byte(`{"entityType":"Person","query":"q","filter":"{}"}`))
	p := sampleProfile(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		out, err := p.Derive(raw)
		if err != nil {
			if out != nil {
				t.Fatal("a refusal returned output")
			}
			if len(raw) >= 12 && strings.Contains(err.Error(), string(raw)) {
				t.Fatal("the error quotes the input")
			}
			return
		}
		mustValidate(t, p, out)
		again, err := p.Derive(raw)
		if err != nil || !bytes.Equal(out, again) {
			t.Fatalf("not deterministic: %s vs %s (%v)", out, again, err)
		}
		v, err := jsonexact.DecodeAny(raw, jsonexact.Limits{})
		if err != nil {
			t.Fatalf("accepted what DecodeAny refuses: %v", err)
		}
		respelled, err := p.Derive(v.AppendJSON(nil))
		if err != nil || !bytes.Equal(out, respelled) {
			t.Fatalf("the compact spelling derives differently: %s vs %s (%v)", out, respelled, err)
		}
		for i := range v.Len() {
			if m := v.MemberAt(i); m.Name == "filter" && m.Value.Kind() != jsonexact.Object {
				t.Fatalf("a filter of kind %v was accepted; its kinds are [object]", m.Value.Kind())
			}
		}
	})
}

// FuzzDeriveWiderPattern feeds arbitrary argument bytes to a string node
// whose pattern uses the printable-ASCII dialect ('.', \s, \S, \D, a
// negated class): a value is accepted exactly when it is printable ASCII
// and matches the pattern as ECMA-262 reads it there, spelled in the
// dialect that holds for any text.
func FuzzDeriveWiderPattern(f *testing.F) {
	for _, s := range []string{`{"v":"ab c.x"}`, `{"v":"a\tb.x"}`, `{"v":"a\u2028b.x"}`, `{"v":"\u00e9b c.1"}`, `{"v":"1 .x"}`, `{"v":"ab.\r"}`} {
		f.Add([]byte(s))
	}
	const wider, ecma = `^[^\d]\S?\s?.\.\D*$`, `^[ -/:-~][!-~]?[ ]?[ -~]\.[ -/:-~]*$`
	p := oneMember(f, `{choice: string, pattern: '`+wider+`'}`)
	re := regexp.MustCompile(ecma)
	f.Fuzz(func(t *testing.T, raw []byte) {
		var v struct{ V *string }
		if json.Unmarshal(raw, &v) != nil || v.V == nil {
			return
		}
		if _, err := jsonexact.DecodeAny(raw, jsonexact.Limits{}); err != nil {
			return // not one exact JSON value: Derive refuses it (FuzzDerive)
		}
		_, err := p.Derive(raw)
		ascii := true
		for i := 0; i < len(*v.V); i++ {
			ascii = ascii && (*v.V)[i] >= 0x20 && (*v.V)[i] <= 0x7e
		}
		want := ascii && len(*v.V) <= 1024 && re.MatchString(*v.V)
		if (err == nil) != want && !errors.Is(err, &argprofile.Error{Code: argprofile.CodeUnknownMember}) && !errors.Is(err, &argprofile.Error{Code: argprofile.CodeDuplicate}) {
			t.Fatalf("%q: accepted %t, ECMA-262 on printable ASCII says %t (%v)", *v.V, err == nil, want, err)
		}
	})
}
