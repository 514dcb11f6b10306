package argprofile_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/jsonexact"
)

// FuzzDerive feeds arbitrary argument bytes to the sample profile: Derive
// never panics; an accepted call is accepted by the core against the
// profile's Schema, derives the same octets again, and derives the same
// octets from its compact re-spelling (the same JSON value); a refusal
// returns nothing and never quotes the input.
func FuzzDerive(f *testing.F) {
	f.Add([]byte(sampleCall))
	f.Add([]byte(`{"entityType":"Person","query":"","since":null,"filter":[1.5e3,{"a":null}],"minScore":1}`))
	f.Add([]byte(`{"entityType":"In Progress","query":"\u00e9\n","label":"\\u{41}","tags":[]}`))
	f.Add([]byte(`{"entityType":1,"query":{},"max_results":-0,"minScore":1.000}`))
	f.Add([]byte(`{"a":1,"a":2}`))
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
	})
}
