package server_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/internal/server"
	"github.com/toolgate/toolgate/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite docs/openapi.yaml from the wire types")

// TestOpenAPIDocumentMatchesTheWireTypes: docs/openapi.yaml is exactly the
// document derived from package client's wire types (run with -update to
// rewrite it after changing them).
func TestOpenAPIDocumentMatchesTheWireTypes(t *testing.T) {
	got, err := server.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(testutil.RepoRoot(t), "docs", "openapi.yaml")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("docs/openapi.yaml differs from the wire types: go test ./internal/server -run OpenAPI -update")
	}
	for _, s := range []string{"/v1/authorize:", "/v1/consume:", "AuthorizeRequest:", "additionalProperties: false", "intentBinding:"} {
		if !bytes.Contains(got, []byte(s)) {
			t.Errorf("the OpenAPI document lacks %q", s)
		}
	}
}
