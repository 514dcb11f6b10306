package main

import (
	"errors"
	"testing"

	"github.com/toolgate/toolgate/internal/consume/etcdstore"
)

// TestEtcdFlagRulesHoldForServeAndManager: serve and the manager check
// their --etcd-* flags by one set of rules (etcdflags.go) before anything
// starts — endpoints required, cert and key together, https needs a CA,
// no plaintext etcd off loopback, a prefix that is a key directory, and an
// --etcd-* flag without the etcd store refused instead of ignored — so one
// table runs through both parsers.
func TestEtcdFlagRulesHoldForServeAndManager(t *testing.T) {
	t.Parallel()
	etcd := []string{"--consumption-store", "etcd"}
	with := func(args ...string) []string { return append(append([]string{}, etcd...), args...) }
	tests := map[string]struct {
		args      []string
		wantUsage bool
		wantErr   bool
		want      etcdFlags
	}{
		"a loopback endpoint without TLS": {args: with("--etcd-endpoints", "http://127.0.0.1:2379,localhost:2380"),
			want: etcdFlags{endpoints: "http://127.0.0.1:2379,localhost:2380", prefix: etcdstore.DefaultPrefix}},
		"TLS with a client certificate and a prefix": {args: with("--etcd-endpoints=https://etcd-0.etcd:2379,https://etcd-1.etcd:2379", "--etcd-ca=ca.crt", "--etcd-cert=tls.crt", "--etcd-key=tls.key", "--etcd-prefix=/toolgate/consumptions/prod/"),
			want: etcdFlags{endpoints: "https://etcd-0.etcd:2379,https://etcd-1.etcd:2379", ca: "ca.crt", cert: "tls.crt", key: "tls.key", prefix: "/toolgate/consumptions/prod/"}},
		"TLS without a client certificate": {args: with("--etcd-endpoints", "https://etcd:2379", "--etcd-ca", "ca.crt"),
			want: etcdFlags{endpoints: "https://etcd:2379", ca: "ca.crt", prefix: etcdstore.DefaultPrefix}},
		"the etcd store without endpoints is a usage error":        {args: etcd, wantUsage: true},
		"an --etcd flag without the etcd store is a usage error":   {args: []string{"--etcd-endpoints", "https://etcd:2379", "--etcd-ca", "ca.crt"}, wantUsage: true},
		"an --etcd-prefix without the etcd store is a usage error": {args: []string{"--etcd-prefix", "/tg/prod/"}, wantUsage: true},
		"a client certificate without its key":                     {args: with("--etcd-endpoints", "https://e:2379", "--etcd-ca", "ca", "--etcd-cert", "c"), wantUsage: true},
		"a client key without its certificate":                     {args: with("--etcd-endpoints", "https://e:2379", "--etcd-ca", "ca", "--etcd-key", "k"), wantUsage: true},
		"an https endpoint without a CA":                           {args: with("--etcd-endpoints", "https://e:2379", "--etcd-cert", "c", "--etcd-key", "k"), wantUsage: true},
		"a prefix that is not a key directory":                     {args: with("--etcd-endpoints", "127.0.0.1:2379", "--etcd-prefix", "/tg/prod"), wantUsage: true},
		"a prefix with an empty segment":                           {args: with("--etcd-endpoints", "127.0.0.1:2379", "--etcd-prefix", "/tg//prod/"), wantUsage: true},
		"an endpoint with a path":                                  {args: with("--etcd-endpoints", "http://127.0.0.1:2379/v3"), wantUsage: true},
		"an endpoint without a port":                               {args: with("--etcd-endpoints", "https://etcd"), wantUsage: true},
		"plaintext etcd off loopback is refused":                   {args: with("--etcd-endpoints", "127.0.0.1:2379,etcd.toolgate-system.svc:2379"), wantErr: true},
		"plaintext http etcd off loopback is refused":              {args: with("--etcd-endpoints", "http://etcd:2379", "--etcd-ca", "ca.crt"), wantErr: true},
	}
	parsers := map[string]func(args []string) (etcdFlags, error){
		"serve": func(args []string) (etcdFlags, error) {
			o, err := parseServe(append([]string{"--manifests", "m", "--state", "s", "--audit-log", "off"}, args...))
			return o.etcd, err
		},
		"manager": func(args []string) (etcdFlags, error) {
			o, err := parseManager(args)
			return o.service.etcd, err
		},
	}
	for verb, parse := range parsers {
		for name, tc := range tests {
			t.Run(verb+"/"+name, func(t *testing.T) {
				t.Parallel()
				got, err := parse(tc.args)
				if parsedAsWanted(t, err, tc.wantUsage, tc.wantErr) && got != tc.want {
					t.Errorf("etcd flags %+v, want %+v", got, tc.want)
				}
			})
		}
	}
}

// parsedAsWanted checks a parser's error against a case that wants a usage
// error, a refusal (any other error) or success, and reports whether the
// parse succeeded as wanted, so the caller compares the options only then.
func parsedAsWanted(t *testing.T, err error, wantUsage, wantErr bool) bool {
	t.Helper()
	var usage usageError
	switch {
	case wantUsage:
		if !errors.As(err, &usage) {
			t.Errorf("err = %v, want a usage error", err)
		}
	case wantErr:
		if err == nil || errors.As(err, &usage) {
			t.Errorf("err = %v, want a refusal", err)
		}
	case err != nil:
		t.Errorf("err = %v", err)
	default:
		return true
	}
	return false
}
