package main

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/consume"
	"github.com/toolgate/toolgate/internal/server"
	"github.com/toolgate/toolgate/internal/serving"
	"github.com/toolgate/toolgate/internal/standalone"
)

// serve runs the authorization service standalone (the only mode of serve;
// the in-cluster service runs in the manager): the manifests come from a
// directory, callers from a token file, and the signing keys and
// Consumptions live in a state directory.
func serve(po serveOptions, args []string, stderr io.Writer) error {
	o, err := po.checked(args)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The process's own setting, so not in runServe: tests run that in process.
	processLogger(stderr).Info("garbage collection", "settings", tuneGC(os.Getenv, cgroupMemoryMax).String())
	return runServe(ctx, o, stderr)
}

// runServe builds the service and runs it until ctx is done.
func runServe(ctx context.Context, o serveOptions, stderr io.Writer) error {
	logger := processLogger(stderr)
	svc, err := buildServe(o)
	if err != nil {
		return err
	}
	defer svc.close()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go svc.reloadOn(ctx, hup, o, logger)
	return svc.run(ctx, o, logger)
}

// serveOptions are serve's flags, checked.
type serveOptions struct {
	manifests, state  string
	listen            string
	loopback          bool // listen names only loopback addresses
	tokens            string
	certFile, keyFile string
	logFile           string // "-" for stdout
	syncLog           bool
	auditLog          string // "off" for none
	auditKey          string
	pprof             string  // --pprof-listen; "" is off
	store             string  // storeBolt or storeEtcd
	storeFlag         *choice // --consumption-store, read into store by checked
	etcd              etcdFlags
}

// serveFlags declares serve's flags. --standalone is accepted and changes
// nothing: standalone is serve's only mode, so existing command lines stay
// true.
func serveFlags(fs *pflag.FlagSet) *serveOptions {
	o := serveOptions{storeFlag: newChoice(storeBolt, storeBolt, storeEtcd)}
	fs.Bool("standalone", true, "accepted for compatibility: serve always runs standalone")
	manifestsFlag(fs, &o.manifests)
	fs.StringVar(&o.state, "state", "", "state directory (`DIR`): signing keys and the Consumption store")
	required(fs, "manifests", "state")
	fs.StringVar(&o.listen, "listen", "127.0.0.1:8080", "listen address (`ADDR`); plain HTTP only on loopback")
	fs.StringVar(&o.tokens, "tokens", "", "token `FILE` {tokens: [{token, name, groups}]} (default STATE/tokens.yaml)")
	fs.StringVar(&o.certFile, "tls-cert", "", "TLS certificate `FILE` (PEM); required on a non-loopback address")
	fs.StringVar(&o.keyFile, "tls-key", "", "TLS private key `FILE` (PEM)")
	fs.StringVar(&o.logFile, "decision-log", "-", "decision log: a `FILE`, or - for stdout")
	fs.BoolVar(&o.syncLog, "decision-log-sync", false, "write each decision-log line before responding (no loss, more latency)")
	auditLogFlags(fs, &o.auditLog, &o.auditKey, "tamper-evident decision log directory (`DIR`), or off (default STATE/audit)")
	pprofFlag(fs, &o.pprof)
	fs.Var(o.storeFlag, "consumption-store", "where Consumptions and the identities they hold are recorded: bolt (STATE/consumptions.db, one process) or etcd (shared by every replica on the same --etcd-prefix)")
	o.etcd.register(fs)
	return &o
}

// auditLogFlags declares --audit-log (with its help, which says serve's
// and the manager's defaults) and --audit-key.
func auditLogFlags(fs *pflag.FlagSet, log, key *string, logUsage string) {
	fs.StringVar(log, "audit-log", "", logUsage)
	fs.StringVar(key, "audit-key", "", "the audit log's checkpoint signing key `FILE`, created when absent (default AUDIT-LOG.key)")
}

// checked checks serve's flags and fills in the defaults that depend on
// others.
func (po serveOptions) checked(rest []string) (serveOptions, error) {
	o := po
	o.store, o.storeFlag = po.storeFlag.value, nil
	if len(rest) != 0 {
		return o, usageError{"serve takes flags only"}
	}
	host, _, err := net.SplitHostPort(o.listen)
	if err != nil {
		return o, usageError{"--listen is host:port"}
	}
	if err := checkPprofListen(o.pprof); err != nil {
		return o, err
	}
	if err := o.etcd.checkFor(o.store); err != nil {
		return o, err
	}
	o.loopback = isLoopback(host)
	if !o.loopback && (o.certFile == "" || o.keyFile == "") {
		return o, errors.New("refusing plain HTTP on a non-loopback address: give --tls-cert and --tls-key")
	}
	if o.tokens == "" {
		o.tokens = filepath.Join(o.state, "tokens.yaml")
	}
	if o.auditLog == "" {
		o.auditLog = filepath.Join(o.state, "audit")
	}
	o.auditKey = auditKeyPath(o.auditLog, o.auditKey)
	return o, nil
}

