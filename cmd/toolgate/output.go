package main

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/manifest"
)

// Output for pipelines (docs/cli.md, "Machine-readable output"): -o text|json|yaml on the verbs
// that report, --format junit|github on test and validate. text is the
// verbs' own output; json and yaml carry the same facts in the documented
// shapes below (docs/cli.md, "Machine-readable output"), and yaml is the
// json document converted, so the two cannot differ.

const (
	formatText   = "text"
	formatJSON   = "json"
	formatYAML   = "yaml"
	formatJUnit  = "junit"
	formatGitHub = "github"
)

// choice is a flag value that accepts one of a closed set (which
// completes in the shell); its error names the set, never the rejected
// value.
type choice struct {
	allowed []string
	value   string
}

// newChoice is a choice of allowed with the default def ("" for none).
func newChoice(def string, allowed ...string) *choice { return &choice{allowed: allowed, value: def} }

func (c *choice) String() string { return c.value }
func (c *choice) Type() string   { return "string" }

func (c *choice) Set(s string) error {
	if !slices.Contains(c.allowed, s) {
		return fmt.Errorf("must be one of %s", strings.Join(c.allowed, ", "))
	}
	c.value = s
	return nil
}

// outputFlags are a reporting verb's -o and, for test and validate,
// --format.
type outputFlags struct {
	output, format *choice
}

// addOutputFlags declares --output (-o) on fs and, when ci, --format.
func addOutputFlags(fs *pflag.FlagSet, ci bool) *outputFlags {
	o := &outputFlags{output: newChoice(formatText, formatText, formatJSON, formatYAML)}
	fs.VarP(o.output, "output", "o", "output format")
	if ci {
		o.format = newChoice("", formatJUnit, formatGitHub)
		fs.Var(o.format, "format", "CI report instead of --output: junit (JUnit XML) or github (workflow annotations)")
	}
	return o
}

// outputOnlyFlags declares the flags of a verb whose only flag is -o.
func outputOnlyFlags(fs *pflag.FlagSet) *outputFlags { return addOutputFlags(fs, false) }

// ciOutputFlags declares the flags of a verb whose only flags are -o and
// --format.
func ciOutputFlags(fs *pflag.FlagSet) *outputFlags { return addOutputFlags(fs, true) }

// mode is the one format to write: --format when given, else --output.
func (o *outputFlags) mode() (string, error) {
	if o.format != nil && o.format.value != "" {
		if o.output.value != formatText {
			return "", usageError{"give --output or --format, not both"}
		}
		return o.format.value, nil
	}
	return o.output.value, nil
}

// emit writes v as JSON (indented, one document) or YAML.
func emit(out io.Writer, mode string, v any) error {
	j, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if mode == formatYAML {
		y, err := yaml.JSONToYAML(j)
		if err != nil {
			return err
		}
		_, err = out.Write(y)
		return err
	}
	_, err = fmt.Fprintf(out, "%s\n", j)
	return err
}

