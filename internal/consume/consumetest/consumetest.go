// Package consumetest is the conformance suite every Consumption store
// passes (internal/consume): exactly one yes per Key among concurrent
// callers and replicas, distinct Keys each consumed once, malformed Keys
// rejected without echo, and a store that cannot answer never saying yes.
//
// It is for tests only: only _test.go files may import it (depguard rule
// no-testutil and TestNoProductionCodeImportsConsumetest). The checks
// return errors instead of taking a *testing.T so that plain-testing suites
// (boltstore, etcdstore) and Ginkgo suites (apistore) share them; Run wraps
// them for plain tests.
package consumetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/consume"
)

// Goroutines is the number of concurrent callers of CheckOneKeyConcurrently.
const Goroutines = 64

// DistinctKeys is the number of Keys CheckDistinctKeys consumes.
const DistinctKeys = 256

// Expiry is how far in the future the checks' records expire: long enough
// that no store removes them during a test.
const Expiry = time.Hour

// NewKey returns a fresh random Key in domain.
func NewKey(domain string) consume.Key {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return consume.Key{Domain: domain, Binding: hex.EncodeToString(b[:])}
}

// NewDomain returns a fresh random domain (a lowercase UUID-like token), so
// checks sharing one backend never collide.
func NewDomain() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// CheckOnce consumes one fresh Key on stores[0], then again on every store:
// the first call must return nil, every later one ErrConsumed.
func CheckOnce(ctx context.Context, stores []consume.Store) error {
	k := NewKey(NewDomain())
	exp := time.Now().Add(Expiry)
	if err := stores[0].Consume(ctx, k, exp); err != nil {
		return fmt.Errorf("first Consume: %w, want nil", err)
	}
	for i, s := range stores {
		for range 2 {
			if err := s.Consume(ctx, k, exp); !errors.Is(err, consume.ErrConsumed) {
				return fmt.Errorf("replica %d: later Consume: %v, want ErrConsumed", i, err)
			}
		}
	}
	// The same binding in another domain is another Consumption.
	other := consume.Key{Domain: NewDomain(), Binding: k.Binding}
	if err := stores[len(stores)-1].Consume(ctx, other, exp); err != nil {
		return fmt.Errorf("same binding, other domain: %w, want nil", err)
	}
	return nil
}

// CheckOneKeyConcurrently starts Goroutines callers, spread round-robin over
// stores (replicas sharing one backend), that consume one Key at once:
// exactly one must get nil and every other ErrConsumed.
func CheckOneKeyConcurrently(ctx context.Context, stores []consume.Store) error {
	k := NewKey(NewDomain())
	exp := time.Now().Add(Expiry)
	errs := make([]error, Goroutines)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range Goroutines {
		wg.Go(func() {
			<-start
			errs[i] = stores[i%len(stores)].Consume(ctx, k, exp)
		})
	}
	close(start)
	wg.Wait()
	var yes, consumed int
	for _, err := range errs {
		switch {
		case err == nil:
			yes++
		case errors.Is(err, consume.ErrConsumed):
			consumed++
		default:
			return fmt.Errorf("concurrent Consume: unexpected error %w", err)
		}
	}
	if yes != 1 || consumed != Goroutines-1 {
		return fmt.Errorf("concurrent Consume of one key: %d nil and %d ErrConsumed, want 1 and %d", yes, consumed, Goroutines-1)
	}
	return nil
}

// CheckDistinctKeys consumes DistinctKeys distinct Keys from Goroutines
// callers spread over stores: every first Consume must return nil, and a
// second pass must return ErrConsumed for each.
func CheckDistinctKeys(ctx context.Context, stores []consume.Store) error {
	domain := NewDomain()
	keys := make([]consume.Key, DistinctKeys)
	for i := range keys {
		keys[i] = NewKey(domain)
	}
	exp := time.Now().Add(Expiry)
	for pass, want := range []error{nil, consume.ErrConsumed} {
		errs := make([]error, len(keys))
		var wg sync.WaitGroup
		for g := range Goroutines {
			wg.Go(func() {
				for i := g; i < len(keys); i += Goroutines {
					errs[i] = stores[(i+pass)%len(stores)].Consume(ctx, keys[i], exp)
				}
			})
		}
		wg.Wait()
		for i, err := range errs {
			if want == nil && err != nil || want != nil && !errors.Is(err, want) {
				return fmt.Errorf("pass %d, key %d: Consume: %v, want %v", pass, i, err, want)
			}
		}
	}
	return nil
}

// canary is part of every malformed Key CheckInvalidKeys sends; no error
// may contain it.
const canary = "echo-canary"

