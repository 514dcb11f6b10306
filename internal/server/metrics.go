package server

import (
	"maps"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/toolgate/toolgate/internal/buildinfo"
)

// metrics are the service's Prometheus metrics, on a registry of its own.
type metrics struct {
	registry *prometheus.Registry
	// The children of the labelled metrics, resolved once per label set on
	// first use (a series appears in /metrics when first used, as with
	// WithLabelValues per request), then read without a lock: no label
	// validation, hashing or registry lock per request.
	decisions   children[string, prometheus.Counter]
	reasons     children[string, prometheus.Counter]
	duration    children[[2]string, prometheus.Observer] // verb, result
	consumption children[string, prometheus.Counter]
	// cacheHit and cacheMiss count rebuild-cache lookups of validate and
	// consume (resolved once: no label lookup per request).
	cacheHit, cacheMiss prometheus.Counter
	shadow              *shadowMetrics // shadow.go
}

func newMetrics(s *Server) *metrics {
	decisions := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "toolgate_decisions_total", Help: "Policy Decisions by outcome.",
	}, []string{"outcome"})
	reasons := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "toolgate_decision_reasons_total", Help: "Reasons of Policy Decisions.",
	}, []string{"reason"})
	duration := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "toolgate_request_duration_seconds", Help: "Request latency by verb and result.",
		Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1},
	}, []string{"verb", "result"})
	consumption := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "toolgate_consumptions_total", Help: "Consumption attempts by result (consumed, conflict, unavailable, rejected).",
	}, []string{"result"})
	m := &metrics{registry: prometheus.NewRegistry()}
	m.decisions.make = func(v string) prometheus.Counter { return decisions.WithLabelValues(v) }
	m.reasons.make = func(v string) prometheus.Counter { return reasons.WithLabelValues(v) }
	m.duration.make = func(v [2]string) prometheus.Observer { return duration.WithLabelValues(v[0], v[1]) }
	m.consumption.make = func(v string) prometheus.Counter { return consumption.WithLabelValues(v) }
	cache := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "toolgate_rebuild_cache_total", Help: "Rebuild-cache lookups of validate and consume by result (hit, miss).",
	}, []string{"result"})
	m.cacheHit, m.cacheMiss = cache.WithLabelValues("hit"), cache.WithLabelValues("miss")
	m.shadow = newShadowMetrics(m.registry)
	m.registry.MustRegister(decisions, reasons, duration, consumption, cache,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		buildinfo.Read().Collector(),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "toolgate_decision_log_dropped_total", Help: "Decision-log lines lost: how blind the log is.",
		}, func() float64 { return float64(s.log.Dropped()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "toolgate_rebuild_cache_entries", Help: "Rebuilt Authorizations the rebuild cache holds.",
		}, func() float64 { return float64(s.cache.len()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "toolgate_domains_served", Help: "Host authority domains this replica serves.",
		}, func() float64 { return float64(s.domains.Len()) }),
	)
	return m
}

// maxChildren bounds the label sets a children cache holds; label sets
// beyond it are resolved on every use (correct, only slower).
const maxChildren = 256

// children caches the child metric of each label set K of one vector:
// lookups read an immutable map without a lock; a miss resolves the child
// with make and publishes a copy of the map with it added.
type children[K comparable, V any] struct {
	m    atomic.Pointer[map[K]V]
	mu   sync.Mutex // serializes misses
	make func(K) V
}

// get returns the child for k.
func (c *children[K, V]) get(k K) V {
	if m := c.m.Load(); m != nil {
		if v, ok := (*m)[k]; ok {
			return v
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.m.Load()
	if old != nil {
		if v, ok := (*old)[k]; ok {
			return v
		}
	}
	v := c.make(k)
	next := map[K]V{}
	if old != nil {
		if len(*old) >= maxChildren {
			return v
		}
		next = maps.Clone(*old)
	}
	next[k] = v
	c.m.Store(&next)
	return v
}