// finding is one problem in the machine-readable outputs: where (file,
// line, column when known; the object and the field path) and what (the
// closed reason code and the rule's message). It never holds a rejected
// value.
type finding struct {
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Kind    string `json:"kind,omitempty"`
	Object  string `json:"object,omitempty"` // namespace/name
	Path    string `json:"path,omitempty"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// reasonInvalid is the reason of a problem that carries no engine reason
// code (a file that does not parse, a missing reference).
const reasonInvalid = "invalid"

// findingsOf splits err, a rejection of one or more objects, into
// findings: one per fault with its file and line when the manifest set
// located it.
func findingsOf(err error) []finding {
	if err == nil {
		return nil
	}
	var multi interface{ Unwrap() []error }
	if p, ok := err.(problemsError); ok {
		multi = p
	}
	if multi != nil {
		var out []finding
		for _, e := range multi.Unwrap() {
			out = append(out, findingsOf(e)...)
		}
		return out
	}
	var le *manifest.LocatedError
	if errors.As(err, &le) {
		out := make([]finding, 0, len(le.Faults))
		for i, f := range le.Faults {
			out = append(out, finding{File: le.File, Line: le.Lines[i], Kind: le.Kind,
				Object: objName(le.Namespace, le.Name), Path: f.Path, Reason: f.Code.String(), Message: f.Rule})
		}
		return out
	}
	var oe *objectError
	if errors.As(err, &oe) {
		base := finding{Kind: oe.kind, Object: objName(oe.namespace, oe.name)}
		if fault.CodeOf(oe.err) == 0 {
			base.Reason, base.Message = reasonInvalid, userMessage(oe.err)
			return []finding{base}
		}
		var out []finding
		for _, f := range fault.All(oe.err) {
			x := base
			x.Path, x.Reason, x.Message = f.Path, f.Code.String(), f.Rule
			out = append(out, x)
		}
		return out
	}
	reason := reasonInvalid
	if c := fault.CodeOf(err); c != 0 {
		reason = c.String()
	}
	f := finding{Reason: reason, Message: userMessage(err)}
	// A file that does not load says where first: file[:line[:column]]: .
	if m := leadingLocation.FindStringSubmatch(f.Message); m != nil {
		f.File, f.Message = m[1], f.Message[len(m[0]):]
		f.Line, _ = strconv.Atoi(m[2])
		f.Column, _ = strconv.Atoi(m[3])
	}
	return []finding{f}
}

// leadingLocation is a path (it has a dot or a slash), then optionally a
// line and a column, then ": ".
var leadingLocation = regexp.MustCompile(`^([^\s:]*[./][^\s:]*)(?::(\d+)(?::(\d+))?)?: `)

// text is a finding as one line, file:line first as compilers write it.
func (f finding) text() string {
	var b strings.Builder
	if f.Kind != "" {
		fmt.Fprintf(&b, "%s %s: ", f.Kind, f.Object)
	}
	if f.Path != "" {
		fmt.Fprintf(&b, "%s: ", f.Path)
	}
	if f.Reason != reasonInvalid {
		fmt.Fprintf(&b, "%s: ", f.Reason)
	}
	b.WriteString(f.Message)
	return b.String()
}

// githubError writes one GitHub Actions workflow command
// (::error file=F,line=L,col=C::message), escaped as the runner expects.
func githubError(out io.Writer, file string, line, col int, title, msg string) {
	githubCommand(out, "error", file, line, col, title, msg)
}

// githubCommand writes the workflow command level (error, warning or
// notice) as githubError does.
func githubCommand(out io.Writer, level, file string, line, col int, title, msg string) {
	var props []string
	if file != "" {
		props = append(props, "file="+ghProperty(file))
		if line > 0 {
			props = append(props, fmt.Sprintf("line=%d", line))
		}
		if col > 0 {
			props = append(props, fmt.Sprintf("col=%d", col))
		}
	}
	if title != "" {
		props = append(props, "title="+ghProperty(title))
	}
	sep := ""
	if len(props) > 0 {
		sep = " "
	}
	fmt.Fprintf(out, "::%s%s%s::%s\n", level, sep, strings.Join(props, ","), ghData(msg))
}

func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// JUnit XML as Jenkins, GitLab and the GitHub test reporters read it.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitFailure `xml:"failure"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// add appends a case to the suite named suite, creating it in order.
func (j *junitSuites) add(suite string, c junitCase) {
	j.Tests++
	if c.Failure != nil {
		j.Failures++
	}
	i := slices.IndexFunc(j.Suites, func(s junitSuite) bool { return s.Name == suite })
	if i < 0 {
		j.Suites = append(j.Suites, junitSuite{Name: suite})
		i = len(j.Suites) - 1
	}
	s := &j.Suites[i]
	s.Tests++
	if c.Failure != nil {
		s.Failures++
	}
	s.Cases = append(s.Cases, c)
}

func (j *junitSuites) write(out io.Writer) error {
	b, err := xml.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "%s%s\n", xml.Header, b)
	return err
}
