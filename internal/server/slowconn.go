package server

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/toolgate/toolgate/client"
)

// A slow client must get the API's JSON error, never net/http's plain-text
// "400 Bad Request" or a silent close (docs/decisions.md, "Slow clients get
// the API's JSON error"). net/http answers a request header itself, before
// any handler runs: it closes a connection whose header timed out without a
// word, and a header line cut short by the timeout it parses as a complete
// one and refuses in plain text. So the service's listener wraps every
// connection in a slowConn, which sits where it sees the HTTP octets (above
// TLS, which it terminates itself), enforces the header timeout, answers a
// timed-out header with a fixed JSON 408 and replaces net/http's own
// plain-text refusals of a header by fixed JSON ones. The body timeout is a
// read deadline each request's handler sets (bodyDeadline); decodeBody
// answers it with a JSON 408.

// lingerTime bounds how long a connection that was answered because its
// client was too slow (or sent a bad header) keeps reading before it
// closes: closing with unread input resets the connection, and a reset can
// destroy the answer before the client has read it. It is net/http's own
// delay for the same purpose.
const lingerTime = 500 * time.Millisecond

// The fixed answers, written by the connection itself: they never contain
// an octet the client sent.
var (
	headerTimeoutAnswer = fixedAnswer(http.StatusRequestTimeout, client.Error{Code: codeTimeout, Path: "header",
		Message: "the request header did not arrive within the service's header timeout"})
	headerMalformedAnswer = fixedAnswer(http.StatusBadRequest, client.Error{Code: "malformed", Path: "header",
		Message: "the request is not an HTTP/1.1 request the service accepts"})
	headerTooLargeAnswer = fixedAnswer(http.StatusRequestHeaderFieldsTooLarge, client.Error{Code: "limitExceeded", Path: "header",
		Message: "the request header is larger than the service accepts"})
	expectationAnswer    = unsupportedAnswer(http.StatusExpectationFailed)
	transferCodingAnswer = unsupportedAnswer(http.StatusNotImplemented)
	versionAnswer        = unsupportedAnswer(http.StatusHTTPVersionNotSupported)
	plainHTTPAnswer      = fixedAnswer(http.StatusBadRequest, client.Error{Code: "unsupported",
		Message: "this address serves HTTPS only"})
)

// codeTimeout is the API error code of a request that did not arrive in
// time (408).
const codeTimeout = "timeout"

// unsupportedAnswer is the answer to a request that uses an HTTP feature
// the service does not support, with status.
func unsupportedAnswer(status int) []byte {
	return fixedAnswer(status, client.Error{Code: "unsupported", Path: "header",
		Message: "the request uses an HTTP version, transfer coding or expectation the service does not support; use plain HTTP/1.1"})
}

// fixedAnswer is a complete HTTP/1.1 response carrying the API error e,
// closing the connection.
func fixedAnswer(status int, e client.Error) []byte {
	body, err := json.Marshal(client.ErrorResponse{Error: e})
	if err != nil {
		panic(err) // a constant value: cannot fail
	}
	body = append(body, '\n')
	return fmt.Appendf(nil, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n"+
		"Connection: close\r\nContent-Length: %d\r\n\r\n%s", status, http.StatusText(status), len(body), body)
}

// headerRefusal is the JSON answer in place of p, a plain-text refusal
// net/http wrote before any handler ran ("HTTP/1.1 431 …", "… 417 …",
// "… 501 …", "… 505 …"; anything else is a 400).
func headerRefusal(p []byte) []byte {
	const prefix = "HTTP/1.1 "
	if len(p) >= len(prefix)+3 && string(p[:len(prefix)]) == prefix {
		switch string(p[len(prefix) : len(prefix)+3]) {
		case "431":
			return headerTooLargeAnswer
		case "417":
			return expectationAnswer
		case "501":
			return transferCodingAnswer
		case "505":
			return versionAnswer
		}
	}
	return headerMalformedAnswer
}

// listener terminates TLS when it has a configuration and wraps every
// connection in a slowConn.
type listener struct {
	net.Listener
	tls      *tls.Config // nil: plain HTTP
	header   time.Duration
	errorLog *log.Logger // nil: the standard logger
}

func (l *listener) Accept() (net.Conn, error) {
	raw, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	c := &slowConn{Conn: raw, raw: raw, timeout: l.header, log: l.errorLog, header: true, start: time.Now()}
	if l.tls != nil {
		c.tls = tls.Server(raw, l.tls)
		c.Conn = c.tls
	}
	return c, nil
}

