package controllers

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/toolgate/toolgate/internal/buildinfo"
)

// Reconcile results, the "result" label of toolgate_reconcile_total.
const (
	resultAccepted = "accepted"
	resultRejected = "rejected"
	resultWaiting  = "waiting"
	resultRemoved  = "removed"
	resultError    = "error"
)

var (
	reconcileTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "toolgate_reconcile_total",
		Help: "Reconciles of toolgate objects by kind and result (accepted, rejected, waiting, removed, error).",
	}, []string{"kind", "result"})
	reconcileDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "toolgate_reconcile_duration_seconds",
		Help:    "Duration of one reconcile of a toolgate object, by kind.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14),
	}, []string{"kind"})
	snapshotsServed = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "toolgate_snapshots_served",
		Help: "Snapshots this replica's store serves, by kind (ToolRegistry counted once per domain).",
	}, []string{"kind"})
	registerOnce sync.Once
)

// registerMetrics adds toolgate's collectors to controller-runtime's
// registry (served on the manager's metrics endpoint), once per process.
func registerMetrics() {
	registerOnce.Do(func() {
		metrics.Registry.MustRegister(reconcileTotal, reconcileDuration, snapshotsServed, buildinfo.Read().Collector())
	})
}

// observe records one reconcile of kind that started at start.
func observe(kind string, start time.Time, result string) {
	reconcileTotal.WithLabelValues(kind, result).Inc()
	reconcileDuration.WithLabelValues(kind).Observe(time.Since(start).Seconds())
}

// storeChanged is the store's OnChange hook.
func storeChanged(registries, policies int) {
	snapshotsServed.WithLabelValues("ToolRegistry").Set(float64(registries))
	snapshotsServed.WithLabelValues("PolicySnapshot").Set(float64(policies))
}
