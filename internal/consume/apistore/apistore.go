// Package apistore is the cluster's default Consumption store: one
// Consumption object (api/v1alpha1) per Consumption, named
// "<domain>.<binding>", in one namespace.
//
// Create is the atomic step: the apiserver admits exactly one object under a
// name, so across every replica exactly one Create of a Key succeeds (nil)
// and every other gets AlreadyExists (consume.ErrConsumed). Every other
// outcome — Forbidden, a timeout, an unreachable apiserver, a rejected
// object — is consume.ErrUnavailable: the store never says yes unless the
// apiserver stored the object.
//
// A Consume first holds the Authorization's identities: IdentityClaim
// objects, one per identity, named
// "<domain>.<authorization|replay|consumption>.<identity>", created in
// that fixed order before the Consumption (see Store.Consume for why that
// is sound without a transaction); the Collector deletes them like
// Consumptions.
//
// The apiserver has no clock a Create can be conditioned on, so a Consume
// reads its own clock immediately before the Create and refuses an expired
// Authorization (consume.ErrExpired) without writing. Objects are deleted
// by a Collector only CollectorOptions.Retention after their
// spec.expiresAt — longer than a Create may take plus the clock skew
// between the replica and the collector — so a Create that passed the
// check never finds the record of a consumed Authorization gone. Run one
// Collector per cluster (it asks for leader election when added to a
// manager).
//
// The client should read Consumptions directly from the apiserver (a client
// from client.New, or a manager client with Consumption in
// client.CacheOptions.DisableFor): a cached client would keep every record
// in the process's memory. Consume only creates, so it never reads a cache.
package apistore

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/consume"
)

// The service account running the store needs these verbs (the Collector
// lists and deletes, Ready gets, Consume creates and gets, Held gets).
// +kubebuilder:rbac:groups=stk.toolgate.dev,resources=consumptions,verbs=get;list;create;delete
// +kubebuilder:rbac:groups=stk.toolgate.dev,resources=identityclaims,verbs=get;list;create;delete

// DefaultTimeout bounds every call whose context has no earlier deadline.
const DefaultTimeout = 10 * time.Second

// readyProbeName is the object Ready reads; it never exists (it is not
// "<domain>.<binding>"), so NotFound is the healthy answer.
const readyProbeName = "readiness-probe"

// Options configure New.
type Options struct {
	// Clock returns the current time; nil means time.Now. Consume refuses
	// an Authorization expired by it.
	Clock func() time.Time
	// Timeout bounds every call whose context has no earlier deadline; 0
	// means DefaultTimeout.
	Timeout time.Duration
	// Reader reads IdentityClaims (Held, and Consume after AlreadyExists); nil means
	// the client. Give a manager's client here its API reader
	// (manager.GetAPIReader): a cached read can miss an object another
	// replica has just created, and would hold every claim in memory.
	Reader client.Reader
}

// Store is the apiserver Consumption store. It is safe for concurrent use.
type Store struct {
	c         client.Client
	reader    client.Reader
	namespace string
	clock     func() time.Time
	timeout   time.Duration
	closed    atomic.Bool
}

// errClosed is the cause of every answer after Close.
var errClosed = errors.New("store closed")

var _ consume.Store = (*Store)(nil)

// New returns a store writing Consumptions into namespace through c, whose
// scheme must know api/v1alpha1.
func New(c client.Client, namespace string, opts Options) *Store {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Reader == nil {
		opts.Reader = c
	}
	return &Store{c: c, reader: opts.Reader, namespace: namespace, clock: opts.Clock, timeout: opts.Timeout}
}

