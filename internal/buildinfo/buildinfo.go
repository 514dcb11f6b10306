// Package buildinfo holds the identity of the running build — version,
// commit and Go version — for `toolgate version`, `toolgate --help` and the
// toolgate_build_info metric of the service and the manager (docs/decisions.md,
// "Shipping: image, install, make test").
//
// The version and commit come from the build information the Go toolchain
// embeds (`go install …/cmd/toolgate@v1.2.3` stamps the module version, a
// build in a git checkout stamps vcs.revision); a release or image build
// overrides them with -ldflags, because a build from a tarball or a Docker
// context without .git carries neither:
//
//	-X github.com/toolgate/toolgate/internal/buildinfo.version=v1.2.3
//	-X github.com/toolgate/toolgate/internal/buildinfo.commit=<sha>
package buildinfo

import (
	"fmt"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
)

// Set at link time only (-ldflags -X); never written at run time.
var (
	version string
	commit  string
)

// Info is one build's identity.
type Info struct {
	Version   string // module version, "(devel)" for an unversioned build
	Commit    string // VCS revision, "" when unknown
	Modified  bool   // the working tree had uncommitted changes
	GoVersion string // toolchain that built the binary
}

// Read returns the running binary's Info.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	return from(bi, ok, version, commit)
}

// from merges the embedded build information with the link-time values,
// which win when set.
func from(bi *debug.BuildInfo, ok bool, ldVersion, ldCommit string) Info {
	in := Info{Version: "(devel)", GoVersion: "unknown"}
	if ok && bi != nil {
		if bi.Main.Version != "" {
			in.Version = bi.Main.Version
		}
		if bi.GoVersion != "" {
			in.GoVersion = bi.GoVersion
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				in.Commit = s.Value
			case "vcs.modified":
				in.Modified = s.Value == "true"
			}
		}
	}
	if ldVersion != "" {
		in.Version = ldVersion
	}
	if ldCommit != "" {
		in.Commit, in.Modified = ldCommit, false
	}
	return in
}

// String is the one-line form `toolgate version` prints:
// "toolgate v1.2.3 (0123456789ab, modified) go1.26.0".
func (in Info) String() string {
	s := "toolgate " + in.Version
	if c := in.short(); c != "" {
		s += " (" + c
		if in.Modified {
			s += ", modified"
		}
		s += ")"
	}
	return fmt.Sprintf("%s %s", s, in.GoVersion)
}

// short is the commit shortened to 12 characters, as git abbreviates.
func (in Info) short() string { return in.Commit[:min(len(in.Commit), 12)] }

// Collector is the toolgate_build_info gauge: always 1, its labels the
// build's identity, so a dashboard can show which build each replica runs.
func (in Info) Collector() prometheus.Collector {
	revision := in.short()
	if in.Modified && revision != "" {
		revision += "-modified"
	}
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "toolgate_build_info",
		Help: "Always 1; the labels name the running build (version, revision, goversion).",
		ConstLabels: prometheus.Labels{
			"version": in.Version, "revision": revision, "goversion": in.GoVersion,
		},
	}, func() float64 { return 1 })
}
