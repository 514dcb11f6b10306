package consumetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/toolgate/toolgate/internal/consume"
)

// NewIdentities returns three fresh identities (authorization, replay,
// consumption).
func NewIdentities() [3]string {
	return [3]string{"authz-" + NewKey("x").Binding[:16], "replay-" + NewKey("x").Binding[:16], "consumption-" + NewKey("x").Binding[:16]}
}

// sharing is another Authorization of r's domain: a fresh binding, naming
// r's identities where share is true and fresh ones elsewhere.
func sharing(r consume.Record, share [3]bool) consume.Record {
	o := NewRecord(r.Key.Domain)
	for i, s := range share {
		if s {
			o.Identities[i] = r.Identities[i]
		}
	}
	return o
}

// reusedAt reports whether err refuses at the identity field.
func reusedAt(err error, field string) bool {
	var re *consume.IdentityReusedError
	return errors.As(err, &re) && errors.Is(err, consume.ErrIdentityReused) && re.Field == field
}

// CheckIdentityReuse consumes a fresh record, then, on every store,
// consumes other Authorizations (other bindings) that share one, two or
// all of its identities: each must be refused with an
// *IdentityReusedError naming the first shared identity, Held must name
// its first identity and pass fresh ones, and the record itself must
// still be ErrConsumed. The same identities in another domain are free.
func CheckIdentityReuse(ctx context.Context, stores []consume.Store) error {
	r := NewRecord(NewDomain())
	if err := stores[0].Held(ctx, r.Key.Domain, r.Identities); err != nil {
		return fmt.Errorf("held before the Consume: %v, want nil", err)
	}
	if err := stores[0].Consume(ctx, r); err != nil {
		return fmt.Errorf("first Consume: %w", err)
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
			o := sharing(r, tc.share)
			// Held first: on the apiserver a refused Consume may hold the
			// identities it created before the refusal.
			if err := s.Held(ctx, o.Key.Domain, o.Identities); !reusedAt(err, tc.field) {
				return fmt.Errorf("replica %d: Held of identities sharing %v: %v; want ErrIdentityReused at %s", i, tc.share, err, tc.field)
			}
			err := s.Consume(ctx, o)
			if !reusedAt(err, tc.field) {
				return fmt.Errorf("replica %d: another binding sharing %v: %v; want ErrIdentityReused at %s", i, tc.share, err, tc.field)
			}
			if strings.Contains(err.Error(), r.Identities[0]) || strings.Contains(err.Error(), o.Key.Binding[:16]) {
				return fmt.Errorf("replica %d: the refusal quotes an identity or a binding", i)
			}
		}
		if err := s.Consume(ctx, r); !errors.Is(err, consume.ErrConsumed) {
			return fmt.Errorf("replica %d: the first record again: %v; want ErrConsumed", i, err)
		}
		if err := s.Held(ctx, r.Key.Domain, NewIdentities()); err != nil {
			return fmt.Errorf("replica %d: Held of fresh identities: %v; want nil", i, err)
		}
	}
	other := sharing(r, [3]bool{true, true, true})
	other.Key.Domain = NewDomain()
	if err := stores[len(stores)-1].Consume(ctx, other); err != nil {
		return fmt.Errorf("same identities, other domain: %v; want nil", err)
	}
	return nil
}

// CheckIdentitiesAtomic holds a store whose Consume is one transaction
// (bbolt, etcd) to "all or nothing": a Consume refused for one held
// identity records neither its key nor its other identities, so another
// binding may hold them, and the refused record stays refused.
func CheckIdentitiesAtomic(ctx context.Context, stores []consume.Store) error {
	r := NewRecord(NewDomain())
	if err := stores[0].Consume(ctx, r); err != nil {
		return fmt.Errorf("first Consume: %w", err)
	}
	refused := sharing(r, [3]bool{false, false, true})
	if err := stores[0].Consume(ctx, refused); !reusedAt(err, "consumptionID") {
		return fmt.Errorf("a binding sharing the consumption identity: %v, want ErrIdentityReused", err)
	}
	if err := stores[len(stores)-1].Held(ctx, r.Key.Domain, [3]string{refused.Identities[0], refused.Identities[1], NewIdentities()[2]}); err != nil {
		return fmt.Errorf("held of the refused record's other identities: %v; want them free", err)
	}
	third := NewRecord(r.Key.Domain)
	third.Identities[consume.AuthorizationIdentity] = refused.Identities[consume.AuthorizationIdentity]
	third.Identities[consume.ReplayIdentity] = refused.Identities[consume.ReplayIdentity]
	if err := stores[len(stores)-1].Consume(ctx, third); err != nil {
		return fmt.Errorf("the refused record's other identities: %v; want them free", err)
	}
	if err := stores[0].Consume(ctx, refused); !reusedAt(err, "authorizationID") {
		return fmt.Errorf("the refused record again: %v; want ErrIdentityReused at authorizationID", err)
	}
	return nil
}

