package manifest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/manifest"
)

const twoDocs = `# a leading comment
apiVersion: stk.toolgate.dev/v1alpha1
kind: HostAuthority
metadata: {name: h, namespace: ns}
spec:
  authorityID: h
  capabilities: [data.read]
  roles: []
  maxAuthorizationLifetimeSeconds: "300"
---
apiVersion: stk.toolgate.dev/v1alpha1
kind: ToolRegistry
metadata:
  name: r-1
  namespace: ns
spec:
  snapshotID: r
  snapshotGeneration: "1"
  definitions:
  - id: a
    toolID: a.b
  - id: b
    toolID: SECRET
    schema:
      root:
        kind: object
        fields:
        - name: SECRET-NAME
`

func TestLocateNamesTheLineOfEveryFault(t *testing.T) {
	t.Parallel()
	set, err := manifest.Parse("f.yaml", []byte(twoDocs))
	if err != nil {
		t.Fatal(err)
	}
	var l fault.Errors
	l.Add("", fault.At("spec.definitions[1].toolID", fault.Malformed, "r"))
	l.Add("", fault.At("spec.definitions[1].schema.root.fields[0].name", fault.Malformed, "r"))
	l.Add("", fault.At("spec.definitions[1].schema.root.fields[7]", fault.Missing, "r")) // beyond the YAML: the deepest node, fields
	l.Add("", fault.At("spec", fault.Missing, "r"))
	err = set.Locate("ToolRegistry", "ns", "r-1", l.Err())
	var le *manifest.LocatedError
	if !errors.As(err, &le) {
		t.Fatalf("Locate = %T, want *manifest.LocatedError", err)
	}
	if diff := cmp.Diff([]int{23, 28, 28, 17}, le.Lines); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if !errors.Is(err, fault.ErrMissing) || fault.CodeOf(err) != fault.Malformed {
		t.Error("errors.Is/As do not see the faults")
	}
	want := "f.yaml:23: ToolRegistry ns/r-1: engine: spec.definitions[1].toolID: malformed: r"
	if got := strings.Split(err.Error(), "\n")[0]; got != want {
		t.Errorf("first line = %q, want %q", got, want)
	}
	if strings.Contains(err.Error(), "SECRET") {
		t.Errorf("the located error echoes a value: %v", err)
	}
	if got := set.Locate("ToolRegistry", "ns", "other", l.Err()); errors.As(got, &le) {
		t.Errorf("an object not read by the set was located: %v", got)
	}
}
