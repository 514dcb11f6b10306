package ident_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/testutil"
)

func TestParseUnique(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in       []string
		want     []string
		wantErr  error
		wantPath string
	}{
		"input order is kept":              {in: []string{"b", "a", "c"}, want: []string{"b", "a", "c"}},
		"empty is empty":                   {in: nil, want: []string{}},
		"a repeat rejects at its index":    {in: []string{"a", "b", "a"}, wantErr: fault.ErrDuplicate, wantPath: "[2]"},
		"a bad token rejects at its index": {in: []string{"a", "B"}, wantErr: fault.ErrMalformed, wantPath: "[1]"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := ident.ParseUnique(tc.in, ident.ParseResource, "resources are unique")
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
			if err != nil {
				return
			}
			var s []string
			for _, r := range got {
				s = append(s, r.String())
			}
			if diff := cmp.Diff(tc.want, append([]string{}, s...)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseSet(t *testing.T) {
	t.Parallel()
	parse := func(in ...string) ([]ident.Resource, error) {
		return ident.ParseSet(in, ident.ParseResource, ident.Resource.Compare, 3, "at most 3 resources", "resources are unique")
	}
	got, err := parse("c", "a", "b") // the limit is inclusive
	testutil.CheckFault(t, err, nil, "")
	var names []string
	for _, r := range got {
		names = append(names, r.String())
	}
	if want := []string{"a", "b", "c"}; !slices.Equal(names, want) {
		t.Errorf("ParseSet(c, a, b) = %v, want %v (sorted)", names, want)
	}
	_, err = parse("a", "b", "c", "d")
	testutil.CheckFault(t, err, fault.ErrLimitExceeded, "")
	_, err = parse("a", "b", "a")
	testutil.CheckFault(t, err, fault.ErrDuplicate, "[2]")
}
