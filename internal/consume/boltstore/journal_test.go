package boltstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/consume"
	"github.com/toolgate/toolgate/internal/consume/boltstore"
)

// noCheckpoint keeps everything in the journal until Close (or Crash).
var noCheckpoint = boltstore.Options{SweepInterval: -1, CheckpointInterval: -1}

func rec(i int) consume.Record {
	return consume.Record{
		Key:        consume.Key{Domain: "journal-domain", Binding: fmt.Sprintf("%064x", i)},
		Identities: [3]string{fmt.Sprintf("journal-a-%d", i), fmt.Sprintf("journal-r-%d", i), fmt.Sprintf("journal-c-%d", i)},
		ExpiresAt:  time.Now().Add(time.Hour),
	}
}

func journalSegments(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, de := range des {
		if strings.HasPrefix(de.Name(), boltstore.JournalPrefix) {
			out = append(out, filepath.Join(dir, de.Name()))
		}
	}
	slices.Sort(out)
	return out
}

func consumeAll(t *testing.T, s *boltstore.Store, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		if err := s.Consume(context.Background(), rec(i)); err != nil {
			t.Fatalf("Consume %d: %v", i, err)
		}
	}
}

func TestAnAnsweredConsumeIsHeldAfterACrashBeforeAnyCheckpoint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := boltstore.Open(dir, noCheckpoint)
	if err != nil {
		t.Fatal(err)
	}
	consumeAll(t, s, 0, 50)
	s.Crash()

	s2 := open(t, dir, noCheckpoint)
	for i := range 50 {
		if err := s2.Consume(context.Background(), rec(i)); !errors.Is(err, consume.ErrConsumed) {
			t.Fatalf("Consume %d after the crash = %v, want ErrConsumed", i, err)
		}
	}
	// Another binding naming an identity consumed before the crash.
	other := rec(1 << 20)
	other.Identities[consume.ReplayIdentity] = rec(7).Identities[consume.ReplayIdentity]
	if err := s2.Consume(context.Background(), other); !errors.Is(err, consume.ErrIdentityReused) {
		t.Fatalf("another binding naming an identity consumed before the crash: %v, want ErrIdentityReused", err)
	}
	if err := s2.Held(context.Background(), "journal-domain", rec(9).Identities); !errors.Is(err, consume.ErrIdentityReused) {
		t.Fatalf("Held after the crash: %v, want ErrIdentityReused", err)
	}
	if segs := journalSegments(t, dir); len(segs) != 1 {
		t.Errorf("after replay the journal has %d segments, want the one new segment", len(segs))
	}
}

func TestATornJournalTailIsDroppedAndEverythingBeforeItHeld(t *testing.T) {
	t.Parallel()
	dir := crashedAfter(t, 10)
	torn := rec(10)
	key := torn.Key.Domain + "/" + torn.Key.Binding
	whole := boltstore.EntryLen(len(key))
	for _, cut := range []int{1, 7, whole - 1} {
		t.Run(fmt.Sprintf("cut after %d octets", cut), func(t *testing.T) {
			d := filepath.Join(t.TempDir(), "state")
			copyDir(t, dir, d)
			if err := boltstore.TearNewestSegment(d, key, cut); err != nil {
				t.Fatal(err)
			}
			s := open(t, d, noCheckpoint)
			for i := range 10 {
				if err := s.Consume(context.Background(), rec(i)); !errors.Is(err, consume.ErrConsumed) {
					t.Fatalf("Consume %d = %v, want ErrConsumed", i, err)
				}
			}
			if err := s.Consume(context.Background(), torn); err != nil {
				t.Fatalf("the torn entry's Consume = %v, want it never held", err)
			}
		})
	}
	// The same entry written whole is held: the tear, not the entry's
	// place, is what drops it.
	d := filepath.Join(t.TempDir(), "whole")
	copyDir(t, dir, d)
	if err := boltstore.TearNewestSegment(d, key, 0); err != nil {
		t.Fatal(err)
	}
	if err := open(t, d, noCheckpoint).Consume(context.Background(), torn); !errors.Is(err, consume.ErrConsumed) {
		t.Fatalf("a whole entry's Consume after replay = %v, want ErrConsumed", err)
	}
}

