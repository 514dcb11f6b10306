// Package tokenfile is the one parser of toolgate's bearer-token files: a
// fixed table of tokens, each naming the caller it authenticates and its
// groups, as the standalone service and the MCP gateway read them
// (examples/standalone/tokens.yaml). Tokens are held only as SHA-256
// digests, and no error names a token.
package tokenfile

import (
	"crypto/sha256"
	"fmt"
	"os"
	"slices"

	"sigs.k8s.io/yaml"
)

// Entry maps one bearer token to the caller it authenticates.
type Entry struct {
	Token  string   `json:"token"`
	Name   string   `json:"name"`
	Groups []string `json:"groups,omitempty"`
}

// Caller is who a token authenticates.
type Caller struct {
	Name   string
	Groups []string
}

// MinTokenLen is the shortest token accepted: 128 bits of base64 or hex.
const MinTokenLen = 22

// Table is a parsed token file.
type Table struct {
	callers map[[sha256.Size]byte]Caller
}

// New builds the table; a short, empty or repeated token, or an entry
// without a name, rejects (the error names the entry's index, never the
// token).
func New(entries []Entry) (*Table, error) {
	t := &Table{callers: map[[sha256.Size]byte]Caller{}}
	for i, e := range entries {
		switch {
		case len(e.Token) < MinTokenLen:
			return nil, fmt.Errorf("token entry %d: a token has at least %d characters", i, MinTokenLen)
		case e.Name == "":
			return nil, fmt.Errorf("token entry %d: a token names its caller", i)
		}
		sum := sha256.Sum256([]byte(e.Token))
		if _, dup := t.callers[sum]; dup {
			return nil, fmt.Errorf("token entry %d: the token is listed twice", i)
		}
		t.callers[sum] = Caller{Name: e.Name, Groups: slices.Clone(e.Groups)}
	}
	return t, nil
}

// Load reads a token file: YAML or JSON {tokens: [{token, name, groups}]},
// strictly.
func Load(path string) (*Table, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f struct {
		Tokens []Entry `json:"tokens"`
	}
	if err := yaml.UnmarshalStrict(raw, &f); err != nil {
		return nil, fmt.Errorf("token file: not {tokens: [{token, name, groups}]}, or a key appears twice")
	}
	return New(f.Tokens)
}

// Lookup returns the caller token authenticates. The Groups slice is the
// caller's own copy.
func (t *Table) Lookup(token string) (Caller, bool) {
	c, ok := t.callers[sha256.Sum256([]byte(token))]
	if !ok {
		return Caller{}, false
	}
	return Caller{Name: c.Name, Groups: slices.Clone(c.Groups)}, true
}
