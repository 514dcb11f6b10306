package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnreadableEtcdTLSFilesRefuseServeWithoutTheirContentsAndFreeTheStateDirectory:
// a CA, certificate or key that is not PEM refuses serve with errEtcdTLS,
// which quotes none of the file's bytes, and the state directory's lock
// taken before is released, so a corrected command line starts.
func TestUnreadableEtcdTLSFilesRefuseServeWithoutTheirContentsAndFreeTheStateDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const canary = "canary-secret-bytes-4711"
	junk := filepath.Join(dir, "junk.pem")
	if err := os.WriteFile(junk, []byte(canary), 0o600); err != nil {
		t.Fatal(err)
	}
	tokens := filepath.Join(samples(t), "..", "..", "examples", "standalone", "tokens.yaml")
	tests := map[string][]string{
		"a CA that is not PEM":                          {"--etcd-ca", junk},
		"a client certificate and key that are not PEM": {"--etcd-ca", junk, "--etcd-cert", junk, "--etcd-key", junk},
		"a CA file that does not exist":                 {"--etcd-ca", filepath.Join(dir, "absent.pem")},
	}
	for name, tlsFlags := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			state := t.TempDir()
			args := append([]string{"--manifests", samples(t), "--state", state, "--tokens", tokens, "--audit-log", "off",
				"--consumption-store", "etcd", "--etcd-endpoints", "https://127.0.0.1:1"}, tlsFlags...)
			o, err := parseServe(args)
			if err != nil {
				t.Fatal(err)
			}
			svc, err := buildServe(o)
			if svc != nil {
				svc.close()
			}
			if !errors.Is(err, errEtcdTLS) {
				t.Fatalf("err = %v, want errEtcdTLS", err)
			}
			if msg := userMessage(err); strings.Contains(msg, canary) {
				t.Errorf("the error quotes the file: %q", msg)
			}
			plain, err := parseServe([]string{"--manifests", samples(t), "--state", state, "--tokens", tokens, "--audit-log", "off",
				"--consumption-store", "etcd", "--etcd-endpoints", "127.0.0.1:1"})
			if err != nil {
				t.Fatal(err)
			}
			svc, err = buildServe(plain)
			if err != nil {
				t.Fatalf("the refused start kept the state directory: %v", err)
			}
			svc.close()
		})
	}
}
