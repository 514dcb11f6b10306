// Package consumetest is the conformance suite every Consumption store
// passes (internal/consume): exactly one yes per Key among concurrent
// callers and replicas, distinct Keys each consumed once, malformed Records
// rejected without echo, an expired Authorization refused whether or not it
// was recorded, a store that cannot answer never saying yes, (with a
// real service in front, CheckTrickledConsume) no second yes for a request
// that straddles a sweep, and the identities a Consumption holds
// (claim.go): another binding naming a consumed identity refused, one yes
// among 64 concurrent bindings sharing a consumption identity, all or
// nothing where Consume is one transaction.
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

// NewRecord returns a Record of a fresh random Key in domain, with fresh
// identities, expiring Expiry from now.
func NewRecord(domain string) consume.Record {
	return RecordOf(NewKey(domain))
}

// RecordOf returns the Record of k with fresh identities, expiring Expiry
// from now.
func RecordOf(k consume.Key) consume.Record {
	return consume.Record{Key: k, Identities: NewIdentities(), ExpiresAt: time.Now().Add(Expiry)}
}

// RecordAt returns the Record of k with fresh identities,
// expiring at exp.
func RecordAt(k consume.Key, exp time.Time) consume.Record {
	r := RecordOf(k)
	r.ExpiresAt = exp
	return r
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
	r := NewRecord(NewDomain())
	if err := stores[0].Consume(ctx, r); err != nil {
		return fmt.Errorf("first Consume: %w, want nil", err)
	}
	for i, s := range stores {
		for range 2 {
			if err := s.Consume(ctx, r); !errors.Is(err, consume.ErrConsumed) {
				return fmt.Errorf("replica %d: later Consume: %v, want ErrConsumed", i, err)
			}
		}
	}
	// The same binding in another domain is another Consumption.
	other := r
	other.Key.Domain = NewDomain()
	if err := stores[len(stores)-1].Consume(ctx, other); err != nil {
		return fmt.Errorf("same binding, other domain: %w, want nil", err)
	}
	return nil
}

