package server

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the service's Prometheus metrics, on a registry of its own.
type metrics struct {
	registry    *prometheus.Registry
	decisions   *prometheus.CounterVec
	reasons     *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	consumption *prometheus.CounterVec
	// cacheHit and cacheMiss count rebuild-cache lookups of validate and
	// consume (resolved once: no label lookup per request).
	cacheHit, cacheMiss prometheus.Counter
}

func newMetrics(s *Server) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_decisions_total", Help: "Policy Decisions by outcome.",
		}, []string{"outcome"}),
		reasons: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_decision_reasons_total", Help: "Reasons of Policy Decisions.",
		}, []string{"reason"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "toolgate_request_duration_seconds", Help: "Request latency by verb and result.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1},
		}, []string{"verb", "result"}),
		consumption: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_consumptions_total", Help: "Consumption attempts by result (consumed, conflict, unavailable, rejected).",
		}, []string{"result"}),
	}
	cache := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "toolgate_rebuild_cache_total", Help: "Rebuild-cache lookups of validate and consume by result (hit, miss).",
	}, []string{"result"})
	m.cacheHit, m.cacheMiss = cache.WithLabelValues("hit"), cache.WithLabelValues("miss")
	m.registry.MustRegister(m.decisions, m.reasons, m.duration, m.consumption, cache,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
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
