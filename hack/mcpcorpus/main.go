// Command mcpcorpus captures real MCP servers' tools/list answers into
// test/mcp/testdata/corpus, and those of the holdout, servers the corpus
// does not contain, into test/mcp/testdata/holdout (README.md in each
// lists them): each server
// started on this machine with dummy credentials and every base URL on
// loopback, spoken to over stdio with the official MCP Go SDK client, every
// page of tools/list recorded as the client received it. The npm servers
// are pinned by test/mcp/testdata/corpus/npm/package-lock.json and
// installed with `npm ci --ignore-scripts` into
// $XDG_CACHE_HOME/toolgate/npm/<lock digest> (hack/npmcache, as test/mcp
// installs its reference server); the GitHub MCP server, a Go program, is
// built from the module in ./github, pinned by its go.mod and go.sum.
//
//	go run ./hack/mcpcorpus                 # every server (make corpus)
//	go run ./hack/mcpcorpus -only memory,github
//	go run ./hack/mcpcorpus -set holdout    # the holdout (make holdout)
//
// Capturing is a developer step, not part of make test: the test in this
// package reads only the committed captures, imports each with
// `toolgate registry import`'s importer, and compares the per-server
// report with corpus-report.golden (holdout-report.golden; -update
// rewrites it and the README's table).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/hack/npmcache"
)

// corpusDir is the committed corpus, relative to the repository root;
// holdoutDir the holdout.
const (
	corpusDir  = "test/mcp/testdata/corpus"
	holdoutDir = "test/mcp/testdata/holdout"
)

// set is one captured set of servers: its directory (captures, npm/ and
// <name>-report.golden) and its servers in order.
type set struct {
	name, dir string
	servers   []server
}

var sets = []set{{"corpus", corpusDir, servers}, {"holdout", holdoutDir, holdout}}

// server is one captured MCP server.
type server struct {
	// name is the capture's file name (name.json) and its tool prefix.
	name string
	// pkg is the npm package, or the Go module for the GitHub server.
	pkg string
	// entry is the npm package's entry point under node_modules/pkg;
	// empty for the Go server.
	entry string
	// args follow the entry point; {dir} is a scratch directory, {stub}
	// the loopback stub's URL, {dead} a loopback URL nothing listens on.
	args []string
	// env is added to a minimal environment (PATH, HOME in scratch).
	env []string
	// stub serves what the server fetches while listing its tools.
	stub http.Handler
}

// servers are the captured servers, in the corpus's order.
var servers = []server{
	{name: "everything", pkg: "@modelcontextprotocol/server-everything", entry: "dist/index.js", args: []string{"stdio"}},
	{name: "filesystem", pkg: "@modelcontextprotocol/server-filesystem", entry: "dist/index.js", args: []string{"{dir}"}},
	{name: "memory", pkg: "@modelcontextprotocol/server-memory", entry: "dist/index.js", env: []string{"MEMORY_FILE_PATH={dir}/memory.jsonl"}},
	{name: "sequential-thinking", pkg: "@modelcontextprotocol/server-sequential-thinking", entry: "dist/index.js", env: []string{"DISABLE_THOUGHT_LOGGING=true"}},
	{name: "playwright", pkg: "@playwright/mcp", entry: "cli.js", args: []string{"--headless", "--isolated", "--caps=vision,pdf,devtools", "--output-dir", "{dir}"}},
	{name: "notion", pkg: "@notionhq/notion-mcp-server", entry: "bin/cli.mjs", env: []string{"NOTION_TOKEN=ntn_dummy", "BASE_URL={dead}"}},
	{name: "stripe", pkg: "@stripe/mcp", entry: "dist/index.js", args: []string{"--tools=all", "--api-key=sk_test_dummy"}},
	{name: "mongodb", pkg: "mongodb-mcp-server", entry: "dist/esm/index.js", env: []string{
		"MDB_MCP_CONNECTION_STRING=mongodb://127.0.0.1:9/", "MDB_MCP_API_CLIENT_ID=dummy", "MDB_MCP_API_CLIENT_SECRET=dummy",
		"MDB_MCP_API_BASE_URL={dead}/", "MDB_MCP_TELEMETRY=disabled", "MDB_MCP_LOGGERS=stderr", "DO_NOT_TRACK=1"}},
	{name: "supabase", pkg: "@supabase/mcp-server-supabase", entry: "dist/cli.js",
		args: []string{"--access-token=sbp_dummy", "--api-url={dead}", "--content-api-url={stub}"}, stub: supabaseDocsStub()},
	{name: "github", pkg: "github.com/github/github-mcp-server", args: []string{"stdio", "--toolsets=all"},
		env: []string{"GITHUB_PERSONAL_ACCESS_TOKEN=ghp_dummy", "GITHUB_HOST={dead}"}},
}

