package serving_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/serving"
)

var s0 = time.Unix(1_800_000_000, 0)

// generations serves snapshot "p" at generations 1..n, generation g
// created at s0 + g minutes, and registry "r" generation 1.
func state(grace serving.Grace, n uint64, revoked *serving.Revocations) *serving.Served {
	var pols []serving.Generation
	for g := uint64(1); g <= n; g++ {
		pols = append(pols, serving.Generation{ID: "p", Generation: g, Created: s0.Add(time.Duration(g) * time.Minute)})
	}
	return serving.NewServed(grace, []serving.Generation{{ID: "r", Generation: 1, Created: s0}}, pols, revoked)
}

func sel(policyGen string) serving.Selection {
	return serving.Selection{RegistryID: "r", RegistryGeneration: "1", PolicyID: "p", PolicyGeneration: policyGen}
}

func TestSelectableEnforcesTheCurrentGenerationAndTheGrace(t *testing.T) {
	t.Parallel()
	// Generations 1–4 are served; generation 4 (current) was created at
	// s0+4m, so generation 3 was superseded at s0+4m, generation 2 at
	// s0+3m and generation 1 at s0+2m.
	cases := []struct {
		name  string
		grace serving.Grace
		gen   string
		at    time.Time
		want  serving.Reason // 0: selectable
	}{
		{"the current generation is selectable without a grace", serving.Grace{}, "4", s0.Add(time.Hour), 0},
		{"a superseded generation is refused by default", serving.Grace{}, "3", s0.Add(4 * time.Minute), serving.Superseded},
		{"a generation within the count is selectable", serving.Grace{Generations: 2}, "2", s0.Add(time.Hour), 0},
		{"a generation beyond the count is refused", serving.Grace{Generations: 2}, "1", s0.Add(time.Hour), serving.Superseded},
		{"within the seconds after its successor was created it is selectable", serving.Grace{Seconds: 60}, "3", s0.Add(4*time.Minute + 59*time.Second), 0},
		{"at the end of the seconds it is refused", serving.Grace{Seconds: 60}, "3", s0.Add(5 * time.Minute), serving.Superseded},
		{"the seconds run from its own successor's creation, not the current one's", serving.Grace{Seconds: 150}, "1", s0.Add(4*time.Minute + 31*time.Second), serving.Superseded},
		{"with both bounds the count must hold too", serving.Grace{Generations: 1, Seconds: 3600}, "2", s0.Add(5 * time.Minute), serving.Superseded},
		{"with both bounds the time must hold too", serving.Grace{Generations: 3, Seconds: 60}, "2", s0.Add(5 * time.Minute), serving.Superseded},
		{"with both bounds holding it is selectable", serving.Grace{Generations: 3, Seconds: 600}, "2", s0.Add(5 * time.Minute), 0},
		{"a generation never served is not served", serving.Grace{Generations: 16}, "5", s0, serving.NotServed},
		{"a non-canonical generation is not served", serving.Grace{}, "04", s0, serving.NotServed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := state(tc.grace, 4, nil).Selectable(sel(tc.gen), tc.at)
			if got := serving.ReasonOf(err); got != tc.want {
				t.Fatalf("Selectable = %v, want reason %v", err, tc.want)
			}
			if tc.want != 0 {
				var r *serving.RefusalError
				if !errors.As(err, &r) || r.Path != "policy" {
					t.Errorf("refusal at %v, want at policy", err)
				}
			}
		})
	}
}

func TestSelectableRefusesARevokedGenerationEvenWhenCurrent(t *testing.T) {
	t.Parallel()
	revoked := (&serving.Revocations{}).With(serving.Revocation{Kind: serving.RevokePolicy, ID: "p", Version: "2"})
	err := state(serving.Grace{}, 2, revoked).Selectable(sel("2"), s0.Add(time.Hour))
	if !errors.Is(err, &serving.RefusalError{Reason: serving.Revoked}) {
		t.Fatalf("Selectable = %v, want revoked", err)
	}
	// A revocation of the registry's generation refuses at registry.
	revoked = revoked.With(serving.Revocation{Kind: serving.RevokeRegistry, ID: "r", Version: "1"})
	var r *serving.RefusalError
	if err := state(serving.Grace{}, 2, revoked).Selectable(sel("2"), s0); !errors.As(err, &r) || r.Reason != serving.Revoked || r.Path != "registry" {
		t.Fatalf("Selectable = %v, want revoked at registry", err)
	}
}

