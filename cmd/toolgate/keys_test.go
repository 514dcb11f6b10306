package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/standalone"
)

// TestKeysRotateAndListStandalone: `keys rotate --state` makes a new active
// key and keeps the old one verify-only with its retire time; `keys list`
// shows both and no seed; `keys revoke --state` appends the revocation to
// the ledger once, and refuses a malformed key id without echoing it.
func TestKeysRotateAndListStandalone(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	samples := samplesDir(t)
	if _, err := standalone.Load(filepath.Join(state, "keys"), samples); err != nil { // what serve's first start does
		t.Fatal(err)
	}
	cli := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(args, strings.NewReader(""), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	code, before, stderr := cli("keys", "list", "--state", state, "payments/payments-host")
	if code != 0 || strings.Count(before, "active") != 1 || strings.Contains(before, "verify-only") {
		t.Fatalf("list before: %d %q %q", code, before, stderr)
	}
	if code, out, stderr := cli("keys", "rotate", "payments/payments-host", "--state", state, "--manifests", samples); code != 0 || !strings.Contains(out, "rotated payments/payments-host") {
		t.Fatalf("rotate: %d %q %q", code, out, stderr)
	}
	code, after, stderr := cli("keys", "list", "--state", state, "payments/payments-host")
	if code != 0 || strings.Count(after, "active") != 1 || strings.Count(after, "verify-only") != 1 {
		t.Fatalf("list after: %d %q %q", code, after, stderr)
	}
	oldID := strings.Fields(strings.Split(before, "\n")[1])[0]
	if !strings.Contains(after, oldID+"  verify-only  20") {
		t.Errorf("the old key %s is not listed verify-only with a retire time:\n%s", oldID, after)
	}
	raw, err := os.ReadFile(standalone.KeySetPath(filepath.Join(state, "keys"), "payments", "payments-host"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Keys []struct{ Seed []byte }
	}
	if err := json.Unmarshal(raw, &doc); err != nil || len(doc.Keys) != 2 {
		t.Fatalf("key-set file: %v", err)
	}
	for _, k := range doc.Keys {
		for _, enc := range []string{base64.StdEncoding.EncodeToString(k.Seed), base64.RawURLEncoding.EncodeToString(k.Seed)} {
			if strings.Contains(after, enc) {
				t.Error("keys list printed a seed")
			}
		}
	}
	for name, tc := range map[string]struct {
		args   []string
		code   int
		stderr string
	}{
		"rotation needs --manifests with --state": {[]string{"keys", "rotate", "--state", state, "payments/payments-host"}, 2, "both --state and --manifests"},
		"a HostAuthority is NAMESPACE/NAME":       {[]string{"keys", "list", "--state", state, "payments-host"}, 2, "NAMESPACE/NAME"},
		"an unknown domain":                       {[]string{"keys", "list", "--state", state, "payments/other"}, 1, "no key set"},
		"revoke needs a domain and a key":         {[]string{"keys", "revoke", "--state", state, "0123456789abcdef"}, 2, "NAMESPACE/NAME of a HostAuthority and a KEY-ID"},
		"revoke needs a reason":                   {[]string{"keys", "revoke", "--state", state, "payments/payments-host", "0123456789abcdef"}, 2, "spec.reason"},
		"revoke refuses a malformed key id":       {[]string{"keys", "revoke", "--state", state, "--reason", "r", "payments/payments-host", "NOT-A-KEY-ID"}, 2, "spec.signingKey.keyID: malformed"},
	} {
		if code, _, stderr := cli(tc.args...); code != tc.code || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("%s: %d %q", name, code, stderr)
		}
	}
	for range 2 {
		if code, out, stderr := cli("keys", "revoke", "--state", state, "--reason", "leaked", "payments/payments-host", oldID); code != 0 || !strings.Contains(out, "revoked key "+oldID) {
			t.Fatalf("revoke: %d %q %q", code, out, stderr)
		}
	}
	ledger, err := os.ReadFile(filepath.Join(state, standalone.LedgerFile))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"namespace":"payments","hostAuthority":"payments-host","kind":"signingKey","id":"` + oldID + `"}` + "\n"; string(ledger) != want {
		t.Errorf("ledger = %q, want the revocation once: %q", ledger, want)
	}
	if code, _, stderr := cli("keys", "revoke", "--state", state, "--reason", "r", "payments/payments-host", "NOT-A-KEY-ID"); code != 2 || strings.Contains(stderr, "NOT-A-KEY-ID") {
		t.Errorf("a malformed key id: %d, echoed in %q", code, stderr)
	}
}
