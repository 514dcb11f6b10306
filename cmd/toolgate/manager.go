package main

import (
	"cmp"
	"crypto/tls"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"
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

// managerOptions are the manager's flags, checked.
type managerOptions struct {
	metricsAddr   string
	metricsSecure bool
	probeAddr     string
	leaderElect   bool
	leaderNS      string
	certDir       string
	port          int
	keyNS         string
	pprof         string
	service       serviceOptions
	storeFlag     *choice // --consumption-store, read into service.store by checked
}

// storeAPIServer is the manager's default Consumption store: Consumption
// objects.
const storeAPIServer = "apiserver"

// managerFlags declares the manager's flags.
func managerFlags(fs *pflag.FlagSet) *managerOptions {
	o := managerOptions{storeFlag: newChoice(storeAPIServer, storeAPIServer, storeEtcd)}
	fs.StringVar(&o.metricsAddr, "metrics-bind-address", ":8443", "address (`ADDR`) of the metrics endpoint (0 disables it)")
	fs.BoolVar(&o.metricsSecure, "metrics-secure", true, "serve metrics over HTTPS, only to callers the apiserver authenticates and authorizes for GET /metrics")
	fs.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "address (`ADDR`) of the health probes")
	fs.BoolVar(&o.leaderElect, "leader-elect", true, "elect a leader among replicas; only the leader writes status")
	fs.StringVar(&o.leaderNS, "leader-election-namespace", "", "namespace (`NS`) of the leader-election Lease (default: the pod's namespace)")
	fs.StringVar(&o.certDir, "webhook-cert-dir", "/tmp/k8s-webhook-server/serving-certs", "directory (`DIR`) holding the webhook serving certificate tls.crt and tls.key")
	fs.IntVar(&o.port, "webhook-port", 9443, "`PORT` of the webhook server")
	keyNamespaceFlag(fs, &o.keyNS, cmp.Or(os.Getenv("POD_NAMESPACE"), controllers.DefaultKeyNamespace))
	so := &o.service
	fs.StringVar(&so.addr, "service-bind-address", ":8444", "address (`ADDR`) of the authorization service (TLS with the webhook's certificate; 0 disables it)")
	fs.Var(o.storeFlag, "consumption-store", "where Consumptions are recorded: apiserver (Consumption objects) or etcd (shared by every replica on the same --etcd-prefix)")
	fs.StringVar(&so.namespace, "consumption-namespace", os.Getenv("POD_NAMESPACE"), "namespace (`NS`) of the Consumption objects (apiserver store)")
	so.etcd.register(fs)
	fs.DurationVar(&so.tokenTTL, "token-cache-ttl", 10*time.Second, "how long a TokenReview answer is cached")
	fs.BoolVar(&so.decisionLog, "decision-log", true, "write one decision-log line per request to stdout")
	auditLogFlags(fs, &so.auditLog, &so.auditKey, "tamper-evident decision log directory (`DIR`; default: none)")
	pprofFlag(fs, &o.pprof)
	return &o
}

// checked checks the manager's flags before anything
// starts: the --etcd-* flags with the rules serve applies (etcdflags.go).
func (po managerOptions) checked(rest []string) (managerOptions, error) {
	o := po
	so := &o.service
	so.store, o.storeFlag = po.storeFlag.value, nil
	if len(rest) != 0 {
		return o, usageError{"manager takes no positional arguments"}
	}
	if err := checkPprofListen(o.pprof); err != nil {
		return o, err
	}
	return o, so.etcd.checkFor(so.store)
}

// manager runs the controller-runtime manager: the three reconcilers (every
// replica fills its own store; only the leader writes status) and the
// admission webhooks, serving TLS from --webhook-cert-dir (tls.crt, tls.key)
// through controller-runtime's certificate watcher, so a renewed certificate
// (cert-manager) is picked up without a restart.
func manager(po managerOptions, args []string) error {
	o, err := po.checked(args)
	if err != nil {
		return err
	}
	ctrl.SetLogger(managerLogger(os.Stderr))
	ctrl.Log.Info("garbage collection", "settings", tuneGC(os.Getenv, cgroupMemoryMax).String())

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return err
	}
	watcher, err := certwatcher.New(filepath.Join(o.certDir, "tls.crt"), filepath.Join(o.certDir, "tls.key"))
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme:                  scheme,
		Cache:                   controllers.CacheOptions(o.keyNS),
		Metrics:                 metricsOptions(o.metricsAddr, o.metricsSecure),
		HealthProbeBindAddress:  o.probeAddr,
		LeaderElection:          o.leaderElect,
		LeaderElectionID:        "toolgate-manager.stk.toolgate.dev",
		LeaderElectionNamespace: o.leaderNS,
		WebhookServer: webhook.NewServer(webhook.Options{
			Port:    o.port,
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
	pprofListening, err := startPprof(ctx, o.pprof)
	if err != nil {
		return err
	}
	if pprofListening != nil {
		ctrl.Log.Info("serving pprof", "address", pprofListening.String())
	}
	s := store.New()
	if err := controllers.Setup(ctx, mgr, s, controllers.Options{KeyNamespace: o.keyNS}); err != nil {
		return err
	}
	if err := tgwebhook.Setup(mgr, s); err != nil {
		return err
	}
	if err := addService(mgr, s, watcher, o.service); err != nil {
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
