package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/mcpgate"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestMcpGatewayToolgateURLOverridesTheConfig: --toolgate-url replaces the
// configuration's toolgate.url, under the rule the file's value meets; a
// value it refuses is a usage error that does not echo it.
func TestMcpGatewayToolgateURLOverridesTheConfig(t *testing.T) {
	config := filepath.Join(testutil.RepoRoot(t), "config", "mcp", "gateway.yaml")
	file, err := mcpgate.LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	for flag, want := range map[string]string{
		"":                          file.Toolgate.URL,
		"http://127.0.0.1:18080":    "http://127.0.0.1:18080",
		"https://toolgate.example/": "https://toolgate.example/",
	} {
		cfg, err := mcpGatewayConfig(mcpGatewayOptions{config: config, toolgateURL: flag})
		if err != nil {
			t.Fatalf("--toolgate-url %q: %v", flag, err)
		}
		if cfg.Toolgate.URL != want {
			t.Errorf("--toolgate-url %q: the gateway uses %q, want %q", flag, cfg.Toolgate.URL, want)
		}
	}
	for _, bad := range []string{"ftp://127.0.0.1:8080", "127.0.0.1:8080", "HTTP//x"} {
		r := runCLI("", "mcp", "gateway", "--config", config, "--upstream-url", "http://127.0.0.1:1/mcp", "--toolgate-url", bad)
		first, _, _ := strings.Cut(r.stderr, "\n")
		if r.code != 2 || first != "toolgate: invalid value for --toolgate-url: must be an http or https URL of the toolgate service" {
			t.Errorf("--toolgate-url %q: exit %d, %q; want a usage error (exit 2) naming the rule", bad, r.code, first)
		}
		if strings.Contains(r.stderr, bad) {
			t.Errorf("the refusal echoes the value: %q", r.stderr)
		}
	}
}
