package server_test

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/consume"
	"github.com/toolgate/toolgate/internal/server"
	"github.com/toolgate/toolgate/internal/serving"
)

// Short timeouts for the slow-client tests; a trickle writes one octet per
// trickleEvery, so a header or body never completes within them, and
// nothing is asserted about how long anything took. The response timeout
// equals the body timeout, as the defaults do: a body that times out must
// still be answered.
var slowTimeouts = server.Timeouts{Header: time.Second, Body: time.Second, Response: time.Second, Idle: 2 * time.Second}

const (
	trickleEvery = 100 * time.Millisecond
	// guard only stops a test that would otherwise hang.
	guard = 30 * time.Second
)

// endpoint is a server.HTTPServer on a loopback listener.
type endpoint struct {
	addr string
	tls  *tls.Config // the client's; nil for plain HTTP
}

// serveHTTP serves h on loopback with slowTimeouts, over TLS when secure.
func serveHTTP(t *testing.T, h http.Handler, secure bool) endpoint {
	t.Helper()
	var serverTLS *tls.Config
	e := endpoint{}
	if secure {
		serverTLS, e.tls = testTLS(t)
	}
	hs := server.NewHTTPServer(h, serverTLS, slowTimeouts, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e.addr = ln.Addr().String()
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		defer cancel()
		if err := hs.Shutdown(ctx); err != nil {
			t.Error(err)
		}
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Error(err)
		}
	})
	return e
}

// dial opens a connection to e (TLS when e is) with the guard deadline.
func (e endpoint) dial(t *testing.T) net.Conn {
	t.Helper()
	var c net.Conn
	var err error
	if e.tls != nil {
		cfg := e.tls.Clone()
		cfg.NextProtos = []string{"http/1.1"} // as a client writing HTTP/1.1 by hand would
		c, err = tls.Dial("tcp", e.addr, cfg)
	} else {
		c, err = net.Dial("tcp", e.addr)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(guard))
	return c
}

// url is the base URL of e.
func (e endpoint) url() string {
	if e.tls != nil {
		return "https://" + e.addr
	}
	return "http://" + e.addr
}

// client is an HTTP client of e; it offers HTTP/2 as well.
func (e endpoint) client() *http.Client {
	return &http.Client{Timeout: guard, Transport: &http.Transport{TLSClientConfig: e.tls, ForceAttemptHTTP2: true}}
}

// testTLS is a fresh self-signed certificate for 127.0.0.1: the server's
// configuration and a client's that trusts it.
func testTLS(t *testing.T) (*tls.Config, *tls.Config) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "toolgate-test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	return &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}},
		&tls.Config{MinVersion: tls.VersionTLS12, RootCAs: roots, NextProtos: []string{"h2", "http/1.1"}}
}

// trickle writes s to c one octet per trickleEvery until it is written,
// the connection fails or the test ends.
func trickle(t *testing.T, c net.Conn, s string) {
	stop := make(chan struct{})
	done := make(chan struct{})
	t.Cleanup(func() { close(stop); <-done })
	go func() {
		defer close(done)
		for i := range len(s) {
			if _, err := c.Write([]byte{s[i]}); err != nil {
				return
			}
			select {
			case <-stop:
				return
			case <-time.After(trickleEvery):
			}
		}
	}()
}

// apiService is the API over an empty domain set: enough to authenticate
// a caller and read its body.
func apiService(t *testing.T) http.Handler {
	t.Helper()
	tokens, err := server.NewTokens([]server.TokenEntry{{Token: agentToken, Name: "agent"}})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Domains: &serving.StaticDomains{}, Auth: tokens,
		Store: &memStore{seen: map[consume.Key]bool{}, clock: time.Now}})
	if err != nil {
		t.Fatal(err)
	}
	return conforming(t, srv.Handler())
}

// readAnswer reads one response from c and requires the API error want
// with status, and then the end of the connection.
func readAnswer(t *testing.T, c net.Conn, status int, want client.Error) {
	t.Helper()
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("want a %d JSON answer, got no response: %v", status, err)
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	var got client.ErrorResponse
	if resp.StatusCode != status || resp.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &got) != nil {
		t.Fatalf("got %d %q %q, want %d with the API's JSON error", resp.StatusCode, resp.Header.Get("Content-Type"), body, status)
	}
	if got.Error.Code != want.Code || got.Error.Path != want.Path || got.Error.Message == "" {
		t.Errorf("got error %+v, want code %q at %q", got.Error, want.Code, want.Path)
	}
	if !resp.Close {
		t.Error("the answer does not close the connection")
	}
	if n, err := br.Read(make([]byte, 1)); n != 0 || (err != io.EOF && !errors.Is(err, net.ErrClosed) && !isReset(err)) {
		t.Errorf("after the answer: %d octets, %v; want the end of the connection", n, err)
	}
}

