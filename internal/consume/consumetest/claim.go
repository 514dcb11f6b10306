package consumetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/toolgate/toolgate/internal/consume"
)

// NewClaim returns a claim in domain with fresh identities, a fresh
// request and binding digest, issued now (whole seconds) and expiring
// Expiry later.
func NewClaim(domain string) consume.Claim {
	now := time.Unix(time.Now().Unix(), 0)
	return consume.Claim{
		Domain:     domain,
		Identities: [3]string{"authz-" + NewKey("x").Binding[:16], "replay-" + NewKey("x").Binding[:16], "consumption-" + NewKey("x").Binding[:16]},
		Request:    NewKey("x").Binding, Binding: NewKey("x").Binding,
		IssuedAt: now, ExpiresAt: now.Add(Expiry),
	}
}

// retryOf is c as the same request would claim it later: the same
// identities and request digest, issued (and so bound and expiring)
// later.
func retryOf(c consume.Claim, later time.Duration) consume.Claim {
	r := c
	r.IssuedAt, r.ExpiresAt = c.IssuedAt.Add(later), c.ExpiresAt.Add(later)
	r.Binding = NewKey("x").Binding
	return r
}

// otherRequest is a claim of a different request (another digest) that
// names c's identities where share is true and fresh ones elsewhere.
func otherRequest(c consume.Claim, share [3]bool) consume.Claim {
	o := NewClaim(c.Domain)
	for i, s := range share {
		if s {
			o.Identities[i] = c.Identities[i]
		}
	}
	return o
}

// reusedAt reports whether err refuses a Claim at the identity field.
func reusedAt(err error, field string) bool {
	var re *consume.IdentityReusedError
	return errors.As(err, &re) && errors.Is(err, consume.ErrIdentityReused) && re.Field == field
}

// CheckClaimRetry claims a fresh claim on stores[0], then claims it again
// and claims a later retry of the same request on every store: each must
// return the first claim, unchanged. The same identities in another
// domain are another claim.
func CheckClaimRetry(ctx context.Context, stores []consume.Store) error {
	c := NewClaim(NewDomain())
	got, err := stores[0].Claim(ctx, c)
	if err != nil || !got.Same(c) {
		return fmt.Errorf("first Claim: %+v, %v; want the claim itself", got, err)
	}
	for i, s := range stores {
		for _, again := range []consume.Claim{c, retryOf(c, 7*time.Second)} {
			got, err := s.Claim(ctx, again)
			if err != nil || !got.Same(c) {
				return fmt.Errorf("replica %d: Claim of the same request: %+v, %v; want the first claim", i, got, err)
			}
		}
	}
	other := retryOf(c, 3*time.Second)
	other.Domain = NewDomain()
	if got, err := stores[len(stores)-1].Claim(ctx, other); err != nil || !got.Same(other) {
		return fmt.Errorf("same identities, other domain: %+v, %v; want the new claim", got, err)
	}
	return nil
}

// CheckClaimReuse claims a fresh claim, then claims, on every store,
// claims of other requests that share one, two or all of its identities:
// each must be refused with an *IdentityReusedError naming the first
// shared identity, and the first claim must still be returned to its own
// request afterwards.
func CheckClaimReuse(ctx context.Context, stores []consume.Store) error {
	c := NewClaim(NewDomain())
	if _, err := stores[0].Claim(ctx, c); err != nil {
		return fmt.Errorf("first Claim: %w", err)
	}
	cases := []struct {
		share [3]bool
		field string
	}{
		{[3]bool{true, true, true}, "authorizationID"},
		{[3]bool{true, false, false}, "authorizationID"},
		{[3]bool{false, true, false}, "replayID"},
		{[3]bool{false, false, true}, "consumptionID"},
		{[3]bool{false, true, true}, "replayID"},
	}
	for i, s := range stores {
		for _, tc := range cases {
			o := otherRequest(c, tc.share)
			got, err := s.Claim(ctx, o)
			if !reusedAt(err, tc.field) {
				return fmt.Errorf("replica %d: another request sharing %v: %+v, %v; want ErrIdentityReused at %s", i, tc.share, got, err, tc.field)
			}
			if strings.Contains(err.Error(), c.Identities[0]) || strings.Contains(err.Error(), c.Request) {
				return fmt.Errorf("replica %d: the refusal quotes a claim", i)
			}
		}
		if got, err := s.Claim(ctx, c); err != nil || !got.Same(c) {
			return fmt.Errorf("replica %d: the first request after the refusals: %+v, %v; want its claim", i, got, err)
		}
	}
	return nil
}

// CheckClaimAtomic holds a store whose Claim is one transaction (bbolt,
// etcd) to "all or nothing": a claim refused for one shared identity
// records none of its others, so a third request may claim them.
func CheckClaimAtomic(ctx context.Context, stores []consume.Store) error {
	c := NewClaim(NewDomain())
	if _, err := stores[0].Claim(ctx, c); err != nil {
		return fmt.Errorf("first Claim: %w", err)
	}
	refused := otherRequest(c, [3]bool{false, false, true})
	if _, err := stores[0].Claim(ctx, refused); !reusedAt(err, "consumptionID") {
		return fmt.Errorf("claim sharing the consumption identity: %v, want ErrIdentityReused", err)
	}
	third := NewClaim(c.Domain)
	third.Identities[consume.AuthorizationIdentity] = refused.Identities[consume.AuthorizationIdentity]
	third.Identities[consume.ReplayIdentity] = refused.Identities[consume.ReplayIdentity]
	if got, err := stores[len(stores)-1].Claim(ctx, third); err != nil || !got.Same(third) {
		return fmt.Errorf("the refused claim's other identities: %+v, %v; want them unclaimed", got, err)
	}
	return nil
}