// holdout are servers the corpus does not contain: the importer's
// proposals are measured on them, never tuned to them
// (test/mcp/testdata/holdout/README.md).
var holdout = []server{
	{name: "brave-search", pkg: "@modelcontextprotocol/server-brave-search", entry: "dist/index.js", env: []string{"BRAVE_API_KEY=dummy"}},
	{name: "gitlab", pkg: "@modelcontextprotocol/server-gitlab", entry: "dist/index.js",
		env: []string{"GITLAB_PERSONAL_ACCESS_TOKEN=glpat-dummy", "GITLAB_API_URL={dead}/api/v4"}},
	{name: "google-maps", pkg: "@modelcontextprotocol/server-google-maps", entry: "dist/index.js", env: []string{"GOOGLE_MAPS_API_KEY=dummy"}},
	{name: "postgres", pkg: "@modelcontextprotocol/server-postgres", entry: "dist/index.js", args: []string{"postgresql://dummy:dummy@127.0.0.1:9/dummy"}},
	{name: "slack", pkg: "@modelcontextprotocol/server-slack", entry: "dist/index.js", env: []string{"SLACK_BOT_TOKEN=xoxb-dummy", "SLACK_TEAM_ID=T0DUMMY"}},
	{name: "context7", pkg: "@upstash/context7-mcp", entry: "dist/index.js", args: []string{"--transport", "stdio"}},
	{name: "firecrawl", pkg: "firecrawl-mcp", entry: "dist/index.js", env: []string{"FIRECRAWL_API_KEY=fc-dummy", "FIRECRAWL_API_URL={dead}"}},
}

// Capture is one committed capture: what was started, and the tools/list
// result as the client received it. ParseToolsList reads it as a
// response ("result").
type Capture struct {
	Capture CaptureInfo     `json:"capture"`
	Result  json.RawMessage `json:"result"`
}

// CaptureInfo records where a capture came from.
type CaptureInfo struct {
	Server  string `json:"server"`
	Package string `json:"package"`
	Version string `json:"version"`
	Date    string `json:"date"`
	// Command is the server's command line relative to its install
	// (node_modules/… or the built binary), then the environment it was
	// given; scratch paths and loopback ports read as placeholders.
	Command string   `json:"command"`
	Env     []string `json:"env,omitempty"`
	Pages   int      `json:"pages"`
}

func main() {
	only := flag.String("only", "", "comma-separated server names to capture (default: all)")
	which := flag.String("set", "corpus", "the set to capture: corpus or holdout")
	flag.Parse()
	i := slices.IndexFunc(sets, func(s set) bool { return s.name == *which })
	if i < 0 {
		fmt.Fprintln(os.Stderr, "mcpcorpus: -set: corpus or holdout")
		os.Exit(2)
	}
	if err := run(sets[i], *only); err != nil {
		fmt.Fprintln(os.Stderr, "mcpcorpus:", err)
		os.Exit(1)
	}
}

func run(st set, only string) error {
	if _, err := os.Stat(st.dir); err != nil {
		return errors.New("run from the repository root: " + st.dir + " is missing")
	}
	servers := st.servers
	var want []string
	if only != "" {
		want = strings.Split(only, ",")
		for _, w := range want {
			if !slices.ContainsFunc(servers, func(s server) bool { return s.name == w }) {
				return fmt.Errorf("-only: no server %q", w)
			}
		}
	}
	fmt.Fprintln(os.Stderr, "npm ci of", filepath.Join(st.dir, "npm"), "(once per lock, into the user cache)")
	nodeModules, err := npmcache.Install(filepath.Join(st.dir, "npm"), os.Stderr)
	if err != nil {
		return err
	}
	date := time.Now().UTC().Format(time.DateOnly)
	var failed []string
	for _, s := range servers {
		if want != nil && !slices.Contains(want, s.name) {
			continue
		}
		c, err := capture(s, nodeModules, date)
		if err == nil {
			err = write(filepath.Join(st.dir, s.name+".json"), c)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", s.name, err)
			failed = append(failed, s.name)
			continue
		}
		fmt.Printf("%-20s %s@%s: %d pages\n", s.name, c.Capture.Package, c.Capture.Version, c.Capture.Pages)
	}
	if len(failed) > 0 {
		return fmt.Errorf("not captured: %s", strings.Join(failed, ", "))
	}
	return nil
}

