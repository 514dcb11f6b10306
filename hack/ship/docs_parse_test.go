package ship_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The doc test can only miss a block by misreading the page: every way a
// command block could escape it is an error, and output is told from
// comments by position.
func TestParseBlocksRefusesBlocksTheDocTestWouldMiss(t *testing.T) {
	for _, tc := range []struct {
		name, md, wantErr string
		want              []directive
	}{
		{name: "sh blocks with and without directives are read in order",
			md:   "```sh\na\n```\n<!-- run: with make run -->\n```sh\nb\n```\n\n<!-- run: after make run -->\n\n```sh\nc\n```\n<!-- not run: needs a cluster -->\n```sh\nd\n```\n",
			want: []directive{plain, withServer, afterServer, notRun}},
		{name: "yaml, go and untagged output blocks are not command blocks",
			md: "```yaml\nmake: x\n```\n```\ndecision d-1: allow\n```\n```go\ngo func(){}()\n```\n", want: nil},
		{name: "a bash block is refused", md: "```bash\nmake run\n```\n", wantErr: "tag it ```sh"},
		{name: "an untagged block starting with a command is refused", md: "```\nbin/toolgate decide\n```\n", wantErr: "untagged block that starts with a command"},
		{name: "a not run directive without a reason is refused", md: "<!-- not run: -->\n```sh\nx\n```\n", wantErr: "unknown directive"},
		{name: "an unknown run directive is refused", md: "<!-- run: twice -->\n```sh\nx\n```\n", wantErr: "unknown directive"},
		{name: "a directive before prose is refused", md: "<!-- not run: needs a cluster -->\nSome text.\n```sh\nx\n```\n", wantErr: "not directly before"},
		{name: "a directive before a yaml block is refused", md: "<!-- not run: needs a cluster -->\n```yaml\nx: 1\n```\n", wantErr: "not directly before"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			blocks, err := parseBlocks(tc.md)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []directive
			for _, b := range blocks {
				got = append(got, b.directive)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("directives (-want +got):\n%s", d)
			}
		})
	}
}

func TestSplitTellsShownOutputFromComments(t *testing.T) {
	b := block{lines: []string{
		"# a comment at the start",
		"cmd one  # a trailing comment is part of the command",
		"# out 1",
		"#",
		"# out 3",
		"",
		"# a comment after a blank line",
		"cmd two",
	}}
	script, shown := split(b)
	if d := cmp.Diff([]string{"out 1", "", "out 3"}, shown); d != "" {
		t.Errorf("shown (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"# a comment at the start", "cmd one  # a trailing comment is part of the command", "", "# a comment after a blank line", "cmd two"}, script); d != "" {
		t.Errorf("script (-want +got):\n%s", d)
	}
}

func TestShownOutputEllipsisMatchesWithinALine(t *testing.T) {
	for _, tc := range []struct {
		name        string
		shown, got  []string
		wantMatched bool
	}{
		{"equal lines match", []string{"a b"}, []string{"a b"}, true},
		{"… matches any text in a line", []string{`{"t":…,"x":1}`}, []string{`{"t":1796,"x":1}`}, true},
		{"… does not excuse the rest of the line", []string{`{"t":…,"x":1}`}, []string{`{"t":1796,"x":2}`}, false},
		{"… does not match a missing line", []string{"a", "…"}, []string{"a"}, false},
		{"regexp metacharacters are literal", []string{"a.c"}, []string{"abc"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := matchShown(tc.shown, tc.got); got != tc.wantMatched {
				t.Errorf("matchShown(%q, %q) = %v, want %v", tc.shown, tc.got, got, tc.wantMatched)
			}
		})
	}
}
