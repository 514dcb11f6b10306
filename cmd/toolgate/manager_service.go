package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmanager "sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/consume"
	"github.com/toolgate/toolgate/internal/consume/apistore"
	"github.com/toolgate/toolgate/internal/server"
	"github.com/toolgate/toolgate/internal/store"
)

// serviceOptions configure the in-cluster authorization service the
// manager runs on every replica.
type serviceOptions struct {
	addr        string    // "0" disables the service
	store       string    // apiserver or etcd
	namespace   string    // where Consumption objects live (apiserver store)
	etcd        etcdFlags // checked by managerOptions.checked
	tokenTTL    time.Duration
	decisionLog bool // write decision-log lines to stdout
	auditLog    string
	auditKey    string
}

// addService adds the authorization service to mgr: TLS from watcher,
// callers authenticated with TokenReview (audience toolgate), domains read
// from the replica's own store s, Consumptions in the chosen store. It
// serves on every replica (reads need no leader); the apiserver store's
// garbage collector runs on the leader only.
func addService(mgr ctrlmanager.Manager, s *store.Store, watcher *certwatcher.CertWatcher, o serviceOptions) error {
	if o.addr == "0" {
		return nil
	}
	cs, err := kubernetes.NewForConfig(mgr.GetConfig())
	if err != nil {
		return err
	}
	var cstore consume.Store
	switch o.store {
	case storeAPIServer:
		if o.namespace == "" {
			return errors.New("--consumption-namespace (or POD_NAMESPACE) names where Consumption objects live")
		}
		// An uncached client: the manager's would start informers on
		// Consumptions and IdentityClaims (every record in memory, and a
		// watch the RBAC role does not grant), and a cached read can miss
		// a claim another replica has just created.
		direct, err := client.New(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()})
		if err != nil {
			return err
		}
		cstore = apistore.New(direct, o.namespace, apistore.Options{})
		if err := mgr.Add(apistore.NewCollector(direct, o.namespace, apistore.CollectorOptions{})); err != nil {
			return err
		}
	case storeEtcd:
		es, err := o.etcd.open()
		if err != nil {
			return err
		}
		cstore = es
	default:
		return fmt.Errorf("--consumption-store is apiserver or etcd")
	}
	var sinks []io.Writer
	var alog *audit.Log
	if o.auditLog != "" {
		l, vkey, err := openAudit(o.auditLog, auditKeyPath(o.auditLog, o.auditKey))
		if err != nil {
			return err
		}
		alog = l
		sinks = append(sinks, l)
		mgr.GetLogger().Info("audit log", "directory", o.auditLog, "verifierKey", vkey)
	}
	if o.decisionLog {
		sinks = append(sinks, os.Stdout)
	}
	var logOut *server.DecisionLog
	if len(sinks) > 0 {
		logOut = server.NewDecisionLog(io.MultiWriter(sinks...), 8192, false)
	}
	srv, err := server.New(server.Config{
		Domains: s, Auth: server.NewTokenReview(cs.AuthenticationV1().TokenReviews(), o.tokenTTL),
		Store: cstore, Log: logOut,
	})
	if err != nil {
		return errors.Join(err, closeAudit(alog))
	}
	return mgr.Add(serviceRunnable{srv: srv, addr: o.addr, watcher: watcher, store: cstore, log: logOut, audit: alog})
}

// closeAudit closes the audit log, if any.
func closeAudit(l *audit.Log) error {
	if l == nil {
		return nil
	}
	return l.Close()
}

// serviceRunnable serves the API until the manager stops.
type serviceRunnable struct {
	srv     *server.Server
	addr    string
	watcher *certwatcher.CertWatcher
	store   consume.Store
	log     *server.DecisionLog
	audit   *audit.Log // closed after log, which writes into it
}

// NeedLeaderElection: every replica serves.
func (serviceRunnable) NeedLeaderElection() bool { return false }

func (r serviceRunnable) Start(ctx context.Context) error {
	ln, err := net.Listen("tcp", r.addr)
	if err != nil {
		return err
	}
	hs := newHTTPServer(r.srv.Handler(), &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: r.watcher.GetCertificate}, nil)
	err = serveUntilDone(ctx, hs, ln)
	r.log.Close()
	return errors.Join(err, closeAudit(r.audit), r.store.Close())
}
