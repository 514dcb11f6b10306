package boltstore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/toolgate/toolgate/internal/consume"
	"github.com/toolgate/toolgate/internal/consume/boltstore"
	"github.com/toolgate/toolgate/internal/consume/consumetest"
	"github.com/toolgate/toolgate/internal/standalone/standalonetest"
	"github.com/toolgate/toolgate/internal/testutil"
)

func open(t *testing.T, dir string, opts boltstore.Options) *boltstore.Store {
	t.Helper()
	s, err := boltstore.Open(dir, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	t.Parallel()
	consumetest.Run(t, func(t *testing.T) []consume.Store {
		return []consume.Store{open(t, t.TempDir(), boltstore.Options{})}
	})
}

func TestConsumedStaysConsumedAcrossRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	exp := time.Now().Add(time.Hour)
	s, err := boltstore.Open(dir, boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Two goroutines race over the same many keys: each key gets exactly
	// one yes between them.
	const n = 500
	domain := consumetest.NewDomain()
	keys := make([]consume.Key, n)
	for i := range keys {
		keys[i] = consumetest.NewKey(domain)
	}
	var yes [2][n]bool
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Go(func() {
			for i, k := range keys {
				switch err := s.Consume(ctx, consumetest.RecordAt(k, exp)); {
				case err == nil:
					yes[g][i] = true
				case !errors.Is(err, consume.ErrConsumed):
					t.Errorf("goroutine %d key %d: %v", g, i, err)
				}
			}
		})
	}
	wg.Wait()
	for i := range keys {
		if yes[0][i] == yes[1][i] {
			t.Fatalf("key %d: yes from goroutine 0 %v, from goroutine 1 %v; want exactly one", i, yes[0][i], yes[1][i])
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s2 := open(t, dir, boltstore.Options{})
	if got, err := s2.Len(); err != nil || got != n {
		t.Fatalf("after reopen: Len %d, %v; want %d", got, err, n)
	}
	for i, k := range keys {
		if err := s2.Consume(ctx, consumetest.RecordAt(k, exp)); !errors.Is(err, consume.ErrConsumed) {
			t.Fatalf("after reopen, key %d: %v, want ErrConsumed", i, err)
		}
	}
	if err := s2.Consume(ctx, consumetest.RecordAt(consumetest.NewKey(domain), exp)); err != nil {
		t.Fatalf("fresh key after reopen: %v", err)
	}
}

func TestSweepRemovesOnlyRecordsPastTheirRetention(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t0 := time.Unix(1_800_000_000, 0)
	clock := consumetest.NewClock(t0)
	const retention = 5 * time.Second
	s := open(t, t.TempDir(), boltstore.Options{Clock: clock.Now, SweepInterval: -1, Retention: retention})
	domain := consumetest.NewDomain()
	early := consumetest.RecordAt(consumetest.NewKey(domain), t0.Add(10*time.Second))
	late := consumetest.RecordAt(consumetest.NewKey(domain), t0.Add(20*time.Second))
	// Kept until 10.001 s + retention, so until 16 s (whole seconds, up).
	fractional := consumetest.RecordAt(consumetest.NewKey(domain), t0.Add(10*time.Second+time.Millisecond))
	for _, r := range []consume.Record{early, late, fractional} {
		if err := s.Consume(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		at        time.Duration
		wantSwept int
		wantLen   int
	}{
		{at: 10 * time.Second, wantSwept: 0, wantLen: 3}, // expired, but kept for the retention
		{at: 14*time.Second + 999*time.Millisecond, wantSwept: 0, wantLen: 3},
		{at: 15 * time.Second, wantSwept: 1, wantLen: 2},
		{at: 15*time.Second + 500*time.Millisecond, wantSwept: 0, wantLen: 2},
		{at: 16 * time.Second, wantSwept: 1, wantLen: 1},
		{at: 25 * time.Second, wantSwept: 1, wantLen: 0},
	}
	for _, tc := range cases {
		clock.Set(t0.Add(tc.at))
		got, err := s.Sweep(ctx)
		if err != nil || got != tc.wantSwept {
			t.Fatalf("at +%v: Sweep = %d, %v; want %d", tc.at, got, err, tc.wantSwept)
		}
		if n, err := s.Len(); err != nil || n != tc.wantLen {
			t.Fatalf("at +%v: Len %d, %v; want %d", tc.at, n, err, tc.wantLen)
		}
	}
	// A removed record's Authorization has expired: refused, and nothing
	// is recorded again.
	for _, r := range []consume.Record{early, late, fractional} {
		if err := s.Consume(ctx, r); !errors.Is(err, consume.ErrExpired) {
			t.Fatalf("after removal: %v, want ErrExpired", err)
		}
	}
	if n, err := s.Len(); err != nil || n != 0 {
		t.Fatalf("after the refused consumes: Len %d, %v; want 0", n, err)
	}
}

func TestAHeldRecordIsConsumedUntilItsExpiryThenExpired(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t0 := time.Unix(1_800_000_000, 0)
	clock := consumetest.NewClock(t0)
	s := open(t, t.TempDir(), boltstore.Options{Clock: clock.Now, SweepInterval: -1})
	r := consumetest.RecordAt(consumetest.NewKey(consumetest.NewDomain()), t0.Add(10*time.Second))
	if err := s.Consume(ctx, r); err != nil {
		t.Fatal(err)
	}
	clock.Set(r.ExpiresAt.Add(-time.Nanosecond))
	if err := s.Consume(ctx, r); !errors.Is(err, consume.ErrConsumed) {
		t.Fatalf("just before expiry: %v, want ErrConsumed", err)
	}
	clock.Set(r.ExpiresAt)
	if err := s.Consume(ctx, r); !errors.Is(err, consume.ErrExpired) {
		t.Fatalf("at expiry: %v, want ErrExpired", err)
	}
}

func TestNegativeRetentionIsRejected(t *testing.T) {
	t.Parallel()
	if _, err := boltstore.Open(t.TempDir(), boltstore.Options{Retention: -time.Second}); !errors.Is(err, consume.ErrUnavailable) {
		t.Fatalf("Open with a negative retention: %v, want ErrUnavailable", err)
	}
}

func TestSweepDeletesMoreThanOneBatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t0 := time.Unix(1_800_000_000, 0)
	clock := consumetest.NewClock(t0)
	s := open(t, t.TempDir(), boltstore.Options{Clock: clock.Now, SweepInterval: -1})
	n := boltstore.SweepBatch*2 + 7
	domain := consumetest.NewDomain()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := g; i < n; i += 8 {
				if err := s.Consume(ctx, consumetest.RecordAt(consumetest.NewKey(domain), t0.Add(time.Duration(i+1)*time.Millisecond))); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	clock.Advance(time.Minute + consume.DefaultRetention)
	if got, err := s.Sweep(ctx); err != nil || got != n {
		t.Fatalf("Sweep = %d, %v; want %d", got, err, n)
	}
}

func TestBackgroundSweeperRunsUntilClose(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t0 := time.Unix(1_800_000_000, 0)
	clock := consumetest.NewClock(t0)
	s := open(t, t.TempDir(), boltstore.Options{Clock: clock.Now, SweepInterval: 5 * time.Millisecond})
	if err := s.Consume(ctx, consumetest.RecordAt(consumetest.NewKey(consumetest.NewDomain()), t0.Add(time.Second))); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // several ticks: nothing has expired
	if n, err := s.Len(); err != nil || n != 1 {
		t.Fatalf("before expiry: Len %d, %v; want 1", n, err)
	}
	clock.Advance(2*time.Second + consume.DefaultRetention)
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, err := s.Len()
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the sweeper did not remove the expired record")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestClosedStoreFailsClosed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := boltstore.Open(t.TempDir(), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	k := consumetest.NewKey(consumetest.NewDomain())
	if err := s.Consume(ctx, consumetest.RecordAt(k, time.Now().Add(time.Hour))); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := consumetest.CheckUnavailable(ctx, s, k); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sweep(ctx); !errors.Is(err, consume.ErrUnavailable) {
		t.Fatalf("Sweep on a closed store: %v, want ErrUnavailable", err)
	}
	// Len and Claims checkpoint first: after Close no checkpoint runs.
	if _, err := s.Len(); !errors.Is(err, consume.ErrUnavailable) {
		t.Fatalf("Len on a closed store: %v, want ErrUnavailable", err)
	}
	if _, err := s.Claims(); !errors.Is(err, consume.ErrUnavailable) {
		t.Fatalf("Claims on a closed store: %v, want ErrUnavailable", err)
	}
}

func TestCanceledContextFailsClosed(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir(), boltstore.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := consumetest.CheckUnavailable(ctx, s, consume.Key{}); err != nil {
		t.Fatal(err)
	}
}

func TestLockedFileFailsClosed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	open(t, dir, boltstore.Options{})
	// A second handle (another process, or a second manager in this one)
	// cannot take the file lock: Open fails, it never answers.
	_, err := boltstore.Open(dir, boltstore.Options{OpenTimeout: 100 * time.Millisecond})
	if !errors.Is(err, consume.ErrUnavailable) {
		t.Fatalf("second Open of a locked file: %v, want ErrUnavailable", err)
	}
}

func TestCorruptFileFailsClosed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	garbage := make([]byte, 64<<10)
	for i := range garbage {
		garbage[i] = byte(i * 7)
	}
	if err := os.WriteFile(filepath.Join(dir, boltstore.FileName), garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := boltstore.Open(dir, boltstore.Options{}); !errors.Is(err, consume.ErrUnavailable) {
		if s != nil {
			_ = s.Close()
		}
		t.Fatalf("Open of a corrupt file: %v, want ErrUnavailable", err)
	}
}

func TestUnwritableStateDirectoryFailsClosed(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	file := filepath.Join(parent, "not-a-directory")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := boltstore.Open(filepath.Join(file, "state"), boltstore.Options{}); !errors.Is(err, consume.ErrUnavailable) {
		t.Fatalf("Open under a file: %v, want ErrUnavailable", err)
	}
}

// TestTrickledConsumeAcrossASweepIsRefused: consumetest.CheckTrickledConsume
// on bbolt.
func TestTrickledConsumeAcrossASweepIsRefused(t *testing.T) {
	t.Parallel()
	clock := consumetest.NewClock(time.Unix(0, 0))
	s := open(t, t.TempDir(), boltstore.Options{Clock: clock.Now, SweepInterval: -1, Retention: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sweep := func(ctx context.Context) error { _, err := s.Sweep(ctx); return err }
	root := testutil.RepoRoot(t)
	service := standalonetest.Service(t.TempDir(), filepath.Join(root, "config", "samples"))
	if err := consumetest.CheckTrickledConsume(ctx, root, service, s, clock, 3*time.Second, sweep); err != nil {
		t.Fatal(err)
	}
}

func TestHeldIdentitiesSurviveRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	s, err := boltstore.Open(dir, boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := consumetest.NewRecord(consumetest.NewDomain())
	if err := s.Consume(ctx, r); err != nil {
		t.Fatalf("Consume: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s2 := open(t, dir, boltstore.Options{})
	if err := s2.Consume(ctx, r); !errors.Is(err, consume.ErrConsumed) {
		t.Fatalf("the same record after reopen: %v; want ErrConsumed", err)
	}
	other := consumetest.NewRecord(r.Key.Domain)
	other.Identities[1] = r.Identities[1]
	if err := s2.Consume(ctx, other); !errors.Is(err, consume.ErrIdentityReused) {
		t.Fatalf("another binding naming its replay identity after reopen: %v, want ErrIdentityReused", err)
	}
	if err := s2.Held(ctx, r.Key.Domain, other.Identities); !errors.Is(err, consume.ErrIdentityReused) {
		t.Fatalf("Held after reopen: %v, want ErrIdentityReused", err)
	}
}

// TestSweepFreesHeldIdentitiesOnlyAfterTheLongestLifetimeAndTheRetention:
// a Consumption holds its identities for consume.MaxAuthorizationLifetime
// past the moment it was recorded (however short the artifact's own
// lifetime) plus the retention, then a sweep frees them.
func TestSweepFreesHeldIdentitiesOnlyAfterTheLongestLifetimeAndTheRetention(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t0 := time.Unix(1_800_000_000, 0)
	clock := consumetest.NewClock(t0)
	const retention = 5 * time.Second
	s := open(t, t.TempDir(), boltstore.Options{Clock: clock.Now, SweepInterval: -1, Retention: retention})
	r := consumetest.RecordAt(consumetest.NewKey(consumetest.NewDomain()), t0.Add(10*time.Second))
	if err := s.Consume(ctx, r); err != nil {
		t.Fatal(err)
	}
	hold := consume.MaxAuthorizationLifetime
	for _, tc := range []struct {
		at       time.Duration
		wantHeld int
	}{
		{at: 15 * time.Second, wantHeld: 3}, // the record is swept; the identities stay
		{at: hold + retention - time.Millisecond, wantHeld: 3},
		{at: hold + retention, wantHeld: 0},
	} {
		clock.Set(t0.Add(tc.at))
		if _, err := s.Sweep(ctx); err != nil {
			t.Fatal(err)
		}
		if n, err := s.Claims(); err != nil || n != tc.wantHeld {
			t.Fatalf("at +%v: %d identities held, %v; want %d", tc.at, n, err, tc.wantHeld)
		}
		other := consumetest.RecordAt(consumetest.NewKey(r.Key.Domain), t0.Add(tc.at+time.Minute))
		other.Identities = r.Identities
		err := s.Held(ctx, r.Key.Domain, r.Identities)
		if tc.wantHeld > 0 && !errors.Is(err, consume.ErrIdentityReused) || tc.wantHeld == 0 && err != nil {
			t.Fatalf("at +%v: Held %v; want held %v", tc.at, err, tc.wantHeld > 0)
		}
		if tc.wantHeld == 0 {
			if err := s.Consume(ctx, other); err != nil {
				t.Fatalf("after the sweep: %v; want the identities free", err)
			}
		} else if err := s.Consume(ctx, other); !errors.Is(err, consume.ErrIdentityReused) {
			t.Fatalf("at +%v: another binding: %v, want ErrIdentityReused", tc.at, err)
		}
	}
}

// TestAWriteThatFailsInASharedCommitFailsAlone stores a corrupt identity
// entry, then runs Consumes naming it beside many concurrent Consumes of
// fresh keys and identities: the group commit rolls back a batch in which one
// write fails and re-runs each write alone, so every other write still
// succeeds and only the corrupt one fails closed.
func TestAWriteThatFailsInASharedCommitFailsAlone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	domain := consumetest.NewDomain()
	corrupt := consumetest.NewRecord(domain)
	s := open(t, dir, boltstore.Options{})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(filepath.Join(dir, boltstore.FileName), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("claims")).Put([]byte(domain+"/0/"+corrupt.Identities[0]), []byte("not a claim"))
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	s = open(t, dir, boltstore.Options{})
	ctx := context.Background()
	exp := time.Now().Add(time.Hour)
	var wg sync.WaitGroup
	for g := range 32 {
		wg.Go(func() {
			for i := range 20 {
				switch {
				case g%8 == 0:
					if err := s.Consume(ctx, corrupt); !errors.Is(err, consume.ErrUnavailable) {
						t.Errorf("Consume naming the corrupt entry: %v, want ErrUnavailable", err)
					}
					if err := s.Held(ctx, domain, corrupt.Identities); !errors.Is(err, consume.ErrUnavailable) {
						t.Errorf("Held of the corrupt entry: %v, want ErrUnavailable", err)
					}
				case g%2 == 0:
					if err := s.Consume(ctx, consumetest.RecordOf(consumetest.NewKey(domain))); err != nil {
						t.Errorf("goroutine %d, Consume %d of fresh identities: %v", g, i, err)
					}
				default:
					if err := s.Consume(ctx, consumetest.RecordAt(consumetest.NewKey(domain), exp)); err != nil {
						t.Errorf("goroutine %d, Consume %d of a fresh key: %v", g, i, err)
					}
				}
			}
		})
	}
	wg.Wait()
}
