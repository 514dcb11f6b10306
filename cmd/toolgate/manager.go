package main

import (
	"cmp"
	"crypto/tls"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/controllers"
	"github.com/toolgate/toolgate/internal/store"
	tgwebhook "github.com/toolgate/toolgate/internal/webhook"
)

// manager runs the controller-runtime manager: the three reconcilers (every
// replica fills its own store; only the leader writes status) and the
// admission webhooks, serving TLS from --webhook-cert-dir (tls.crt, tls.key)
// through controller-runtime's certificate watcher, so a renewed certificate
// (cert-manager) is picked up without a restart.
func manager(args []string) error {
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	metricsAddr := fs.String("metrics-bind-address", ":8443", "address of the metrics endpoint (0 disables it)")
	metricsSecure := fs.Bool("metrics-secure", true, "serve metrics over HTTPS, only to callers the apiserver authenticates and authorizes for GET /metrics")
	probeAddr := fs.String("health-probe-bind-address", ":8081", "address of the health probes")
	leaderElect := fs.Bool("leader-elect", true, "elect a leader among replicas; only the leader writes status")
	leaderNS := fs.String("leader-election-namespace", "", "namespace of the leader-election Lease (default: the pod's namespace)")
	certDir := fs.String("webhook-cert-dir", "/tmp/k8s-webhook-server/serving-certs", "directory holding the webhook serving certificate tls.crt and tls.key")
	port := fs.Int("webhook-port", 9443, "port of the webhook server")
	keyNS := fs.String("key-namespace", cmp.Or(os.Getenv("POD_NAMESPACE"), controllers.DefaultKeyNamespace), "namespace of the domains' signing-key Secrets (only toolgate reads it)")
	var so serviceOptions
	fs.StringVar(&so.addr, "service-bind-address", ":8444", "address of the authorization service (TLS with the webhook's certificate; 0 disables it)")
	fs.StringVar(&so.store, "consumption-store", "apiserver", "where Consumptions are recorded: apiserver (Consumption objects) or etcd")
	fs.StringVar(&so.namespace, "consumption-namespace", os.Getenv("POD_NAMESPACE"), "namespace of the Consumption objects (apiserver store)")
	etcdEndpoints := fs.String("etcd-endpoints", "", "comma-separated etcd endpoints (etcd store)")
	fs.DurationVar(&so.tokenTTL, "token-cache-ttl", 10*time.Second, "how long a TokenReview answer is cached")
	fs.BoolVar(&so.decisionLog, "decision-log", true, "write one decision-log line per request to stdout")
	fs.StringVar(&so.auditLog, "audit-log", "", "tamper-evident decision log directory (default: none)")
	fs.StringVar(&so.auditKey, "audit-key", "", "the audit log's checkpoint signing key, created when absent (default AUDIT-LOG.key)")
	pprofAddr := fs.String("pprof-listen", "", pprofListenUsage)
	if rest, err := parseFlags(fs, args); err != nil {
		return err
	} else if len(rest) != 0 {
		return usageError{"manager takes no positional arguments"}
	}
	if err := checkPprofListen(*pprofAddr); err != nil {
		return err
	}
	ctrl.SetLogger(managerLogger(os.Stderr))

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return err
	}
	watcher, err := certwatcher.New(filepath.Join(*certDir, "tls.crt"), filepath.Join(*certDir, "tls.key"))
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme:                  scheme,
		Cache:                   controllers.CacheOptions(*keyNS),
		Metrics:                 metricsOptions(*metricsAddr, *metricsSecure),
		HealthProbeBindAddress:  *probeAddr,
		LeaderElection:          *leaderElect,
		LeaderElectionID:        "toolgate-manager.stk.toolgate.dev",
		LeaderElectionNamespace: *leaderNS,
		WebhookServer: webhook.NewServer(webhook.Options{
			Port:    *port,
			TLSOpts: []func(*tls.Config){func(c *tls.Config) { c.GetCertificate = watcher.GetCertificate; c.MinVersion = tls.VersionTLS12 }},
		}),
	})
	if err != nil {
		return err
	}
	if err := mgr.Add(watcher); err != nil {
		return err
	}
	ctx := ctrl.SetupSignalHandler()
	pprofListening, err := startPprof(ctx, *pprofAddr)
	if err != nil {
		return err
	}
	if pprofListening != nil {
		ctrl.Log.Info("serving pprof", "address", pprofListening.String())
	}
	s := store.New()
	if err := controllers.Setup(ctx, mgr, s, controllers.Options{KeyNamespace: *keyNS}); err != nil {
		return err
	}
	if err := tgwebhook.Setup(mgr, s); err != nil {
		return err
	}
	if *etcdEndpoints != "" {
		so.etcd = strings.Split(*etcdEndpoints, ",")
	}
	if err := addService(mgr, s, watcher, so); err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("readyz", mgr.GetWebhookServer().StartedChecker()); err != nil {
		return err
	}
	return mgr.Start(ctx)
}

// metricsOptions serves the metrics endpoint; when secure, over HTTPS with
// a self-signed certificate and Kubernetes TokenReview and
// SubjectAccessReview in front (config/rbac/metrics_reader_role.yaml grants
// a scraper access).
func metricsOptions(addr string, secure bool) metricsserver.Options {
	o := metricsserver.Options{BindAddress: addr, SecureServing: secure}
	if secure {
		o.FilterProvider = filters.WithAuthenticationAndAuthorization
	}
	return o
}
