// Package charttest keeps the Helm chart (charts/toolgate) and the kustomize
// configuration (config/) rendering the same Kubernetes objects
// (docs/decisions.md, "The Helm chart"). It is its own module so Helm's
// dependencies stay out of the product's go.mod; `make chart-check` runs it.
package charttest

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	yamlutil "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	k8syaml "sigs.k8s.io/yaml"
)

const (
	chartDir  = "../toolgate"
	configDir = "../../config"
	// The README's install command: `helm install toolgate charts/toolgate
	// -n toolgate-system`, which is config/default's prefix and namespace.
	release   = "toolgate"
	namespace = "toolgate-system"
)

// object is one rendered Kubernetes object as plain JSON-shaped data.
type object = map[string]any

// helmOnlyLabels are the labels the chart adds and kustomize does not: they
// say who manages the object and which chart version made it, nothing about
// what the object does.
var helmOnlyLabels = []string{
	"helm.sh/chart",
	"app.kubernetes.io/managed-by",
	"app.kubernetes.io/instance",
}

func TestChartRendersKustomize(t *testing.T) {
	tests := []struct {
		name string
		// values set on top of the chart's defaults
		values map[string]any
		// overlays whose objects, together, the chart must render
		overlays []string
		// kinds of the overlays' objects the chart does not render with these
		// values, and why
		skipKinds map[string]string
		// normalize drops what legitimately differs, from both sides
		normalize func(object)
	}{
		{
			name:     "default values render config/default without its Namespace",
			overlays: []string{"default"},
			skipKinds: map[string]string{
				"Namespace": "helm install --create-namespace owns the release namespace; namespace.create adds it",
			},
		},
		{
			name:     "namespace.create renders config/default's Namespace too",
			values:   map[string]any{"namespace": map[string]any{"create": true}},
			overlays: []string{"default"},
		},
		{
			name:     "metrics.serviceMonitor.enabled adds config/prometheus",
			values:   map[string]any{"metrics": map[string]any{"serviceMonitor": map[string]any{"enabled": true}}},
			overlays: []string{"default", "prometheus"},
			skipKinds: map[string]string{
				"Namespace": "as with the default values",
			},
		},
		{
			name:     "certificates.source=selfSigned renders config/dev and a generated serving certificate",
			values:   map[string]any{"certificates": map[string]any{"source": "selfSigned"}},
			overlays: []string{"dev"},
			skipKinds: map[string]string{
				"Namespace": "as with the default values",
				// config/dev leaves the serving certificate to whoever runs
				// the manager; the chart generates one (checked below).
				"Secret": "",
			},
			normalize: dropCABundles,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := renderChart(t, tt.values)
			want := map[string]object{}
			for _, o := range tt.overlays {
				maps.Copy(want, renderKustomize(t, o))
			}
			for k := range got {
				if _, skip := tt.skipKinds[kindOf(k)]; skip {
					// A skipped kind must still be absent from the overlay:
					// only objects the chart adds may be skipped here.
					if _, inWant := want[k]; inWant {
						t.Errorf("%s: skipped kind rendered by both", k)
					}
					delete(got, k)
				}
			}
			for k := range want {
				if _, skip := tt.skipKinds[kindOf(k)]; skip {
					delete(want, k)
				}
			}
			for _, objs := range []map[string]object{got, want} {
				for _, o := range objs {
					normalize(o)
					if tt.normalize != nil {
						tt.normalize(o)
					}
				}
			}
			compare(t, want, got)
		})
	}
}

