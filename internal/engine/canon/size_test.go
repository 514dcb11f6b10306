package canon_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/toolgate/toolgate/internal/engine/canon"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/value"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

func TestEncodeSizeBound(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		total   int
		wantErr bool
	}{
		"a request of exactly 65,536 octets is accepted":   {total: canon.MaxSize},
		"a request of 65,535 octets is accepted":           {total: canon.MaxSize - 1},
		"a request whose last append makes 65,537 rejects": {total: canon.MaxSize + 1, wantErr: true},
		"a request 400 octets over the bound rejects":      {total: canon.MaxSize + 400, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := canon.Encode(sizedEnvelope(t, tc.total))
			if tc.wantErr {
				if !errors.Is(err, fault.ErrLimitExceeded) || got != nil {
					t.Fatalf("Encode = %d octets, %v; want nil, LimitExceeded", len(got), err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			if len(got) != tc.total {
				t.Errorf("len = %d, want %d", len(got), tc.total)
			}
			if _, err := decodeEnvelope(got); err != nil {
				t.Errorf("strict decoder rejects the encoding: %v", err)
			}
		})
	}
}

// TestEncodeRejectsOversizeBeforeBuilding shows that the bound is checked
// before any output exists. Rejecting a 65,537-octet request allocates only
// the error: no buffer is grown and no partial result is built.
//
// Not parallel: testing.AllocsPerRun refuses to run in parallel tests.
func TestEncodeRejectsOversizeBeforeBuilding(t *testing.T) {
	env := sizedEnvelope(t, canon.MaxSize+1)
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := canon.Encode(env); err == nil {
			t.Fatal("Encode accepted an oversized request")
		}
	})
	if allocs > 1 {
		t.Errorf("rejecting allocated %v times per call, want at most 1 (the error)", allocs)
	}
	ok := sizedEnvelope(t, canon.MaxSize)
	allocs = testing.AllocsPerRun(20, func() {
		if _, err := canon.Encode(ok); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 1 {
		t.Errorf("accepting allocated %v times per call, want exactly 1 (the pre-sized output)", allocs)
	}
}

func TestAppendValueFragmentBound(t *testing.T) {
	t.Parallel()
	// An array of 64 strings: 5 + 64*5 octets of overhead plus the text.
	fragment := func(total int) value.Value {
		text := total - 5 - 64*5
		elems := make([]value.Value, 64)
		for i := range elems {
			n := min(text, value.MaxStringLen)
			text -= n
			elems[i] = str(strings.Repeat("y", n))
		}
		return array(elems...)
	}
	cases := map[string]struct {
		total   int
		wantErr bool
	}{
		"a 65,536-octet fragment is accepted": {total: canon.MaxSize},
		"a 65,537-octet fragment is rejected": {total: canon.MaxSize + 1, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// dst has a prefix and poisoned spare capacity. The bound
			// ignores the prefix, and a rejection must leave the spare
			// capacity untouched.
			dst := make([]byte, 3, 3+canon.MaxSize+16)
			copy(dst, "pre")
			spare := dst[3:cap(dst)]
			for i := range spare {
				spare[i] = 0xEE
			}
			got, err := canon.AppendValue(dst, fragment(tc.total))
			if tc.wantErr {
				if !errors.Is(err, fault.ErrLimitExceeded) || got != nil {
					t.Fatalf("AppendValue = %d octets, %v; want nil, LimitExceeded", len(got), err)
				}
				if bytes.Count(spare, []byte{0xEE}) != len(spare) {
					t.Error("a rejected append wrote into dst's spare capacity")
				}
				return
			}
			if err != nil {
				t.Fatalf("AppendValue: %v", err)
			}
			if len(got) != 3+tc.total || string(got[:3]) != "pre" {
				t.Errorf("got %d octets starting %q, want %d starting \"pre\"", len(got), got[:3], 3+tc.total)
			}
			if &got[0] != &dst[0] {
				t.Error("AppendValue reallocated although dst had room")
			}
		})
	}
}

