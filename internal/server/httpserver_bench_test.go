package server_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/server"
)

// BenchmarkHTTPServer measures one small POST and its response over a
// kept-alive loopback connection: through server.HTTPServer (its
// connection wrapper and per-request body deadline), and through a bare
// http.Server with the former server-wide timeouts, for the difference.
func BenchmarkHTTPServer(b *testing.B) {
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header()["Content-Length"] = []string{"2"}
		_, _ = w.Write([]byte("{}"))
	})
	serve := map[string]func(net.Listener) (func(), error){
		"HTTPServer": func(ln net.Listener) (func(), error) {
			hs := server.NewHTTPServer(handler, nil, server.DefaultTimeouts(), nil)
			go func() { _ = hs.Serve(ln) }()
			return func() { _ = hs.Shutdown(b.Context()) }, nil
		},
		"bare http.Server": func(ln net.Listener) (func(), error) {
			hs := &http.Server{Handler: handler, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second,
				WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: server.MaxHeaderBytes}
			go func() { _ = hs.Serve(ln) }()
			return func() { _ = hs.Shutdown(b.Context()) }, nil
		},
	}
	const request = "POST /echo HTTP/1.1\r\nHost: toolgate\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
	for _, name := range []string{"HTTPServer", "bare http.Server"} {
		b.Run(name, func(b *testing.B) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			stop, err := serve[name](ln)
			if err != nil {
				b.Fatal(err)
			}
			defer stop()
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = c.Close() }()
			br := bufio.NewReader(c)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := io.WriteString(c, request); err != nil {
					b.Fatal(err)
				}
				resp, err := http.ReadResponse(br, nil)
				if err != nil || resp.StatusCode != http.StatusOK {
					b.Fatal(resp, err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
			}
		})
	}
}
