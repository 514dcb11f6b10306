package main

import (
	"fmt"
	"io"

	"github.com/toolgate/toolgate/internal/agentsafe"
)

// maxIntentInput bounds stdin; the canonical form is bounded far lower by
// agent-safe's own limits, which name the precise reason.
const maxIntentInput = 1 << 20

// intentDigest reads one JSON document on stdin and prints its
// agent-safe.intent/1 canonical JSON and sha256 digest, one per line.
func intentDigest(args []string, in io.Reader, out io.Writer) error {
	if len(args) != 0 {
		return usageError{"intent digest takes no arguments; it reads one JSON document on stdin"}
	}
	doc, err := io.ReadAll(io.LimitReader(in, maxIntentInput+1))
	if err != nil {
		return err
	}
	if len(doc) > maxIntentInput {
		return fmt.Errorf("intent digest: input larger than %d octets", maxIntentInput)
	}
	canonical, digest, err := agentsafe.CanonicalDigest(doc)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s\n%s\n", canonical, digest)
	return nil
}
