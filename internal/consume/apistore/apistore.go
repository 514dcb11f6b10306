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
// list and delete, Ready gets).
// +kubebuilder:rbac:groups=stk.toolgate.dev,resources=consumptions,verbs=get;list;create;delete

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
}

// Store is the apiserver Consumption store. It is safe for concurrent use.
type Store struct {
	c         client.Client
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
	return &Store{c: c, namespace: namespace, clock: opts.Clock, timeout: opts.Timeout}
}

// Consume creates the Consumption object of r, unless r is expired by the
// clock read immediately before the Create.
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
			AuthorizationID: v1alpha1.LowerToken(r.AuthorizationID),
			ExpiresAt:       metav1.NewTime(wholeSecondsUp(r.ExpiresAt)),
		},
	}
	if r.Expired(s.clock()) {
		return consume.ErrExpired
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
