package server

import (
	"context"
	"crypto/sha256"
	"net/http"
	"slices"
	"strings"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/cache"
	authnclient "k8s.io/client-go/kubernetes/typed/authentication/v1"

	"github.com/toolgate/toolgate/internal/host"
)

// Audience is the token audience the in-cluster service accepts: callers
// present a projected ServiceAccount token requested for it.
const Audience = "toolgate"

// Bounds of the TokenReview caches.
const (
	// DefaultAuthenticatedEntries bounds the answers that authenticated a
	// caller.
	DefaultAuthenticatedEntries = 10000
	// DefaultRejectedEntries bounds the answers that did not: a separate,
	// smaller cache, so a flood of made-up tokens churns only itself and
	// never evicts a real caller.
	DefaultRejectedEntries = 1024
)

// TokenReview authenticates bearer tokens with the Kubernetes TokenReview
// API for the audience toolgate, and caches each answer briefly, keyed by
// the token's SHA-256: positive answers and negative ones in two separate
// bounded caches that each evict the least recently used entry when full
// (k8s.io/apimachinery's LRUExpireCache).
type TokenReview struct {
	reviews authnclient.TokenReviewInterface
	ttl     time.Duration

	authenticated *cache.LRUExpireCache // token digest → host.Caller
	rejected      *cache.LRUExpireCache // token digest → struct{}
}

// NewTokenReview reviews tokens through reviews, caching each answer for
// ttl: at most DefaultAuthenticatedEntries callers and
// DefaultRejectedEntries rejections.
func NewTokenReview(reviews authnclient.TokenReviewInterface, ttl time.Duration) *TokenReview {
	return newTokenReview(reviews, ttl, DefaultAuthenticatedEntries, DefaultRejectedEntries, realClock{})
}

func newTokenReview(reviews authnclient.TokenReviewInterface, ttl time.Duration, authenticated, rejected int, clock cache.Clock) *TokenReview {
	return &TokenReview{reviews: reviews, ttl: ttl,
		authenticated: cache.NewLRUExpireCacheWithClock(authenticated, clock),
		rejected:      cache.NewLRUExpireCacheWithClock(rejected, clock)}
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// Authenticate implements Authenticator.
func (t *TokenReview) Authenticate(r *http.Request) (host.Caller, error) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return host.Caller{}, ErrUnauthenticated
	}
	sum := sha256.Sum256([]byte(token))
	if c, ok := t.authenticated.Get(sum); ok {
		return c.(host.Caller), nil
	}
	if _, ok := t.rejected.Get(sum); ok {
		return host.Caller{}, ErrUnauthenticated
	}

	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	res, err := t.reviews.Create(ctx, &authnv1.TokenReview{
		Spec: authnv1.TokenReviewSpec{Token: token, Audiences: []string{Audience}},
	}, metav1.CreateOptions{})
	if err != nil {
		return host.Caller{}, ErrUnauthenticated // the apiserver cannot vouch: fail closed, cache nothing
	}
	st := res.Status
	if !st.Authenticated || st.Error != "" || !slices.Contains(st.Audiences, Audience) {
		t.rejected.Add(sum, struct{}{}, t.ttl)
		return host.Caller{}, ErrUnauthenticated
	}
	c := host.Caller{Name: st.User.Username, Groups: slices.Clone(st.User.Groups)}
	t.authenticated.Add(sum, c, t.ttl)
	return c, nil
}
