package mcpgate

import (
	"net"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// The sidecar deployment (config/mcp: kustomization.yaml, sidecar.yaml,
// gateway-incluster.yaml) is wired by names and paths across three files
// and the samples' HostAuthority; these tests read them strictly and
// check each connection (docs/mcp.md).

var mcpConfigDir = filepath.Join("..", "..", "config", "mcp")

type sidecarDeployment struct {
	sa         corev1.ServiceAccount
	deploy     appsv1.Deployment
	svc        corev1.Service
	gateway    corev1.Container
	server     corev1.Container
	cfg        *Config
	configName string // the generated ConfigMap's name
	configKey  string // its key holding the gateway configuration
}

func readStrict(t *testing.T, doc []byte, into any) {
	t.Helper()
	if err := yaml.UnmarshalStrict(doc, into); err != nil {
		t.Fatalf("not a valid object (unknown field or wrong type): %v", err)
	}
}

func loadSidecar(t *testing.T) *sidecarDeployment {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(mcpConfigDir, "sidecar.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	d := &sidecarDeployment{}
	kinds := []string{}
	for _, doc := range strings.Split(string(raw), "\n---\n") {
		var meta struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, meta.Kind)
		switch meta.Kind {
		case "ServiceAccount":
			readStrict(t, []byte(doc), &d.sa)
		case "Deployment":
			readStrict(t, []byte(doc), &d.deploy)
		case "Service":
			readStrict(t, []byte(doc), &d.svc)
		default:
			t.Fatalf("sidecar.yaml holds an unexpected kind %q", meta.Kind)
		}
	}
	if !cmp.Equal(kinds, []string{"ServiceAccount", "Deployment", "Service"}) {
		t.Fatalf("sidecar.yaml holds %v, want a ServiceAccount, a Deployment and a Service", kinds)
	}
	for _, c := range d.deploy.Spec.Template.Spec.Containers {
		switch c.Name {
		case "gateway":
			d.gateway = c
		case "mcp-server":
			d.server = c
		}
	}
	if d.gateway.Name == "" || d.server.Name == "" {
		t.Fatal("the Pod needs a gateway container and an mcp-server container")
	}

	var kust struct {
		APIVersion         string   `json:"apiVersion"`
		Kind               string   `json:"kind"`
		Namespace          string   `json:"namespace"`
		Resources          []string `json:"resources"`
		ConfigMapGenerator []struct {
			Name  string   `json:"name"`
			Files []string `json:"files"`
		} `json:"configMapGenerator"`
	}
	raw, err = os.ReadFile(filepath.Join(mcpConfigDir, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	readStrict(t, raw, &kust)
	if !cmp.Equal(kust.Resources, []string{"sidecar.yaml"}) || len(kust.ConfigMapGenerator) != 1 || len(kust.ConfigMapGenerator[0].Files) != 1 {
		t.Fatalf("kustomization.yaml: resources %v, generators %v; want sidecar.yaml and one ConfigMap of one file", kust.Resources, kust.ConfigMapGenerator)
	}
	if kust.Namespace != d.deploy.Namespace {
		t.Errorf("kustomization namespace %q, the Deployment's %q", kust.Namespace, d.deploy.Namespace)
	}
	d.configName = kust.ConfigMapGenerator[0].Name
	key, src, ok := strings.Cut(kust.ConfigMapGenerator[0].Files[0], "=")
	if !ok {
		t.Fatal("the ConfigMap's file is KEY=FILE")
	}
	d.configKey = key
	raw, err = os.ReadFile(filepath.Join(mcpConfigDir, src))
	if err != nil {
		t.Fatal(err)
	}
	if d.cfg, err = ParseConfig(raw); err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return d
}

// arg returns the value of --name=VALUE in args.
func arg(t *testing.T, args []string, name string) string {
	t.Helper()
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v
		}
	}
	t.Fatalf("the gateway has no --%s", name)
	return ""
}

// mountOf returns the volume mounted at dir in c, and whether read-only.
func mountOf(c corev1.Container, dir string) (string, bool, bool) {
	for _, m := range c.VolumeMounts {
		if path.Clean(m.MountPath) == path.Clean(dir) {
			return m.Name, m.ReadOnly, true
		}
	}
	return "", false, false
}

func volume(d *sidecarDeployment, name string) *corev1.Volume {
	for i, v := range d.deploy.Spec.Template.Spec.Volumes {
		if v.Name == name {
			return &d.deploy.Spec.Template.Spec.Volumes[i]
		}
	}
	return nil
}

func TestTheSidecarWiring(t *testing.T) {
	d := loadSidecar(t)
	pod := d.deploy.Spec.Template.Spec
	args := d.gateway.Args

	t.Run("the gateway is the process toolgate mcp gateway", func(t *testing.T) {
		if len(args) < 2 || args[0] != "mcp" || args[1] != "gateway" {
			t.Errorf("gateway args %v, want mcp gateway …", args)
		}
	})

	t.Run("the Service reaches the gateway's MCP port and only it", func(t *testing.T) {
		_, port, err := net.SplitHostPort(arg(t, args, "listen"))
		if err != nil {
			t.Fatal(err)
		}
		var named *corev1.ContainerPort
		for i, p := range d.gateway.Ports {
			if p.Name == "mcp" {
				named = &d.gateway.Ports[i]
			}
		}
		if named == nil || port != strconv.Itoa(int(named.ContainerPort)) {
			t.Fatalf("--listen port %s, the container's mcp port %v", port, named)
		}
		if len(d.svc.Spec.Ports) != 1 || d.svc.Spec.Ports[0].TargetPort.String() != "mcp" {
			t.Errorf("the Service's ports %v, want one targeting the gateway's port mcp", d.svc.Spec.Ports)
		}
		for k, v := range d.svc.Spec.Selector {
			if d.deploy.Spec.Template.Labels[k] != v {
				t.Errorf("the Service selects %s=%s, which the Pod does not carry", k, v)
			}
		}
		if d.svc.Namespace != d.deploy.Namespace {
			t.Errorf("Service in %q, Deployment in %q", d.svc.Namespace, d.deploy.Namespace)
		}
	})

	t.Run("readiness is /readyz and liveness /healthz, on the port mcp", func(t *testing.T) {
		// /healthz answers from the start; /readyz only once the upstream's
		// definitions were compared, so no agent is routed to a gateway
		// that serves no tool yet.
		for _, p := range []struct {
			kind  string
			probe *corev1.Probe
			path  string
		}{{"readinessProbe", d.gateway.ReadinessProbe, "/readyz"}, {"livenessProbe", d.gateway.LivenessProbe, "/healthz"}} {
			if p.probe == nil || p.probe.HTTPGet == nil {
				t.Errorf("the gateway has no HTTP %s", p.kind)
				continue
			}
			if g := p.probe.HTTPGet; g.Path != p.path || g.Port.String() != "mcp" {
				t.Errorf("%s GET %s on port %s, want %s on mcp", p.kind, g.Path, g.Port.String(), p.path)
			}
		}
	})

	t.Run("the upstream is the MCP server on the Pod's shared loopback, which publishes no port", func(t *testing.T) {
		u, err := url.Parse(arg(t, args, "upstream-url"))
		if err != nil {
			t.Fatal(err)
		}
		if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
			t.Errorf("--upstream-url host %q is not a loopback address: the MCP server would be reachable past the gateway", u.Hostname())
		}
		if len(d.server.Ports) != 0 {
			t.Errorf("the mcp-server container publishes ports %v: only the gateway may reach it", d.server.Ports)
		}
	})

	t.Run("the gateway runs as the executor the HostAuthority of its configuration names", func(t *testing.T) {
		if pod.ServiceAccountName != d.sa.Name || d.sa.Namespace != d.deploy.Namespace {
			t.Fatalf("Pod ServiceAccount %q, the manifest's %s/%s", pod.ServiceAccountName, d.sa.Namespace, d.sa.Name)
		}
		if d.cfg.HostAuthority.Namespace != d.deploy.Namespace {
			t.Errorf("the configuration's HostAuthority is in %q, the gateway in %q", d.cfg.HostAuthority.Namespace, d.deploy.Namespace)
		}
		raw, err := os.ReadFile(filepath.Join("..", "..", "config", "samples", "stk_v1alpha1_hostauthority.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var ha struct {
			Metadata struct{ Name, Namespace string }
			Spec     struct {
				Executors []struct{ Kind, Name, Namespace string }
			}
		}
		if err := yaml.Unmarshal(raw, &ha); err != nil {
			t.Fatal(err)
		}
		if ha.Metadata.Namespace != d.cfg.HostAuthority.Namespace || ha.Metadata.Name != d.cfg.HostAuthority.Name {
			t.Fatalf("the samples' HostAuthority is %s/%s, the configuration names %v", ha.Metadata.Namespace, ha.Metadata.Name, d.cfg.HostAuthority)
		}
		found := slices.ContainsFunc(ha.Spec.Executors, func(e struct{ Kind, Name, Namespace string }) bool {
			return e.Kind == "ServiceAccount" && e.Name == d.sa.Name && (e.Namespace == "" || e.Namespace == d.sa.Namespace)
		})
		if !found {
			t.Errorf("ServiceAccount %s is not an executor of HostAuthority %s/%s", d.sa.Name, ha.Metadata.Namespace, ha.Metadata.Name)
		}
	})

	t.Run("the token file is a projected token for the audience toolgate, and no other token is mounted", func(t *testing.T) {
		if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
			t.Error("automountServiceAccountToken must be false: the Kubernetes API token is not the gateway's to hold")
		}
		name, ro, ok := mountOf(d.gateway, path.Dir(d.cfg.Toolgate.TokenFile))
		if !ok || !ro {
			t.Fatalf("tokenFile %s's directory is not a read-only mount of the gateway", d.cfg.Toolgate.TokenFile)
		}
		v := volume(d, name)
		if v == nil || v.Projected == nil || len(v.Projected.Sources) != 1 || v.Projected.Sources[0].ServiceAccountToken == nil {
			t.Fatalf("volume %s is not a projected ServiceAccount token", name)
		}
		tok := v.Projected.Sources[0].ServiceAccountToken
		if tok.Audience != "toolgate" || tok.Path != path.Base(d.cfg.Toolgate.TokenFile) {
			t.Errorf("projected token audience %q at %q, want toolgate at %q", tok.Audience, tok.Path, path.Base(d.cfg.Toolgate.TokenFile))
		}
		if _, _, mounted := mountOf(d.server, path.Dir(d.cfg.Toolgate.TokenFile)); mounted {
			t.Error("the MCP server must not see the executor's token")
		}
		for _, m := range d.server.VolumeMounts {
			if m.Name == name {
				t.Error("the MCP server mounts the executor's token volume")
			}
		}
	})

	t.Run("the configuration, CA and outcome log are mounted where the configuration says", func(t *testing.T) {
		config := arg(t, args, "config")
		name, ro, ok := mountOf(d.gateway, path.Dir(config))
		if !ok || !ro || volume(d, name) == nil || volume(d, name).ConfigMap == nil {
			t.Fatalf("--config %s is not in a read-only ConfigMap mount", config)
		}
		if cm := volume(d, name).ConfigMap.Name; cm != d.configName || path.Base(config) != d.configKey {
			t.Errorf("--config reads ConfigMap %s key %s; kustomization.yaml generates %s key %s", cm, path.Base(config), d.configName, d.configKey)
		}
		name, ro, ok = mountOf(d.gateway, path.Dir(d.cfg.Toolgate.CAFile))
		if !ok || !ro || volume(d, name) == nil || volume(d, name).ConfigMap == nil {
			t.Errorf("caFile %s is not in a read-only ConfigMap mount", d.cfg.Toolgate.CAFile)
		}
		if _, ro, ok = mountOf(d.gateway, path.Dir(d.cfg.OutcomeLog)); !ok || ro {
			t.Errorf("outcomeLog %s is not in a writable mount (the root file system is read-only)", d.cfg.OutcomeLog)
		}
	})

	t.Run("the in-cluster configuration reaches config/default's authorization Service over TLS", func(t *testing.T) {
		u, err := url.Parse(d.cfg.Toolgate.URL)
		if err != nil {
			t.Fatal(err)
		}
		// config/default: namePrefix toolgate-, namespace toolgate-system,
		// Service authz (config/manager/authz_service.yaml).
		if u.Scheme != "https" || u.Host != "toolgate-authz.toolgate-system.svc" {
			t.Errorf("toolgate.url %s, want https://toolgate-authz.toolgate-system.svc", d.cfg.Toolgate.URL)
		}
	})

	t.Run("the in-cluster mapping is the local one", func(t *testing.T) {
		local, err := LoadConfig(filepath.Join(mcpConfigDir, "gateway.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(local.Tools, d.cfg.Tools); diff != "" {
			t.Errorf("gateway-incluster.yaml's tools differ from gateway.yaml's (-local +in-cluster):\n%s", diff)
		}
		if local.HostAuthority != d.cfg.HostAuthority || local.MaxArgumentBytes != d.cfg.MaxArgumentBytes {
			t.Error("gateway-incluster.yaml's HostAuthority or argument bound differ from gateway.yaml's")
		}
	})
}
