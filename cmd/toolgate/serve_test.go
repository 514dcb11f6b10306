package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/consume/etcdstore"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestREADMEWalkthrough runs the README's curl walkthrough, as written,
// against `toolgate serve` on the shipped samples (the
// README's run command), and checks each step's answer.
func TestREADMEWalkthrough(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			testutil.SkipOrFailInCI(t, tool+" is not on PATH")
		}
	}
	root := testutil.RepoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "With `make run` in one terminal")
	if !ok {
		t.Fatal("the README has no walkthrough")
	}
	_, block, _ = strings.Cut(block, "```sh\n")
	script, _, _ := strings.Cut(block, "```")

	ctx, cancel := context.WithCancel(context.Background())
	var logs testutil.SyncBuffer
	done := make(chan error, 1)
	state := t.TempDir()
	go func() {
		done <- serveContext(ctx, []string{"--manifests", filepath.Join(root, "config", "samples"),
			"--state", state, "--tokens", filepath.Join(root, "examples", "standalone", "tokens.yaml"),
			"--listen", "127.0.0.1:0", "--decision-log", filepath.Join(state, "decisions.log")}, &logs)
	}()
	stop := sync.OnceValue(func() error { cancel(); return <-done })
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	addr := ""
	for deadline := time.Now().Add(20 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		sc := bufio.NewScanner(strings.NewReader(logs.String()))
		for sc.Scan() {
			var line struct{ Msg, Address string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "serving" {
				addr = line.Address
			}
		}
	}
	if addr == "" {
		t.Fatalf("the service did not start:\n%s", logs.String())
	}
	tmp := t.TempDir()
	script = strings.ReplaceAll(script, "localhost:8080", addr)
	script = strings.ReplaceAll(script, "/tmp/", tmp+"/")
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the walkthrough failed: %v\n%s", err, out)
	}
	got := string(out)
	for _, want := range []string{`"outcome":"allow"`, `"artifact":"`, `"outcome":"deny"`, `"provenanceInsufficient"`, `"consumed":true`, "HTTP 409"} {
		if !strings.Contains(got, want) {
			t.Errorf("the walkthrough's output lacks %s:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "HTTP 200"); n != 3 {
		t.Errorf("%d answers were 200, want 3 (authorize, authorize, consume):\n%s", n, got)
	}
	// Every request of the walkthrough is a record of the audit log, which
	// verifies with the verifier key written beside its signing key.
	if err := stop(); err != nil {
		t.Fatalf("serve: %v", err)
	}
	// The audit log holds what the decision log holds: no token, no
	// argument value.
	records, err := os.ReadFile(filepath.Join(state, "audit", "records"))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"dev-agent-runtime-token", "dev-payments-executor-token", "acct-1001", "acct-2002", "12500"} {
		if strings.Contains(string(records), secret) {
			t.Errorf("the audit log holds %q:\n%s", secret, records)
		}
	}
	// The README's audit commands, as written, on this run's state.
	_, block, ok = strings.Cut(string(readme), "Each of those requests is also a record")
	if !ok {
		t.Fatal("the README does not show the audit log")
	}
	_, block, _ = strings.Cut(block, "```sh\n")
	block, _, _ = strings.Cut(block, "```")
	var outputs strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		if strings.HasPrefix(line, "#") {
			continue // the output the README shows (hack/ship's TestDocCommandBlocks compares it)
		}
		line = strings.ReplaceAll(strings.ReplaceAll(line, "/tmp/", tmp+"/"), ".state/", state+"/")
		command, redirect, _ := strings.Cut(line, " > ")
		args, ok := strings.CutPrefix(command, "bin/toolgate ")
		if !ok {
			t.Fatalf("README audit line %q does not run bin/toolgate", line)
		}
		var stdout, stderr strings.Builder
		if code := run(strings.Fields(args), nil, &stdout, &stderr); code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", line, code, stdout.String(), stderr.String())
		}
		if redirect != "" {
			if err := os.WriteFile(strings.TrimSpace(redirect), []byte(stdout.String()), 0o600); err != nil {
				t.Fatal(err)
			}
			continue
		}
		outputs.WriteString(stdout.String())
	}
	for _, want := range []string{"4 records, 1 signed checkpoint (the last of size 4): intact", `verified: record seq 0 is in the log toolgate-audit signed at size 4:` + "\n" + `{"seq":0,`} {
		if !strings.Contains(outputs.String(), want) {
			t.Errorf("the README's audit commands say\n%s\nwant %q", outputs.String(), want)
		}
	}
}

