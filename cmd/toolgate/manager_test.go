package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"

	"github.com/toolgate/toolgate/internal/consume/etcdstore"
)

// TestParseManager: the manager's Consumption-store flags are checked
// before anything starts (the --etcd-* rules themselves, shared with serve,
// are TestEtcdFlagRulesHoldForServeAndManager's).
func TestParseManager(t *testing.T) {
	t.Parallel()
	defaults := etcdFlags{prefix: etcdstore.DefaultPrefix}
	tests := map[string]struct {
		args      []string
		wantUsage bool
		wantErr   bool
		store     string
		etcd      etcdFlags
	}{
		"no flags: the apiserver store": {store: storeAPIServer, etcd: defaults},
		"the etcd store on a loopback endpoint without TLS": {args: []string{"--consumption-store", "etcd", "--etcd-endpoints", "http://127.0.0.1:2379,localhost:2380"},
			store: storeEtcd, etcd: etcdFlags{endpoints: "http://127.0.0.1:2379,localhost:2380", prefix: etcdstore.DefaultPrefix}},
		"the etcd store over TLS with a client certificate and a prefix": {
			args:  []string{"--consumption-store=etcd", "--etcd-endpoints=https://etcd-0.etcd:2379,https://etcd-1.etcd:2379", "--etcd-ca=ca.crt", "--etcd-cert=tls.crt", "--etcd-key=tls.key", "--etcd-prefix=/toolgate/consumptions/prod/"},
			store: storeEtcd, etcd: etcdFlags{endpoints: "https://etcd-0.etcd:2379,https://etcd-1.etcd:2379", ca: "ca.crt", cert: "tls.crt", key: "tls.key", prefix: "/toolgate/consumptions/prod/"}},
		"the etcd store over TLS without a client certificate": {args: []string{"--consumption-store", "etcd", "--etcd-endpoints", "https://etcd:2379", "--etcd-ca", "ca.crt"},
			store: storeEtcd, etcd: etcdFlags{endpoints: "https://etcd:2379", ca: "ca.crt", prefix: etcdstore.DefaultPrefix}},
		"an unknown Consumption store is a usage error": {args: []string{"--consumption-store", "bolt"}, wantUsage: true},
		"a positional argument is a usage error":        {args: []string{"etcd"}, wantUsage: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := parseManager(tc.args)
			if parsedAsWanted(t, err, tc.wantUsage, tc.wantErr) && (got.service.store != tc.store || got.service.etcd != tc.etcd) {
				t.Errorf("store %q, etcd %+v; want %q, %+v", got.service.store, got.service.etcd, tc.store, tc.etcd)
			}
		})
	}
}

// TestManagerAndServeDeclareTheSameEtcdFlags: the two verbs on the etcd
// store offer the same --etcd-* flags, with the same defaults and help.
func TestManagerAndServeDeclareTheSameEtcdFlags(t *testing.T) {
	t.Parallel()
	commands := verbCommands(t)
	etcdFlagsOf := func(name string) map[string][2]string {
		out := map[string][2]string{}
		commands[name].Flags().VisitAll(func(f *pflag.Flag) {
			if strings.HasPrefix(f.Name, "etcd-") {
				out[f.Name] = [2]string{f.DefValue, f.Usage}
			}
		})
		return out
	}
	manager, serve := etcdFlagsOf("manager"), etcdFlagsOf("serve")
	for _, name := range []string{"etcd-endpoints", "etcd-ca", "etcd-cert", "etcd-key", "etcd-prefix"} {
		if _, ok := manager[name]; !ok {
			t.Errorf("the manager has no --%s", name)
		}
	}
	if diff := cmp.Diff(serve, manager); diff != "" {
		t.Errorf("the --etcd-* flags differ (-serve +manager):\n%s", diff)
	}
}

// TestManagerRefusesUnreadableEtcdTLSFilesWithoutTheirContents: a CA,
// certificate or key that is not PEM stops the manager's etcd store from
// opening, with errEtcdTLS, which quotes none of the file's bytes.
func TestManagerRefusesUnreadableEtcdTLSFilesWithoutTheirContents(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const canary = "canary-secret-bytes-4712"
	junk := filepath.Join(dir, "junk.pem")
	if err := os.WriteFile(junk, []byte(canary), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := map[string][]string{
		"a CA that is not PEM":                          {"--etcd-ca", junk},
		"a client certificate and key that are not PEM": {"--etcd-ca", junk, "--etcd-cert", junk, "--etcd-key", junk},
		"a CA file that does not exist":                 {"--etcd-ca", filepath.Join(dir, "absent.pem")},
	}
	for name, tlsFlags := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o, err := parseManager(append([]string{"--consumption-store", "etcd", "--etcd-endpoints", "https://127.0.0.1:1"}, tlsFlags...))
			if err != nil {
				t.Fatal(err)
			}
			s, err := o.service.etcd.open()
			if s != nil {
				_ = s.Close()
			}
			if !errors.Is(err, errEtcdTLS) {
				t.Fatalf("err = %v, want errEtcdTLS", err)
			}
			if strings.Contains(userMessage(err), canary) {
				t.Errorf("the error quotes the file: %q", userMessage(err))
			}
		})
	}
}