func TestAnOlderJournalSegmentThatDoesNotEndWithItsSealFailsClosed(t *testing.T) {
	t.Parallel()
	dir := crashedAfter(t, 10)
	// The crash leaves one unsealed segment holding the ten entries:
	// corrupt one octet in its middle, then make it the older of two.
	older, end, err := boltstore.NewestSegmentEntries(dir)
	if err != nil || end == 0 {
		t.Fatalf("newest segment: %v, %d octets of entries", err, end)
	}
	b, err := os.ReadFile(older)
	if err != nil {
		t.Fatal(err)
	}
	b[end/2] ^= 0xff
	if err := os.WriteFile(older, b, 0o600); err != nil {
		t.Fatal(err)
	}
	newer := boltstore.SegmentPath(dir, 1<<40)
	if err := os.WriteFile(newer, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	expectOpenRefused(t, dir, "over an unsealed older segment")
	// The same corruption in the newest segment is a torn tail: it opens.
	if err := os.Remove(newer); err != nil {
		t.Fatal(err)
	}
	open(t, dir, noCheckpoint)
}

// A crash after a checkpoint sealed a segment and before it copied the
// entries into the file leaves two segments: both are replayed.
func TestASealedSegmentAndItsSuccessorAreBothReplayed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir, noCheckpoint)
	snapshot := filepath.Join(t.TempDir(), "crashed")
	var once sync.Once // Close checkpoints too
	boltstore.SetBeforeCopy(s, func() {
		once.Do(func() {
			consumeAll(t, s, 10, 20) // into the successor
			copyDir(t, dir, snapshot)
		})
	})
	consumeAll(t, s, 0, 10)
	if _, err := s.Len(); err != nil { // a checkpoint
		t.Fatal(err)
	}
	if segs := journalSegments(t, snapshot); len(segs) != 2 {
		t.Fatalf("the snapshot holds %d segments, want the sealed one and its successor", len(segs))
	}
	s2 := open(t, snapshot, noCheckpoint)
	for i := range 20 {
		if err := s2.Consume(context.Background(), rec(i)); !errors.Is(err, consume.ErrConsumed) {
			t.Fatalf("Consume %d after the crash = %v, want ErrConsumed", i, err)
		}
	}
}

func TestAJournalFileTheStoreNeverWritesFailsClosed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := open(t, dir, noCheckpoint).Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, boltstore.JournalPrefix+"x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	expectOpenRefused(t, dir, "over a file name the store never writes")
}

// Checkpoints move entries from the journal into the file while batches
// read both: no moment may let a second Consume of a key through.
func TestCheckpointsRacingConsumesNeverAdmitASecondConsume(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir(), boltstore.Options{SweepInterval: -1, CheckpointInterval: time.Millisecond})
	const keys, workers = 400, 8
	var wins [keys]atomic.Int32
	var wg sync.WaitGroup
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() { // and forced checkpoints on top of the background ones
		defer close(stopped)
		for {
			select {
			case <-stop:
				return
			default:
				if _, err := s.Len(); err != nil {
					t.Error(err)
					return
				}
			}
		}
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Every worker walks the keys in the same order, a little
			// behind or ahead of the others, so that the second and later
			// attempts at a key fall while its entry moves to the file.
			for i := range keys {
				err := s.Consume(context.Background(), rec(i))
				switch {
				case err == nil:
					wins[i].Add(1)
				case !errors.Is(err, consume.ErrConsumed):
					t.Errorf("Consume %d: %v", i, err)
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-stopped
	for i := range keys {
		if n := wins[i].Load(); n != 1 {
			t.Errorf("key %d was consumed %d times, want exactly once", i, n)
		}
	}
	if n, err := s.Len(); err != nil || n != keys {
		t.Errorf("Len = %d, %v; want %d", n, err, keys)
	}
}

// crashedAfter is the state directory of a store that answered Consumes
// 0..n-1 and then crashed before any checkpoint.
func crashedAfter(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	s, err := boltstore.Open(dir, noCheckpoint)
	if err != nil {
		t.Fatal(err)
	}
	consumeAll(t, s, 0, n)
	s.Crash()
	return dir
}

// expectOpenRefused fails unless opening dir fails closed.
func expectOpenRefused(t *testing.T, dir, what string) {
	t.Helper()
	s, err := boltstore.Open(dir, noCheckpoint)
	if err == nil {
		_ = s.Close()
	}
	if !errors.Is(err, consume.ErrUnavailable) {
		t.Fatalf("Open %s = %v, want ErrUnavailable", what, err)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o700); err != nil {
		t.Fatal(err)
	}
	des, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, de := range des {
		b, err := os.ReadFile(filepath.Join(from, de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, de.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAConsumeDuringACheckpointSeesTheEntriesBeingCopied(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir(), noCheckpoint)
	var during []error
	boltstore.SetBeforeCopy(s, func() {
		during = append(during, s.Consume(context.Background(), rec(0)))
	})
	consumeAll(t, s, 0, 1)
	if _, err := s.Len(); err != nil { // a checkpoint
		t.Fatal(err)
	}
	if len(during) != 1 || !errors.Is(during[0], consume.ErrConsumed) {
		t.Fatalf("a Consume while the checkpoint copied its entry = %v, want one ErrConsumed", during)
	}
	if err := s.Consume(context.Background(), rec(0)); !errors.Is(err, consume.ErrConsumed) {
		t.Fatalf("a Consume after the checkpoint = %v, want ErrConsumed", err)
	}
}
