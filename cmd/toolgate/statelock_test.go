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

// TestEtcdStoreStillLocksTheStateDirectory: on the etcd store nothing
// locks the state directory's Consumption file, yet two replicas must not
// share one audit log or key-set copy: the second serve on one state
// directory is refused with the same message, and the first one's close
// frees it.
func TestEtcdStoreStillLocksTheStateDirectory(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	// etcdstore.Open does not dial, so no etcd is needed to build the
	// service.
	o, err := parseServe([]string{"--manifests", samples(t), "--state", state,
		"--tokens", filepath.Join(samples(t), "..", "..", "examples", "standalone", "tokens.yaml"), "--audit-log", "off",
		"--consumption-store", "etcd", "--etcd-endpoints", "127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	first, err := buildServe(o)
	if err != nil {
		t.Fatal(err)
	}
	second, err := buildServe(o)
	if second != nil {
		t.Cleanup(second.close)
	}
	if err == nil {
		first.close()
		t.Fatal("a second serve on the etcd store shared a state directory")
	}
	if msg := userMessage(err); !strings.Contains(msg, "another toolgate holds this state directory") {
		t.Errorf("error %q does not say that another toolgate holds the state directory", msg)
	}
	first.close()
	third, err := buildServe(o)
	if err != nil {
		t.Fatalf("the state directory stayed locked after the first serve closed: %v", err)
	}
	third.close()
}