// capture starts s, lists its tools and stops it.
func capture(s server, nodeModules, date string) (*Capture, error) {
	scratch, err := os.MkdirTemp("", "mcpcorpus-"+s.name+"-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(scratch) }()
	dead, err := deadURL()
	if err != nil {
		return nil, err
	}
	stubURL := ""
	if s.stub != nil {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		srv := &http.Server{Handler: s.stub, ReadHeaderTimeout: 5 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		defer func() { _ = srv.Close() }()
		stubURL = "http://" + ln.Addr().String()
	}
	expand := func(v string) string {
		return strings.NewReplacer("{dir}", scratch, "{stub}", stubURL, "{dead}", dead).Replace(v)
	}
	info := CaptureInfo{Server: s.name, Package: s.pkg, Date: date}
	var argv, shown []string
	if s.entry != "" {
		entry := filepath.Join(nodeModules, s.pkg, s.entry)
		if info.Version, err = npmVersion(filepath.Join(nodeModules, s.pkg)); err != nil {
			return nil, err
		}
		argv = []string{"node", entry}
		shown = []string{"node", filepath.Join("node_modules", s.pkg, s.entry)}
	} else {
		bin, version, err := buildGitHub(scratch)
		if err != nil {
			return nil, err
		}
		info.Version = version
		argv, shown = []string{bin}, []string{"github-mcp-server"}
	}
	for _, a := range s.args {
		argv, shown = append(argv, expand(a)), append(shown, a)
	}
	info.Command = strings.Join(shown, " ")
	info.Env = s.env
	cmd := exec.Command(argv[0], argv[1:]...) //nolint:gosec // the corpus's own pinned servers
	cmd.Dir = scratch
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + scratch, "XDG_CACHE_HOME=" + scratch + "/cache",
		"XDG_CONFIG_HOME=" + scratch + "/config", "NO_PROXY=*", "DO_NOT_TRACK=1"}
	for _, e := range s.env {
		cmd.Env = append(cmd.Env, expand(e))
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pages, err := listTools(&mcp.CommandTransport{Command: cmd})
	if err != nil {
		return nil, fmt.Errorf("%w\nserver stderr:\n%s", err, tail(stderr.String(), 2000))
	}
	info.Pages = len(pages)
	result, err := mergePages(pages)
	if err != nil {
		return nil, err
	}
	return &Capture{Capture: info, Result: result}, nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// deadURL is a loopback URL on a port just closed: a server that calls it
// is refused at once instead of reaching the internet.
func deadURL() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return "http://" + addr, nil
}

func npmVersion(dir string) (string, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return "", err
	}
	var p struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(raw, &p); err != nil || p.Version == "" {
		return "", fmt.Errorf("%s: no version", dir)
	}
	return p.Version, nil
}

// buildGitHub builds the GitHub MCP server pinned by ./github/go.mod into
// dir and returns the binary and its version.
func buildGitHub(dir string) (string, string, error) {
	mod := filepath.Join("hack", "mcpcorpus", "github")
	const path = "github.com/github/github-mcp-server"
	out, err := goCmd(mod, "list", "-m", "-f", "{{.Version}}", path)
	if err != nil {
		return "", "", err
	}
	bin := filepath.Join(dir, "github-mcp-server")
	if _, err := goCmd(mod, "build", "-o", bin, path+"/cmd/github-mcp-server"); err != nil {
		return "", "", err
	}
	return bin, strings.TrimSpace(out), nil
}

func goCmd(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, ee.Stderr)
		}
		return "", err
	}
	return string(out), nil
}

