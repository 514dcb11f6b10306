package tokenfile_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/testutil"
	"github.com/toolgate/toolgate/internal/tokenfile"
)

const token = "tokenfile-test-token-0123456789"

// TestNewRejectsWithoutEchoingTheToken: a short, nameless or repeated
// token rejects, naming the entry's index and never the token.
func TestNewRejectsWithoutEchoingTheToken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		entries []tokenfile.Entry
		want    string
	}{
		{"a short token", []tokenfile.Entry{{Token: "short-secret", Name: "a"}}, "token entry 0: a token has at least 22 characters"},
		{"a nameless entry", []tokenfile.Entry{{Token: token}}, "token entry 0: a token names its caller"},
		{"a repeated token", []tokenfile.Entry{{Token: token, Name: "a"}, {Token: token, Name: "b"}}, "token entry 1: the token is listed twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := tokenfile.New(tt.entries)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("New: %v, want %q", err, tt.want)
			}
			for _, e := range tt.entries {
				if strings.Contains(err.Error(), e.Token) {
					t.Errorf("the error echoes a token")
				}
			}
		})
	}
}

// TestLookupFindsOnlyListedTokens: a listed token yields its caller, any
// other string nothing; the caller's groups are a copy.
func TestLookupFindsOnlyListedTokens(t *testing.T) {
	t.Parallel()
	tab, err := tokenfile.New([]tokenfile.Entry{{Token: token, Name: "alice", Groups: []string{"ops"}}})
	if err != nil {
		t.Fatal(err)
	}
	c, ok := tab.Lookup(token)
	if !ok || c.Name != "alice" || !cmp.Equal(c.Groups, []string{"ops"}) {
		t.Fatalf("Lookup = %+v, %v", c, ok)
	}
	c.Groups[0] = "changed"
	if c2, _ := tab.Lookup(token); c2.Groups[0] != "ops" {
		t.Error("a caller's groups are shared with the table")
	}
	if _, ok := tab.Lookup(token + "x"); ok {
		t.Error("an unlisted token was found")
	}
}

// TestLoadIsStrict: the example token file loads; an unknown key rejects.
func TestLoadIsStrict(t *testing.T) {
	t.Parallel()
	if _, err := tokenfile.Load(filepath.Join(testutil.RepoRoot(t), "examples", "standalone", "tokens.yaml")); err != nil {
		t.Fatalf("the example token file: %v", err)
	}
	p := filepath.Join(t.TempDir(), "tokens.yaml")
	if err := os.WriteFile(p, []byte("tokens:\n- token: "+token+"\n  name: a\n  role: admin\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := tokenfile.Load(p); err == nil || strings.Contains(err.Error(), token) {
		t.Fatalf("Load of a file with an unknown key: %v", err)
	}
}

func ExampleNew() {
	tab, err := tokenfile.New([]tokenfile.Entry{{Token: "example-token-0123456789abcdef", Name: "system:serviceaccount:payments:agent", Groups: []string{"agents"}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	c, ok := tab.Lookup("example-token-0123456789abcdef")
	fmt.Println(c.Name, c.Groups, ok)
	// Output: system:serviceaccount:payments:agent [agents] true
}