// isReset reports whether err is the peer's reset, which may follow its
// close while the trickle still writes.
func isReset(err error) bool { return err != nil && strings.Contains(err.Error(), "connection reset") }

const trickledHeader = "POST /v1/authorize HTTP/1.1\r\nHost: toolgate\r\nAuthorization: Bearer " + agentToken +
	"\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"

// TestSlowClientsGetTheAPIsJSONError (docs/decisions.md, "Slow clients
// get the API's JSON error"). A header or body
// trickled slower than its timeout is answered 408 timeout, in the API's
// JSON, and the connection closes; never net/http's plain-text 400 and
// never a silent close. Over plain HTTP and over TLS.
func TestSlowClientsGetTheAPIsJSONError(t *testing.T) {
	t.Parallel()
	header := client.Error{Code: "timeout", Path: "header"}
	tests := map[string]struct {
		send func(t *testing.T, e endpoint, c net.Conn)
		want client.Error
	}{
		"a header trickled on a new connection is 408 timeout at header": {
			send: func(t *testing.T, _ endpoint, c net.Conn) { trickle(t, c, trickledHeader) },
			want: header,
		},
		"a header cut short by the timeout within its request line is 408, not net/http's plain-text 400": {
			send: func(t *testing.T, _ endpoint, c net.Conn) {
				if _, err := io.WriteString(c, "POST /v1/auth"); err != nil {
					t.Fatal(err)
				}
			},
			want: header,
		},
		"a header trickled on a kept-alive connection is 408 timeout at header": {
			send: func(t *testing.T, _ endpoint, c net.Conn) {
				if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: toolgate\r\n\r\n"); err != nil {
					t.Fatal(err)
				}
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				if err != nil || resp.StatusCode != http.StatusOK || resp.Close {
					t.Fatalf("first request: %v %v", resp, err)
				}
				_ = resp.Body.Close()
				trickle(t, c, trickledHeader)
			},
			want: header,
		},
		"a header stalled behind a pipelined request is 408 timeout at header": {
			send: func(t *testing.T, _ endpoint, c net.Conn) {
				// One write: net/http buffers the start of the second
				// request while it reads the first.
				if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: toolgate\r\n\r\nPOST /v1/auth"); err != nil {
					t.Fatal(err)
				}
				br := bufio.NewReader(c)
				resp, err := http.ReadResponse(br, nil)
				if err != nil || resp.StatusCode != http.StatusOK || br.Buffered() != 0 {
					t.Fatalf("first request: %v %v", resp, err)
				}
				_ = resp.Body.Close()
			},
			want: header,
		},
		"a body trickled after its header is 408 timeout at body": {
			send: func(t *testing.T, _ endpoint, c net.Conn) {
				body := `{"hostAuthority": {"namespace": "payments", "name": "payments-host"}}`
				head := fmt.Sprintf("POST /v1/authorize HTTP/1.1\r\nHost: toolgate\r\nAuthorization: Bearer %s\r\n"+
					"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n", agentToken, len(body))
				if _, err := io.WriteString(c, head); err != nil {
					t.Fatal(err)
				}
				trickle(t, c, body)
			},
			want: client.Error{Code: "timeout", Path: "body"},
		},
	}
	for name, tc := range tests {
		for _, secure := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s (TLS %v)", name, secure), func(t *testing.T) {
				t.Parallel()
				e := serveHTTP(t, apiService(t), secure)
				c := e.dial(t)
				tc.send(t, e, c)
				readAnswer(t, c, http.StatusRequestTimeout, tc.want)
			})
		}
	}
}

// TestHeaderRefusalsAreJSON: a header net/http refuses itself is answered
// in the API's JSON, never in plain text, and without an octet of it.
func TestHeaderRefusalsAreJSON(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		request string
		status  int
		want    client.Error
	}{
		"a malformed request line is 400 malformed at header": {
			request: "BREW <script> HTCPCP/1.0\r\n\r\n", status: http.StatusBadRequest,
			want: client.Error{Code: "malformed", Path: "header"},
		},
		"a request without Host is 400 malformed at header": {
			request: "GET /healthz HTTP/1.1\r\n\r\n", status: http.StatusBadRequest,
			want: client.Error{Code: "malformed", Path: "header"},
		},
		"a header over the bound is 431 limitExceeded at header": {
			request: "GET /healthz HTTP/1.1\r\nHost: toolgate\r\nX-Big: " + strings.Repeat("a", server.MaxHeaderBytes+8<<10) + "\r\n\r\n",
			status:  http.StatusRequestHeaderFieldsTooLarge, want: client.Error{Code: "limitExceeded", Path: "header"},
		},
		"an unknown expectation is 417 unsupported at header": {
			request: "POST /v1/authorize HTTP/1.1\r\nHost: toolgate\r\nExpect: <script>\r\nContent-Length: 2\r\n\r\n{}",
			status:  http.StatusExpectationFailed, want: client.Error{Code: "unsupported", Path: "header"},
		},
		"an HTTP version other than 1.x is 505 unsupported at header": {
			request: "GET /healthz HTTP/2.0\r\nHost: toolgate\r\n\r\n",
			status:  http.StatusHTTPVersionNotSupported, want: client.Error{Code: "unsupported", Path: "header"},
		},
		"an unknown transfer coding is 501 unsupported at header": {
			request: "POST /v1/authorize HTTP/1.1\r\nHost: toolgate\r\nTransfer-Encoding: <script>\r\n\r\n",
			status:  http.StatusNotImplemented, want: client.Error{Code: "unsupported", Path: "header"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := serveHTTP(t, apiService(t), false).dial(t)
			go func() { _, _ = io.WriteString(c, tc.request) }()
			readAnswer(t, c, tc.status, tc.want)
		})
	}
}

