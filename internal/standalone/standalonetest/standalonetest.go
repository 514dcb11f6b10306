// Package standalonetest starts the standalone authorization service for
// tests of the layers below it: the manifests of a directory loaded as
// toolgate serve loads them, the HTTP API over a Consumption store and a
// clock the test passes, and bearer tokens the test names. The stores'
// suites pass Service to consumetest.CheckTrickledConsume, which sits below
// the service and so cannot build it.
//
// It is for tests only: only _test.go files may import it (depguard rule
// no-testutil and internal/arch's TestTestOnlyPackagesReachNoBinary).
package standalonetest

import (
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/toolgate/toolgate/internal/consume"
	"github.com/toolgate/toolgate/internal/server"
	"github.com/toolgate/toolgate/internal/serving"
	"github.com/toolgate/toolgate/internal/standalone"
)

// Service returns a constructor of the API's handler serving the manifests
// at manifests with signing keys in keyDir: over store, reading now, each
// bearer token of tokens authenticating the identity it maps to. The
// rebuild cache is off, so every validate and consume rebuilds.
func Service(keyDir, manifests string) func(store consume.Store, now func() time.Time, tokens map[string]string) (http.Handler, error) {
	return func(store consume.Store, now func() time.Time, tokens map[string]string) (http.Handler, error) {
		domains, err := standalone.Load(keyDir, manifests)
		if err != nil {
			return nil, err
		}
		var set serving.StaticDomains
		if err := set.Replace(domains...); err != nil {
			return nil, err
		}
		entries := make([]server.TokenEntry, 0, len(tokens))
		for _, token := range slices.Sorted(maps.Keys(tokens)) {
			entries = append(entries, server.TokenEntry{Token: token, Name: tokens[token]})
		}
		auth, err := server.NewTokens(entries)
		if err != nil {
			return nil, err
		}
		srv, err := server.New(server.Config{Domains: &set, Auth: auth, Store: store, Clock: now, RebuildCacheEntries: -1})
		if err != nil {
			return nil, err
		}
		return srv.Handler(), nil
	}
}