// CheckOneKeyConcurrently starts Goroutines callers, spread round-robin over
// stores (replicas sharing one backend), that consume one Key at once:
// exactly one must get nil and every other ErrConsumed.
func CheckOneKeyConcurrently(ctx context.Context, stores []consume.Store) error {
	r := NewRecord(NewDomain())
	errs := make([]error, Goroutines)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range Goroutines {
		wg.Go(func() {
			<-start
			errs[i] = stores[i%len(stores)].Consume(ctx, r)
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
	keys := make([]consume.Record, DistinctKeys)
	for i := range keys {
		keys[i] = NewRecord(domain)
	}
	for pass, want := range []error{nil, consume.ErrConsumed} {
		errs := make([]error, len(keys))
		var wg sync.WaitGroup
		for g := range Goroutines {
			wg.Go(func() {
				for i := g; i < len(keys); i += Goroutines {
					errs[i] = stores[(i+pass)%len(stores)].Consume(ctx, keys[i])
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

// CheckInvalidKeys sends malformed Records: each must be rejected with a
// *consume.KeyError (matching consume.ErrInvalidKey, no sentinel), and no
// message may quote the Record.
func CheckInvalidKeys(ctx context.Context, s consume.Store) error {
	goodRecord := NewRecord(NewDomain())
	good := goodRecord.Key
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
	ids := goodRecord.Identities
	records := map[string]consume.Record{
		"no identities":                    {Key: good, ExpiresAt: goodRecord.ExpiresAt},
		"uppercase authorization identity": {Key: good, Identities: [3]string{"Echo-Canary", ids[1], ids[2]}, ExpiresAt: goodRecord.ExpiresAt},
		"authorization identity over 64":   {Key: good, Identities: [3]string{canary + strings.Repeat("a", 65-len(canary)), ids[1], ids[2]}, ExpiresAt: goodRecord.ExpiresAt},
		"no replay identity":               {Key: good, Identities: [3]string{ids[0], "", ids[2]}, ExpiresAt: goodRecord.ExpiresAt},
		"consumption identity with a dot":  {Key: good, Identities: [3]string{ids[0], ids[1], canary + ".x"}, ExpiresAt: goodRecord.ExpiresAt},
		"no expiry":                        {Key: good, Identities: ids},
	}
	for name, k := range bad {
		r := goodRecord
		r.Key = k
		records[name] = r
	}
	for name, r := range records {
		err := s.Consume(ctx, r)
		var ke *consume.KeyError
		switch {
		case err == nil:
			return fmt.Errorf("%s: Consume returned nil", name)
		case !errors.As(err, &ke) || !errors.Is(err, consume.ErrInvalidKey):
			return fmt.Errorf("%s: Consume: %v, want a *consume.KeyError", name, err)
		case errors.Is(err, consume.ErrConsumed) || errors.Is(err, consume.ErrUnavailable) || errors.Is(err, consume.ErrExpired):
			return fmt.Errorf("%s: a KeyError must match no sentinel", name)
		case strings.Contains(strings.ToLower(err.Error()), canary) || strings.Contains(err.Error(), good.Binding[8:40]):
			return fmt.Errorf("%s: the error quotes the rejected key", name)
		}
	}
	// A valid key was never consumed by the rejected attempts.
	if err := s.Consume(ctx, goodRecord); err != nil {
		return fmt.Errorf("valid key after rejected ones: %w, want nil", err)
	}
	return nil
}

// CheckExpired asserts that a store refuses an Authorization expired by
// its clock (the real one: the stores under Run read time.Now) with
// ErrExpired and records nothing: a Record whose expiry has passed, one
// expiring exactly now, and one consumed before and since expired all get
// ErrExpired on every replica, and the expired Key is still unrecorded
// afterwards (consuming it with a later expiry succeeds once).
func CheckExpired(ctx context.Context, stores []consume.Store) error {
	past := NewRecord(NewDomain())
	past.ExpiresAt = time.Now().Add(-time.Second)
	for i, s := range stores {
		if err := s.Consume(ctx, past); !errors.Is(err, consume.ErrExpired) {
			return fmt.Errorf("replica %d: Consume of an expired Authorization: %v, want ErrExpired", i, err)
		}
	}
	live := past
	live.ExpiresAt = time.Now().Add(Expiry)
	if err := stores[0].Consume(ctx, live); err != nil {
		return fmt.Errorf("the refused Key with a later expiry: %w, want nil (the refusal recorded it)", err)
	}
	// A short-lived record expires while recorded: refused as expired,
	// never consumed again.
	short := NewRecord(NewDomain())
	short.ExpiresAt = time.Now().Add(1500 * time.Millisecond)
	if err := stores[0].Consume(ctx, short); err != nil {
		return fmt.Errorf("short-lived record: %w, want nil", err)
	}
	time.Sleep(time.Until(short.ExpiresAt) + 10*time.Millisecond)
	for i, s := range stores {
		if err := s.Consume(ctx, short); !errors.Is(err, consume.ErrExpired) {
			return fmt.Errorf("replica %d: Consume after expiry: %v, want ErrExpired", i, err)
		}
	}
	return nil
}

// CheckUnavailable asserts that s, a store that cannot answer (its server
// stopped, its file closed), fails closed: Ready and every Consume return
// an error wrapping ErrUnavailable, never nil, for fresh Keys and for a Key
// consumed before (consumed, which may be the zero Key to skip that part),
// and so does Held.
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
		if err := s.Consume(ctx, RecordOf(k)); !errors.Is(err, consume.ErrUnavailable) {
			return fmt.Errorf("key %d: Consume: %v, want ErrUnavailable", i, err)
		}
	}
	if err := s.Held(ctx, NewDomain(), NewIdentities()); !errors.Is(err, consume.ErrUnavailable) {
		return fmt.Errorf("held: %v; want ErrUnavailable", err)
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
		"one key is consumed once, then ErrConsumed on every replica":         CheckOnce,
		"64 goroutines on one key get one nil and 63 ErrConsumed":             CheckOneKeyConcurrently,
		"distinct keys from many goroutines are each consumed once":           CheckDistinctKeys,
		"malformed records reject with a KeyError that does not echo them":    func(ctx context.Context, s []consume.Store) error { return CheckInvalidKeys(ctx, s[0]) },
		"an expired authorization is refused and records nothing":             CheckExpired,
		"another binding naming a consumed identity is refused":               CheckIdentityReuse,
		"a refused consume holds none of its identities":                      CheckIdentitiesAtomic,
		"64 bindings sharing a consumption identity: one consumes":            CheckIdentityConcurrently,
		"malformed identities reject with a KeyError that does not echo them": func(ctx context.Context, s []consume.Store) error { return CheckInvalidIdentities(ctx, s[0]) },
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