// TestAnotherReleaseRenamesEveryReference renders release "tg" in namespace
// "tools" and expects config/default with every toolgate- name and the
// toolgate-system namespace renamed: a template that spells a name or the
// namespace instead of deriving it from the release fails here.
func TestAnotherReleaseRenamesEveryReference(t *testing.T) {
	got, err := renderRelease("tg", "tools", nil)
	if err != nil {
		t.Fatal(err)
	}
	// A name, or a reference after a "/" (inject-ca-from), never a webhook
	// path's "stk-toolgate-dev".
	prefix := regexp.MustCompile(`(^|/)toolgate-`)
	rename := func(s string) string {
		s = strings.ReplaceAll(s, "toolgate-system", "tools")
		return prefix.ReplaceAllString(s, "${1}tg-")
	}
	want := map[string]object{}
	for _, o := range renderKustomize(t, "default") {
		if o["kind"] == "Namespace" {
			continue
		}
		if o["kind"] != "CustomResourceDefinition" { // crds/ is not templated
			o = renameStrings(o, rename).(object)
		}
		md := o["metadata"].(object)
		key := fmt.Sprintf("%v/%v/%v", o["kind"], md["namespace"], md["name"])
		want[strings.Replace(key, "/<nil>/", "//", 1)] = o
	}
	for _, objs := range []map[string]object{got, want} {
		for _, o := range objs {
			normalize(o)
		}
	}
	compare(t, want, got)
}

// renameStrings applies f to every string value (not keys) of v.
func renameStrings(v any, f func(string) string) any {
	switch v := v.(type) {
	case string:
		return f(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = renameStrings(e, f)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = renameStrings(e, f)
		}
		return out
	default:
		return v
	}
}

// TestGrafanaDashboardIsConfigGrafanas checks the optional dashboard
// ConfigMap holds config/grafana's dashboard, which has no kustomization.
func TestGrafanaDashboardIsConfigGrafanas(t *testing.T) {
	got := renderChart(t, map[string]any{"metrics": map[string]any{"grafanaDashboard": map[string]any{"enabled": true}}})
	cm := got["ConfigMap/toolgate-system/toolgate-grafana-dashboard"]
	if cm == nil {
		t.Fatalf("no dashboard ConfigMap; rendered %v", slices.Sorted(maps.Keys(got)))
	}
	if l := cm["metadata"].(object)["labels"].(object)["grafana_dashboard"]; l != "1" {
		t.Errorf("label grafana_dashboard = %v, want \"1\" (the Grafana sidecar's default)", l)
	}
	var inChart, inConfig any
	text, _ := cm["data"].(object)["toolgate-dashboard.json"].(string)
	if err := json.Unmarshal([]byte(text), &inChart); err != nil {
		t.Fatalf("the ConfigMap's dashboard: %v", err)
	}
	raw, err := os.ReadFile(filepath.Join(configDir, "grafana", "toolgate-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &inConfig); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(inConfig, inChart); diff != "" {
		t.Errorf("dashboard differs from config/grafana (-config +chart):\n%s", diff)
	}
	if _, ok := renderChart(t, nil)["ConfigMap/toolgate-system/toolgate-grafana-dashboard"]; ok {
		t.Error("the dashboard ConfigMap is rendered by default")
	}
}

// TestSelfSignedCertificateCoversTheServices checks what the selfSigned
// comparison normalizes away: the Secret and the CA bundle.
func TestSelfSignedCertificateCoversTheServices(t *testing.T) {
	got := renderChart(t, map[string]any{"certificates": map[string]any{"source": "selfSigned"}})
	secret, ok := got["Secret/toolgate-system/toolgate-webhook-server-cert"]
	if !ok {
		t.Fatalf("no serving-certificate Secret; rendered %v", slices.Sorted(maps.Keys(got)))
	}
	data, _ := secret["data"].(object)
	for _, key := range []string{"ca.crt", "tls.crt", "tls.key"} {
		if s, _ := data[key].(string); s == "" {
			t.Errorf("Secret data %s is empty", key)
		}
	}
	verifyServingCert(t, data)
	for _, kind := range []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} {
		o := got[kind+"//toolgate-"+strings.ToLower(strings.TrimSuffix(kind, "WebhookConfiguration"))+"-webhook-configuration"]
		if o == nil {
			t.Fatalf("no %s", kind)
		}
		hooks, _ := o["webhooks"].([]any)
		if len(hooks) == 0 {
			t.Fatalf("%s has no webhooks", kind)
		}
		for _, h := range hooks {
			cc, _ := h.(object)["clientConfig"].(object)
			if cc["caBundle"] != data["ca.crt"] {
				t.Errorf("%s: a caBundle is not the Secret's ca.crt", kind)
			}
		}
	}
}

