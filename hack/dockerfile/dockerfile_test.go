package dockerfile

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseJoinsContinuationsAndNumbersStages(t *testing.T) {
	raw := "# syntax comment\nARG GO=1.26\n\nfrom golang AS build\nRUN go build \\\n  -o /out/x \\\n  .\n# a comment between\nFROM scratch\nCOPY --from=build /out/x /x\nentrypoint [\"/x\"]\n"
	got, err := Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	want := []Instruction{
		{Stage: -1, Keyword: "ARG", Args: "GO=1.26"},
		{Stage: 0, Keyword: "FROM", Args: "golang AS build"},
		{Stage: 0, Keyword: "RUN", Args: "go build  -o /out/x  ."}, // each line trimmed, the backslash replaced by a space
		{Stage: 1, Keyword: "FROM", Args: "scratch"},
		{Stage: 1, Keyword: "COPY", Args: "--from=build /out/x /x"},
		{Stage: 1, Keyword: "ENTRYPOINT", Args: `["/x"]`},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if n := Stages(got); n != 2 {
		t.Errorf("Stages = %d, want 2", n)
	}
	if n := Stages(nil); n != 0 {
		t.Errorf("Stages(nil) = %d, want 0", n)
	}
}