// slowConn is one connection of the service (see the comment at the top).
// It knows where net/http is: reading a request header (from accept, or
// from StateIdle, until StateActive: trackConnState), past the header but
// before the handler (net/http writes only its own refusals then), or
// serving a request (from the handler's start: bodyDeadline). While a
// header is read it alone sets the read deadline (the earlier of its
// header deadline and the one net/http asks for); afterwards, the
// deadline net/http or the handler asks for.
type slowConn struct {
	net.Conn // what net/http reads and writes: the TLS session, or raw
	raw      net.Conn
	tls      *tls.Conn // nil for plain HTTP
	timeout  time.Duration
	log      *log.Logger

	// mu guards the fields below; it is never held across a blocking
	// read. While a request is served, a handler sets deadlines and
	// writes as net/http's background read reads.
	mu         sync.Mutex
	header     bool      // a request header is being read
	serving    bool      // the handler of the current request has begun
	start      time.Time // the header clock's start; zero while an idle connection waits
	got        bool      // an octet of the header being read has arrived
	handshaken bool      // the TLS handshake is done (or there is none)
	deadline   time.Time // the read deadline net/http or a handler asked for
	abort      bool      // deadline was already past when set: an abort, not a timeout
	applied    time.Time // the read deadline set on Conn
	answered   bool      // a fixed answer went out: nothing more is read or written
	slow       bool      // a read timed out on a client, or a fixed answer went out: close lingering
}

// trackConnState is the service's http.Server.ConnState: it tells a
// slowConn that a request header is complete (StateActive) or that the
// connection waits for the next one (StateIdle).
func trackConnState(nc net.Conn, state http.ConnState) {
	c, ok := nc.(*slowConn)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch state {
	case http.StateActive:
		c.header = false
		c.setApplied(c.deadline)
	case http.StateIdle:
		c.header, c.serving, c.start, c.got = true, false, time.Time{}, false
	}
}

// connKey is the request-context key of the request's *slowConn.
type connKey struct{}

// connContext is the service's http.Server.ConnContext: it puts the
// connection into its requests' contexts for beginServing.
func connContext(ctx context.Context, nc net.Conn) context.Context {
	if c, ok := nc.(*slowConn); ok {
		return context.WithValue(ctx, connKey{}, c)
	}
	return ctx
}

// beginServing marks the start of r's handler on its connection: from
// here on, what is written is the handler's response.
func beginServing(r *http.Request) {
	if c, ok := r.Context().Value(connKey{}).(*slowConn); ok {
		c.mu.Lock()
		c.serving = true
		c.mu.Unlock()
	}
}

// setApplied sets the read deadline dl on Conn unless it is set already.
// c.mu is held.
func (c *slowConn) setApplied(dl time.Time) {
	if !dl.Equal(c.applied) {
		c.applied = dl
		_ = c.Conn.SetReadDeadline(dl)
	}
}

// headerDeadline is the read deadline while a header is read. c.mu is
// held.
func (c *slowConn) headerDeadline() time.Time {
	dl := c.deadline
	if !c.start.IsZero() {
		if h := c.start.Add(c.timeout); dl.IsZero() || h.Before(dl) {
			dl = h
		}
	}
	return dl
}

func (c *slowConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	if c.answered {
		c.mu.Unlock()
		return 0, io.EOF
	}
	if !c.header {
		c.mu.Unlock()
		n, err := c.Conn.Read(p)
		if err != nil && isTimeout(err) {
			c.mu.Lock()
			c.slow = c.slow || !c.abort
			c.mu.Unlock()
		}
		return n, err
	}
	if !c.handshaken && c.tls != nil {
		c.mu.Unlock()
		if err := c.handshake(); err != nil {
			return 0, err
		}
		c.mu.Lock()
	}
	if c.start.IsZero() && c.deadline.IsZero() {
		// Never wait for a header without a deadline, whatever
		// net/http does between requests.
		c.start = time.Now()
	}
	c.setApplied(c.headerDeadline())
	c.mu.Unlock()

	n, err := c.Conn.Read(p)

	c.mu.Lock()
	if n > 0 && !c.got {
		c.got = true
		if c.start.IsZero() {
			c.start = time.Now()
		}
	}
	// A header begun and not finished in time is answered; a connection
	// on which no request began closes silently, as an idle one does.
	timedOut := err != nil && c.got && isTimeout(err)
	if timedOut {
		c.answered, c.slow = true, true
	}
	c.mu.Unlock()
	if timedOut {
		c.writeAnswer(c.Conn, headerTimeoutAnswer)
	}
	return n, err
}

