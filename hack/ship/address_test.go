package ship_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/internal/testutil"
)

// TestClientDocsNameTheDeployedAuthzService: every in-cluster address the Go
// client's docs and examples show is the authorization Service that
// config/default deploys (its name prefix, namespace and port), so a user
// copying it reaches the service.
func TestClientDocsNameTheDeployedAuthzService(t *testing.T) {
	root := testutil.RepoRoot(t)
	var kust struct {
		Namespace  string `json:"namespace"`
		NamePrefix string `json:"namePrefix"`
	}
	readYAML(t, filepath.Join(root, "config", "default", "kustomization.yaml"), &kust)
	var svc struct {
		Metadata struct{ Name string } `json:"metadata"`
		Spec     struct {
			Ports []struct{ Port int } `json:"ports"`
		} `json:"spec"`
	}
	readYAML(t, filepath.Join(root, "config", "manager", "authz_service.yaml"), &svc)
	if len(svc.Spec.Ports) != 1 {
		t.Fatalf("config/manager/authz_service.yaml has %d ports, want 1", len(svc.Spec.Ports))
	}
	host := kust.NamePrefix + svc.Metadata.Name + "." + kust.Namespace + ".svc"
	port := svc.Spec.Ports[0].Port

	addr := regexp.MustCompile(`https://([a-z0-9.-]+\.svc)(?::([0-9]+))?`)
	found := 0
	for _, f := range []string{"client/client.go", "client/doc.go", "client/example_test.go", "docs/api.md"} {
		raw, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range addr.FindAllStringSubmatch(string(raw), -1) {
			found++
			p := 443
			if m[2] != "" {
				p, _ = strconv.Atoi(m[2])
			}
			if m[1] != host || p != port {
				t.Errorf("%s shows %s, but config/default deploys the authorization service at https://%s (port %d)", f, m[0], host, port)
			}
		}
	}
	if found == 0 {
		t.Error("the client's docs show no in-cluster address")
	}
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
