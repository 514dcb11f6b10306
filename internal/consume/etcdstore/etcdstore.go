// Package etcdstore is the Consumption store for high rates: one etcd
// transaction per Consume,
//
//	If(CreateRevision(key) == 0).Then(Put(key, expiry, WithLease(lease)))
//
// under the key <Prefix><domain>/<binding> (Prefix defaults to
// "/toolgate/consumptions/"). etcd serialises transactions through raft, so
// exactly one of any number of concurrent Consumes of a key — from any
// replica — sees the key absent; the others see it present and get
// consume.ErrConsumed. A Txn error, a timeout or an unreachable cluster is
// consume.ErrUnavailable: the client retries a transaction only when it was
// never sent, so a yes is never given twice.
//
// The same transaction holds the consumed Authorization's three identities
// (keys <Prefix><domain>/claim/<index>/<identity>, value the binding, with
// the lease of the hold's window, consume.HoldUntil): the record and all
// three identities are written, or none.
//
// etcd has no clock a transaction can compare with, so a Consume reads its
// own clock immediately before the transaction and refuses an expired
// Authorization (consume.ErrExpired) without sending it; records are kept
// Options.Retention past their expiry, longer than the transaction may take
// (Options.Timeout) plus the clock skew between replicas, so a transaction
// that passed the check never finds the record of a consumed Authorization
// gone.
//
// Records expire with their lease. Records whose expiresAt falls in the same
// Options.LeaseBucket window share one lease whose TTL reaches Options.
// Retention past the end of that window: every record lives at least until
// its expiresAt plus Retention and at most LeaseBucket longer, and the
// cluster holds one lease per window instead of one per record. A lease is
// granted once per window per Store (one extra round trip in each window).
//
// After the cluster was unreachable, the client's connection is retried
// with a capped backoff (Options.ReconnectMaxDelay, 1 s by default, not
// gRPC's 120 s), so a replica serves again within about that of the
// cluster's return, however long it was gone (docs/consumption.md).
package etcdstore

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"

	"github.com/toolgate/toolgate/internal/consume"
)

// Defaults of Options.
const (
	DefaultPrefix      = "/toolgate/consumptions/"
	DefaultTimeout     = 5 * time.Second
	DefaultLeaseBucket = 10 * time.Second
	// DefaultReconnectMaxDelay caps the wait between two connection
	// attempts to an unreachable cluster.
	DefaultReconnectMaxDelay = time.Second
)

// Options configure Open. The zero value is the production configuration.
type Options struct {
	// Prefix is prepended to "<domain>/<binding>"; it should end in '/'.
	Prefix string
	// Clock returns the current time; nil means time.Now. Lease TTLs are
	// computed from it.
	Clock func() time.Time
	// Timeout bounds every call whose context has no earlier deadline.
	Timeout time.Duration
	// LeaseBucket is the width of the expiry windows that share one lease
	// (a positive duration; 0 means DefaultLeaseBucket).
	LeaseBucket time.Duration
	// Retention is how far a lease's TTL reaches past its window's end, so
	// how long past its expiry a record is kept at least; 0 means
	// consume.DefaultRetention. Keep it at least consume.MaxClockSkew plus
	// Timeout plus the service's request time.
	Retention time.Duration
	// ReconnectMaxDelay caps the backoff between connection attempts to
	// an unreachable cluster; 0 means DefaultReconnectMaxDelay. gRPC's own
	// cap is 120 s: a replica would go on answering 503 that long after
	// the cluster came back.
	ReconnectMaxDelay time.Duration
}

// Store is the etcd Consumption store. It is safe for concurrent use; every
// Store (in any process) on the same cluster and Prefix is a replica.
type Store struct {
	cli  *clientv3.Client
	opts Options

	mu     sync.Mutex
	leases map[int64]*leaseEntry // window end (Unix seconds) → lease
	pruned int64                 // the second of the last prune
}

type leaseEntry struct {
	ready chan struct{} // closed when id and err are set
	id    clientv3.LeaseID
	err   error
}

var _ consume.Store = (*Store)(nil)