// TestPlainHTTPOnTheTLSAddressIsToldInJSON: a plain HTTP request to the
// TLS address is answered, in plain HTTP, 400 unsupported.
func TestPlainHTTPOnTheTLSAddressIsToldInJSON(t *testing.T) {
	t.Parallel()
	e := serveHTTP(t, apiService(t), true)
	c, err := net.Dial("tcp", e.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	_ = c.SetDeadline(time.Now().Add(guard))
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: toolgate\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	readAnswer(t, c, http.StatusBadRequest, client.Error{Code: "unsupported"})
}

// TestAnIdleConnectionClosesSilently: a connection on which no request
// begins is closed without an answer (there is no request to answer)
// rather than held: a new one after the header timeout, a kept-alive one
// after the idle timeout.
func TestAnIdleConnectionClosesSilently(t *testing.T) {
	t.Parallel()
	for _, keptAlive := range []bool{false, true} {
		for _, secure := range []bool{false, true} {
			t.Run(fmt.Sprintf("kept alive %v, TLS %v", keptAlive, secure), func(t *testing.T) {
				t.Parallel()
				c := serveHTTP(t, apiService(t), secure).dial(t)
				br := bufio.NewReader(c)
				if keptAlive {
					if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: toolgate\r\n\r\n"); err != nil {
						t.Fatal(err)
					}
					resp, err := http.ReadResponse(br, nil)
					if err != nil || resp.StatusCode != http.StatusOK || resp.Close {
						t.Fatalf("first request: %v %v", resp, err)
					}
					_ = resp.Body.Close()
				}
				n, err := br.Read(make([]byte, 1))
				if n != 0 || (err != io.EOF && !isReset(err)) {
					t.Errorf("got %d octets, %v; want the connection closed", n, err)
				}
			})
		}
	}
}

// TestTimelyRequestsAreServed: requests that arrive in time are served
// over HTTP/1.1 (also to a client offering HTTP/2), a kept-alive
// connection serves the next one, and a request whose body arrived keeps
// its context while its handler works past the body timeout.
func TestTimelyRequestsAreServed(t *testing.T) {
	t.Parallel()
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if r.Header.Get("X-Work") != "" {
			time.Sleep(slowTimeouts.Body + slowTimeouts.Body/5)
		}
		if err := r.Context().Err(); err != nil {
			http.Error(w, "context: "+err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = w.Write(body)
	})
	for _, secure := range []bool{false, true} {
		t.Run(fmt.Sprintf("TLS %v", secure), func(t *testing.T) {
			t.Parallel()
			e := serveHTTP(t, handler, secure)
			hc := e.client()
			for i, r := range []struct {
				method, body string
				work         bool // the handler works on past the body timeout
			}{{"POST", "hello", false}, {"POST", "hello", false}, {"POST", "hello", true}, {"GET", "", true}} {
				reused := false
				trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) { reused = info.Reused }}
				req, err := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace),
					r.method, e.url()+"/echo", strings.NewReader(r.body))
				if err != nil {
					t.Fatal(err)
				}
				if r.work {
					req.Header.Set("X-Work", "1")
				}
				resp, err := hc.Do(req)
				if err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				body, err := io.ReadAll(resp.Body)
				_ = resp.Body.Close()
				switch {
				case err != nil || resp.StatusCode != http.StatusOK || string(body) != r.body:
					t.Errorf("request %d: %d %q %v", i, resp.StatusCode, body, err)
				case resp.Proto != "HTTP/1.1":
					t.Errorf("request %d: served over %s, want HTTP/1.1", i, resp.Proto)
				case i > 0 && !reused:
					t.Errorf("request %d: a new connection; want the kept-alive one", i)
				}
			}
		})
	}
}
