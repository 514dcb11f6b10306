package controllers

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/publisher"
)

func TestOnlyTheLeaderWritesStatus(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		leader     bool
		wantReason string
	}{
		"a follower computes but does not write": {leader: false, wantReason: ""},
		"the leader writes":                      {leader: true, wantReason: v1alpha1.ReasonRejected},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			scheme := runtime.NewScheme()
			if err := v1alpha1.AddToScheme(scheme); err != nil {
				t.Fatal(err)
			}
			tr := &v1alpha1.ToolRegistry{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "r-1", Generation: 1}}
			c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(tr).WithStatusSubresource(tr).Build()
			w := statusWriter{client: c, leader: func() bool { return tc.leader }}
			if err := w.write(context.Background(), tr, &tr.Status, outcome{reason: v1alpha1.ReasonRejected, message: "m"}); err != nil {
				t.Fatal(err)
			}
			var got v1alpha1.ToolRegistry
			if err := c.Get(context.Background(), client.ObjectKeyFromObject(tr), &got); err != nil {
				t.Fatal(err)
			}
			reason := ""
			if cond := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionReady); cond != nil {
				reason = cond.Reason
			}
			if reason != tc.wantReason {
				t.Errorf("stored Ready reason = %q, want %q", reason, tc.wantReason)
			}
		})
	}
}

func TestFaultMessageNamesEveryPathAndNoValue(t *testing.T) {
	t.Parallel()
	var l fault.Errors
	l.Add("spec.definitions[0]", fault.At("toolID", fault.Malformed, "a tool identifier has 2–8 segments"))
	l.Add("spec.definitions[3]", fault.At("risk", fault.UnknownToken, "a risk is one of the Section 48 tokens"))
	cases := map[string]struct {
		err  error
		want string
	}{
		"every engine fault with its path": {
			err:  l.Err(),
			want: "spec.definitions[0].toolID: malformed: a tool identifier has 2–8 segments; spec.definitions[3].risk: unknownToken: a risk is one of the Section 48 tokens",
		},
		"a publisher error is its constant sentence": {err: publisher.ErrSignature, want: publisher.ErrSignature.Error()},
		"any other error is never quoted":            {err: context.DeadlineExceeded, want: "malformed: the input was rejected"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := faultMessage(tc.err); got != tc.want {
				t.Errorf("faultMessage = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSuccessorMapsToTheNextGenerationOnly(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		gen  v1alpha1.Generation
		want []string
	}{
		"generation 1 wakes generation 2":    {gen: "1", want: []string{"ns/p-2"}},
		"generation 41 wakes generation 42":  {gen: "41", want: []string{"ns/p-42"}},
		"the largest generation has no next": {gen: "18446744073709551615"},
		"a malformed generation wakes none":  {gen: "x"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ps := &v1alpha1.PolicySnapshot{ObjectMeta: metav1.ObjectMeta{Namespace: "ns"},
				Spec: v1alpha1.PolicySnapshotSpec{SnapshotID: "p", SnapshotGeneration: tc.gen}}
			var got []string
			for _, r := range successor(context.Background(), ps) {
				got = append(got, r.String())
			}
			if len(got) != len(tc.want) || (len(got) == 1 && got[0] != tc.want[0]) {
				t.Errorf("successor = %v, want %v", got, tc.want)
			}
		})
	}
}
