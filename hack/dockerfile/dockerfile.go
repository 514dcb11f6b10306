// Package dockerfile reads a Dockerfile's instructions as the repository's
// image tooling needs them: comments and blank lines dropped, backslash
// continuations joined, keywords upper-cased, each instruction numbered by
// its stage. It is the one reader of the Dockerfile for hack/image (which
// builds the image from the runtime stage) and hack/ship's tests (which hold
// the build context to the COPY set); it is not a complete Dockerfile
// parser (no heredocs, no escape directive), and a Dockerfile that needs one
// fails those tools' checks rather than being misread silently.
package dockerfile

import (
	"bufio"
	"bytes"
	"strings"
)

// Instruction is one instruction with its continuation lines joined.
type Instruction struct {
	Stage   int    // 0 for the first FROM's stage; -1 before any FROM (ARG)
	Keyword string // upper case: FROM, RUN, COPY, ...
	Args    string // the rest of the line, trimmed
}

// Parse returns the instructions of a Dockerfile in order.
func Parse(raw []byte) ([]Instruction, error) {
	var out []Instruction
	stage, cont := -1, ""
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if cont == "" && (line == "" || strings.HasPrefix(line, "#")) {
			continue
		}
		if s, ok := strings.CutSuffix(line, `\`); ok {
			cont += s + " "
			continue
		}
		line, cont = cont+line, ""
		kw, args, _ := strings.Cut(line, " ")
		kw = strings.ToUpper(kw)
		if kw == "FROM" {
			stage++
		}
		out = append(out, Instruction{Stage: stage, Keyword: kw, Args: strings.TrimSpace(args)})
	}
	return out, sc.Err()
}

// Stages is the number of stages (FROM instructions) in ins.
func Stages(ins []Instruction) int {
	if len(ins) == 0 {
		return 0
	}
	return ins[len(ins)-1].Stage + 1
}
