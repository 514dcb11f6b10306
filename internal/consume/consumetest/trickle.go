package consumetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/consume"
	"github.com/toolgate/toolgate/internal/testutil/apifixture"
)

// Clock is a settable clock that a service and its store share: it moves
// only when told.
type Clock struct{ ns atomic.Int64 }

// NewClock returns a clock reading t.
func NewClock(t time.Time) *Clock {
	c := &Clock{}
	c.Set(t)
	return c
}

// Now returns the time the clock was last set to.
func (c *Clock) Now() time.Time { return time.Unix(0, c.ns.Load()) }

// Set makes the clock read t.
func (c *Clock) Set(t time.Time) { c.ns.Store(t.UnixNano()) }

// Advance moves the clock by d.
func (c *Clock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// Sweeper removes the records a store has let expire by its clock, as its
// background sweep would: boltstore's Sweep, apistore's Collector.Collect,
// or waiting out etcdstore's lease. It returns once the sweep is done.
type Sweeper func(ctx context.Context) error

// Service builds the API under test: toolgate's HTTP handler over store,
// reading now, serving the shipped samples (config/samples), with each
// bearer token of tokens authenticating the Kubernetes identity it maps to.
// consumetest sits below the service, which imports the stores, so the
// caller builds it and passes it in (standalonetest.Service).
type Service func(store consume.Store, now func() time.Time, tokens map[string]string) (http.Handler, error)

// The service identities of CheckTrickledConsume: the allow example's
// agent runtime and executor in config/samples.
const (
	trickleAgent    = "trickle-agent-token-0123456789abcdef"
	trickleExecutor = "trickle-executor-token-0123456789abcdef"
)

// CheckTrickledConsume reproduces a break of single use on a real service
// over store (docs/decisions.md, "Consumption stores": every store refuses
// an expired Authorization itself): an artifact of the shipped allow
// example is consumed (200) and refused (409); then a third consume starts
// 1.4 s before the artifact's expiry, its body arrives only after the clock
// has passed expiry by after and sweep has run, and it must still be
// refused. A service that validated with the time its handler started, over
// a store that forgets records at expiry, answered 200 again.
//
// root is the repository root (for examples/), service builds the API over
// store; the store must read clock.Now, and clock is set as the check goes.
func CheckTrickledConsume(ctx context.Context, root string, service Service, store consume.Store, clock *Clock, after time.Duration, sweep Sweeper) error {
	h, err := service(store, clock.Now, map[string]string{
		trickleAgent:    "system:serviceaccount:payments:payments-agent-runtime",
		trickleExecutor: "system:serviceaccount:payments:payments-executor",
	})
	if err != nil {
		return err
	}
	// started is signalled when the handler of an armed request begins:
	// the service has read its headers and may read its clock.
	var armed atomic.Bool
	started := make(chan struct{}, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if armed.CompareAndSwap(true, false) {
			started <- struct{}{}
		}
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()

	req, at, err := apifixture.Example(root, "payment-allow.yaml")
	if err != nil {
		return err
	}
	clock.Set(time.Unix(int64(at)+1, 0))
	status, body, err := post(ctx, ts.URL+"/v1/authorize", trickleAgent, req)
	if err != nil {
		return err
	}
	var issued client.AuthorizeResponse
	if err := json.Unmarshal(body, &issued); err != nil || status != http.StatusOK || issued.Authorization == nil {
		return fmt.Errorf("authorize: %d %s", status, body)
	}
	expiresAt := time.Unix(int64(issued.Authorization.ExpiresAt), 0)
	v := apifixture.Expectations(req, issued.Authorization.Artifact)

	clock.Set(expiresAt.Add(-2 * time.Second))
	for i, want := range []int{http.StatusOK, http.StatusConflict} {
		status, body, err := post(ctx, ts.URL+"/v1/consume", trickleExecutor, v)
		if err != nil {
			return err
		}
		if status != want {
			return fmt.Errorf("consume %d: %d %s, want %d", i+1, status, body, want)
		}
	}

	// The third consume: headers and half the body 1.4 s before expiry.
	clock.Set(expiresAt.Add(-1400 * time.Millisecond))
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", ts.Listener.Addr().String())
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close() }()
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
	}
	armed.Store(true)
	head := fmt.Sprintf("POST /v1/consume HTTP/1.1\r\nHost: toolgate\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", trickleExecutor, len(raw))
	if _, err := io.WriteString(conn, head); err != nil {
		return err
	}
	if _, err := conn.Write(raw[:len(raw)/2]); err != nil {
		return err
	}
	select {
	case <-started:
	case <-ctx.Done():
		return errors.New("the trickled consume never reached the handler")
	}
	// The clock passes expiry and the store sweeps; then the body ends.
	clock.Set(expiresAt.Add(after))
	if err := sweep(ctx); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	if _, err := conn.Write(raw[len(raw)/2:]); err != nil {
		return err
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var rejected client.ErrorResponse
	switch {
	case resp.StatusCode == http.StatusOK:
		return fmt.Errorf("a consume trickled across the sweep was answered 200 (consumed again): %s", got)
	case json.Unmarshal(got, &rejected) != nil || rejected.Error.Code == "":
		return fmt.Errorf("trickled consume: %d %s, want a JSON refusal", resp.StatusCode, got)
	case resp.StatusCode != http.StatusUnprocessableEntity || rejected.Error.Code != "expired":
		return fmt.Errorf("trickled consume: %d %s, want 422 expired", resp.StatusCode, got)
	}
	return nil
}

func post(ctx context.Context, url, token string, body any) (int, []byte, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return 0, nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(raw))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}