// CheckClaimConcurrently starts Goroutines callers spread over stores. In
// the first round every caller claims the same request at a different
// time (a retry storm): every one must get the same claim, one of theirs.
// In the second, every caller is a different request naming one shared
// replay identity: exactly one must get its own claim and every other
// ErrIdentityReused.
func CheckClaimConcurrently(ctx context.Context, stores []consume.Store) error {
	base := NewClaim(NewDomain())
	claims := make([]consume.Claim, Goroutines)
	for i := range claims {
		claims[i] = retryOf(base, time.Duration(i)*time.Second)
	}
	got, errs := claimAll(ctx, stores, claims)
	winner := -1
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("retry storm, caller %d: %w, want the one claim", i, err)
		}
		if winner < 0 {
			for j := range claims {
				if got[i].Same(claims[j]) {
					winner = j
				}
			}
			if winner < 0 {
				return fmt.Errorf("retry storm: caller %d got a claim nobody made", i)
			}
		}
		if !got[i].Same(claims[winner]) {
			return fmt.Errorf("retry storm: callers got different claims (%d and %d)", winner, i)
		}
	}

	shared := NewClaim(NewDomain())
	for i := range claims {
		claims[i] = otherRequest(shared, [3]bool{false, true, false})
	}
	got, errs = claimAll(ctx, stores, claims)
	yes := 0
	for i, err := range errs {
		switch {
		case err == nil && got[i].Same(claims[i]):
			yes++
		case err == nil:
			return fmt.Errorf("distinct requests, caller %d: got another request's claim", i)
		case !reusedAt(err, "replayID"):
			return fmt.Errorf("distinct requests, caller %d: %w, want ErrIdentityReused at replayID", i, err)
		}
	}
	if yes != 1 {
		return fmt.Errorf("%d distinct requests sharing a replay identity: %d claimed it, want 1", Goroutines, yes)
	}
	return nil
}

func claimAll(ctx context.Context, stores []consume.Store, claims []consume.Claim) ([]consume.Claim, []error) {
	got := make([]consume.Claim, len(claims))
	errs := make([]error, len(claims))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range claims {
		wg.Go(func() {
			<-start
			got[i], errs[i] = stores[i%len(stores)].Claim(ctx, claims[i])
		})
	}
	close(start)
	wg.Wait()
	return got, errs
}

// CheckInvalidClaims sends malformed claims: each must be rejected with a
// *consume.KeyError that matches no sentinel and quotes nothing, and none
// may claim anything.
func CheckInvalidClaims(ctx context.Context, s consume.Store) error {
	good := NewClaim(NewDomain())
	bad := map[string]func(*consume.Claim){
		"uppercase domain":             func(c *consume.Claim) { c.Domain = "Echo-Canary" },
		"empty authorization identity": func(c *consume.Claim) { c.Identities[0] = "" },
		"replay identity with a slash": func(c *consume.Claim) { c.Identities[1] = canary + "/x" },
		"consumption identity over 64": func(c *consume.Claim) { c.Identities[2] = canary + strings.Repeat("a", 60) },
		"identity with a dot":          func(c *consume.Claim) { c.Identities[0] = canary + ".x" },
		"short request digest":         func(c *consume.Claim) { c.Request = c.Request[:63] },
		"non-hex binding digest":       func(c *consume.Claim) { c.Binding = canary + c.Binding[len(canary):] },
		"no issuance time":             func(c *consume.Claim) { c.IssuedAt = time.Time{} },
		"expiry before issuance":       func(c *consume.Claim) { c.ExpiresAt = c.IssuedAt.Add(-time.Second) },
		"fractional expiry":            func(c *consume.Claim) { c.ExpiresAt = c.ExpiresAt.Add(time.Millisecond) },
	}
	for name, change := range bad {
		c := good
		change(&c)
		_, err := s.Claim(ctx, c)
		var ke *consume.KeyError
		switch {
		case err == nil:
			return fmt.Errorf("%s: Claim returned nil", name)
		case !errors.As(err, &ke):
			return fmt.Errorf("%s: Claim: %v, want a *consume.KeyError", name, err)
		case errors.Is(err, consume.ErrIdentityReused) || errors.Is(err, consume.ErrUnavailable):
			return fmt.Errorf("%s: a KeyError must match no sentinel", name)
		case strings.Contains(strings.ToLower(err.Error()), canary):
			return fmt.Errorf("%s: the error quotes the claim", name)
		}
	}
	if got, err := s.Claim(ctx, good); err != nil || !got.Same(good) {
		return fmt.Errorf("valid claim after rejected ones: %+v, %v", got, err)
	}
	return nil
}
