package main

import (
	"context"
	"crypto/x509"
	"errors"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/toolgate/toolgate/internal/consume"
	"github.com/toolgate/toolgate/internal/consume/boltstore"
	"github.com/toolgate/toolgate/internal/consume/etcdstore"
)

// Standalone serve on the etcd Consumption store (issue 20, item 9): the
// replicas of one deployment share single use, and identity claims, through
// one etcd cluster under one key prefix. Everything else in the state
// directory stays per replica (docs/consumption.md, "Standalone replicas").

// The Consumption stores serve can use.
const (
	storeBolt = "bolt" // <state>/consumptions.db, one process
	storeEtcd = "etcd" // an etcd cluster, any number of replicas
)

// etcdFlags are serve's --etcd-* flags, kept as given (the options stay
// comparable); check validates them.
type etcdFlags struct {
	endpoints string // comma-separated
	cert, key string // the client certificate and key (PEM)
	ca        string // the CA that signed the etcd servers' certificates
	prefix    string
}

// check refuses incomplete or unsafe etcd flags before anything is opened:
// no endpoint, a certificate without its key, a prefix that is not a
// directory of its own, a plaintext endpoint off loopback. It never quotes
// a value.
func (f etcdFlags) check() error {
	switch {
	case f.endpoints == "":
		return usageError{"--consumption-store=etcd needs --etcd-endpoints"}
	case (f.cert == "") != (f.key == ""):
		return usageError{"--etcd-cert and --etcd-key go together"}
	case !strings.HasPrefix(f.prefix, "/") || !strings.HasSuffix(f.prefix, "/") || len(f.prefix) < 2 || strings.Contains(f.prefix, "//"):
		return usageError{"--etcd-prefix is a key directory such as /toolgate/consumptions/prod/: it begins and ends with / and has no empty segment"}
	}
	for _, ep := range f.list() {
		host, tlsScheme, ok := splitEndpoint(ep)
		switch {
		case !ok:
			return usageError{"--etcd-endpoints is a comma-separated list of host:port, http://host:port or https://host:port"}
		case tlsScheme && f.ca == "":
			return usageError{"an https etcd endpoint needs --etcd-ca, the CA that signed its certificate"}
		case !tlsScheme && !isLoopback(host):
			return errors.New("refusing plaintext etcd on a non-loopback endpoint: use https:// endpoints with --etcd-ca (and --etcd-cert/--etcd-key)")
		}
	}
	return nil
}

// list returns the endpoints.
func (f etcdFlags) list() []string { return strings.Split(f.endpoints, ",") }

// splitEndpoint reads host:port, http://host:port or https://host:port
// (the forms etcd's client dials) and reports the host and whether it is
// dialled with TLS.
func splitEndpoint(ep string) (host string, tlsScheme, ok bool) {
	hostport := ep
	if strings.Contains(ep, "://") {
		u, err := url.Parse(ep)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || (u.Path != "" && u.Path != "/") || u.User != nil || u.RawQuery != "" {
			return "", false, false
		}
		hostport, tlsScheme = u.Host, u.Scheme == "https"
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil || host == "" || port == "" {
		return "", false, false
	}
	return host, tlsScheme, true
}

// clientConfig is the etcd client's configuration: TLS with the CA (and the
// client certificate, reread at each handshake, so a renewed file is used
// without a restart) whenever --etcd-ca is given.
func (f etcdFlags) clientConfig() (clientv3.Config, error) {
	cfg := clientv3.Config{Endpoints: f.list(), DialTimeout: 5 * time.Second}
	if f.ca == "" {
		return cfg, nil
	}
	// TLSInfo skips a CA file without a PEM certificate (an empty pool
	// that trusts nothing, found out only at the first dial): refuse it
	// here, at start.
	pem, err := os.ReadFile(f.ca)
	if err != nil || !x509.NewCertPool().AppendCertsFromPEM(pem) {
		return cfg, errEtcdTLS
	}
	tc, err := transport.TLSInfo{CertFile: f.cert, KeyFile: f.key, TrustedCAFile: f.ca}.ClientConfig()
	if err != nil {
		return cfg, errEtcdTLS
	}
	cfg.TLS = tc
	return cfg, nil
}

// errEtcdTLS: the files named by --etcd-ca, --etcd-cert or --etcd-key
// cannot be read as PEM (the cause is not shown: it may quote a path's
// contents).
var errEtcdTLS = errors.New("cannot load the etcd TLS files: --etcd-ca must be a PEM CA certificate, --etcd-cert and --etcd-key a PEM certificate and its private key")

// openStore opens the Consumption store serve was told to use, and returns
// it with its closers. The bbolt file locks the state directory itself;
// with etcd, nothing in it is shared between replicas, so serve takes a
// lock of its own: two processes writing one audit log or key directory
// copy would break its hash chain or their rotations.
func openStore(o serveOptions) (consume.Store, []func(), error) {
	if o.store == storeBolt {
		s, err := boltstore.Open(filepath.Join(o.state, "consumptions"), boltstore.Options{})
		if err != nil {
			return nil, nil, stateStoreError(err)
		}
		return s, []func(){func() { _ = s.Close() }}, nil
	}
	unlock, err := lockState(o.state)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := o.etcd.clientConfig()
	if err != nil {
		unlock()
		return nil, nil, err
	}
	s, err := etcdstore.Open(cfg, etcdstore.Options{Prefix: o.etcd.prefix})
	if err != nil {
		unlock()
		return nil, nil, err
	}
	return s, []func(){unlock, func() { _ = s.Close() }}, nil
}

// stateLockFile is the lock serve holds on its state directory when the
// Consumption store is not in it.
const stateLockFile = "serve.lock"

// lockState takes an exclusive, non-blocking lock of state/serve.lock, held
// until the returned function runs (or the process ends).
func lockState(state string) (func(), error) {
	if err := os.MkdirAll(state, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(state, stateLockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, lockedError{err}
		}
		return nil, err
	}
	return func() { _ = f.Close() }, nil
}

// storeReady asks the store once, so that the log says at start when the
// store does not answer; serve starts anyway and refuses what needs the
// store (503 unavailable, /readyz not ready) until it answers.
func storeReady(ctx context.Context, s consume.Store) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return s.Ready(ctx)
}
