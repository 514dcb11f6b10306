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
// A Claim is one transaction over its three identity keys
// (<Prefix><domain>/claim/<index>/<identity>): all absent, it writes all
// three (with the lease of the claim's expiry); otherwise it reads them in
// the same revision and writes nothing.
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
	"strings"
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

// Consume records r with a lease reaching Retention past its expiry,
// unless it is recorded already or expired by the clock read immediately
// before the transaction.
func (s *Store) Consume(ctx context.Context, r consume.Record) error {
	if err := r.Validate(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	key := s.Key(r.Key)
	value := strconv.FormatInt(r.ExpiresAt.Unix(), 10)
	for attempt := 0; ; attempt++ {
		window, lease, err := s.lease(ctx, r.ExpiresAt)
		if err != nil {
			return consume.Unavailable("grant lease", err)
		}
		if r.Expired(s.opts.Clock()) {
			return consume.ErrExpired
		}
		resp, err := s.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
			Then(clientv3.OpPut(key, value, clientv3.WithLease(lease))).
			Commit()
		switch {
		case err == nil && resp.Succeeded:
			return nil
		case err == nil:
			return consume.ErrConsumed
		case attempt == 0 && isLeaseNotFound(err):
			// The lease vanished (revoked, or a restored cluster): the
			// transaction wrote nothing, so forget the lease and retry once.
			s.forget(window, lease)
			continue
		default:
			return consume.Unavailable("txn", err)
		}
	}
}

// ClaimKey returns the etcd key of the identity i (consume.
// AuthorizationIdentity, …) of a claim in domain: "<Prefix><domain>/claim/
// <i>/<identity>", which no record key (<domain>/<binding>) can equal.
func (s *Store) ClaimKey(domain string, i int, id string) string {
	return s.opts.Prefix + domain + "/claim/" + strconv.Itoa(i) + "/" + id
}

// Claim records c's identities in one transaction,
//
//	If(CreateRevision(k0) == 0, CreateRevision(k1) == 0, CreateRevision(k2) == 0).
//	Then(Put(k0, c), Put(k1, c), Put(k2, c), each WithLease(lease)).
//	Else(Get(k0), Get(k1), Get(k2))
//
// so all three are written or none, and a transaction that writes nothing
// reads, in the same revision, what consume.Resolve decides on.
func (s *Store) Claim(ctx context.Context, c consume.Claim) (consume.Claim, error) {
	if err := c.Validate(); err != nil {
		return consume.Claim{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	var keys [3]string
	for i, id := range c.Identities {
		keys[i] = s.ClaimKey(c.Domain, i, id)
	}
	value := encodeClaim(c)
	for attempt := 0; ; attempt++ {
		window, lease, err := s.lease(ctx, c.ExpiresAt)
		if err != nil {
			return consume.Claim{}, consume.Unavailable("grant lease", err)
		}
		cmps := make([]clientv3.Cmp, 0, len(keys))
		puts := make([]clientv3.Op, 0, len(keys))
		gets := make([]clientv3.Op, 0, len(keys))
		for _, k := range keys {
			cmps = append(cmps, clientv3.Compare(clientv3.CreateRevision(k), "=", 0))
			puts = append(puts, clientv3.OpPut(k, value, clientv3.WithLease(lease)))
			gets = append(gets, clientv3.OpGet(k))
		}
		resp, err := s.cli.Txn(ctx).If(cmps...).Then(puts...).Else(gets...).Commit()
		switch {
		case err == nil && resp.Succeeded:
			return c, nil
		case err == nil:
			var stored [3]*consume.Claim
			for i, r := range resp.Responses {
				kvs := r.GetResponseRange().GetKvs()
				if len(kvs) == 0 {
					continue
				}
				got, ok := decodeClaim(c.Domain, string(kvs[0].Value))
				if !ok {
					return consume.Claim{}, consume.Unavailable("read claim", errCorruptClaim)
				}
				stored[i] = &got
			}
			if stored == [3]*consume.Claim{} {
				// Claimed when compared, gone when read cannot happen in
				// one revision; refuse rather than guess.
				return consume.Claim{}, consume.Unavailable("read claim", errCorruptClaim)
			}
			out, _, err := consume.Resolve(c, stored)
			return out, err
		case attempt == 0 && isLeaseNotFound(err):
			s.forget(window, lease)
			continue
		default:
			return consume.Claim{}, consume.Unavailable("txn", err)
		}
	}
}

var errCorruptClaim = errors.New("unreadable claim")

// encodeClaim is "<issuedAt> <expiresAt> <request> <binding> <authorization
// id> <replay id> <consumption id>", times in Unix seconds; no part
// contains a space.
func encodeClaim(c consume.Claim) string {
	return strconv.FormatInt(c.IssuedAt.Unix(), 10) + " " + strconv.FormatInt(c.ExpiresAt.Unix(), 10) + " " +
		c.Request + " " + c.Binding + " " + strings.Join(c.Identities[:], " ")
}

func decodeClaim(domain, v string) (consume.Claim, bool) {
	f := strings.Split(v, " ")
	if len(f) != 7 {
		return consume.Claim{}, false
	}
	issued, err1 := strconv.ParseInt(f[0], 10, 64)
	expires, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		return consume.Claim{}, false
	}
	return consume.Claim{
		Domain: domain, Identities: [3]string{f[4], f[5], f[6]}, Request: f[2], Binding: f[3],
		IssuedAt: time.Unix(issued, 0), ExpiresAt: time.Unix(expires, 0),
	}, true
}

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
