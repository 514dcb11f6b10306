package testutil

import (
	"errors"
	"slices"
	"testing"
)

// recorder is a testing.TB that records whether a check reported an error.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }

func TestCheckNoEchoFailsOnAnEchoInAnyCase(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		err      error
		values   []string
		wantFail bool
	}{
		"no error passes":                   {values: []string{"secret"}},
		"an error without the value passes": {err: errors.New("spec.x: unknown field"), values: []string{"secret"}},
		"the value itself fails":            {err: errors.New("bad value secret"), values: []string{"secret"}, wantFail: true},
		"the value in another case fails":   {err: errors.New("bad value SeCrEt"), values: []string{"secret"}, wantFail: true},
		"any one of several values fails":   {err: errors.New("robot"), values: []string{"secret", "Robot"}, wantFail: true},
		"an empty value is not an echo":     {err: errors.New("anything"), values: []string{""}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := &recorder{TB: t}
			CheckNoEcho(r, tc.err, tc.values...)
			if r.failed != tc.wantFail {
				t.Errorf("CheckNoEcho failed = %v, want %v", r.failed, tc.wantFail)
			}
		})
	}
}

func TestCapabilitiesRepeatsPastTheClosedVocabulary(t *testing.T) {
	want := []string{"resource.delete", "financial.transfer", "data.write", "data.read", "communication.external",
		"data.read", "data.write", "resource.delete", "data.read"}
	if got := Capabilities(9); !slices.Equal(got, want) {
		t.Errorf("Capabilities(9) = %q, want %q", got, want)
	}
	if got := Capabilities(3); !slices.Equal(got, want[:3]) {
		t.Errorf("Capabilities(3) = %q, want %q", got, want[:3])
	}
}
