package boltstore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/consume"
	"github.com/toolgate/toolgate/internal/consume/boltstore"
	"github.com/toolgate/toolgate/internal/consume/consumetest"
)

// fakeClock is an injectable clock that only moves when told.
type fakeClock struct{ ns atomic.Int64 }

func newFakeClock(t time.Time) *fakeClock {
	c := &fakeClock{}
	c.ns.Store(t.UnixNano())
	return c
}
func (c *fakeClock) Now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) Set(t time.Time)         { c.ns.Store(t.UnixNano()) }
func (c *fakeClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

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
				switch err := s.Consume(ctx, k, exp); {
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
		if err := s2.Consume(ctx, k, exp); !errors.Is(err, consume.ErrConsumed) {
			t.Fatalf("after reopen, key %d: %v, want ErrConsumed", i, err)
		}
	}
	if err := s2.Consume(ctx, consumetest.NewKey(domain), exp); err != nil {
		t.Fatalf("fresh key after reopen: %v", err)
	}
}

func TestSweepRemovesOnlyExpiredRecords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t0 := time.Unix(1_800_000_000, 0)
	clock := newFakeClock(t0)
	s := open(t, t.TempDir(), boltstore.Options{Clock: clock.Now, SweepInterval: -1})
	domain := consumetest.NewDomain()
	early, late, fractional := consumetest.NewKey(domain), consumetest.NewKey(domain), consumetest.NewKey(domain)
	for k, exp := range map[consume.Key]time.Time{
		early:      t0.Add(10 * time.Second),
		late:       t0.Add(20 * time.Second),
		fractional: t0.Add(10*time.Second + time.Millisecond), // kept until 10.001 s, so until 11 s
	} {
		if err := s.Consume(ctx, k, exp); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		at        time.Duration
		wantSwept int
		wantGone  []consume.Key
		wantHeld  []consume.Key
	}{
		{at: 9*time.Second + 999*time.Millisecond, wantSwept: 0, wantHeld: []consume.Key{early, late, fractional}},
		{at: 10 * time.Second, wantSwept: 1, wantGone: []consume.Key{early}, wantHeld: []consume.Key{late, fractional}},
		{at: 10*time.Second + 500*time.Millisecond, wantSwept: 0, wantHeld: []consume.Key{late, fractional}},
		{at: 11 * time.Second, wantSwept: 1, wantGone: []consume.Key{fractional}, wantHeld: []consume.Key{late}},
		{at: 20 * time.Second, wantSwept: 1, wantGone: []consume.Key{late}},
	}
	for _, tc := range cases {
		clock.Set(t0.Add(tc.at))
		got, err := s.Sweep(ctx)
		if err != nil || got != tc.wantSwept {
			t.Fatalf("at +%v: Sweep = %d, %v; want %d", tc.at, got, err, tc.wantSwept)
		}
		for _, k := range tc.wantHeld {
			if err := s.Consume(ctx, k, t0.Add(time.Hour)); !errors.Is(err, consume.ErrConsumed) {
				t.Fatalf("at +%v: a held record: %v, want ErrConsumed", tc.at, err)
			}
		}
	}
	if n, err := s.Len(); err != nil || n != 0 {
		t.Fatalf("after the last sweep: Len %d, %v; want 0", n, err)
	}
	// A removed record no longer answers ErrConsumed (the Authorization
	// can no longer validate, so the service never asks).
	if err := s.Consume(ctx, early, t0.Add(time.Hour)); err != nil {
		t.Fatalf("after removal: %v, want nil", err)
	}
}

func TestSweepDeletesMoreThanOneBatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t0 := time.Unix(1_800_000_000, 0)
	clock := newFakeClock(t0)
	s := open(t, t.TempDir(), boltstore.Options{Clock: clock.Now, SweepInterval: -1})
	n := boltstore.SweepBatch*2 + 7
	domain := consumetest.NewDomain()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := g; i < n; i += 8 {
				if err := s.Consume(ctx, consumetest.NewKey(domain), t0.Add(time.Duration(i)*time.Millisecond)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	clock.Advance(time.Minute)
	if got, err := s.Sweep(ctx); err != nil || got != n {
		t.Fatalf("Sweep = %d, %v; want %d", got, err, n)
	}
}

func TestBackgroundSweeperRunsUntilClose(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t0 := time.Unix(1_800_000_000, 0)
	clock := newFakeClock(t0)
	s := open(t, t.TempDir(), boltstore.Options{Clock: clock.Now, SweepInterval: 5 * time.Millisecond})
	if err := s.Consume(ctx, consumetest.NewKey(consumetest.NewDomain()), t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // several ticks: nothing has expired
	if n, err := s.Len(); err != nil || n != 1 {
		t.Fatalf("before expiry: Len %d, %v; want 1", n, err)
	}
	clock.Advance(2 * time.Second)
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
	if err := s.Consume(ctx, k, time.Now().Add(time.Hour)); err != nil {
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
