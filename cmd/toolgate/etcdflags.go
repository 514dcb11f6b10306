package main

import (
	"crypto/x509"
	"errors"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/toolgate/toolgate/internal/consume/etcdstore"
)

// The --etcd-* flags of the etcd Consumption store, one implementation for
// `toolgate serve` and `toolgate manager` (docs/cli.md, flags):
// the same names, the same checks, the same TLS loading, so the two cannot
// drift on what they accept.

// storeEtcd is the --consumption-store value of the etcd store in both
// verbs.
const storeEtcd = "etcd"

// etcdFlags are the --etcd-* flags, kept as given (the options stay
// comparable); check validates them.
type etcdFlags struct {
	endpoints string // comma-separated
	cert, key string // the client certificate and key (PEM)
	ca        string // the CA that signed the etcd servers' certificates
	prefix    string
}

// register declares the --etcd-* flags on fs, stored in f.
func (f *etcdFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.endpoints, "etcd-endpoints", "", "comma-separated etcd endpoints (`URL,...`), https://host:port (plain http only on loopback)")
	fs.StringVar(&f.ca, "etcd-ca", "", "CA certificate `FILE` (PEM) that signed the etcd servers' certificates; turns on TLS")
	fs.StringVar(&f.cert, "etcd-cert", "", "client certificate `FILE` (PEM) for etcd, reread at each connection")
	fs.StringVar(&f.key, "etcd-key", "", "the client certificate's private key `FILE` (PEM)")
	fs.StringVar(&f.prefix, "etcd-prefix", etcdstore.DefaultPrefix, "etcd key prefix (`PREFIX`) of this deployment: every replica of it gives the same one, other deployments another")
}

// checkFor checks the flags when store is the etcd store and, for any
// other store, refuses them (set, they would be ignored).
func (f etcdFlags) checkFor(store string) error {
	if store == storeEtcd {
		return f.check()
	}
	if f != (etcdFlags{prefix: etcdstore.DefaultPrefix}) {
		return usageError{"the --etcd-* flags need --consumption-store=etcd"}
	}
	return nil
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

// open opens the etcd Consumption store the flags describe (checked).
func (f etcdFlags) open() (*etcdstore.Store, error) {
	cfg, err := f.clientConfig()
	if err != nil {
		return nil, err
	}
	return etcdstore.Open(cfg, etcdstore.Options{Prefix: f.prefix})
}
