package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/serving"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/testutil"
	"github.com/toolgate/toolgate/internal/webhook"
)

// TestEveryCallerReportsTheSameViolationsForAChain: the CLI's validate
// (check), the admission webhook and the controllers' store publish through
// one path (internal/publication), so the same chain of PolicySnapshot
// generations is accepted or rejected by all three, with the same
// violations at the same paths.
func TestEveryCallerReportsTheSameViolationsForAChain(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		edit func(*v1alpha1.PolicySnapshotSpec) // applied to generation 2
		want []string                           // the CLI's violations of generation 2
	}{
		"the exact successor is accepted everywhere": {},
		"a successor that drops a prior policy version": {
			edit: func(s *v1alpha1.PolicySnapshotSpec) { s.Policies = s.Policies[1:] },
			want: []string{"spec.policies missing"},
		},
		"a condition tree that does not decode is located once, under spec": {
			edit: func(s *v1alpha1.PolicySnapshotSpec) {
				s.Policies[1].Rules[0].Condition.Raw = []byte(`{"all":[{"predicate":{"name":"toolIs","secret-key":"x"}}]}`)
			},
			want: []string{"spec.policies[1].rules[0].condition.all[0].predicate unknownField"},
		},
		"every violation of one generation is reported at once": {
			edit: func(s *v1alpha1.PolicySnapshotSpec) {
				last := &s.Policies[len(s.Policies)-1]
				last.Rules[0].Scope.Resources = append(last.Rules[0].Scope.Resources, "acct-secret-1")
				last.Rules[1].Reason = "notAReason"
			},
			want: []string{"spec.policies[1].rules[0].scope.resources[2] outOfRange", "spec.policies[1].rules[1].reason unknownToken"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			set, err := manifest.LoadPaths(samples(t))
			if err != nil {
				t.Fatal(err)
			}
			ha, gen1, gen2 := &set.HostAuthorities[0], &set.PolicySnapshots[0], &set.PolicySnapshots[1]
			if tc.edit != nil {
				tc.edit(&gen2.Spec)
			}
			admin, _ := manifest.AdministratorOf(ha)

			// The CLI: every object of the manifest set.
			var cliErr error
			for _, p := range check(set).problems {
				if !strings.Contains(p.Error(), "PolicySnapshot "+gen2.Namespace+"/"+gen2.Name+":") {
					t.Fatalf("another object is invalid: %v", p)
				}
				cliErr = p
			}
			if diff := cmp.Diff(tc.want, testutil.FaultList(cliErr)); diff != "" {
				t.Fatalf("CLI violations (-want +got):\n%s", diff)
			}

			// The webhook: generation 1 in the cluster, generation 2 admitted.
			scheme := runtime.NewScheme()
			if err := v1alpha1.AddToScheme(scheme); err != nil {
				t.Fatal(err)
			}
			reader := fake.NewClientBuilder().WithScheme(scheme).WithObjects(ha.DeepCopy(), gen1.DeepCopy()).Build()
			ctx := admission.NewContextWithRequest(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
				Operation: admissionv1.Create, UserInfo: authenticationv1.UserInfo{Username: admin.Name, Groups: admin.Groups},
			}})
			_, webhookErr := webhook.PolicySnapshotValidator{Reader: reader}.ValidateCreate(ctx, gen2.DeepCopy())
			if diff := cmp.Diff(causes(admissionError(gen2.Name, cliErr)), causes(webhookErr)); diff != "" {
				t.Errorf("webhook causes differ from the CLI's (-cli +webhook):\n%s", diff)
			}

			// The controllers' store: generation 1 served, generation 2 put.
			s := store.New()
			cfg, err := manifest.HostConfig(ha)
			if err != nil {
				t.Fatal(err)
			}
			key, err := serving.LegacyKeyState(make([]byte, ed25519.SeedSize))
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := s.EnsureDomain(store.DomainSpec{Namespace: ha.Namespace, Name: ha.Name, UID: "uid-1", Keys: key, Config: cfg}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.PutPolicy("uid-1", admin, gen1); err != nil {
				t.Fatal(err)
			}
			_, storeErr := s.PutPolicy("uid-1", admin, gen2)
			for _, err := range []error{cliErr, webhookErr, storeErr} {
				if err != nil && strings.Contains(err.Error(), "secret") {
					t.Errorf("a rejection echoes a value: %v", err)
				}
			}
			if diff := cmp.Diff(testutil.FaultList(cliErr), testutil.FaultList(storeErr)); diff != "" {
				t.Errorf("store violations differ from the CLI's (-cli +store):\n%s", diff)
			}
		})
	}
}

// admissionError is the admission rejection the webhook makes of err.
func admissionError(name string, err error) error {
	if err == nil {
		return nil
	}
	return apierrors.NewInvalid(schema.GroupKind{Group: v1alpha1.Group, Kind: "PolicySnapshot"}, name, webhook.FieldErrors(err))
}

// causes lists an admission rejection's causes; nil for nil.
func causes(err error) []metav1.StatusCause {
	if err == nil {
		return nil
	}
	var se *apierrors.StatusError
	if !errors.As(err, &se) || se.ErrStatus.Details == nil {
		return []metav1.StatusCause{{Message: err.Error()}}
	}
	return se.ErrStatus.Details.Causes
}
