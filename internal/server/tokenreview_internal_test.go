package server

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// reviewer is a fake TokenReview API that knows one valid token and
// counts the reviews it is asked for.
type reviewer struct {
	valid string
	asked atomic.Int64
}

func (rv *reviewer) client() *fake.Clientset {
	cs := fake.NewClientset()
	cs.PrependReactor("create", "tokenreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		rv.asked.Add(1)
		in := a.(k8stesting.CreateAction).GetObject().(*authnv1.TokenReview)
		out := in.DeepCopy()
		if in.Spec.Token == rv.valid {
			out.Status = authnv1.TokenReviewStatus{Authenticated: true, Audiences: []string{Audience},
				User: authnv1.UserInfo{Username: "system:serviceaccount:payments:payments-executor"}}
		}
		return true, out, nil
	})
	return cs
}

type testClock struct{ ns atomic.Int64 }

func (c *testClock) Now() time.Time { return time.Unix(0, c.ns.Load()) }

func bearer(token string) *http.Request {
	r, _ := http.NewRequest(http.MethodPost, "/v1/consume", nil)
	r.Header.Set("Authorization", "Bearer "+token)
	return r
}

func TestAFloodOfMadeUpTokensNeverEvictsARealCaller(t *testing.T) {
	t.Parallel()
	rv := &reviewer{valid: "the-real-executor-token"}
	tr := newTokenReview(rv.client().AuthenticationV1().TokenReviews(), time.Minute, 4, 8, &testClock{})
	if _, err := tr.Authenticate(bearer(rv.valid)); err != nil {
		t.Fatalf("the valid token: %v", err)
	}
	// Ten times more made-up tokens than both caches hold together.
	for i := range 120 {
		if _, err := tr.Authenticate(bearer("made-up-" + strconv.Itoa(i))); err == nil {
			t.Fatalf("made-up token %d authenticated", i)
		}
	}
	before := rv.asked.Load()
	if c, err := tr.Authenticate(bearer(rv.valid)); err != nil || c.Name == "" {
		t.Fatalf("the valid token after the flood: %v, %v", c, err)
	}
	if got := rv.asked.Load() - before; got != 0 {
		t.Fatalf("the real caller was reviewed again (%d reviews): the flood evicted it", got)
	}
}

func TestNegativeAnswersAreCachedAndBoundedSeparately(t *testing.T) {
	t.Parallel()
	rv := &reviewer{valid: "valid"}
	tr := newTokenReview(rv.client().AuthenticationV1().TokenReviews(), time.Minute, 4, 8, &testClock{})
	for range 3 {
		if _, err := tr.Authenticate(bearer("wrong")); err == nil {
			t.Fatal("a wrong token authenticated")
		}
	}
	if got := rv.asked.Load(); got != 1 {
		t.Fatalf("a repeated wrong token was reviewed %d times, want once (cached)", got)
	}
	if n := len(tr.rejected.Keys()); n != 1 {
		t.Fatalf("rejected cache holds %d, want 1", n)
	}
	for i := range 50 {
		_, _ = tr.Authenticate(bearer("flood-" + strconv.Itoa(i)))
	}
	if n, m := len(tr.rejected.Keys()), len(tr.authenticated.Keys()); n != 8 || m != 0 {
		t.Fatalf("after the flood: rejected %d, authenticated %d; want 8 and 0 (each bounded, no cross-eviction)", n, m)
	}
}

func TestCachedAnswersExpireAfterTheTTL(t *testing.T) {
	t.Parallel()
	rv := &reviewer{valid: "valid"}
	clock := &testClock{}
	tr := newTokenReview(rv.client().AuthenticationV1().TokenReviews(), time.Minute, 4, 8, clock)
	for _, tok := range []string{"valid", "wrong"} {
		_, _ = tr.Authenticate(bearer(tok))
	}
	clock.ns.Add(int64(time.Minute + time.Nanosecond))
	for _, tok := range []string{"valid", "wrong"} {
		_, _ = tr.Authenticate(bearer(tok))
	}
	if got := rv.asked.Load(); got != 4 {
		t.Fatalf("%d reviews, want 4: both answers re-reviewed after the TTL", got)
	}
}
