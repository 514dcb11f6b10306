package consume_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/consume"
)

const binding = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestKeyValidate(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		key     consume.Key
		wantErr *consume.KeyError
	}{
		"a UUID domain":                        {key: consume.Key{Domain: "3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b", Binding: binding}},
		"a one-character domain":               {key: consume.Key{Domain: "a", Binding: binding}},
		"a 63-character domain":                {key: consume.Key{Domain: strings.Repeat("a", 63), Binding: binding}},
		"a domain of digits":                   {key: consume.Key{Domain: "0", Binding: binding}},
		"an empty domain":                      {key: consume.Key{Binding: binding}, wantErr: &consume.KeyError{Field: "domain", Reason: consume.ReasonEmpty}},
		"a 64-character domain":                {key: consume.Key{Domain: strings.Repeat("a", 64), Binding: binding}, wantErr: &consume.KeyError{Field: "domain", Reason: consume.ReasonTooLong}},
		"an uppercase domain":                  {key: consume.Key{Domain: "Payments", Binding: binding}, wantErr: &consume.KeyError{Field: "domain", Reason: consume.ReasonGrammar}},
		"a domain with a dot":                  {key: consume.Key{Domain: "a.b", Binding: binding}, wantErr: &consume.KeyError{Field: "domain", Reason: consume.ReasonGrammar}},
		"a domain with a slash":                {key: consume.Key{Domain: "a/b", Binding: binding}, wantErr: &consume.KeyError{Field: "domain", Reason: consume.ReasonGrammar}},
		"a domain with a non-ASCII letter":     {key: consume.Key{Domain: "caf\u00e9", Binding: binding}, wantErr: &consume.KeyError{Field: "domain", Reason: consume.ReasonGrammar}},
		"a domain beginning with a dash":       {key: consume.Key{Domain: "-a", Binding: binding}, wantErr: &consume.KeyError{Field: "domain", Reason: consume.ReasonEdge}},
		"a domain ending with a dash":          {key: consume.Key{Domain: "a-", Binding: binding}, wantErr: &consume.KeyError{Field: "domain", Reason: consume.ReasonEdge}},
		"an empty binding":                     {key: consume.Key{Domain: "a"}, wantErr: &consume.KeyError{Field: "binding", Reason: consume.ReasonLength}},
		"a 63-digit binding":                   {key: consume.Key{Domain: "a", Binding: binding[:63]}, wantErr: &consume.KeyError{Field: "binding", Reason: consume.ReasonLength}},
		"a 65-digit binding":                   {key: consume.Key{Domain: "a", Binding: binding + "0"}, wantErr: &consume.KeyError{Field: "binding", Reason: consume.ReasonLength}},
		"an uppercase hex binding":             {key: consume.Key{Domain: "a", Binding: strings.ToUpper(binding)}, wantErr: &consume.KeyError{Field: "binding", Reason: consume.ReasonGrammar}},
		"a binding with a g":                   {key: consume.Key{Domain: "a", Binding: "g" + binding[1:]}, wantErr: &consume.KeyError{Field: "binding", Reason: consume.ReasonGrammar}},
		"a prefixed binding of the right size": {key: consume.Key{Domain: "a", Binding: "sha256:" + binding[7:]}, wantErr: &consume.KeyError{Field: "binding", Reason: consume.ReasonGrammar}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := tc.key.Validate()
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			var got *consume.KeyError
			if !errors.As(err, &got) {
				t.Fatalf("Validate() = %v, want a *KeyError", err)
			}
			if diff := cmp.Diff(tc.wantErr, got); diff != "" {
				t.Errorf("KeyError (-want +got):\n%s", diff)
			}
			if !errors.Is(err, consume.ErrInvalidKey) || errors.Is(err, consume.ErrConsumed) || errors.Is(err, consume.ErrUnavailable) {
				t.Errorf("%v must match ErrInvalidKey only", err)
			}
		})
	}
}

func TestParseKey(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		in        string
		wantKey   consume.Key
		wantField string
	}{
		"the object name form":        {in: "a-1." + binding, wantKey: consume.Key{Domain: "a-1", Binding: binding}},
		"no dot":                      {in: "a" + binding, wantField: "key"},
		"two dots":                    {in: "a.b." + binding, wantField: "key"},
		"empty":                       {in: "", wantField: "key"},
		"an empty domain":             {in: "." + binding, wantField: "domain"},
		"a short binding":             {in: "a." + binding[1:], wantField: "binding"},
		"a trailing newline":          {in: "a." + binding + "\n", wantField: "binding"},
		"an uppercase domain":         {in: "A." + binding, wantField: "domain"},
		"a binding first, then a dot": {in: binding + ".a", wantField: "domain"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := consume.ParseKey(tc.in)
			if tc.wantField == "" {
				if err != nil {
					t.Fatalf("ParseKey: %v", err)
				}
				if diff := cmp.Diff(tc.wantKey, got); diff != "" {
					t.Errorf("ParseKey (-want +got):\n%s", diff)
				}
				if got.String() != tc.in {
					t.Errorf("String() = %q, want %q", got.String(), tc.in)
				}
				return
			}
			var ke *consume.KeyError
			if !errors.As(err, &ke) || ke.Field != tc.wantField {
				t.Fatalf("ParseKey error = %v, want a *KeyError on %s", err, tc.wantField)
			}
			if got != (consume.Key{}) {
				t.Errorf("ParseKey returned %v with an error, want the zero Key", got)
			}
		})
	}
}

