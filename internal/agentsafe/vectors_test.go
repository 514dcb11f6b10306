package agentsafe

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUpstreamVectors checks the seven published agent-safe.intent/1
// vectors of the reference (github.com/decionis/agent-safe-pipeline,
// conformance/agent-safe-intent-v1.json and conformance/vectors/*.json,
// Apache-2.0). They are not vendored into this tree; point
// AGENTSAFE_UPSTREAM_VECTORS at a directory holding those JSON files (all
// of them side by side) to run it. Each file has "binding", an optional
// "canonical_json" and "intent_hash".
func TestUpstreamVectors(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("AGENTSAFE_UPSTREAM_VECTORS")
	if dir == "" {
		t.Skip("AGENTSAFE_UPSTREAM_VECTORS not set: no directory of upstream agent-safe.intent/1 vectors")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 7 {
		t.Fatalf("found %d vector files in %s, want the 7 published ones", len(files), dir)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var vec struct {
				Binding       json.RawMessage `json:"binding"`
				CanonicalJSON *string         `json:"canonical_json"`
				IntentHash    string          `json:"intent_hash"`
			}
			if err := json.Unmarshal(raw, &vec); err != nil {
				t.Fatal(err)
			}
			// The binding's original text goes through our own parser.
			canon, digest, err := CanonicalDigest(vec.Binding)
			if err != nil {
				t.Fatalf("CanonicalDigest: %v", err)
			}
			if vec.CanonicalJSON != nil {
				if diff := cmp.Diff(*vec.CanonicalJSON, string(canon)); diff != "" {
					t.Errorf("canonical JSON (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(vec.IntentHash, digest); diff != "" {
				t.Errorf("digest (-want +got):\n%s", diff)
			}
		})
	}
}
