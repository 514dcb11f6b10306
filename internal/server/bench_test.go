package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/server"
)

// The service's handler in process, without the network: CPU and
// allocations per request of the authorize and validate paths (decode,
// Host, envelope, response).
//
//	go test ./internal/server -run '^$' -bench . -benchmem

func benchPost(b *testing.B, h http.Handler, path, token string, body []byte) {
	b.Helper()
	b.ReportAllocs()
	start := cpuTime(b)
	b.ResetTimer()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("%d %s", rec.Code, rec.Body)
		}
	}
	// The process's CPU time per request (GC included), which a busy
	// host disturbs less than ns/op.
	b.ReportMetric(float64((cpuTime(b)-start).Nanoseconds())/float64(b.N)/1e3, "cpu-µs/op")
}

// cpuTime is the process's user plus system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// quietLog sends the decision log to io.Discard: the tests' log buffer
// grows without bound and its copying would be measured.
func quietLog(c *server.Config) { c.Log = server.NewDecisionLog(io.Discard, 1024, true) }

// BenchmarkAuthorize issues: from the second call on, the same request is
// an idempotent retry answered from its claim, re-run and re-signed.
func BenchmarkAuthorize(b *testing.B) {
	s := newServiceWith(b, b.TempDir(), quietLog)
	body, err := json.Marshal(example(b, "payment-allow.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	benchPost(b, s.srv.Handler(), "/v1/authorize", agentToken, body)
}

// BenchmarkAuthorizeDeny is refused by the policy: no artifact, no claim.
func BenchmarkAuthorizeDeny(b *testing.B) {
	s := newServiceWith(b, b.TempDir(), quietLog)
	body, err := json.Marshal(example(b, "payment-deny.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	benchPost(b, s.srv.Handler(), "/v1/authorize", agentToken, body)
}

// BenchmarkAuthorizeDenyExplicit is BenchmarkAuthorizeDeny naming the
// generations its "current" resolves to: the difference is the cost of the
// Host's selection.
func BenchmarkAuthorizeDenyExplicit(b *testing.B) {
	s := newServiceWith(b, b.TempDir(), quietLog)
	req := example(b, "payment-deny.yaml")
	req.Registry.Generation, req.Policy.SnapshotGeneration, req.Policy.PolicyGeneration = "1", "2", "2"
	body, err := json.Marshal(req)
	if err != nil {
		b.Fatal(err)
	}
	benchPost(b, s.srv.Handler(), "/v1/authorize", agentToken, body)
}

// BenchmarkValidate validates one artifact over and over: from the second
// call on, the rebuild cache holds its Authorization.
func BenchmarkValidate(b *testing.B) {
	s := newService(b, b.TempDir())
	body, err := json.Marshal(expectations(b, s.authorize(b).Authorization.Artifact))
	if err != nil {
		b.Fatal(err)
	}
	benchPost(b, s.srv.Handler(), "/v1/validate", executorToken, body)
}

// BenchmarkValidateUncached verifies and rebuilds on every call.
func BenchmarkValidateUncached(b *testing.B) {
	s := newServiceWith(b, b.TempDir(), func(c *server.Config) { c.RebuildCacheEntries = -1 })
	body, err := json.Marshal(expectations(b, s.authorize(b).Authorization.Artifact))
	if err != nil {
		b.Fatal(err)
	}
	benchPost(b, s.srv.Handler(), "/v1/validate", executorToken, body)
}
