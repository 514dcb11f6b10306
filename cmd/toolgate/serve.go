package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/toolgate/toolgate/internal/consume/boltstore"
	"github.com/toolgate/toolgate/internal/server"
	"github.com/toolgate/toolgate/internal/serving"
	"github.com/toolgate/toolgate/internal/standalone"
)

// serve runs the authorization service. Standalone (the embedded default,
// and the only mode of this build): the manifests come from a directory,
// callers from a token file, and the signing keys and Consumptions live in
// a state directory.
func serve(args []string, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serveContext(ctx, args, stderr)
}

// serveContext is serve until ctx is done.
func serveContext(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	standaloneMode := fs.Bool("standalone", false, "serve manifests from a directory, without a cluster")
	manifests := fs.String("manifests", "", "file or directory of HostAuthority, ToolRegistry and PolicySnapshot manifests")
	state := fs.String("state", "", "state directory: signing keys and the Consumption store")
	listen := fs.String("listen", "127.0.0.1:8080", "listen address; plain HTTP only on loopback")
	tokens := fs.String("tokens", "", "token file {tokens: [{token, name, groups}]} (default STATE/tokens.yaml)")
	certFile := fs.String("tls-cert", "", "TLS certificate (PEM); required on a non-loopback address")
	keyFile := fs.String("tls-key", "", "TLS private key (PEM)")
	logFile := fs.String("decision-log", "-", "decision log: a file, or - for stdout")
	syncLog := fs.Bool("decision-log-sync", false, "write each decision-log line before responding (no loss, more latency)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(rest) != 0:
		return usageError{"serve takes flags only"}
	case !*standaloneMode:
		return usageError{"this build serves --standalone only; the in-cluster service runs in the manager"}
	case *manifests == "" || *state == "":
		return usageError{"serve --standalone needs --manifests and --state"}
	}
	host, _, err := net.SplitHostPort(*listen)
	if err != nil {
		return usageError{"--listen is host:port"}
	}
	loopback := isLoopback(host)
	if !loopback && (*certFile == "" || *keyFile == "") {
		return errors.New("refusing plain HTTP on a non-loopback address: give --tls-cert and --tls-key")
	}
	if *tokens == "" {
		*tokens = filepath.Join(*state, "tokens.yaml")
	}

	logger := slog.New(slog.NewJSONHandler(stderr, nil))
	domains, err := standalone.Load(filepath.Join(*state, "keys"), *manifests)
	if err != nil {
		return err
	}
	var set serving.StaticDomains
	if err := set.Replace(domains...); err != nil {
		return err
	}
	auth, err := server.LoadTokens(*tokens)
	if err != nil {
		return err
	}
	store, err := boltstore.Open(filepath.Join(*state, "consumptions"), boltstore.Options{})
	if err != nil {
		return err
	}
	defer func() { _ = store.Close() }()
	logOut := io.Writer(os.Stdout)
	if *logFile != "-" {
		f, err := os.OpenFile(*logFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return err
		}
		defer func() { _ = f.Close() }()
		logOut = f
	}
	decisions := server.NewDecisionLog(logOut, 4096, *syncLog)
	defer decisions.Close()
	srv, err := server.New(server.Config{Domains: &set, Auth: auth, Store: store, Log: decisions})
	if err != nil {
		return err
	}
	hs := &http.Server{
		Addr:              *listen,
		Handler:           srv.Handler(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	if !loopback {
		hs.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	logger.Info("serving", "address", ln.Addr().String(), "domains", set.Len(), "tls", !loopback)

	errc := make(chan error, 1)
	go func() {
		if loopback && *certFile == "" {
			errc <- hs.Serve(ln)
		} else {
			errc <- hs.ServeTLS(ln, *certFile, *keyFile)
		}
	}()
	select {
	case err := <-errc:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	logger.Info("shutting down")
	return hs.Shutdown(shutdown)
}

// isLoopback reports whether host names only loopback addresses.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
