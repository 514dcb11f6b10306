package apistore

import (
	"context"
	"errors"
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
}

// Collector deletes Consumptions whose spec.expiresAt has passed: the
// Authorization they record can no longer validate, so nothing can ask for
// them again. It is a controller-runtime Runnable.
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
	return &Collector{c: c, namespace: namespace, opts: opts}
}

// Collect makes one pass: it lists every Consumption in pages and deletes
// each whose expiresAt is at or before the clock's now (with a UID
// precondition, so only the listed object is deleted). It returns how many
// it deleted; a failure (wrapping consume.ErrUnavailable) leaves the
// remaining records for the next pass, which never permits a second
// Consumption.
func (g *Collector) Collect(ctx context.Context) (int, error) {
	now := g.opts.Clock()
	deleted := 0
	var firstErr error
	cont := ""
	for {
		var list v1alpha1.ConsumptionList
		if err := g.c.List(ctx, &list, client.InNamespace(g.namespace), client.Limit(g.opts.PageSize), client.Continue(cont)); err != nil {
			return deleted, consume.Unavailable("list", sanitize(err))
		}
		for i := range list.Items {
			obj := &list.Items[i]
			if now.Before(obj.Spec.ExpiresAt.Time) || obj.DeletionTimestamp != nil {
				continue
			}
			err := g.c.Delete(ctx, obj, client.Preconditions{UID: &obj.UID})
			switch {
			case err == nil:
				deleted++
			case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
				// Deleted (or replaced) by someone else meanwhile.
			case firstErr == nil:
				firstErr = consume.Unavailable("delete", sanitize(err))
			}
		}
		cont = list.Continue
		if cont == "" {
			return deleted, firstErr
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
