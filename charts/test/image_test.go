package charttest

import (
	"os"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
)

// image is toolgate's image; release tags it v + the file VERSION.
const image = "ghcr.io/toolgate/toolgate"

// TestManifestsPullTheReleaseImage: every container of toolgate's image that
// config/default, config/dev, config/mcp and the chart render pulls the tag
// v + VERSION, the tag make image gives the tarball it builds (hack/image's
// TestMakeImage), so make image, kind load and kubectl apply -k run the
// image just built; and the chart's version is VERSION.
func TestManifestsPullTheReleaseImage(t *testing.T) {
	raw, err := os.ReadFile("../../VERSION")
	if err != nil {
		t.Fatal(err)
	}
	release := strings.TrimSpace(string(raw))
	want := image + ":v" + release
	rendered := map[string]map[string]object{
		"config/default":  renderKustomize(t, "default"),
		"config/dev":      renderKustomize(t, "dev"),
		"config/mcp":      renderKustomize(t, "mcp"),
		"charts/toolgate": renderChart(t, nil),
	}
	for source, objs := range rendered {
		n := 0
		for key, o := range objs {
			for _, ref := range containerImages(o) {
				if ref != image && !strings.HasPrefix(ref, image+":") && !strings.HasPrefix(ref, image+"@") {
					continue
				}
				n++
				if ref != want {
					t.Errorf("%s: %s pulls %s, want %s", source, key, ref, want)
				}
			}
		}
		if n == 0 {
			t.Errorf("%s: no container runs %s", source, image)
		}
	}
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Metadata.Version != release {
		t.Errorf("Chart.yaml version %s, want VERSION's %s", ch.Metadata.Version, release)
	}
}

// containerImages lists the images of a workload's pod template.
func containerImages(o object) []string {
	spec, _ := o["spec"].(object)
	tmpl, _ := spec["template"].(object)
	pod, _ := tmpl["spec"].(object)
	var refs []string
	for _, field := range []string{"initContainers", "containers"} {
		cs, _ := pod[field].([]any)
		for _, c := range cs {
			if ref, ok := c.(object)["image"].(string); ok {
				refs = append(refs, ref)
			}
		}
	}
	return refs
}