// listTools connects with the SDK client and walks every page of
// tools/list; the recorded pages are the results as they came off the
// connection.
func listTools(t mcp.Transport) ([]json.RawMessage, error) {
	rec := &recorder{Transport: t}
	c := mcp.NewClient(&mcp.Implementation{Name: "toolgate-mcpcorpus", Version: "v1alpha1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, rec, nil)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer func() { _ = cs.Close() }()
	n := 0
	for _, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		n++
	}
	pages := rec.results()
	var listed int
	for _, p := range pages {
		var r struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(p, &r); err != nil {
			return nil, err
		}
		listed += len(r.Tools)
	}
	if n == 0 || listed != n {
		return nil, fmt.Errorf("tools/list: the client read %d tools, the recorded pages hold %d", n, listed)
	}
	return pages, nil
}

// recorder records the raw result of every tools/list response.
type recorder struct {
	mcp.Transport
	mu    sync.Mutex
	ids   map[any]bool
	pages []json.RawMessage
}

func (r *recorder) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := r.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	r.ids = map[any]bool{}
	return &recordingConn{Connection: c, r: r}, nil
}

func (r *recorder) results() []json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.pages)
}

type recordingConn struct {
	mcp.Connection
	r *recorder
}

func (c *recordingConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if req, ok := m.(*jsonrpc.Request); ok && req.Method == "tools/list" && req.ID.IsValid() {
		c.r.mu.Lock()
		c.r.ids[req.ID.Raw()] = true
		c.r.mu.Unlock()
	}
	return c.Connection.Write(ctx, m)
}

func (c *recordingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if resp, ok := m.(*jsonrpc.Response); ok && err == nil && resp.Error == nil {
		c.r.mu.Lock()
		if c.r.ids[resp.ID.Raw()] {
			c.r.pages = append(c.r.pages, slices.Clone(resp.Result))
		}
		c.r.mu.Unlock()
	}
	return m, err
}

// mergePages joins the pages' tools, in the server's order, into one
// result; each tool's JSON is kept as sent (member order, number
// literals), only re-indented.
func mergePages(pages []json.RawMessage) (json.RawMessage, error) {
	var b bytes.Buffer
	b.WriteString("{\n    \"tools\": [")
	first := true
	for _, p := range pages {
		var r struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(p, &r); err != nil {
			return nil, err
		}
		for _, t := range r.Tools {
			if !first {
				b.WriteString(",")
			}
			first = false
			b.WriteString("\n      ")
			if err := json.Indent(&b, t, "      ", "  "); err != nil {
				return nil, err
			}
		}
	}
	b.WriteString("\n    ]\n  }")
	return b.Bytes(), nil
}

// write writes c indented, ending in a newline. When the committed
// capture holds the same answer from the same command and version, its
// date stays: re-capturing an unchanged server changes no file.
func write(path string, c *Capture) error {
	if raw, err := os.ReadFile(path); err == nil {
		var old Capture
		if json.Unmarshal(raw, &old) == nil {
			o, n := old.Capture, c.Capture
			o.Date, n.Date = "", ""
			var ob, nb bytes.Buffer
			if slices.Equal(o.Env, n.Env) && o.Command == n.Command && o.Version == n.Version && o.Package == n.Package && o.Pages == n.Pages &&
				json.Compact(&ob, old.Result) == nil && json.Compact(&nb, c.Result) == nil && bytes.Equal(ob.Bytes(), nb.Bytes()) {
				c.Capture.Date = old.Capture.Date
			}
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// supabaseDocsStub answers the Supabase docs content API's `{ schema }`
// GraphQL query, which the server asks while listing its tools (the
// search_docs description embeds the schema): a small SDL, so that
// description holds the stub's schema, not the live one.
func supabaseDocsStub() http.Handler {
	const sdl = "type Query { searchDocs(query: String!, limit: Int): SearchResultCollection }\n" +
		"type SearchResultCollection { nodes: [SearchResult!]! }\n" +
		"type SearchResult { title: String, href: String, content: String }\n"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("query") != "{ schema }" {
			http.Error(w, "the corpus stub answers only { schema }", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"data": map[string]string{"schema": sdl}})
	})
}
