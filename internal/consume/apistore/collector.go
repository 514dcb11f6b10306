package apistore

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/consume"
)

// Defaults of CollectorOptions.
const (
	DefaultCollectInterval = time.Minute
	DefaultPageSize        = 500
	// DefaultWorkers deletes several objects at once: one at a time, a
	// Delete round trip (about 4 ms on the test machine) would cap
	// collection below the rate the store can create records.
	DefaultWorkers = 8
)

// CollectorOptions configure NewCollector.
type CollectorOptions struct {
	// Clock returns the current time; nil means time.Now.
	Clock func() time.Time
	// Interval is the period of Start's passes; 0 means
	// DefaultCollectInterval.
	Interval time.Duration
	// PageSize is the List page size; 0 means DefaultPageSize.
	PageSize int64
	// Workers is the number of concurrent deletions; 0 means
	// DefaultWorkers.
	Workers int
	// Retention is how long past its spec.expiresAt a Consumption is kept;
	// 0 means consume.DefaultRetention. It must exceed the clock skew
	// between this collector and every replica plus the time a Create may
	// take (Options.Timeout) and the service's request time.
	Retention time.Duration
}

// Collector deletes Consumptions and IdentityClaims whose spec.expiresAt
// lies more than the retention in the past: the Authorization they record can no longer
// validate on any replica, so nothing can ask for them again. It is a controller-runtime Runnable.
type Collector struct {
	c         client.Client
	namespace string
	opts      CollectorOptions
}

var (
	_ manager.Runnable               = (*Collector)(nil)
	_ manager.LeaderElectionRunnable = (*Collector)(nil)
)

// NewCollector returns a collector for the Consumptions in namespace.
func NewCollector(c client.Client, namespace string, opts CollectorOptions) *Collector {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Interval <= 0 {
		opts.Interval = DefaultCollectInterval
	}
	if opts.PageSize <= 0 {
		opts.PageSize = DefaultPageSize
	}
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.Retention <= 0 {
		opts.Retention = consume.DefaultRetention
	}
	return &Collector{c: c, namespace: namespace, opts: opts}
}

// Collect makes one pass: it lists every Consumption and every
// IdentityClaim in pages and deletes each whose expiresAt plus the
// retention is at or before the clock's now (with a UID precondition, so
// only the listed object is deleted), Workers at a time. It returns how
// many it deleted; a failure (wrapping consume.ErrUnavailable) leaves the
// remaining records for the next pass, which never permits a second
// Consumption (nor frees an identity early).
func (g *Collector) Collect(ctx context.Context) (int, error) {
	cutoff := g.opts.Clock().Add(-g.opts.Retention) // records expired before it go
	n, err := collect(ctx, g, cutoff, &v1alpha1.ConsumptionList{}, func(l *v1alpha1.ConsumptionList) []expiring {
		out := make([]expiring, len(l.Items))
		for i := range l.Items {
			o := &l.Items[i]
			out[i] = expiring{o, o.Spec.ExpiresAt.Time}
		}
		return out
	})
	if err != nil {
		return n, err
	}
	m, err := collect(ctx, g, cutoff, &v1alpha1.IdentityClaimList{}, func(l *v1alpha1.IdentityClaimList) []expiring {
		out := make([]expiring, len(l.Items))
		for i := range l.Items {
			o := &l.Items[i]
			out[i] = expiring{o, o.Spec.ExpiresAt.Time}
		}
		return out
	})
	return n + m, err
}

// expiring is one listed object and its spec.expiresAt.
type expiring struct {
	obj client.Object
	exp time.Time
}

// collect deletes, page by page, the objects of list's kind that items
// reports expired before cutoff.
func collect[L client.ObjectList](ctx context.Context, g *Collector, cutoff time.Time, list L, items func(L) []expiring) (int, error) {
	var (
		deleted  atomic.Int64
		mu       sync.Mutex
		firstErr error
	)
	cont := ""
	for {
		if err := g.c.List(ctx, list, client.InNamespace(g.namespace), client.Limit(g.opts.PageSize), client.Continue(cont)); err != nil {
			return int(deleted.Load()), consume.Unavailable("list", sanitize(err))
		}
		expired := make(chan client.Object)
		var wg sync.WaitGroup
		for range g.opts.Workers {
			wg.Go(func() {
				for obj := range expired {
					uid := obj.GetUID()
					err := g.c.Delete(ctx, obj, client.Preconditions{UID: &uid})
					switch {
					case err == nil:
						deleted.Add(1)
					case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
						// Deleted (or replaced) by someone else meanwhile.
					default:
						mu.Lock()
						if firstErr == nil {
							firstErr = consume.Unavailable("delete", sanitize(err))
						}
						mu.Unlock()
					}
				}
			})
		}
		for _, e := range items(list) {
			if !cutoff.Before(e.exp) && e.obj.GetDeletionTimestamp() == nil {
				expired <- e.obj
			}
		}
		close(expired)
		wg.Wait()
		cont = list.GetContinue()
		if cont == "" {
			return int(deleted.Load()), firstErr
		}
	}
}

// Start runs Collect every Interval until ctx ends. A failed pass is
// retried at the next tick; Start returns nil when ctx ends.
func (g *Collector) Start(ctx context.Context) error {
	t := time.NewTicker(g.opts.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if n, err := g.Collect(ctx); err != nil && !errors.Is(err, context.Canceled) {
				// Expired records wait for the next pass. The message is
				// echo-free (see APIError).
				log.FromContext(ctx).Error(err, "consumption collection failed", "deleted", n)
			}
		}
	}
}

// NeedLeaderElection is true: one collector per cluster suffices, and
// several would only race to delete the same objects.
func (g *Collector) NeedLeaderElection() bool { return true }
