package mcpimport

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestALongToolNameIsPackedIntoSegmentsAtWordBoundaries: a tool name
// longer than one 32-octet toolID segment imports under its words packed
// into segments in order (Sections 39 and 49), the choice printed for
// review; a word longer than a segment, or a toolID over 8 segments or 128
// octets, is refused.
func TestALongToolNameIsPackedIntoSegmentsAtWordBoundaries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, want string // want "" means refused
	}{
		{"manage_repository_notification_subscription", "files.manage-repository-notification.subscription"},
		{"list_org_repository_security_advisories", "files.list-org-repository-security.advisories"},
		{"short_name", "files.short-name"},
		{"a" + strings.Repeat("b", 32), ""},                                // one word over a segment
		{strings.Repeat("abcdefghijklmnopqrstuvwxyzabcdef_", 8) + "x", ""}, // over 8 segments
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			schema, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{}})
			r, err := Import([]Tool{{Name: tc.name, Description: "A tool.", InputSchema: schema}}, options())
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if len(r.Gateway.Tools) != 0 || len(r.Refusals) == 0 {
					t.Fatalf("imported as %v, want refused", r.Gateway.Tools)
				}
				return
			}
			if len(r.Gateway.Tools) != 1 || r.Gateway.Tools[0].ToolID != tc.want {
				t.Fatalf("mapped %v (refusals %v), want toolID %s", r.Gateway.Tools, r.Refusals, tc.want)
			}
			long := len(strings.ReplaceAll(tc.name, "_", "-")) > 32
			if printed := len(r.ToolIDs) == 1 && strings.Contains(r.ToolIDs[0].Reason, tc.want[len("files."):]); printed != long {
				t.Errorf("the choice printed: %v, want %v (%v)", printed, long, r.ToolIDs)
			}
		})
	}
}
