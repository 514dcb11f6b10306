package main

import (
	"fmt"
	"io"

	"github.com/toolgate/toolgate/internal/buildinfo"
)

// version prints the build's version, commit and Go version: the build
// information the Go toolchain embeds, overridden by -ldflags in release
// and image builds (internal/buildinfo). -o json|yaml writes them as
// versionReport.
func version(of *outputFlags, args []string, out io.Writer) error {
	if len(args) != 0 {
		return usageError{"version takes no arguments"}
	}
	mode, _ := of.mode() // no --format: one flag, no conflict
	in := buildinfo.Read()
	if mode != formatText {
		return emit(out, mode, versionReport{Version: in.Version, Commit: in.Commit, Modified: in.Modified, GoVersion: in.GoVersion})
	}
	_, err := fmt.Fprintln(out, in)
	return err
}

// versionReport is version's -o json|yaml document.
type versionReport struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"goVersion"`
}