// verifyServingCert checks that tls.crt chains to ca.crt for every name the
// manager is reached by (the webhook Service and toolgate-authz) and that
// tls.key is its key.
func verifyServingCert(t *testing.T, data object) {
	t.Helper()
	pemOf := func(key string) []byte {
		b, err := base64.StdEncoding.DecodeString(data[key].(string))
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		return b
	}
	if _, err := tls.X509KeyPair(pemOf("tls.crt"), pemOf("tls.key")); err != nil {
		t.Fatalf("tls.crt and tls.key are not a pair: %v", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pemOf("ca.crt")) {
		t.Fatal("ca.crt holds no certificate")
	}
	block, _ := pem.Decode(pemOf("tls.crt"))
	if block == nil {
		t.Fatal("tls.crt is not PEM")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cert.PublicKey.(*ecdsa.PublicKey); !ok {
		t.Errorf("serving key is %T, want ECDSA as config/certmanager's", cert.PublicKey)
	}
	for _, name := range []string{
		"toolgate-webhook-service.toolgate-system.svc",
		"toolgate-authz.toolgate-system.svc",
		"toolgate-authz.toolgate-system.svc.cluster.local",
	} {
		if _, err := cert.Verify(x509.VerifyOptions{DNSName: name, Roots: roots}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestEtcdConsumptionStoreSetsTheManagerFlags: with the etcd store the
// manager gets the endpoints, the TLS files of the named Secret (mounted
// read-only where the flags point) and the prefix, so it passes the
// manager's own checks (https needs a CA, cert and key together).
func TestEtcdConsumptionStoreSetsTheManagerFlags(t *testing.T) {
	const endpoints = "https://etcd-0:2379,https://etcd-1:2379"
	tests := []struct {
		name     string
		etcd     map[string]any
		want     []string
		excluded []string
	}{
		{
			name: "a client certificate and a prefix",
			etcd: map[string]any{"endpoints": endpoints, "prefix": "/toolgate/consumptions/prod/", "tls": map[string]any{"secretName": "etcd-client"}},
			want: []string{"--consumption-store=etcd", "--etcd-endpoints=" + endpoints, "--etcd-ca=/etc/toolgate/etcd/ca.crt",
				"--etcd-cert=/etc/toolgate/etcd/tls.crt", "--etcd-key=/etc/toolgate/etcd/tls.key", "--etcd-prefix=/toolgate/consumptions/prod/"},
		},
		{
			name:     "server TLS only, the manager's default prefix",
			etcd:     map[string]any{"endpoints": endpoints, "tls": map[string]any{"secretName": "etcd-ca", "clientCertificate": false}},
			want:     []string{"--consumption-store=etcd", "--etcd-endpoints=" + endpoints, "--etcd-ca=/etc/toolgate/etcd/ca.crt"},
			excluded: []string{"--etcd-cert", "--etcd-key", "--etcd-prefix"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := renderChart(t, map[string]any{"consumptionStore": map[string]any{"type": "etcd", "etcd": tt.etcd}})
			args := managerArgs(t, got)
			for _, want := range tt.want {
				if !slices.Contains(args, want) {
					t.Errorf("manager args %q lack %q", args, want)
				}
			}
			for _, a := range args {
				for _, ex := range tt.excluded {
					if strings.HasPrefix(a, ex+"=") {
						t.Errorf("manager args hold %q", a)
					}
				}
			}
			secret := tt.etcd["tls"].(map[string]any)["secretName"]
			spec := got["Deployment/toolgate-system/toolgate-manager"]["spec"].(object)["template"].(object)["spec"].(object)
			var volume string
			for _, v := range spec["volumes"].([]any) {
				if s, ok := v.(object)["secret"].(object); ok && s["secretName"] == secret {
					volume = v.(object)["name"].(string)
				}
			}
			if volume == "" {
				t.Fatalf("no volume of the Secret %v", secret)
			}
			mounted := false
			for _, m := range spec["containers"].([]any)[0].(object)["volumeMounts"].([]any) {
				m := m.(object)
				if m["name"] == volume && m["mountPath"] == "/etc/toolgate/etcd" && m["readOnly"] == true {
					mounted = true
				}
			}
			if !mounted {
				t.Errorf("the Secret's volume %s is not mounted read-only at /etc/toolgate/etcd", volume)
			}
		})
	}
}

func TestInvalidValuesFailToRender(t *testing.T) {
	tests := []struct {
		name   string
		values map[string]any
		// a word of the error that names the offending value
		want string
	}{
		{"an unknown Consumption store", map[string]any{"consumptionStore": map[string]any{"type": "memory"}}, "/consumptionStore/type"},
		{"the etcd store without endpoints", map[string]any{"consumptionStore": map[string]any{"type": "etcd"}}, "consumptionStore.etcd.endpoints"},
		{"the etcd store without its TLS Secret", map[string]any{"consumptionStore": map[string]any{"type": "etcd", "etcd": map[string]any{"endpoints": "https://etcd:2379"}}}, "consumptionStore.etcd.tls.secretName"},
		{"an etcd prefix that is not a key directory", map[string]any{"consumptionStore": map[string]any{"type": "etcd", "etcd": map[string]any{"endpoints": "https://etcd:2379", "prefix": "/tg/prod", "tls": map[string]any{"secretName": "s"}}}}, "/consumptionStore/etcd/prefix"},
		{"an unknown certificate source", map[string]any{"certificates": map[string]any{"source": "none"}}, "/certificates/source"},
		// values.schema.json: a misspelt key must not be silently ignored
		{"a misspelt top-level key", map[string]any{"certificate": map[string]any{"source": "selfSigned"}}, "certificate"},
		{"a misspelt nested key", map[string]any{"metrics": map[string]any{"servicemonitor": map[string]any{"enabled": true}}}, "servicemonitor"},
		{"zero replicas", map[string]any{"replicaCount": 0}, "replicaCount"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := render(tt.values)
			if err == nil {
				t.Fatal("rendered without error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not name %s", err, tt.want)
			}
		})
	}
}

// compare reports each object only one side renders by its key, and each
// object both render differently with its own diff.
func compare(t *testing.T, kustomize, helm map[string]object) {
	t.Helper()
	for _, k := range slices.Sorted(maps.Keys(kustomize)) {
		h, ok := helm[k]
		if !ok {
			t.Errorf("%s: rendered by kustomize, not by the chart", k)
			continue
		}
		if diff := cmp.Diff(kustomize[k], h); diff != "" {
			t.Errorf("%s differs (-kustomize +chart):\n%s", k, diff)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(helm)) {
		if _, ok := kustomize[k]; !ok {
			t.Errorf("%s: rendered by the chart, not by kustomize", k)
		}
	}
	if len(kustomize) == 0 {
		t.Error("kustomize rendered no objects")
	}
}

// TestChartPassesHelmLint runs the checks of `helm lint --strict`.
func TestChartPassesHelmLint(t *testing.T) {
	linter := lint.AllWithKubeVersion(chartDir, nil, namespace, nil)
	for _, m := range linter.Messages {
		if m.Severity > support.InfoSev {
			t.Error(m)
		}
	}
}

func managerArgs(t *testing.T, objs map[string]object) []string {
	t.Helper()
	d := objs["Deployment/toolgate-system/toolgate-manager"]
	if d == nil {
		t.Fatal("no manager Deployment")
	}
	spec := d["spec"].(object)["template"].(object)["spec"].(object)
	c := spec["containers"].([]any)[0].(object)
	var args []string
	for _, a := range c["args"].([]any) {
		args = append(args, a.(string))
	}
	return args
}

// normalize drops the labels only Helm adds. Nothing else differs: the chart
// renders kustomize's names, namespaces, labels and specs.
func normalize(o object) {
	md, _ := o["metadata"].(object)
	labels, _ := md["labels"].(object)
	for _, l := range helmOnlyLabels {
		delete(labels, l)
	}
	// Helm does not template crds/, so its CRDs lack the part-of label
	// config/default adds to every object.
	if o["kind"] == "CustomResourceDefinition" {
		delete(labels, "app.kubernetes.io/part-of")
	}
	if len(labels) == 0 {
		delete(md, "labels")
	}
}

// dropCABundles removes the webhook CA bundles, which the selfSigned chart
// generates at install time and config/dev leaves to the operator.
func dropCABundles(o object) {
	hooks, _ := o["webhooks"].([]any)
	for _, h := range hooks {
		if cc, ok := h.(object)["clientConfig"].(object); ok {
			delete(cc, "caBundle")
		}
	}
}

func kindOf(key string) string { return strings.SplitN(key, "/", 2)[0] }

func renderChart(t *testing.T, values map[string]any) map[string]object {
	t.Helper()
	objs, err := render(values)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// render renders the chart's templates and CRDs as `helm install toolgate
// charts/toolgate -n toolgate-system` would.
func render(values map[string]any) (map[string]object, error) {
	return renderRelease(release, namespace, values)
}

// renderRelease renders as `helm install NAME charts/toolgate -n NS`.
func renderRelease(name, ns string, values map[string]any) (map[string]object, error) {
	ch, err := loader.Load(chartDir)
	if err != nil {
		return nil, err
	}
	vals, err := chartutil.ToRenderValues(ch, values, chartutil.ReleaseOptions{
		Name: name, Namespace: ns, Revision: 1, IsInstall: true,
	}, chartutil.DefaultCapabilities)
	if err != nil {
		return nil, err
	}
	files, err := engine.Render(ch, vals)
	if err != nil {
		return nil, err
	}
	out := map[string]object{}
	for name, text := range files {
		if strings.HasSuffix(name, "NOTES.txt") {
			continue
		}
		if err := addObjects(out, []byte(text), name); err != nil {
			return nil, err
		}
	}
	for _, f := range ch.CRDObjects() {
		if err := addObjects(out, f.File.Data, f.Filename); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func renderKustomize(t *testing.T, overlay string) map[string]object {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(filesys.MakeFsOnDisk(), filepath.Join(configDir, overlay))
	if err != nil {
		t.Fatalf("kustomize config/%s: %v", overlay, err)
	}
	y, err := m.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]object{}
	if err := addObjects(out, y, "config/"+overlay); err != nil {
		t.Fatal(err)
	}
	return out
}

// addObjects decodes a multi-document YAML stream into objects keyed by
// kind/namespace/name, refusing a key seen twice.
func addObjects(into map[string]object, stream []byte, source string) error {
	r := yamlutil.NewYAMLReader(bufio.NewReader(bytes.NewReader(stream)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", source, err)
		}
		var o object
		if err := k8syaml.Unmarshal(doc, &o); err != nil {
			return fmt.Errorf("%s: %w", source, err)
		}
		if len(o) == 0 {
			continue
		}
		md, _ := o["metadata"].(object)
		key := fmt.Sprintf("%v/%v/%v", o["kind"], md["namespace"], md["name"])
		key = strings.Replace(key, "/<nil>/", "//", 1)
		if _, dup := into[key]; dup {
			return fmt.Errorf("%s: %s rendered twice", source, key)
		}
		into[key] = o
	}
}