func TestADomainWithoutStateServesNothing(t *testing.T) {
	t.Parallel()
	var d serving.Domain
	if got := serving.ReasonOf(d.Selectable(sel("1"), s0)); got != serving.NotServed {
		t.Fatalf("a domain without a served state: reason %v, want notServed", got)
	}
}

func TestRevocationsOnlyGrow(t *testing.T) {
	t.Parallel()
	a := serving.Revocation{Kind: serving.RevokeAuthorization, ID: "auth-1"}
	b := serving.Revocation{Kind: serving.RevokeSigningKey, ID: "0123456789abcdef"}
	s1 := (&serving.Revocations{}).With(a)
	s2 := s1.With(b)
	if s1.Has(b) || s1.Len() != 1 {
		t.Error("With changed the set it was called on")
	}
	if !s2.Has(a) || !s2.Has(b) || s2.Len() != 2 {
		t.Error("With lost a revocation")
	}
	if got := s2.KeyIDs(); len(got) != 1 || got[0] != b.ID {
		t.Errorf("KeyIDs = %v", got)
	}
	var none *serving.Revocations
	if none.Has(a) || none.Len() != 0 || none.With(a).Len() != 1 {
		t.Error("the nil set is not the empty set")
	}
}

func TestRevocationOfNamesExactlyOneTargetAndReportsEveryViolation(t *testing.T) {
	t.Parallel()
	ref := v1alpha1.HostAuthorityReference{Name: "payments-host"}
	cases := []struct {
		name      string
		spec      v1alpha1.RevocationSpec
		want      serving.Revocation
		wantPaths []string
	}{
		{
			name: "a policy generation",
			spec: v1alpha1.RevocationSpec{HostAuthorityRef: ref, Reason: "r", PolicySnapshot: &v1alpha1.SnapshotGenerationRef{SnapshotID: "payments-policy", Generation: "1"}},
			want: serving.Revocation{Kind: serving.RevokePolicy, ID: "payments-policy", Version: "1"},
		},
		{
			name: "a tool version",
			spec: v1alpha1.RevocationSpec{HostAuthorityRef: ref, Reason: "r", Tool: &v1alpha1.ToolVersionRef{ToolID: "payments.submit", Version: "3"}},
			want: serving.Revocation{Kind: serving.RevokeTool, ID: "payments.submit", Version: "3"},
		},
		{
			name: "a signing key",
			spec: v1alpha1.RevocationSpec{HostAuthorityRef: ref, Reason: "r", SigningKey: &v1alpha1.SigningKeyRef{KeyID: "0123456789abcdef"}},
			want: serving.Revocation{Kind: serving.RevokeSigningKey, ID: "0123456789abcdef"},
		},
		{
			name:      "no target",
			spec:      v1alpha1.RevocationSpec{HostAuthorityRef: ref, Reason: "r"},
			wantPaths: []string{"spec"},
		},
		{
			name: "two targets",
			spec: v1alpha1.RevocationSpec{HostAuthorityRef: ref, Reason: "r",
				Authorization: &v1alpha1.AuthorizationRef{ID: "a1"}, SigningKey: &v1alpha1.SigningKeyRef{KeyID: "0123456789abcdef"}},
			wantPaths: []string{"spec"},
		},
		{
			name: "every malformed member at once",
			spec: v1alpha1.RevocationSpec{HostAuthorityRef: v1alpha1.HostAuthorityReference{Name: "Bad"},
				ToolRegistry: &v1alpha1.SnapshotGenerationRef{SnapshotID: "x", Generation: "01"}},
			wantPaths: []string{"spec.hostAuthorityRef.name", "spec.reason", "spec.toolRegistry.generation"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := serving.RevocationOf(tc.spec)
			if tc.wantPaths == nil {
				if err != nil || got != tc.want {
					t.Fatalf("RevocationOf = %v, %v; want %v", got, err, tc.want)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted")
			}
			if n := len(fault.All(err)); n != len(tc.wantPaths) {
				t.Errorf("%d violations reported, want %d: %v", n, len(tc.wantPaths), err)
			}
			for _, p := range tc.wantPaths {
				if !strings.Contains(err.Error(), p+":") {
					t.Errorf("error %q does not report %s", err, p)
				}
			}
		})
	}
}

