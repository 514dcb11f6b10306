package jsonexact_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/toolgate/toolgate/internal/jsonexact"
)

// FuzzDecode checks the properties that make Decode safe on untrusted
// input: it never panics, accepts only valid JSON that means the same to
// encoding/json, round-trips through AppendJSON, and fails only with a known
// typed error.
func FuzzDecode(f *testing.F) {
	for _, input := range differentialInputs() {
		if len(input) <= 4096 {
			f.Add([]byte(input))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := jsonexact.Limits{MaxDepth: 64, MaxBytes: 1 << 16}
		v, err := jsonexact.Decode(data, lim)
		if err != nil {
			var e *jsonexact.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T) is not a *jsonexact.Error", err, err)
			}
			if !knownCode(e.Code) || e.Code == jsonexact.CodeWrongKind {
				t.Fatalf("Decode returned code %v", e.Code)
			}
			if e.Offset < 0 || e.Offset > int64(len(data)) {
				t.Fatalf("offset %d outside input of length %d", e.Offset, len(data))
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("Decode accepted input that json.Valid rejects")
		}
		checkSameMeaning(t, string(data), v)
		out := v.AppendJSON(nil)
		w, err := jsonexact.Decode(out, lim)
		if err != nil {
			t.Fatalf("Decode(AppendJSON(v)) error: %v", err)
		}
		if !v.Equal(w) {
			t.Fatalf("Decode(AppendJSON(v)) is not Equal to v")
		}
	})
}
