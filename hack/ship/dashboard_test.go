package ship_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/testutil"
)

// metricSources are the files that define toolgate's metrics.
var metricSources = []string{"internal/server/metrics.go", "internal/server/shadow.go", "controllers/metrics.go", "internal/buildinfo/buildinfo.go"}

// exportedMetrics reads the toolgate_* metric names the binary defines
// (the Name of each collector's options) and adds the series a histogram
// exports beside its name.
func exportedMetrics(t *testing.T, root string) map[string]bool {
	t.Helper()
	name := regexp.MustCompile(`Name:\s+"(toolgate_[a-z0-9_]+)"`)
	histogram := regexp.MustCompile(`(?s)NewHistogram(?:Vec)?\(prometheus\.HistogramOpts\{\s*Name:\s+"(toolgate_[a-z0-9_]+)"`)
	got := map[string]bool{}
	for _, f := range metricSources {
		raw, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range name.FindAllStringSubmatch(string(raw), -1) {
			got[m[1]] = true
		}
		for _, m := range histogram.FindAllStringSubmatch(string(raw), -1) {
			for _, s := range []string{"_bucket", "_sum", "_count"} {
				got[m[1]+s] = true
			}
		}
	}
	return got
}

// TestDashboardQueriesOnlyExportedMetrics: every toolgate_* series the
// starter Grafana dashboard queries is one the service or the manager
// exports, and every panel queries at least one, so a renamed or removed
// metric cannot leave an empty panel behind.
func TestDashboardQueriesOnlyExportedMetrics(t *testing.T) {
	root := testutil.RepoRoot(t)
	exported := exportedMetrics(t, root)
	if len(exported) < 10 {
		t.Fatalf("found only %d metric names in %v: the source pattern no longer matches", len(exported), metricSources)
	}
	raw, err := os.ReadFile(filepath.Join(root, "config", "grafana", "toolgate-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("the dashboard is not JSON: %v", err)
	}
	if len(dash.Panels) == 0 {
		t.Fatal("the dashboard has no panels")
	}
	series := regexp.MustCompile(`\btoolgate_[a-z0-9_]+`)
	queried := map[string]bool{}
	for _, p := range dash.Panels {
		var names []string
		for _, tg := range p.Targets {
			names = append(names, series.FindAllString(tg.Expr, -1)...)
		}
		if len(names) == 0 {
			t.Errorf("panel %q queries no toolgate metric", p.Title)
		}
		for _, n := range names {
			queried[strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(n, "_bucket"), "_sum"), "_count")] = true
			if !exported[n] {
				t.Errorf("panel %q queries %s, which neither the service nor the manager exports", p.Title, n)
			}
		}
	}
	// Every metric the binary defines has a panel.
	for n := range exported {
		if strings.HasSuffix(n, "_bucket") || strings.HasSuffix(n, "_sum") || strings.HasSuffix(n, "_count") {
			continue
		}
		if !queried[n] {
			t.Errorf("no panel shows %s", n)
		}
	}
}