// CheckInvalidKeys sends malformed Keys: each must be rejected with a
// *consume.KeyError (matching consume.ErrInvalidKey, neither sentinel), and
// no message may quote the Key.
func CheckInvalidKeys(ctx context.Context, s consume.Store) error {
	good := NewKey(NewDomain())
	bad := map[string]consume.Key{
		"empty domain":             {Domain: "", Binding: good.Binding},
		"uppercase domain":         {Domain: "Echo-Canary", Binding: good.Binding},
		"dot in domain":            {Domain: canary + ".x", Binding: good.Binding},
		"domain over 63":           {Domain: canary + strings.Repeat("a", 64-len(canary)), Binding: good.Binding},
		"domain ending in a dash":  {Domain: canary + "-", Binding: good.Binding},
		"short binding":            {Domain: canary, Binding: good.Binding[:63]},
		"uppercase binding":        {Domain: canary, Binding: strings.ToUpper(good.Binding)},
		"binding with a prefix":    {Domain: canary, Binding: "sha256:" + good.Binding[7:]},
		"non-hex binding":          {Domain: canary, Binding: canary + good.Binding[len(canary):]},
		"domain with a NUL octet":  {Domain: canary + "\x00", Binding: good.Binding},
		"domain with a slash":      {Domain: canary + "/x", Binding: good.Binding},
		"binding of 65 hex digits": {Domain: canary, Binding: good.Binding + "0"},
	}
	exp := time.Now().Add(Expiry)
	for name, k := range bad {
		err := s.Consume(ctx, k, exp)
		var ke *consume.KeyError
		switch {
		case err == nil:
			return fmt.Errorf("%s: Consume returned nil", name)
		case !errors.As(err, &ke) || !errors.Is(err, consume.ErrInvalidKey):
			return fmt.Errorf("%s: Consume: %v, want a *consume.KeyError", name, err)
		case errors.Is(err, consume.ErrConsumed) || errors.Is(err, consume.ErrUnavailable):
			return fmt.Errorf("%s: a KeyError must match neither sentinel", name)
		case strings.Contains(strings.ToLower(err.Error()), canary) || strings.Contains(err.Error(), good.Binding[8:40]):
			return fmt.Errorf("%s: the error quotes the rejected key", name)
		}
	}
	// A valid key was never consumed by the rejected attempts.
	if err := s.Consume(ctx, good, exp); err != nil {
		return fmt.Errorf("valid key after rejected ones: %w, want nil", err)
	}
	return nil
}

// CheckUnavailable asserts that s, a store that cannot answer (its server
// stopped, its file closed), fails closed: Ready and every Consume return
// an error wrapping ErrUnavailable, never nil, for fresh Keys and for a Key
// consumed before (consumed, which may be the zero Key to skip that part).
// ctx should carry a deadline: a store that cannot answer must still return.
func CheckUnavailable(ctx context.Context, s consume.Store, consumed consume.Key) error {
	if err := s.Ready(ctx); !errors.Is(err, consume.ErrUnavailable) {
		return fmt.Errorf("store.Ready: %v, want ErrUnavailable", err)
	}
	keys := []consume.Key{NewKey(NewDomain()), NewKey(NewDomain())}
	if consumed != (consume.Key{}) {
		keys = append(keys, consumed)
	}
	for i, k := range keys {
		if err := s.Consume(ctx, k, time.Now().Add(Expiry)); !errors.Is(err, consume.ErrUnavailable) {
			return fmt.Errorf("key %d: Consume: %v, want ErrUnavailable", i, err)
		}
	}
	return nil
}

// Run runs every check that needs no broken store against the stores
// newStores returns (one or more replicas of one backend; the test closes
// them). It is the plain-testing entry point; Ginkgo suites call the
// checks directly.
func Run(t *testing.T, newStores func(t *testing.T) []consume.Store) {
	t.Helper()
	checks := map[string]func(context.Context, []consume.Store) error{
		"one key is consumed once, then ErrConsumed on every replica":   CheckOnce,
		"64 goroutines on one key get one nil and 63 ErrConsumed":       CheckOneKeyConcurrently,
		"distinct keys from many goroutines are each consumed once":     CheckDistinctKeys,
		"malformed keys reject with a KeyError that does not echo them": func(ctx context.Context, s []consume.Store) error { return CheckInvalidKeys(ctx, s[0]) },
		"a ready store says so": func(ctx context.Context, s []consume.Store) error {
			for i, st := range s {
				if err := st.Ready(ctx); err != nil {
					return fmt.Errorf("replica %d: Ready: %w", i, err)
				}
			}
			return nil
		},
	}
	for name, check := range checks {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if err := check(ctx, newStores(t)); err != nil {
				t.Fatal(err)
			}
		})
	}
}
