package boltstore_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/consume"
	"github.com/toolgate/toolgate/internal/consume/boltstore"
)

// crashEnv names the state directory of the child process of
// TestEveryAnsweredConsumeOfABatchSurvivesAKill.
const crashEnv = "BOLTSTORE_CRASH_CHILD_DIR"

// crashKey is the key of the i-th Consume of the crash test; both
// processes derive it, so the child only reports indices.
func crashKey(i int) consume.Key {
	return consume.Key{Domain: "crash-domain", Binding: fmt.Sprintf("%064x", i)}
}

// crashRecord is Consume i of the child: its key and three identities of
// its own.
func crashRecord(i int, exp time.Time) consume.Record {
	return consume.Record{Key: crashKey(i), ExpiresAt: exp,
		Identities: [3]string{fmt.Sprintf("crash-a-%d", i), fmt.Sprintf("crash-r-%d", i), fmt.Sprintf("crash-c-%d", i)}}
}

// TestEveryAnsweredConsumeOfABatchSurvivesAKill runs 16 goroutines of
// Consumes in a child process, which prints the index of each Consume the
// store answered yes, and kills the child with SIGKILL while its group
// commits are in flight. Every index printed before the kill must be held
// by the reopened file, with the identities it holds: a write is answered
// only after the journal write holding it was synced, never on joining a
// batch, so another Authorization naming its consumption identity is
// refused after the kill.
func TestEveryAnsweredConsumeOfABatchSurvivesAKill(t *testing.T) {
	if dir := os.Getenv(crashEnv); dir != "" {
		crashChild(dir)
		return
	}
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestEveryAnsweredConsumeOfABatchSurvivesAKill$")
	cmd.Env = append(os.Environ(), crashEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	const answered = 2000 // yeses read before the kill
	var yes []int
	sc := bufio.NewScanner(out)
	for len(yes) < answered && sc.Scan() {
		i, err := strconv.Atoi(sc.Text())
		if err != nil {
			continue // the test binary's own output
		}
		yes = append(yes, i)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if len(yes) < answered {
		t.Fatalf("the child answered %d Consumes before it ended; want at least %d", len(yes), answered)
	}

	s := open(t, dir, boltstore.Options{})
	exp := time.Now().Add(time.Hour)
	var re *consume.IdentityReusedError
	for _, i := range yes {
		err := s.Consume(context.Background(), crashRecord(i, exp))
		if !errors.Is(err, consume.ErrConsumed) {
			t.Fatalf("Consume %d was answered yes before the kill but is not held after it: %v", i, err)
		}
		other := crashRecord(i, exp)
		other.Key.Binding = fmt.Sprintf("%064x", 1<<40+i)
		other.Identities[0], other.Identities[1] = "other-a", "other-r"
		if err := s.Consume(context.Background(), other); !errors.As(err, &re) || re.Field != "consumptionID" {
			t.Fatalf("another binding naming consumption identity %d after the kill: %v, want ErrIdentityReused at consumptionID", i, err)
		}
	}
}

// crashChild consumes fresh keys from 16 goroutines until killed, printing
// each index the store answered yes.
func crashChild(dir string) {
	s, err := boltstore.Open(dir, boltstore.Options{})
	if err != nil {
		os.Exit(2)
	}
	exp := time.Now().Add(time.Hour)
	// A parent that died before its kill leaves no writer behind for
	// long (a write to its closed pipe ends the child sooner).
	time.AfterFunc(2*time.Minute, func() { os.Exit(3) })
	var mu sync.Mutex
	w := bufio.NewWriter(os.Stdout)
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := g; ; i += 16 {
				if s.Consume(context.Background(), crashRecord(i, exp)) != nil {
					continue
				}
				mu.Lock()
				fmt.Fprintln(w, i)
				_ = w.Flush()
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}