// Consume creates the IdentityClaim objects of r's three identities, one
// at a time in a fixed order (authorization, replay, consumption), then the
// Consumption object of r, unless r is expired by the clock read
// immediately before the first Create. The apiserver has no transaction
// over four objects, so the rule is made sound per object:
//
//   - Each object is created once (name uniqueness) and never changed
//     (its spec is immutable), so an identity is held by exactly one
//     binding while its object exists.
//   - An IdentityClaim that exists already holds its identity for the
//     binding it names: another binding is refused
//     (consume.ErrIdentityReused); the same one (a Consume of r that
//     stopped midway, or r consumed before) goes on to the next object.
//   - The Consumption object is created last, only once all three
//     identities are held for r: it is the one yes, as before.
//
// So two bindings naming one identity are never both consumed. A Consume
// that fails midway (unavailable, or refused at the second or third
// identity) leaves the objects it created: they hold those identities for
// r's binding until collected, and a retry of r completes them.
func (s *Store) Consume(ctx context.Context, r consume.Record) error {
	if err := r.Validate(); err != nil {
		return err
	}
	if s.closed.Load() {
		return consume.Unavailable("create", errClosed)
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	obj := &v1alpha1.Consumption{
		ObjectMeta: metav1.ObjectMeta{Name: r.Key.String(), Namespace: s.namespace},
		Spec: v1alpha1.ConsumptionSpec{
			Domain:          v1alpha1.LowerToken(r.Key.Domain),
			BindingDigest:   v1alpha1.SHA256Hex(r.Key.Binding),
			AuthorizationID: v1alpha1.LowerToken(r.Identities[consume.AuthorizationIdentity]),
			ExpiresAt:       metav1.NewTime(wholeSecondsUp(r.ExpiresAt)),
		},
	}
	now := s.clock()
	if r.Expired(now) {
		return consume.ErrExpired
	}
	hold := consume.HoldUntil(r, now)
	for i := range claimIdentities {
		claim := claimObject(r, i, hold, s.namespace)
		err := s.c.Create(ctx, claim)
		switch {
		case err == nil:
			continue
		case !apierrors.IsAlreadyExists(err):
			return consume.Unavailable("create claim", sanitize(err))
		}
		var got v1alpha1.IdentityClaim
		if err := s.reader.Get(ctx, client.ObjectKeyFromObject(claim), &got); err != nil {
			// NotFound too: collected between the two calls; a retry decides.
			return consume.Unavailable("read claim", sanitize(err))
		}
		if string(got.Spec.BindingDigest) != r.Key.Binding {
			return consume.Reused(i)
		}
	}
	err := s.c.Create(ctx, obj)
	switch {
	case err == nil:
		return nil
	case apierrors.IsAlreadyExists(err):
		return consume.ErrConsumed
	default:
		return consume.Unavailable("create", sanitize(err))
	}
}

// claimIdentities name the identities in IdentityClaim names and
// spec.identity, indexed like consume.Record.Identities.
var claimIdentities = [3]string{"authorization", "replay", "consumption"}

// ClaimName is the IdentityClaim object name of identity i held in domain:
// "<domain>.<authorization|replay|consumption>.<identity>".
func ClaimName(domain string, i int, id string) string {
	return domain + "." + claimIdentities[i] + "." + id
}

// Held reads the IdentityClaim objects of ids without a cache (the
// Reader): NotFound for all three is nil, a found one is
// consume.ErrIdentityReused.
func (s *Store) Held(ctx context.Context, domain string, ids [3]string) error {
	if err := consume.ValidateIdentities(domain, ids); err != nil {
		return err
	}
	if s.closed.Load() {
		return consume.Unavailable("read claim", errClosed)
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	for i, id := range ids {
		var got v1alpha1.IdentityClaim
		err := s.reader.Get(ctx, client.ObjectKey{Namespace: s.namespace, Name: ClaimName(domain, i, id)}, &got)
		switch {
		case err == nil:
			return consume.Reused(i)
		case !apierrors.IsNotFound(err):
			return consume.Unavailable("read claim", sanitize(err))
		}
	}
	return nil
}

func claimObject(r consume.Record, i int, hold time.Time, namespace string) *v1alpha1.IdentityClaim {
	return &v1alpha1.IdentityClaim{
		ObjectMeta: metav1.ObjectMeta{Name: ClaimName(r.Key.Domain, i, r.Identities[i]), Namespace: namespace},
		Spec: v1alpha1.IdentityClaimSpec{
			Domain:          v1alpha1.LowerToken(r.Key.Domain),
			Identity:        claimIdentities[i],
			AuthorizationID: v1alpha1.LowerToken(r.Identities[consume.AuthorizationIdentity]),
			ReplayID:        v1alpha1.LowerToken(r.Identities[consume.ReplayIdentity]),
			ConsumptionID:   v1alpha1.LowerToken(r.Identities[consume.ConsumptionIdentity]),
			BindingDigest:   v1alpha1.SHA256Hex(r.Key.Binding),
			ExpiresAt:       metav1.NewTime(wholeSecondsUp(hold)),
		},
	}
}

// Ready reads one object: NotFound (or the object) is an answer.
func (s *Store) Ready(ctx context.Context) error {
	if s.closed.Load() {
		return consume.Unavailable("ready", errClosed)
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	err := s.c.Get(ctx, client.ObjectKey{Namespace: s.namespace, Name: readyProbeName}, &v1alpha1.Consumption{})
	if err != nil && !apierrors.IsNotFound(err) {
		return consume.Unavailable("ready", sanitize(err))
	}
	return nil
}

// Close makes every later call fail closed with ErrUnavailable; the client
// belongs to the caller and stays open.
func (s *Store) Close() error {
	s.closed.Store(true)
	return nil
}

// wholeSecondsUp rounds t up to a whole second (the field's precision), so
// the record is never collected before expiresAt.
func wholeSecondsUp(t time.Time) time.Time {
	r := t.Truncate(time.Second)
	if r.Before(t) {
		r = r.Add(time.Second)
	}
	return r
}

// APIError is an apiserver or transport failure with a constant message:
// the apiserver's own message quotes the object name, so it is kept only
// in the wrapped error (errors.Unwrap), never in Error().
type APIError struct {
	// Reason is the apiserver's StatusReason ("Forbidden", "Timeout", …) or
	// "NoStatus" when no Status came back (a transport failure, a timeout,
	// a kind the apiserver does not serve).
	Reason string
	// Code is the HTTP status code, 0 for a transport failure.
	Code int32
	err  error
}

func (e *APIError) Error() string {
	return "apiserver: " + e.Reason + " (" + strconv.Itoa(int(e.Code)) + ")"
}

// Unwrap returns the original error.
func (e *APIError) Unwrap() error { return e.err }

func sanitize(err error) error {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return &APIError{Reason: string(st.Status().Reason), Code: st.Status().Code, err: err}
	}
	return &APIError{Reason: "NoStatus", err: err}
}
