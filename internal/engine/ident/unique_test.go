package ident_test

import (
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
	tests := map[string]struct {
		in       []string
		want     []string
		wantErr  error
		wantPath string
	}{
		"members are sorted":            {in: []string{"b", "a", "c"}, want: []string{"a", "b", "c"}},
		"empty is empty":                {in: nil, want: []string{}},
		"the limit is inclusive":        {in: []string{"c", "b", "a"}, want: []string{"a", "b", "c"}},
		"over the limit rejects":        {in: []string{"a", "b", "c", "d"}, wantErr: fault.ErrLimitExceeded},
		"a repeat rejects at its index": {in: []string{"a", "b", "a"}, wantErr: fault.ErrDuplicate, wantPath: "[2]"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := ident.ParseSet(tc.in, ident.ParseResource, ident.Resource.Compare, 3,
				"at most 3 resources", "resources are unique")
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
			if err != nil {
				return
			}
			s := []string{}
			for _, r := range got {
				s = append(s, r.String())
			}
			if diff := cmp.Diff(tc.want, s); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