// CheckIdentityConcurrently starts Goroutines callers spread over stores,
// each consuming a different binding that names one shared consumption
// identity (two replicas issued two artifacts for one consumption
// identity): exactly one must get nil and every other ErrIdentityReused
// at consumptionID. Then every caller consumes the winner's record again:
// each must get ErrConsumed.
func CheckIdentityConcurrently(ctx context.Context, stores []consume.Store) error {
	shared := NewRecord(NewDomain())
	records := make([]consume.Record, Goroutines)
	for i := range records {
		records[i] = sharing(shared, [3]bool{false, false, true})
	}
	errs := consumeAll(ctx, stores, records)
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			return fmt.Errorf("distinct bindings sharing a consumption identity: callers %d and %d both consumed", winner, i)
		case err == nil:
			winner = i
		case !reusedAt(err, "consumptionID"):
			return fmt.Errorf("distinct bindings, caller %d: %w, want ErrIdentityReused at consumptionID", i, err)
		}
	}
	if winner < 0 {
		return fmt.Errorf("%d distinct bindings sharing a consumption identity: none consumed, want 1", Goroutines)
	}
	again := make([]consume.Record, Goroutines)
	for i := range again {
		again[i] = records[winner]
	}
	for i, err := range consumeAll(ctx, stores, again) {
		if !errors.Is(err, consume.ErrConsumed) {
			return fmt.Errorf("the winner's record again, caller %d: %v, want ErrConsumed", i, err)
		}
	}
	return nil
}

func consumeAll(ctx context.Context, stores []consume.Store, records []consume.Record) []error {
	errs := make([]error, len(records))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range records {
		wg.Go(func() {
			<-start
			errs[i] = stores[i%len(stores)].Consume(ctx, records[i])
		})
	}
	close(start)
	wg.Wait()
	return errs
}

// CheckInvalidIdentities asks Held about malformed identities: each must
// be rejected with a *consume.KeyError that matches no sentinel and quotes
// nothing.
func CheckInvalidIdentities(ctx context.Context, s consume.Store) error {
	domain, good := NewDomain(), NewIdentities()
	bad := map[string]func(d *string, ids *[3]string){
		"uppercase domain":             func(d *string, _ *[3]string) { *d = "Echo-Canary" },
		"empty authorization identity": func(_ *string, ids *[3]string) { ids[0] = "" },
		"replay identity with a slash": func(_ *string, ids *[3]string) { ids[1] = canary + "/x" },
		"consumption identity over 64": func(_ *string, ids *[3]string) { ids[2] = canary + strings.Repeat("a", 60) },
		"identity with a dot":          func(_ *string, ids *[3]string) { ids[0] = canary + ".x" },
	}
	for name, change := range bad {
		d, ids := domain, good
		change(&d, &ids)
		err := s.Held(ctx, d, ids)
		var ke *consume.KeyError
		switch {
		case err == nil:
			return fmt.Errorf("%s: Held returned nil", name)
		case !errors.As(err, &ke):
			return fmt.Errorf("%s: Held: %v, want a *consume.KeyError", name, err)
		case errors.Is(err, consume.ErrIdentityReused) || errors.Is(err, consume.ErrUnavailable):
			return fmt.Errorf("%s: a KeyError must match no sentinel", name)
		case strings.Contains(strings.ToLower(err.Error()), canary):
			return fmt.Errorf("%s: the error quotes the identity", name)
		}
	}
	if err := s.Held(ctx, domain, good); err != nil {
		return fmt.Errorf("valid identities after rejected ones: %v", err)
	}
	return nil
}
