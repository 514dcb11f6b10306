package etcdstore_test

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"

	"github.com/toolgate/toolgate/internal/consume"
	"github.com/toolgate/toolgate/internal/consume/consumetest"
	"github.com/toolgate/toolgate/internal/consume/etcdstore"
	"github.com/toolgate/toolgate/internal/standalone/standalonetest"
	"github.com/toolgate/toolgate/internal/testutil"
)

func open(t *testing.T, e *consumetest.Etcd, opts etcdstore.Options) *etcdstore.Store {
	t.Helper()
	s, err := etcdstore.Open(e.Config(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func client(t *testing.T, e *consumetest.Etcd) *clientv3.Client {
	t.Helper()
	cli, err := clientv3.New(e.Config())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	return cli
}

func TestConformance(t *testing.T) {
	t.Parallel()
	e := consumetest.StartEtcd(t, consumetest.Assets(t))
	// Two replicas: two clients, two lease caches, one cluster.
	consumetest.Run(t, func(t *testing.T) []consume.Store {
		return []consume.Store{open(t, e, etcdstore.Options{}), open(t, e, etcdstore.Options{})}
	})
}

func TestStoppedServerFailsClosedAndRestartKeepsRecords(t *testing.T) {
	t.Parallel()
	e := consumetest.StartEtcd(t, consumetest.Assets(t))
	s := open(t, e, etcdstore.Options{Timeout: time.Second})
	ctx := context.Background()
	first := consumetest.RecordAt(consumetest.NewKey(consumetest.NewDomain()), time.Now().Add(time.Hour))
	k := first.Key
	if err := s.Consume(ctx, first); err != nil {
		t.Fatal(err)
	}

	e.Kill() // a crash: no graceful shutdown
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := consumetest.CheckUnavailable(cctx, s, k); err != nil {
		t.Fatal(err)
	}
	if cctx.Err() != nil {
		t.Fatal("the checks used the whole deadline: a store that cannot answer must return within its Timeout")
	}

	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	// The same Store reconnects; the record survived the crash.
	deadline := time.Now().Add(20 * time.Second)
	for s.Ready(ctx) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the store did not reconnect after the restart")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := s.Consume(ctx, consumetest.RecordAt(k, time.Now().Add(time.Hour))); !errors.Is(err, consume.ErrConsumed) {
		t.Fatalf("after restart: %v, want ErrConsumed", err)
	}
	if err := s.Consume(ctx, consumetest.RecordAt(consumetest.NewKey(consumetest.NewDomain()), time.Now().Add(time.Hour))); err != nil {
		t.Fatalf("fresh key after restart: %v", err)
	}
	// The identities it holds survived too: another Authorization naming
	// its consumption identity is refused, and Held says so.
	other := consumetest.NewRecord(k.Domain)
	other.Identities[consume.ConsumptionIdentity] = first.Identities[consume.ConsumptionIdentity]
	var re *consume.IdentityReusedError
	if err := s.Consume(ctx, other); !errors.As(err, &re) || re.Field != "consumptionID" {
		t.Fatalf("another binding naming its consumption identity after restart: %v, want ErrIdentityReused at consumptionID", err)
	}
	if err := s.Held(ctx, k.Domain, first.Identities); !errors.Is(err, consume.ErrIdentityReused) {
		t.Fatalf("Held after restart: %v, want ErrIdentityReused", err)
	}
}

func TestRecordLivesForItsRetentionPastExpiryThenGoes(t *testing.T) {
	t.Parallel()
	e := consumetest.StartEtcd(t, consumetest.Assets(t))
	const bucket, margin = time.Second, time.Second
	s := open(t, e, etcdstore.Options{LeaseBucket: bucket, Retention: margin})
	cli := client(t, e)
	ctx := context.Background()
	k := consumetest.NewKey(consumetest.NewDomain())
	now := time.Now()
	exp := now.Add(3 * time.Second)
	if err := s.Consume(ctx, consumetest.RecordAt(k, exp)); err != nil {
		t.Fatal(err)
	}
	resp, err := cli.Get(ctx, s.Key(k))
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("Get: %v, %d keys; want the record", err, len(resp.Kvs))
	}
	ttl, err := cli.TimeToLive(ctx, clientv3.LeaseID(resp.Kvs[0].Lease))
	if err != nil {
		t.Fatal(err)
	}
	// The lease reaches the retention past expiresAt, and at most a window
	// further. (The upper bound allows for rounding up to whole seconds
	// twice.)
	lo, hi := time.Until(exp)+margin, time.Until(exp)+bucket+margin+2*time.Second
	if got := time.Duration(ttl.GrantedTTL) * time.Second; got < lo || got > hi {
		t.Fatalf("granted TTL %v, want within [%v, %v]", got, lo, hi)
	}
	// Before expiresAt the record is held.
	time.Sleep(time.Until(exp.Add(-time.Second)))
	if err := s.Consume(ctx, consumetest.RecordAt(k, exp)); !errors.Is(err, consume.ErrConsumed) {
		t.Fatalf("before expiresAt: %v, want ErrConsumed", err)
	}
	// At expiresAt the store refuses it as expired, without a write.
	time.Sleep(time.Until(exp))
	if err := s.Consume(ctx, consumetest.RecordAt(k, exp)); !errors.Is(err, consume.ErrExpired) {
		t.Fatalf("at expiresAt: %v, want ErrExpired", err)
	}
	// After the retention it is removed promptly (etcd's lessor checks
	// expiry every 500 ms).
	deadline := exp.Add(bucket + margin + 5*time.Second)
	for {
		resp, err := cli.Get(ctx, s.Key(k))
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Kvs) == 0 {
			if time.Now().Before(exp.Add(margin)) {
				t.Fatal("the record was removed before expiresAt plus the retention")
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the record outlived its lease")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestRevokedLeaseIsReplaced(t *testing.T) {
	t.Parallel()
	e := consumetest.StartEtcd(t, consumetest.Assets(t))
	s := open(t, e, etcdstore.Options{Prefix: "/custom/"})
	cli := client(t, e)
	ctx := context.Background()
	exp := time.Now().Add(time.Hour)
	first := consumetest.NewKey(consumetest.NewDomain())
	if err := s.Consume(ctx, consumetest.RecordAt(first, exp)); err != nil {
		t.Fatal(err)
	}
	if got := s.Key(first); got != "/custom/"+first.Domain+"/"+first.Binding {
		t.Fatalf("Key = %q, want the configured prefix", got)
	}
	resp, err := cli.Get(ctx, s.Key(first))
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("Get: %v; want the record under the prefix", err)
	}
	if _, err := cli.Revoke(ctx, clientv3.LeaseID(resp.Kvs[0].Lease)); err != nil {
		t.Fatal(err)
	}
	// Same window, cached lease gone: the store grants a new one.
	second := consumetest.NewKey(consumetest.NewDomain())
	if err := s.Consume(ctx, consumetest.RecordAt(second, exp)); err != nil {
		t.Fatalf("Consume after the lease was revoked: %v, want nil", err)
	}
	if err := s.Consume(ctx, consumetest.RecordAt(second, exp)); !errors.Is(err, consume.ErrConsumed) {
		t.Fatalf("again: %v, want ErrConsumed", err)
	}
}

// TestTrickledConsumeAcrossASweepIsRefused: consumetest.CheckTrickledConsume
// on etcd. The
// sweep is the lease's own expiry on the etcd server, in real time: the
// check consumes 2 s before expiry by the shared clock, so with 1 s
// windows and 1 s retention the lease ends about 3 s later.
func TestTrickledConsumeAcrossASweepIsRefused(t *testing.T) {
	t.Parallel()
	e := consumetest.StartEtcd(t, consumetest.Assets(t))
	clock := consumetest.NewClock(time.Unix(0, 0))
	prefix := "/trickle/" + consumetest.NewDomain() + "/"
	s := open(t, e, etcdstore.Options{Prefix: prefix, Clock: clock.Now, LeaseBucket: time.Second, Retention: time.Second})
	cli := client(t, e)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sweep := func(ctx context.Context) error {
		for {
			// The record's lease ends now, as its expiry would: the lease
			// was granted at the first consume for the Authorization's
			// expiry window and its TTL runs in real time, which this
			// check's clock skips (the identities' hold lease goes too).
			resp, err := cli.Get(ctx, prefix, clientv3.WithPrefix())
			if err != nil {
				return err
			}
			if len(resp.Kvs) == 0 {
				return nil
			}
			for _, kv := range resp.Kvs {
				if kv.Lease != 0 {
					if _, err := cli.Revoke(ctx, clientv3.LeaseID(kv.Lease)); err != nil && !errors.Is(err, rpctypes.ErrLeaseNotFound) {
						return err
					}
				}
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	root := testutil.RepoRoot(t)
	service := standalonetest.Service(t.TempDir(), filepath.Join(root, "config", "samples"))
	if err := consumetest.CheckTrickledConsume(ctx, root, service, s, clock, 2*time.Second, sweep); err != nil {
		t.Fatal(err)
	}
}

// TestReconnectBackoffIsCapped: while the cluster is unreachable the
// client tries to connect again with a backoff capped at
// Options.ReconnectMaxDelay (gRPC's own cap is 120 s), so the store
// answers again soon after the cluster returns however long it was gone
// (docs/consumption.md, "serves as soon as it does"). It counts the
// client's connection attempts while etcd is down: none waits much longer
// than the cap after the previous one, where gRPC's default backoff (1 s,
// ×1.6) has passed 4 s by the fifth.
func TestReconnectBackoffIsCapped(t *testing.T) {
	t.Parallel()
	e := consumetest.StartEtcd(t, consumetest.Assets(t))
	const maxDelay = 200 * time.Millisecond
	var mu sync.Mutex
	var attempts []time.Time
	cfg := e.Config()
	cfg.DialOptions = append(cfg.DialOptions, grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
		mu.Lock()
		attempts = append(attempts, time.Now())
		mu.Unlock()
		var d net.Dialer
		return d.DialContext(ctx, "tcp", addr)
	}))
	s, err := etcdstore.Open(cfg, etcdstore.Options{Timeout: time.Second, ReconnectMaxDelay: maxDelay})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	ctx := context.Background()
	if err := s.Ready(ctx); err != nil {
		t.Fatal(err)
	}

	e.Kill()
	mu.Lock()
	from := len(attempts)
	mu.Unlock()
	const want = 8 // attempts after the kill
	deadline := time.Now().Add(20 * time.Second)
	for {
		_ = s.Ready(ctx) // keep the client wanting a connection
		mu.Lock()
		n := len(attempts) - from
		mu.Unlock()
		if n > want || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	mu.Lock()
	got := slices.Clone(attempts[from:])
	mu.Unlock()
	if len(got) <= want {
		t.Fatalf("%d connection attempts in the 20 s after the kill; want more than %d at a backoff capped at %v", len(got), want, maxDelay)
	}
	// The cap plus its jitter, with room for a loaded machine's scheduling.
	bound := maxDelay*6/5 + time.Second
	for i := 1; i < len(got); i++ {
		if gap := got[i].Sub(got[i-1]); gap > bound {
			t.Errorf("connection attempt %d came %v after the one before; the backoff is capped at %v", i, gap, maxDelay)
		}
	}

	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	for s.Ready(ctx) != nil {
		time.Sleep(50 * time.Millisecond) // bounded by the test's deadline
	}
}
