package fault_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/fault"
)

func TestErrorsKeepsEveryMember(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		build     func() error
		wantPaths []string
		wantNil   bool
		wantOne   bool
	}{
		"no rejection is no error": {
			build:   func() error { var l fault.Errors; l.Add("x", nil); return l.Err() },
			wantNil: true,
		},
		"one rejection is that *Error": {
			build: func() error {
				var l fault.Errors
				l.Add("defs[0]", fault.At("id", fault.Malformed, "r"))
				return l.Err()
			},
			wantPaths: []string{"defs[0].id"},
			wantOne:   true,
		},
		"a nested list is flattened with its prefix": {
			build: func() error {
				var inner fault.Errors
				inner.Add("rules[0]", fault.At("id", fault.Duplicate, "r"))
				inner.Add("rules[2]", fault.At("effect", fault.UnknownToken, "r"))
				var l fault.Errors
				l.Add("policies[1]", inner.Err())
				l.Add("", fault.At("policies[3].id", fault.Malformed, "r"))
				return l.Err()
			},
			wantPaths: []string{"policies[1].rules[0].id", "policies[1].rules[2].effect", "policies[3].id"},
		},
		"Within prefixes every member of a wrapped list": {
			build: func() error {
				var l fault.Errors
				l.Add("a", fault.New(fault.Missing, "r"))
				l.Add("b", fault.New(fault.Missing, "r"))
				return fault.Within("spec", fmt.Errorf("wrapped: %w", l.Err()))
			},
			wantPaths: []string{"spec.a", "spec.b"},
		},
		"an error without a fault is one malformed rejection, its text dropped": {
			build:     func() error { var l fault.Errors; l.Add("p", errors.New("secret-input")); return l.Err() },
			wantPaths: []string{"p"},
			wantOne:   true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := tc.build()
			if tc.wantNil {
				if err != nil {
					t.Fatalf("got %v, want nil", err)
				}
				return
			}
			var got []string
			for _, e := range fault.All(err) {
				got = append(got, e.Path)
			}
			if diff := cmp.Diff(tc.wantPaths, got); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
			var single *fault.Error
			if isOne := errors.As(err, &single) && len(fault.All(err)) == 1; isOne != tc.wantOne {
				t.Errorf("single *Error = %v, want %v", isOne, tc.wantOne)
			}
		})
	}
}

func TestErrorsMatchesEveryMemberWithIsAndAs(t *testing.T) {
	t.Parallel()
	var l fault.Errors
	l.Add("a", fault.At("x", fault.Malformed, "r"))
	l.Add("b", fault.At("y", fault.Duplicate, "r"))
	err := fmt.Errorf("ctx: %w", l.Err())
	for _, want := range []error{fault.ErrMalformed, fault.ErrDuplicate} {
		if !errors.Is(err, want) {
			t.Errorf("errors.Is(list, %v) = false, want true", want)
		}
	}
	if errors.Is(err, fault.ErrExpired) {
		t.Error("errors.Is(list, ErrExpired) = true, want false")
	}
	var e *fault.Error
	if !errors.As(err, &e) || e.Path != "a.x" {
		t.Errorf("errors.As found %v, want the first member a.x", e)
	}
	if got, want := fault.CodeOf(err), fault.Malformed; got != want {
		t.Errorf("CodeOf = %v, want %v", got, want)
	}
	if got, want := l.Error(), "engine: a.x: malformed: r; engine: b.y: duplicate: r"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
