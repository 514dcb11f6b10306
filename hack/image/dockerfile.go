package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/toolgate/toolgate/hack/dockerfile"
)

// runtimeStage is what the image takes from the Dockerfile's last stage.
type runtimeStage struct {
	user       string
	entrypoint []string
	labels     map[string]string
	binaryPath string // destination of COPY --from=build
}

// readRuntimeStage reads USER, ENTRYPOINT (exec form), LABEL and the
// COPY --from destination of the Dockerfile's last stage, with ${ARG}
// references replaced from args. Anything else in that stage (RUN, ENV, a
// second COPY) is refused: this builder would silently drop it.
func readRuntimeStage(path string, args map[string]string) (runtimeStage, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return runtimeStage{}, err
	}
	ins, err := dockerfile.Parse(raw)
	if err != nil {
		return runtimeStage{}, err
	}
	last := dockerfile.Stages(ins) - 1
	var stage []dockerfile.Instruction // the last stage's
	for _, in := range ins {
		if in.Stage == last {
			stage = append(stage, in)
		}
	}
	expand := func(s string) string {
		return os.Expand(s, func(k string) string { return args[k] })
	}
	st := runtimeStage{labels: map[string]string{}}
	for _, in := range stage {
		kw, rest := in.Keyword, in.Args
		switch kw {
		case "FROM", "ARG":
		case "USER":
			st.user = expand(rest)
		case "ENTRYPOINT":
			if err := json.Unmarshal([]byte(rest), &st.entrypoint); err != nil {
				return runtimeStage{}, fmt.Errorf("%s: ENTRYPOINT is not the exec (JSON) form: %w", path, err)
			}
		case "LABEL":
			kv, err := labelPairs(rest)
			if err != nil {
				return runtimeStage{}, fmt.Errorf("%s: LABEL: %w", path, err)
			}
			for k, v := range kv {
				st.labels[k] = expand(v)
			}
		case "COPY":
			f := strings.Fields(rest)
			if len(f) != 3 || !strings.HasPrefix(f[0], "--from=") || st.binaryPath != "" {
				return runtimeStage{}, fmt.Errorf("%s: the runtime stage must copy exactly one file from the build stage (COPY --from=build SRC DST)", path)
			}
			st.binaryPath = f[2]
		default:
			return runtimeStage{}, fmt.Errorf("%s: the runtime stage has %s, which hack/image does not reproduce: teach it, or keep the stage to FROM, ARG, LABEL, COPY --from, USER, ENTRYPOINT", path, kw)
		}
	}
	if st.user == "" || len(st.entrypoint) == 0 || st.binaryPath == "" {
		return runtimeStage{}, fmt.Errorf("%s: the runtime stage needs USER, ENTRYPOINT and COPY --from", path)
	}
	return st, nil
}

// labelPairs splits LABEL's arguments: key=value pairs separated by spaces,
// a value either bare or double-quoted (with \" and \\ escapes).
func labelPairs(s string) (map[string]string, error) {
	out := map[string]string{}
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		k, rest, ok := strings.Cut(s, "=")
		if !ok || k == "" || strings.ContainsAny(k, " \t\"") {
			return nil, fmt.Errorf("want key=value pairs")
		}
		var v strings.Builder
		if strings.HasPrefix(rest, `"`) {
			i, closed := 1, false
			for ; i < len(rest); i++ {
				c := rest[i]
				if c == '\\' && i+1 < len(rest) {
					i++
					v.WriteByte(rest[i])
					continue
				}
				if c == '"' {
					closed = true
					break
				}
				v.WriteByte(c)
			}
			if !closed {
				return nil, fmt.Errorf("label %s: unterminated quote", k)
			}
			rest = rest[i+1:]
		} else {
			end := strings.IndexAny(rest, " \t")
			if end < 0 {
				end = len(rest)
			}
			v.WriteString(rest[:end])
			rest = rest[end:]
		}
		out[k] = v.String()
		s = rest
	}
	return out, nil
}
