package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestLinkTimeValuesOverrideEmbeddedBuildInfo(t *testing.T) {
	embedded := &debug.BuildInfo{
		GoVersion: "go1.26.0",
		Main:      debug.Module{Path: "github.com/toolgate/toolgate", Version: "v0.1.0"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	tests := map[string]struct {
		bi                  *debug.BuildInfo
		ok                  bool
		ldVersion, ldCommit string
		want                Info
	}{
		"embedded build info names version, commit and Go version": {
			bi: embedded, ok: true,
			want: Info{Version: "v0.1.0", Commit: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", Modified: true, GoVersion: "go1.26.0"},
		},
		"ldflags version and commit win over build info": {
			bi: embedded, ok: true, ldVersion: "v9.9.9", ldCommit: "bbbb",
			want: Info{Version: "v9.9.9", Commit: "bbbb", GoVersion: "go1.26.0"},
		},
		"no build info is a devel build of unknown Go": {
			want: Info{Version: "(devel)", GoVersion: "unknown"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := from(tc.bi, tc.ok, tc.ldVersion, tc.ldCommit); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestStringShortensTheCommitAndMarksAModifiedTree(t *testing.T) {
	in := Info{Version: "v1.2.3", Commit: "0123456789abcdef0123", Modified: true, GoVersion: "go1.26.0"}
	if got, want := in.String(), "toolgate v1.2.3 (0123456789ab, modified) go1.26.0"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got, want := (Info{Version: "(devel)", GoVersion: "go1.26.0"}).String(), "toolgate (devel) go1.26.0"; got != want {
		t.Errorf("String() without commit = %q, want %q", got, want)
	}
}

func TestBuildInfoGaugeIsOneWithTheBuildAsLabels(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(Info{Version: "v1.2.3", Commit: "0123456789abcdef", GoVersion: "go1.26.0"}.Collector())
	want := `# HELP toolgate_build_info Always 1; the labels name the running build (version, revision, goversion).
# TYPE toolgate_build_info gauge
toolgate_build_info{goversion="go1.26.0",revision="0123456789ab",version="v1.2.3"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "toolgate_build_info"); err != nil {
		t.Error(err)
	}
}