// TestParseServe: --standalone is accepted but no longer required (serve
// has one mode); everything else serve needs is checked before anything is
// opened.
func TestParseServe(t *testing.T) {
	t.Parallel()
	base := []string{"--manifests", "m", "--state", "s"}
	tests := map[string]struct {
		args      []string
		wantUsage bool
		wantErr   bool
		want      serveOptions
	}{
		"without --standalone": {args: base, want: serveOptions{store: storeBolt, etcd: etcdFlags{prefix: etcdstore.DefaultPrefix}, manifests: "m", state: "s", listen: "127.0.0.1:8080",
			loopback: true, tokens: filepath.Join("s", "tokens.yaml"), logFile: "-", auditLog: filepath.Join("s", "audit"), auditKey: filepath.Join("s", "audit.key")}},
		"with --standalone, as before": {args: append([]string{"--standalone"}, base...), want: serveOptions{store: storeBolt, etcd: etcdFlags{prefix: etcdstore.DefaultPrefix}, manifests: "m", state: "s",
			listen: "127.0.0.1:8080", loopback: true, tokens: filepath.Join("s", "tokens.yaml"), logFile: "-", auditLog: filepath.Join("s", "audit"), auditKey: filepath.Join("s", "audit.key")}},
		"the audit log off": {args: append(base, "--audit-log", "off"), want: serveOptions{store: storeBolt, etcd: etcdFlags{prefix: etcdstore.DefaultPrefix}, manifests: "m", state: "s", listen: "127.0.0.1:8080",
			loopback: true, tokens: filepath.Join("s", "tokens.yaml"), logFile: "-", auditLog: "off"}},
		"the audit log elsewhere, its key beside it": {args: append(base, "--audit-log", "/var/log/tg/"), want: serveOptions{store: storeBolt, etcd: etcdFlags{prefix: etcdstore.DefaultPrefix}, manifests: "m", state: "s", listen: "127.0.0.1:8080",
			loopback: true, tokens: filepath.Join("s", "tokens.yaml"), logFile: "-", auditLog: "/var/log/tg/", auditKey: "/var/log/tg.key"}},
		"no state is a usage error":          {args: []string{"--manifests", "m"}, wantUsage: true},
		"a positional argument is refused":   {args: append(base, "extra"), wantUsage: true},
		"a listen address without a port":    {args: append(base, "--listen", "localhost"), wantUsage: true},
		"plain HTTP off loopback is refused": {args: append(base, "--listen", "0.0.0.0:8080"), wantErr: true},
		"the etcd store on a loopback endpoint without TLS": {args: append(base, "--audit-log", "off", "--consumption-store", "etcd", "--etcd-endpoints", "http://127.0.0.1:2379,localhost:2380", "--etcd-prefix", "/tg/prod/"),
			want: serveOptions{store: storeEtcd, etcd: etcdFlags{endpoints: "http://127.0.0.1:2379,localhost:2380", prefix: "/tg/prod/"}, manifests: "m", state: "s", listen: "127.0.0.1:8080", loopback: true, tokens: filepath.Join("s", "tokens.yaml"), logFile: "-", auditLog: "off"}},
		"the etcd store over TLS with a client certificate": {args: append(base, "--audit-log", "off", "--consumption-store", "etcd", "--etcd-endpoints", "https://etcd-0.example:2379", "--etcd-ca", "ca", "--etcd-cert", "c", "--etcd-key", "k"),
			want: serveOptions{store: storeEtcd, etcd: etcdFlags{endpoints: "https://etcd-0.example:2379", ca: "ca", cert: "c", key: "k", prefix: etcdstore.DefaultPrefix}, manifests: "m", state: "s", listen: "127.0.0.1:8080", loopback: true, tokens: filepath.Join("s", "tokens.yaml"), logFile: "-", auditLog: "off"}},
		"an unknown Consumption store is a usage error": {args: append(base, "--consumption-store", "redis"), wantUsage: true},
		"TLS off loopback with a certificate":           {args: append(base, "--listen", "0.0.0.0:8443", "--tls-cert", "c", "--tls-key", "k"), want: serveOptions{store: storeBolt, etcd: etcdFlags{prefix: etcdstore.DefaultPrefix}, manifests: "m", state: "s", listen: "0.0.0.0:8443", tokens: filepath.Join("s", "tokens.yaml"), certFile: "c", keyFile: "k", logFile: "-", auditLog: filepath.Join("s", "audit"), auditKey: filepath.Join("s", "audit.key")}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := parseServe(tc.args)
			if parsedAsWanted(t, err, tc.wantUsage, tc.wantErr) && got != tc.want {
				t.Errorf("options = %+v, want %+v", got, tc.want)
			}
		})
	}
}