// auditKeyPath is the audit key's path: key when given, else beside the
// log directory (DIR.key), none when the log is off.
func auditKeyPath(dir, key string) string {
	switch {
	case dir == "" || dir == "off":
		return ""
	case key != "":
		return key
	}
	return filepath.Clean(dir) + ".key"
}

// standaloneService is the built service and what it must close.
type standaloneService struct {
	srv     *server.Server
	set     serving.StaticDomains
	domains int
	// auditVerifier is the verifier key of the audit log's checkpoints, ""
	// without one.
	auditVerifier string
	store         consume.Store
	closers       []func() // in reverse order of opening
}

// reload loads the manifest directory again and serves its domains: new
// generations, new Revocations. A failed load changes nothing.
func (s *standaloneService) reload(o serveOptions) (int, error) {
	domains, err := standalone.Load(filepath.Join(o.state, "keys"), o.manifests)
	if err != nil {
		return 0, err
	}
	if err := s.set.Replace(domains...); err != nil {
		return 0, err
	}
	return len(domains), nil
}

// reloadOn reloads on every signal from sig until ctx is done.
func (s *standaloneService) reloadOn(ctx context.Context, sig <-chan os.Signal, o serveOptions, logger *slog.Logger) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-sig:
			if n, err := s.reload(o); err != nil {
				logger.Error("reload refused: the domains in force stay", "error", err.Error())
			} else {
				logger.Info("reloaded", "domains", n)
			}
		}
	}
}

func (s *standaloneService) close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
}

// buildServe loads the domains, the tokens, the Consumption store and the
// decision log, and builds the service on them. On an error, everything
// opened so far is closed.
func buildServe(o serveOptions) (svc *standaloneService, err error) {
	svc = &standaloneService{}
	defer func() {
		if err != nil {
			svc.close()
			svc = nil
		}
	}()
	if svc.domains, err = svc.reload(o); err != nil {
		return svc, err
	}
	auth, err := server.LoadTokens(o.tokens)
	if err != nil {
		return svc, err
	}
	store, closers, err := openStore(o)
	if err != nil {
		return svc, err
	}
	svc.closers = append(svc.closers, closers...)
	svc.store = store
	logOut := io.Writer(os.Stdout)
	if o.logFile != "-" {
		f, err := os.OpenFile(o.logFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return svc, err
		}
		svc.closers = append(svc.closers, func() { _ = f.Close() })
		logOut = f
	}
	if o.auditKey != "" {
		alog, vkey, err := openAudit(o.auditLog, o.auditKey)
		if err != nil {
			return svc, err
		}
		svc.closers = append(svc.closers, func() { _ = alog.Close() })
		svc.auditVerifier = vkey
		logOut = io.MultiWriter(alog, logOut)
	}
	decisions := server.NewDecisionLog(logOut, 4096, o.syncLog)
	svc.closers = append(svc.closers, decisions.Close)
	svc.srv, err = server.New(server.Config{Domains: &svc.set, Auth: auth, Store: store, Log: decisions})
	return svc, err
}

// run serves until ctx is done: TLS when a certificate is given (always off
// loopback), plain HTTP on loopback otherwise.
func (s *standaloneService) run(ctx context.Context, o serveOptions, logger *slog.Logger) error {
	var tlsConfig *tls.Config
	if !o.loopback || o.certFile != "" {
		cert, err := tls.LoadX509KeyPair(o.certFile, o.keyFile)
		if err != nil {
			return err
		}
		tlsConfig = &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}
	}
	hs := newHTTPServer(s.srv.Handler(), tlsConfig, slog.NewLogLogger(logger.Handler(), slog.LevelWarn))
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return err
	}
	pprofAddr, err := startPprof(ctx, o.pprof)
	if err != nil {
		_ = ln.Close()
		return err
	}
	if pprofAddr != nil {
		logger.Info("serving pprof", "address", pprofAddr.String())
	}
	logger.Info("serving", "address", ln.Addr().String(), "domains", s.domains, "tls", tlsConfig != nil, "consumptionStore", o.store)
	go func() { // serving does not wait for the answer
		if err := storeReady(ctx, s.store); err != nil && ctx.Err() == nil {
			logger.Warn("the Consumption store does not answer: consume and authorize refuse (503 unavailable) until it does", "error", err.Error())
		}
	}()
	if s.auditVerifier != "" {
		logger.Info("audit log", "directory", o.auditLog, "verifierKey", s.auditVerifier)
	}
	context.AfterFunc(ctx, func() { logger.Info("shutting down") })
	return serveUntilDone(ctx, hs, ln)
}

// openAudit opens the tamper-evident decision log in dir with the key at
// keyPath (created when absent) and returns it with its verifier key.
func openAudit(dir, keyPath string) (*audit.Log, string, error) {
	key, err := audit.LoadOrCreateKey(keyPath)
	if err != nil {
		return nil, "", err
	}
	l, err := audit.Open(dir, key, audit.Options{})
	if err != nil {
		return nil, "", err
	}
	return l, key.VerifierKey(), nil
}

// isLoopback reports whether host names only loopback addresses.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