// TestKeyErrorsNeverEchoInput sends marked malformed input through every
// entry point: no message may contain it.
func TestKeyErrorsNeverEchoInput(t *testing.T) {
	t.Parallel()
	const mark = "zzcanaryzz"
	inputs := []func() error{
		func() error { return consume.Key{Domain: mark + "-", Binding: binding}.Validate() },
		func() error { return consume.Key{Domain: strings.ToUpper(mark), Binding: binding}.Validate() },
		func() error { return consume.Key{Domain: "a", Binding: mark + binding[len(mark):]}.Validate() },
		func() error { _, err := consume.ParseKey(mark + "." + mark); return err },
		func() error { _, err := consume.ParseKey(mark); return err },
		func() error { return consume.ValidateAuthorizationID(strings.ToUpper(mark)) },
		func() error { return consume.ValidateAuthorizationID(mark + strings.Repeat("x", 64)) },
		func() error { return consume.ValidateIdentities("a", [3]string{"a", mark + "-", "c"}) },
	}
	for i, f := range inputs {
		err := f()
		if err == nil {
			t.Fatalf("input %d: accepted", i)
		}
		if strings.Contains(strings.ToLower(err.Error()), mark) {
			t.Errorf("input %d: %q echoes the input", i, err)
		}
	}
}

func TestUnavailableMatchesSentinelAndCause(t *testing.T) {
	t.Parallel()
	err := consume.Unavailable("commit", context.DeadlineExceeded)
	if !errors.Is(err, consume.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%v must match ErrUnavailable and its cause", err)
	}
	if errors.Is(err, consume.ErrConsumed) {
		t.Fatal("an unavailable store must never look like ErrConsumed")
	}
	if got, want := err.Error(), "consume: store unavailable: commit: context deadline exceeded"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got, want := consume.Unavailable("ready", nil).Error(), "consume: store unavailable: ready"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var ue *consume.UnavailableError
	if !errors.As(err, &ue) || ue.Op != "commit" {
		t.Errorf("errors.As(*UnavailableError) = %v", ue)
	}
}

func TestRecordValidates(t *testing.T) {
	t.Parallel()
	good := consume.Record{Key: consume.Key{Domain: "d-1", Binding: strings.Repeat("ab", 32)}, Identities: [3]string{"authz-1", "replay-1", "consumption-1"}, ExpiresAt: time.Unix(1, 0)}
	if err := good.Validate(); err != nil {
		t.Fatalf("Validate(good) = %v", err)
	}
	tests := map[string]struct {
		change func(*consume.Record)
		field  string
	}{
		"a malformed key":                 {func(r *consume.Record) { r.Key.Binding = "x" }, "binding"},
		"no authorization identity":       {func(r *consume.Record) { r.Identities[0] = "" }, "authorizationID"},
		"an identity outside the grammar": {func(r *consume.Record) { r.Identities[0] = "A" }, "authorizationID"},
		"a replay identity over 64":       {func(r *consume.Record) { r.Identities[1] = strings.Repeat("a", 65) }, "replayID"},
		"no consumption identity":         {func(r *consume.Record) { r.Identities[2] = "" }, "consumptionID"},
		"no expiry":                       {func(r *consume.Record) { r.ExpiresAt = time.Time{} }, "expiresAt"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r := good
			tc.change(&r)
			var ke *consume.KeyError
			if err := r.Validate(); !errors.As(err, &ke) || ke.Field != tc.field {
				t.Fatalf("Validate = %v, want a KeyError on %s", err, tc.field)
			}
		})
	}
}

func TestRecordExpiresAtItsExpiry(t *testing.T) {
	t.Parallel()
	r := consume.Record{ExpiresAt: time.Unix(100, 0)}
	for at, want := range map[time.Time]bool{time.Unix(99, 999_999_999): false, time.Unix(100, 0): true, time.Unix(101, 0): true} {
		if got := r.Expired(at); got != want {
			t.Errorf("Expired(%v) = %v, want %v", at, got, want)
		}
	}
}

func TestRetentionCoversSkewAndRequestTime(t *testing.T) {
	t.Parallel()
	if consume.DefaultRetention < consume.MaxClockSkew+consume.MaxRequestTime {
		t.Fatalf("DefaultRetention %v < MaxClockSkew %v + MaxRequestTime %v", consume.DefaultRetention, consume.MaxClockSkew, consume.MaxRequestTime)
	}
}

func TestAuthorizationIDGrammar(t *testing.T) {
	t.Parallel()
	for id, wantOK := range map[string]bool{"authz-1": true, strings.Repeat("a", 64): true, strings.Repeat("a", 65): false, "": false, "A": false} {
		if err := consume.ValidateAuthorizationID(id); (err == nil) != wantOK {
			t.Errorf("ValidateAuthorizationID(len %d) = %v, want ok %v", len(id), err, wantOK)
		}
	}
}

func TestAConsumptionHoldsItsIdentitiesForTheLongestLifetime(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_000_000, 0)
	for name, tc := range map[string]struct {
		expires, want time.Time
	}{
		"an hour past the consumption":       {now.Add(5 * time.Minute), now.Add(consume.MaxAuthorizationLifetime)},
		"never before the artifact's expiry": {now.Add(2 * time.Hour), now.Add(2 * time.Hour)},
	} {
		t.Run(name, func(t *testing.T) {
			if got := consume.HoldUntil(consume.Record{ExpiresAt: tc.expires}, now); !got.Equal(tc.want) {
				t.Fatalf("HoldUntil = %v, want %v", got, tc.want)
			}
		})
	}
}