// Open connects to the cluster cfg names; the Store owns the client and
// Close closes it. A nil cfg.Logger is replaced by a no-op logger. Open does
// not wait for the cluster: use Ready.
func Open(cfg clientv3.Config, opts Options) (*Store, error) {
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	if opts.ReconnectMaxDelay <= 0 {
		opts.ReconnectMaxDelay = DefaultReconnectMaxDelay
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	// Before the caller's own dial options, so that one of theirs wins.
	cfg.DialOptions = append([]grpc.DialOption{grpc.WithConnectParams(ReconnectParams(opts))}, cfg.DialOptions...)
	cli, err := clientv3.New(cfg)
	if err != nil {
		return nil, consume.Unavailable("connect", err)
	}
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.LeaseBucket <= 0 {
		opts.LeaseBucket = DefaultLeaseBucket
	}
	if opts.Retention <= 0 {
		opts.Retention = consume.DefaultRetention
	}
	return &Store{cli: cli, opts: opts, leases: map[int64]*leaseEntry{}}, nil
}

// ReconnectParams are the connection parameters Open gives the client:
// gRPC's exponential backoff (factor 1.6, jitter 0.2) from 100 ms, capped
// at opts.ReconnectMaxDelay, and a connection attempt given at most
// opts.Timeout (a cluster that drops packets is tried again that soon).
func ReconnectParams(opts Options) grpc.ConnectParams {
	maxDelay := opts.ReconnectMaxDelay
	if maxDelay <= 0 {
		maxDelay = DefaultReconnectMaxDelay
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return grpc.ConnectParams{
		Backoff:           backoff.Config{BaseDelay: min(100*time.Millisecond, maxDelay), Multiplier: 1.6, Jitter: 0.2, MaxDelay: maxDelay},
		MinConnectTimeout: timeout,
	}
}

// Key returns the etcd key of k.
func (s *Store) Key(k consume.Key) string { return s.opts.Prefix + k.Domain + "/" + k.Binding }

// Consume records r and holds its identities in one transaction,
//
//	If(CreateRevision(key) == 0, CreateRevision(i0) == 0, … (i1), … (i2)).
//	Then(Put(key, expiry, WithLease(record lease)), Put(i0..i2, binding, WithLease(hold lease))).
//	Else(Get(key), Get(i0), Get(i1), Get(i2))
//
// unless r is expired by the clock read immediately before it: all four
// are written or none, and a transaction that writes nothing reads, in the
// same revision, why (the key: ErrConsumed; else the first identity held).
func (s *Store) Consume(ctx context.Context, r consume.Record) error {
	if err := r.Validate(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	keys := [4]string{s.Key(r.Key)}
	for i, id := range r.Identities {
		keys[1+i] = s.ClaimKey(r.Key.Domain, i, id)
	}
	value := strconv.FormatInt(r.ExpiresAt.Unix(), 10)
	for attempt := 0; ; attempt++ {
		window, lease, err := s.lease(ctx, r.ExpiresAt)
		if err != nil {
			return consume.Unavailable("grant lease", err)
		}
		now := s.opts.Clock()
		holdWindow, hold, err := s.lease(ctx, consume.HoldUntil(r, now))
		if err != nil {
			return consume.Unavailable("grant lease", err)
		}
		if r.Expired(s.opts.Clock()) {
			return consume.ErrExpired
		}
		cmps := make([]clientv3.Cmp, 0, len(keys))
		puts := make([]clientv3.Op, 0, len(keys))
		gets := make([]clientv3.Op, 0, len(keys))
		for i, k := range keys {
			cmps = append(cmps, clientv3.Compare(clientv3.CreateRevision(k), "=", 0))
			if i == 0 {
				puts = append(puts, clientv3.OpPut(k, value, clientv3.WithLease(lease)))
			} else {
				puts = append(puts, clientv3.OpPut(k, r.Key.Binding, clientv3.WithLease(hold)))
			}
			gets = append(gets, clientv3.OpGet(k, clientv3.WithCountOnly()))
		}
		resp, err := s.cli.Txn(ctx).If(cmps...).Then(puts...).Else(gets...).Commit()
		switch {
		case err == nil && resp.Succeeded:
			return nil
		case err == nil:
			for i, op := range resp.Responses {
				if op.GetResponseRange().GetCount() == 0 {
					continue
				}
				if i == 0 {
					return consume.ErrConsumed
				}
				return consume.Reused(i - 1)
			}
			// Held when compared, gone when read cannot happen in one
			// revision; refuse rather than guess.
			return consume.Unavailable("read", errInconsistent)
		case attempt == 0 && isLeaseNotFound(err):
			// A lease vanished (revoked, or a restored cluster): the
			// transaction wrote nothing, so forget the leases and retry once.
			s.forget(window, lease)
			s.forget(holdWindow, hold)
			continue
		default:
			return consume.Unavailable("txn", err)
		}
	}
}

// ClaimKey returns the etcd key of the identity i (consume.
// AuthorizationIdentity, …) held in domain: "<Prefix><domain>/claim/<i>/
// <identity>", which no record key (<domain>/<binding>) can equal.
func (s *Store) ClaimKey(domain string, i int, id string) string {
	return s.opts.Prefix + domain + "/claim/" + strconv.Itoa(i) + "/" + id
}

// Held reads the three identity keys in one read-only transaction: a
// linearizable read, which needs a quorum but no write and no fsync.
func (s *Store) Held(ctx context.Context, domain string, ids [3]string) error {
	if err := consume.ValidateIdentities(domain, ids); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	gets := make([]clientv3.Op, 0, len(ids))
	for i, id := range ids {
		gets = append(gets, clientv3.OpGet(s.ClaimKey(domain, i, id), clientv3.WithCountOnly()))
	}
	resp, err := s.cli.Txn(ctx).Then(gets...).Commit()
	if err != nil {
		return consume.Unavailable("read", err)
	}
	for i, op := range resp.Responses {
		if op.GetResponseRange().GetCount() > 0 {
			return consume.Reused(i)
		}
	}
	return nil
}

var errInconsistent = errors.New("a compared key was not read")

// Ready performs one linearizable read (it needs a quorum).
func (s *Store) Ready(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	if _, err := s.cli.Get(ctx, s.opts.Prefix); err != nil {
		return consume.Unavailable("ready", err)
	}
	return nil
}

// Close closes the client. Records and leases stay in the cluster.
func (s *Store) Close() error {
	if err := s.cli.Close(); err != nil && !errors.Is(err, context.Canceled) {
		return consume.Unavailable("close", err)
	}
	return nil
}

// lease returns the lease of expiresAt's window, granting it on first use.
// Concurrent callers for one window wait for one Grant.
func (s *Store) lease(ctx context.Context, expiresAt time.Time) (int64, clientv3.LeaseID, error) {
	now := s.opts.Clock()
	bucket := int64(s.opts.LeaseBucket / time.Second)
	if bucket < 1 {
		bucket = 1
	}
	exp := expiresAt.Unix()
	if expiresAt.Nanosecond() > 0 {
		exp++
	}
	window := (exp + bucket - 1) / bucket * bucket // end of the window holding expiresAt, Unix seconds
	s.mu.Lock()
	if sec := now.Unix(); sec != s.pruned {
		s.pruned = sec
		for w := range s.leases {
			if w < sec {
				delete(s.leases, w) // past windows are never asked for again
			}
		}
	}
	e, ok := s.leases[window]
	if !ok {
		e = &leaseEntry{ready: make(chan struct{})}
		s.leases[window] = e
	}
	s.mu.Unlock()
	if !ok {
		ttl := time.Unix(window, 0).Sub(now) + s.opts.Retention
		secs := max(int64((ttl+time.Second-1)/time.Second), 1)
		resp, err := s.cli.Grant(ctx, secs)
		if err == nil {
			e.id = resp.ID
		} else {
			e.err = err
			s.forget(window, 0)
		}
		close(e.ready)
	}
	select {
	case <-e.ready:
	case <-ctx.Done():
		return window, 0, ctx.Err()
	}
	return window, e.id, e.err
}

// forget drops the cached lease of window when it is still id (any
// failed entry when id is 0).
func (s *Store) forget(window int64, id clientv3.LeaseID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.leases[window]; ok && (id == 0 || e.id == id) {
		delete(s.leases, window)
	}
}

func isLeaseNotFound(err error) bool { return errors.Is(err, rpctypes.ErrLeaseNotFound) }