// handshake runs the TLS handshake within the header timeout from accept;
// the header clock starts when it is done. A client that spoke plain HTTP
// is told, in JSON and in plain HTTP, that the address serves HTTPS.
func (c *slowConn) handshake() error {
	c.mu.Lock()
	deadline := c.start.Add(c.timeout)
	c.mu.Unlock()
	_ = c.raw.SetDeadline(deadline)
	err := c.tls.HandshakeContext(context.Background())
	_ = c.raw.SetDeadline(time.Time{})

	c.mu.Lock()
	c.applied = time.Time{}
	if err == nil {
		c.handshaken, c.start = true, time.Now()
		c.mu.Unlock()
		return nil
	}
	// net/http refuses the failed read in plain text: drop that.
	c.answered = true
	var re tls.RecordHeaderError
	plain := errors.As(err, &re) && re.Conn != nil && looksLikeHTTP(re.RecordHeader)
	c.slow = plain
	c.mu.Unlock()
	if plain {
		c.writeAnswer(re.Conn, plainHTTPAnswer)
		return err
	}
	if c.log != nil {
		c.log.Printf("http: TLS handshake error from %s: %v", c.raw.RemoteAddr(), err)
	} else {
		log.Printf("http: TLS handshake error from %s: %v", c.raw.RemoteAddr(), err)
	}
	return err
}

// looksLikeHTTP reports whether the first five octets of a connection are
// the start of a plain HTTP request.
func looksLikeHTTP(hdr [5]byte) bool {
	switch string(hdr[:]) {
	case "GET /", "HEAD ", "POST ", "PUT /", "OPTIO", "DELET", "PATCH", "CONNE", "TRACE":
		return true
	}
	return false
}

// writeAnswer writes a fixed answer to w (the connection, or the raw one
// under a TLS session that never began) within the header timeout.
func (c *slowConn) writeAnswer(w net.Conn, answer []byte) {
	_ = w.SetWriteDeadline(time.Now().Add(c.timeout))
	_, _ = w.Write(answer)
}

// Write passes a handler's response on. Before a handler has begun,
// net/http writes only its own plain-text refusal of a request: the
// connection writes the JSON one instead, and nothing after it.
func (c *slowConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	switch {
	case c.answered:
		c.mu.Unlock()
		return 0, net.ErrClosed
	case !c.serving:
		c.answered, c.slow = true, true
		c.mu.Unlock()
		c.writeAnswer(c.Conn, headerRefusal(p))
		return len(p), nil
	}
	c.mu.Unlock()
	return c.Conn.Write(p)
}

// SetReadDeadline records the deadline net/http or a handler asks for.
// While a header is read, the header deadline still applies if earlier.
func (c *slowConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deadline = t
	c.abort = !t.IsZero() && !t.After(time.Now())
	if c.header {
		if t.IsZero() && c.start.IsZero() {
			// Between requests net/http waits under its idle deadline
			// and clears it once it has peeked at the next request's
			// first octets, which it may have buffered with the last
			// request: that request has begun, and its header clock
			// starts now.
			c.start, c.got = time.Now(), true
		}
		c.setApplied(c.headerDeadline())
		return nil
	}
	c.applied = t
	return c.Conn.SetReadDeadline(t)
}

// SetDeadline sets both deadlines, the read one as SetReadDeadline does.
func (c *slowConn) SetDeadline(t time.Time) error {
	return errors.Join(c.SetReadDeadline(t), c.SetWriteDeadline(t))
}

// CloseWrite ends the sending side (net/http's own reset avoidance).
func (c *slowConn) CloseWrite() error {
	var errs []error
	if c.tls != nil {
		errs = append(errs, c.tls.CloseWrite())
	}
	if cw, ok := c.raw.(interface{ CloseWrite() error }); ok {
		errs = append(errs, cw.CloseWrite())
	}
	return errors.Join(errs...)
}

// Close closes the connection; one whose client was too slow, or that was
// answered in place of net/http, first ends its sending side and reads
// what still arrives for up to lingerTime, so that the answer is not lost
// to a reset.
func (c *slowConn) Close() error {
	c.mu.Lock()
	linger := c.slow
	c.slow = false
	c.mu.Unlock()
	if linger {
		_ = c.CloseWrite()
		_ = c.raw.SetReadDeadline(time.Now().Add(lingerTime))
		_, _ = io.Copy(io.Discard, c.raw)
	}
	return c.Conn.Close()
}

// isTimeout reports whether err is a deadline's.
func isTimeout(err error) bool {
	return errors.Is(err, os.ErrDeadlineExceeded)
}