func TestEncodeRejectsEnvelopesWithoutV1Encoding(t *testing.T) {
	t.Parallel()
	oversized := sizedRoot(t, canon.MaxSize+1)
	cases := map[string]struct {
		mutate  func(*canon.Envelope)
		wantErr *fault.Error
	}{
		"missing snapshot identity": {
			mutate:  func(e *canon.Envelope) { e.SnapshotID = ident.SnapshotID{} },
			wantErr: &fault.Error{Code: fault.Missing, Path: "snapshotID"},
		},
		"missing snapshot generation": {
			mutate:  func(e *canon.Envelope) { e.SnapshotGeneration = ident.Generation{} },
			wantErr: &fault.Error{Code: fault.Missing, Path: "snapshotGeneration"},
		},
		"missing tool identifier": {
			mutate:  func(e *canon.Envelope) { e.ToolID = ident.ToolID{} },
			wantErr: &fault.Error{Code: fault.Missing, Path: "toolID"},
		},
		"missing tool version": {
			mutate:  func(e *canon.Envelope) { e.ToolVersion = ident.Generation{} },
			wantErr: &fault.Error{Code: fault.Missing, Path: "toolVersion"},
		},
		"missing definition identity": {
			mutate:  func(e *canon.Envelope) { e.DefinitionID = ident.DefinitionID{} },
			wantErr: &fault.Error{Code: fault.Missing, Path: "definitionID"},
		},
		"missing schema identity": {
			mutate:  func(e *canon.Envelope) { e.SchemaID = ident.SchemaID{} },
			wantErr: &fault.Error{Code: fault.Missing, Path: "schemaID"},
		},
		"zero schema version": {
			mutate:  func(e *canon.Envelope) { e.SchemaVersion = 0 },
			wantErr: &fault.Error{Code: fault.Unsupported, Path: "schemaVersion"},
		},
		"schema version 2": {
			mutate:  func(e *canon.Envelope) { e.SchemaVersion = 2 },
			wantErr: &fault.Error{Code: fault.Unsupported, Path: "schemaVersion"},
		},
		"null root": {
			mutate:  func(e *canon.Envelope) { e.Root = value.Value{} },
			wantErr: &fault.Error{Code: fault.Missing, Path: "root"},
		},
		"string root": {
			mutate:  func(e *canon.Envelope) { e.Root = str("x") },
			wantErr: &fault.Error{Code: fault.KindMismatch, Path: "root"},
		},
		"array root": {
			mutate:  func(e *canon.Envelope) { e.Root = array() },
			wantErr: &fault.Error{Code: fault.KindMismatch, Path: "root"},
		},
		"missing rows are reported in row order, before size": {
			mutate: func(e *canon.Envelope) {
				*e = canon.Envelope{SchemaVersion: vocab.Version(9), Root: oversized}
			},
			wantErr: &fault.Error{Code: fault.Missing, Path: "snapshotID"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			env := fixtureEnvelope(t)
			tc.mutate(&env)
			got, err := canon.Encode(env)
			if got != nil {
				t.Errorf("Encode returned %d octets with an error", len(got))
			}
			var fe *fault.Error
			if !errors.As(err, &fe) {
				t.Fatalf("Encode error %v is not a *fault.Error", err)
			}
			if diff := cmp.Diff(tc.wantErr, fe, cmpopts.IgnoreFields(fault.Error{}, "Rule")); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEncodeIsDeterministic checks that one envelope always gives the same
// octets, and that the output owns its memory.
func TestEncodeIsDeterministic(t *testing.T) {
	t.Parallel()
	env := sizedEnvelope(t, 40000)
	a, errA := canon.Encode(env)
	b, errB := canon.Encode(env)
	if errA != nil || errB != nil || !bytes.Equal(a, b) {
		t.Fatalf("two encodings differ (errors %v, %v)", errA, errB)
	}
	a[len(a)-1] ^= 0xFF
	if c, _ := canon.Encode(env); !bytes.Equal(b, c) {
		t.Error("changing one result changed a later encoding")
	}
}
