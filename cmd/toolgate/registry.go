package main

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/publication"
)

// registryValidate publishes every ToolRegistry found in the given paths
// with the engine's publication rules and prints one summary per snapshot.
func registryValidate(of *outputFlags, paths []string, out io.Writer) error {
	if err := needPaths("registry validate", paths, "file or directory"); err != nil {
		return err
	}
	mode, _ := of.mode() // no --format: one flag, no conflict
	snaps, _, err := loadRegistries(paths...)
	if mode != formatText {
		return writeRegistries(out, mode, snaps, err)
	}
	if err != nil {
		return err
	}
	for _, s := range snaps {
		if err := printSnapshot(out, s); err != nil {
			return err
		}
	}
	return nil
}

// loadRegistries publishes every ToolRegistry in paths and returns the
// snapshots and, index for index, the drafts they were published from.
func loadRegistries(paths ...string) ([]*host.RegistrySnapshot, []host.RegistryDraft, error) {
	set, err := manifest.LoadPaths(paths...)
	if err != nil {
		return nil, nil, err
	}
	if len(set.ToolRegistries) == 0 {
		return nil, nil, errors.New("no ToolRegistry objects found")
	}
	snaps := make([]*host.RegistrySnapshot, 0, len(set.ToolRegistries))
	drafts := make([]host.RegistryDraft, 0, len(set.ToolRegistries))
	for _, tr := range set.ToolRegistries {
		draft, s, err := publication.ToolRegistry(&tr)
		if err != nil {
			return nil, nil, located(set, objErr("ToolRegistry", &tr, err))
		}
		snaps, drafts = append(snaps, s), append(drafts, draft)
	}
	return snaps, drafts, nil
}

func printSnapshot(out io.Writer, s *host.RegistrySnapshot) error {
	fmt.Fprintf(out, "registry %s generation %s: valid, %s, digest %s\n",
		s.ID(), s.Generation(), plural(s.Len(), "definition", "definitions"), s.Digest())
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  TOOL\tVERSION\tDEFINITION\tLIFECYCLE\tRISK\tSCHEMA\tNODES")
	for i := range s.Len() {
		d := s.Definition(i)
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%d\n", d.ToolID(), d.Version(), d.ID(),
			d.Lifecycle(), d.Risk(), d.Schema().ID(), d.Schema().Nodes())
	}
	return tw.Flush()
}

// registryReport is registry validate's -o json|yaml document.
type registryReport struct {
	Valid      bool          `json:"valid"`
	Findings   []finding     `json:"findings"`
	Registries []registryOut `json:"registries"`
}

type registryOut struct {
	SnapshotID  string          `json:"snapshotID"`
	Generation  string          `json:"generation"`
	Digest      string          `json:"digest"`
	Definitions []definitionOut `json:"definitions"`
}

type definitionOut struct {
	ToolID    string `json:"toolID"`
	Version   string `json:"version"`
	ID        string `json:"id"`
	Lifecycle string `json:"lifecycle"`
	Risk      string `json:"risk"`
	Schema    string `json:"schema"`
	Nodes     int    `json:"nodes"`
}

// writeRegistries writes the published snapshots, or failed's findings,
// in mode and returns failed.
func writeRegistries(out io.Writer, mode string, snaps []*host.RegistrySnapshot, failed error) error {
	rep := registryReport{Valid: failed == nil, Findings: []finding{}, Registries: []registryOut{}}
	rep.Findings = append(rep.Findings, findingsOf(failed)...)
	for _, s := range snaps {
		r := registryOut{SnapshotID: s.ID().String(), Generation: s.Generation().String(), Digest: s.Digest().String(), Definitions: []definitionOut{}}
		for i := range s.Len() {
			d := s.Definition(i)
			r.Definitions = append(r.Definitions, definitionOut{ToolID: d.ToolID().String(), Version: d.Version().String(), ID: d.ID().String(),
				Lifecycle: d.Lifecycle().String(), Risk: d.Risk().String(), Schema: d.Schema().ID().String(), Nodes: d.Schema().Nodes()})
		}
		rep.Registries = append(rep.Registries, r)
	}
	if err := emit(out, mode, rep); err != nil {
		return err
	}
	return failed
}
