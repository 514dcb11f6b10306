package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/toolgate/toolgate/internal/server"
)

// newHTTPServer is the one HTTP server of the authorization service, for
// `serve` and for the manager alike, so that both bound every request the
// same way (server.DefaultTimeouts, server.MaxHeaderBytes) and answer a
// slow client in JSON: a slow or oversized client cannot hold a connection
// or a replica's memory. tlsConfig is nil for plain HTTP (serve on
// loopback only); errorLog nil means the standard logger.
func newHTTPServer(handler http.Handler, tlsConfig *tls.Config, errorLog *log.Logger) *server.HTTPServer {
	return server.NewHTTPServer(handler, tlsConfig, server.DefaultTimeouts(), errorLog)
}

// shutdownGrace bounds how long in-flight requests may finish once the
// service is asked to stop.
const shutdownGrace = 10 * time.Second

// serveUntilDone serves hs on ln until ctx is done, then shuts hs down
// gracefully within shutdownGrace. A serve that fails first is the error.
func serveUntilDone(ctx context.Context, hs *server.HTTPServer, ln net.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	return hs.Shutdown(shutdown)
}
