package server

import (
	"context"
	"crypto/sha256"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	authnclient "k8s.io/client-go/kubernetes/typed/authentication/v1"

	"github.com/toolgate/toolgate/internal/host"
)

// Audience is the token audience the in-cluster service accepts: callers
// present a projected ServiceAccount token requested for it.
const Audience = "toolgate"

// TokenReview authenticates bearer tokens with the Kubernetes TokenReview
// API for the audience toolgate, and caches each answer (positive or
// negative) briefly, keyed by the token's SHA-256.
type TokenReview struct {
	reviews authnclient.TokenReviewInterface
	ttl     time.Duration
	maxSize int
	now     func() time.Time

	mu    sync.Mutex
	cache map[[sha256.Size]byte]reviewed
}

type reviewed struct {
	caller  host.Caller
	ok      bool
	expires time.Time
}

// NewTokenReview reviews tokens through reviews, caching each answer for
// ttl (at most 10,000 entries; the cache is cleared when full).
func NewTokenReview(reviews authnclient.TokenReviewInterface, ttl time.Duration) *TokenReview {
	return &TokenReview{reviews: reviews, ttl: ttl, maxSize: 10000, now: time.Now,
		cache: map[[sha256.Size]byte]reviewed{}}
}

// Authenticate implements Authenticator.
func (t *TokenReview) Authenticate(r *http.Request) (host.Caller, error) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return host.Caller{}, ErrUnauthenticated
	}
	sum := sha256.Sum256([]byte(token))
	now := t.now()
	t.mu.Lock()
	if c, ok := t.cache[sum]; ok && now.Before(c.expires) {
		t.mu.Unlock()
		if !c.ok {
			return host.Caller{}, ErrUnauthenticated
		}
		return c.caller, nil
	}
	t.mu.Unlock()

	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	res, err := t.reviews.Create(ctx, &authnv1.TokenReview{
		Spec: authnv1.TokenReviewSpec{Token: token, Audiences: []string{Audience}},
	}, metav1.CreateOptions{})
	if err != nil {
		return host.Caller{}, ErrUnauthenticated // the apiserver cannot vouch: fail closed, cache nothing
	}
	c := reviewed{expires: now.Add(t.ttl)}
	st := res.Status
	if st.Authenticated && st.Error == "" && slices.Contains(st.Audiences, Audience) {
		c.ok, c.caller = true, host.Caller{Name: st.User.Username, Groups: slices.Clone(st.User.Groups)}
	}
	t.mu.Lock()
	if len(t.cache) >= t.maxSize {
		clear(t.cache)
	}
	t.cache[sum] = c
	t.mu.Unlock()
	if !c.ok {
		return host.Caller{}, ErrUnauthenticated
	}
	return c.caller, nil
}
