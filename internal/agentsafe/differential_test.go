package agentsafe

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testutil"
)

// jsCode maps our codes to what testdata/reference.js reports. Duplicate
// keys and invalid UTF-8 have no JS counterpart (JSON.parse and Node's
// decoder resolve them silently), so the generator never produces them.
var jsCode = map[Code]string{
	CodeSyntax:          "SYNTAX",
	CodeTrailingData:    "SYNTAX",
	CodeEmpty:           "SYNTAX",
	CodeForbiddenKey:    "UNSAFE_INTENT_KEY",
	CodeNonFiniteNumber: "INVALID_NUMBER",
	CodeTooDeep:         "INTENT_TOO_DEEP",
	CodeTooManyEntries:  "INTENT_TOO_COMPLEX",
	CodeArrayTooLong:    "INTENT_ARRAY_TOO_LARGE",
	CodeTooLarge:        "INTENT_TOO_LARGE",
}

const differentialRandomDocs = 1000

// TestNodeDifferential runs the reference algorithm in Node.js over
// generated documents and demands byte-identical canonical JSON and digests
// (or the same rejection) from this package.
func TestNodeDifferential(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		testutil.SkipOrFailInCI(t, "node not found on PATH: agent-safe differential test needs Node.js")
	}
	script, err := filepath.Abs(filepath.Join("testdata", "reference.js"))
	if err != nil {
		t.Fatal(err)
	}

	docs := edgeDocuments()
	g := newDocGen(20260916)
	for range differentialRandomDocs {
		docs = append(docs, g.document())
	}
	dir := t.TempDir()
	for i, d := range docs {
		name := filepath.Join(dir, fmt.Sprintf("doc-%05d.json", i))
		if err := os.WriteFile(name, []byte(d), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, dir, strconv.Itoa(len(docs)))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(docs) {
		t.Fatalf("node printed %d lines for %d documents", len(lines), len(docs))
	}

	accepted := 0
	for i, d := range docs {
		got := goLine(t, []byte(d))
		if got != lines[i] {
			t.Errorf("document %d differs from Node (-node +go):\n- %.300s\n+ %.300s\ndocument: %.300q", i, lines[i], got, d)
		}
		if strings.HasPrefix(got, "ok ") {
			accepted++
		}
	}
	t.Logf("%d documents compared with Node.js (%d accepted, %d rejected)", len(docs), accepted, len(docs)-accepted)
	if accepted < differentialRandomDocs {
		t.Errorf("only %d documents accepted: the generator produces too few valid documents", accepted)
	}
}

// goLine renders our result in reference.js's line format.
func goLine(t *testing.T, doc []byte) string {
	t.Helper()
	canon, digest, err := CanonicalDigest(doc)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error is %T, not *Error", err)
		}
		code, ok := jsCode[e.Code]
		if !ok {
			return "err go-only:" + e.Code.String()
		}
		return "err " + code
	}
	return "ok " + hex.EncodeToString(canon) + " " + digest
}
