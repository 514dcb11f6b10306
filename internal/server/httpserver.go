package server

import (
	"context"
	"crypto/tls"
	"log"
	"net"
	"net/http"
	"time"
)

// Timeouts bound how long a client may take over one request
// (docs/decisions.md, "Slow clients get the API's JSON error"). A zero field
// is its default (DefaultTimeouts).
type Timeouts struct {
	// Header bounds the TLS handshake from accept, and then a request
	// header: a connection's first from the end of the handshake (plain
	// HTTP: from accept), a later one from its first octet. A header not
	// complete by then is answered 408 timeout at header.
	Header time.Duration
	// Body bounds a request body from the end of its header; a body not
	// complete by then is answered 408 timeout at body.
	Body time.Duration
	// Response bounds handling and writing the response after the body:
	// the response must be written within Body + Response of the end of
	// the header (net/http's WriteTimeout), so a body that timed out is
	// still answered.
	Response time.Duration
	// Idle bounds the wait for the next request on a kept-alive
	// connection; it then closes silently.
	Idle time.Duration
}

// DefaultTimeouts are the service's timeouts: header 5 s, body 30 s,
// response 30 s after the body, idle 2 min. consume.MaxRequestTime
// documents them.
func DefaultTimeouts() Timeouts {
	return Timeouts{Header: 5 * time.Second, Body: 30 * time.Second, Response: 30 * time.Second, Idle: 2 * time.Minute}
}

// MaxHeaderBytes bounds a request header (net/http's bound, which adds
// 4 KiB of slack); a larger one is answered 431 limitExceeded at header.
const MaxHeaderBytes = 64 << 10

// HTTPServer serves a handler as the authorization service does, for
// `toolgate serve` and the manager alike: HTTP/1.1 only, TLS terminated by
// its own listener (so that a header's timeout is answered in JSON above
// it), every request bounded by Timeouts and MaxHeaderBytes.
//
// HTTP/2 is not offered: its server has no header timeout of its own and
// answers a slow stream with a reset, never the API's JSON.
type HTTPServer struct {
	hs       *http.Server
	tls      *tls.Config
	timeouts Timeouts
}

// NewHTTPServer returns an HTTPServer for h. tlsConfig is nil for plain
// HTTP; its NextProtos are replaced by http/1.1. errorLog nil means the
// standard logger.
func NewHTTPServer(h http.Handler, tlsConfig *tls.Config, t Timeouts, errorLog *log.Logger) *HTTPServer {
	def := DefaultTimeouts()
	if t.Header <= 0 {
		t.Header = def.Header
	}
	if t.Body <= 0 {
		t.Body = def.Body
	}
	if t.Response <= 0 {
		t.Response = def.Response
	}
	if t.Idle <= 0 {
		t.Idle = def.Idle
	}
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	s := &HTTPServer{timeouts: t, hs: &http.Server{
		Handler: bodyDeadline(h, t.Body),
		// No ReadHeaderTimeout or ReadTimeout: the connection enforces
		// the header timeout itself, and each request's handler its body
		// deadline, so that both are answered in JSON. The write
		// deadline runs from the end of the header: it covers the body's
		// time, then the response's.
		WriteTimeout:   t.Body + t.Response,
		IdleTimeout:    t.Idle,
		MaxHeaderBytes: MaxHeaderBytes,
		ConnState:      trackConnState,
		ConnContext:    connContext,
		ErrorLog:       errorLog,
		Protocols:      &protocols,
	}}
	if tlsConfig != nil {
		s.tls = tlsConfig.Clone()
		s.tls.NextProtos = []string{"http/1.1"}
	}
	return s
}

// Timeouts returns the server's timeouts, defaults filled in.
func (s *HTTPServer) Timeouts() Timeouts { return s.timeouts }

// Serve serves on ln until Shutdown; it always returns an error
// (http.ErrServerClosed after Shutdown).
func (s *HTTPServer) Serve(ln net.Listener) error {
	return s.hs.Serve(&listener{Listener: ln, tls: s.tls, header: s.timeouts.Header, errorLog: s.hs.ErrorLog})
}

// Shutdown stops accepting and waits for in-flight requests until ctx is
// done (http.Server.Shutdown).
func (s *HTTPServer) Shutdown(ctx context.Context) error { return s.hs.Shutdown(ctx) }

// bodyDeadline gives every request with a body a read deadline d from
// the end of its header: a body not read by then fails with
// os.ErrDeadlineExceeded, which decodeBody answers 408 (and a handler that
// never reads the body still bounds net/http's discarding of it). net/http
// lifts the deadline itself once the body has arrived, when it starts its
// background read of the connection; a request without a body gets none,
// as that read has begun already.
func bodyDeadline(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		beginServing(r)
		if r.Body != nil && r.Body != http.NoBody {
			// net/http's own writer sets it directly (no allocation); a
			// wrapped one through a ResponseController.
			if rd, ok := w.(interface{ SetReadDeadline(time.Time) error }); ok {
				_ = rd.SetReadDeadline(time.Now().Add(d))
			} else {
				_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(d))
			}
		}
		h.ServeHTTP(w, r)
	})
}
