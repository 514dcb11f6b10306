package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/consume/boltstore"
)

// TestLockedStateDirectoryNamesTheOtherToolgate: a second serve on a state
// directory whose Consumption store another process holds says so, instead
// of "store unavailable: open: timeout".
func TestLockedStateDirectoryNamesTheOtherToolgate(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	holder, err := boltstore.Open(filepath.Join(state, "consumptions"), boltstore.Options{SweepInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = holder.Close() })

	o, err := parseServe([]string{"--manifests", samples(t), "--state", state,
		"--tokens", filepath.Join(samples(t), "..", "..", "examples", "standalone", "tokens.yaml"), "--audit-log", "off"})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := buildServe(o)
	if svc != nil {
		t.Cleanup(svc.close)
	}
	if err == nil {
		t.Fatal("serve on a state directory another process holds succeeded")
	}
	if msg := userMessage(err); !strings.Contains(msg, "another toolgate holds this state directory") || strings.Contains(msg, "timeout") {
		t.Errorf("error %q does not say that another toolgate holds the state directory", msg)
	}
}
