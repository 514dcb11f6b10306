package mcpgate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"

	"github.com/go-logr/logr"
	"github.com/google/jsonschema-go/jsonschema"
	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/internal/argprofile"
	"github.com/toolgate/toolgate/internal/mcpgate/clientauth"
)

// ConfigKind and ConfigVersion name the gateway configuration's format.
const (
	ConfigAPIVersion = "mcp.toolgate.dev/v1alpha1"
	ConfigKind       = "MCPGateway"
)

// DefaultMaxArgumentBytes bounds a call's raw arguments unless the
// configuration says otherwise.
const DefaultMaxArgumentBytes = 64 << 10

// Config is the gateway configuration: everything MCP-specific about one
// upstream server, outside the protocol objects.
type Config struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Toolgate is the authorization service and the gateway's executor
	// credentials.
	Toolgate Endpoint `json:"toolgate"`
	// HostAuthority is the authority domain the mapped tools belong to.
	// The service enforces it: the gateway's token is an executor of
	// that domain only.
	HostAuthority ObjectRef `json:"hostAuthority"`
	// Tools maps MCP tool names to exact tool versions.
	Tools []ToolMapping `json:"tools"`
	// MaxArgumentBytes bounds one call's raw arguments (default 64 KiB).
	MaxArgumentBytes int `json:"maxArgumentBytes,omitempty"`
	// OutcomeLog is the JSON lines file every consumed call's outcome is
	// appended to.
	OutcomeLog string `json:"outcomeLog"`
	// ClientAuth, when present, makes the gateway an OAuth 2.1 resource
	// server: every request to /mcp needs a bearer token it verifies
	// (docs/mcp.md, "Client authentication"). Absent, the MCP endpoint is
	// open to whoever reaches it, as before.
	ClientAuth *clientauth.Spec `json:"clientAuth,omitempty"`
	// Host, when present, is Host mode: the gateway authorizes each call
	// itself on the authenticated client's behalf (docs/mcp.md, "Host
	// mode"); it needs ClientAuth. Absent, it consumes the Authorization
	// an agent runtime attached under params._meta.
	Host *HostConfig `json:"host,omitempty"`
}

// Endpoint is the toolgate service and the gateway's bearer token file.
type Endpoint struct {
	URL string `json:"url"`
	// TokenFile holds the gateway's bearer token; it is read again at
	// every recheck, so a projected ServiceAccount token the kubelet
	// rotates keeps working.
	TokenFile string `json:"tokenFile"`
	// CAFile, when set, is the only CA the service's certificate may
	// chain to (PEM).
	CAFile string `json:"caFile,omitempty"`
}

// ObjectRef names a namespaced object.
type ObjectRef struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// ToolMapping is one reviewed MCP tool.
type ToolMapping struct {
	// Name is the MCP tool name, the same at the gateway and upstream.
	Name    string `json:"name"`
	ToolID  string `json:"toolID"`
	Version string `json:"version"`
	// Definition is the reviewed live definition; the upstream's must
	// have the same digest or the tool is withheld.
	Definition Definition `json:"definition"`
	// DefinitionDigest, when present, must equal the digest of
	// Definition: an importer writes it so a review sees one value.
	DefinitionDigest string `json:"definitionDigest,omitempty"`
	// OutputSchema, when present, is a JSON Schema every result's
	// structuredContent must match; a result without structuredContent
	// or one that does not match is withheld.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// Arguments, when present, is the tool's reviewed argument profile
	// (toolgate.mcp-arguments/1, docs/arguments.md, the document
	// argprofile.Parse reads); its tool must be Name. The gateway checks a
	// call's Mcp-Param-* headers against it before consuming.
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Definition is the part of an MCP tool a reviewer approves: what the
// model reads (description) and what it may send (inputSchema).
type Definition struct {
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// ConfigError is a configuration rejection at a field path.
type ConfigError struct {
	Path, Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("mcp gateway config: %s: %s", e.Path, e.Reason)
}

var (
	toolNameRe = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)
	digestRe   = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
)

// LoadConfig reads a configuration file strictly: unknown fields and
// duplicate keys reject, as do every missing or invalid value (all of them
// reported at once).
func LoadConfig(path string) (*Config, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseConfig(raw)
}

// ParseConfig is LoadConfig on bytes.
func ParseConfig(raw []byte) (*Config, error) {
	var c Config
	if err := yaml.UnmarshalStrict(raw, &c); err != nil {
		return nil, &ConfigError{Path: "(document)", Reason: "not a valid " + ConfigKind + " (unknown field, duplicate key or wrong type): " + yamlReason(err)}
	}
	if errs := c.check(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &c, nil
}

// yamlReason keeps the decoder's structural message but never a value: the
// decoders name fields and types, not contents.
func yamlReason(err error) string {
	s := err.Error()
	if i := strings.Index(s, "\n"); i >= 0 {
		s = s[:i]
	}
	return s
}

func (c *Config) check() []error {
	var errs []error
	bad := func(path, reason string) { errs = append(errs, &ConfigError{Path: path, Reason: reason}) }
	if c.APIVersion != ConfigAPIVersion {
		bad("apiVersion", "must be "+ConfigAPIVersion)
	}
	if c.Kind != ConfigKind {
		bad("kind", "must be "+ConfigKind)
	}
	if err := CheckToolgateURL(c.Toolgate.URL); err != nil {
		errs = append(errs, err)
	}
	if c.Toolgate.TokenFile == "" {
		bad("toolgate.tokenFile", "must name the file holding the gateway's executor token")
	}
	if c.HostAuthority.Namespace == "" || c.HostAuthority.Name == "" {
		bad("hostAuthority", "must name the HostAuthority (namespace and name)")
	}
	if c.OutcomeLog == "" {
		bad("outcomeLog", "must name the outcome log file")
	}
	if c.MaxArgumentBytes < 0 || c.MaxArgumentBytes > 1<<20 {
		bad("maxArgumentBytes", "must lie in 0..1048576 (0: the default, 64 KiB)")
	}
	if len(c.Tools) == 0 {
		bad("tools", "must map at least one tool")
	}
	seen := map[string]bool{}
	for i := range c.Tools {
		t := &c.Tools[i]
		p := fmt.Sprintf("tools[%d]", i)
		if !toolNameRe.MatchString(t.Name) {
			bad(p+".name", "must be an MCP tool name (1–128 of A–Z a–z 0–9 _ . -)")
		} else if seen[t.Name] {
			bad(p+".name", "maps a tool name an earlier entry maps")
		}
		seen[t.Name] = true
		if t.ToolID == "" {
			bad(p+".toolID", "must name the ToolRegistry tool")
		}
		if t.Version == "" {
			bad(p+".version", "must name the exact tool version")
		}
		d, err := t.Definition.Digest()
		if err == nil && !objectTyped(t.Definition.InputSchema) {
			err = errors.New(`must have "type": "object" (MCP tools take an object of arguments)`)
		}
		if err != nil {
			bad(p+".definition.inputSchema", err.Error())
		} else if t.DefinitionDigest != "" && t.DefinitionDigest != d {
			if !digestRe.MatchString(t.DefinitionDigest) {
				bad(p+".definitionDigest", "must be sha256: and 64 lowercase hex digits")
			} else {
				bad(p+".definitionDigest", "differs from the digest of definition: the reviewed definition was edited")
			}
		}
		if len(t.OutputSchema) > 0 {
			if _, err := compileSchema(t.OutputSchema); err != nil {
				bad(p+".outputSchema", "is not a usable JSON Schema: "+err.Error())
			}
		}
		if len(t.Arguments) > 0 {
			prof, err := argprofile.Parse(t.Arguments)
			if err != nil {
				for _, e := range flatten(err) {
					var pe *argprofile.Error
					if errors.As(e, &pe) {
						reason := pe.Code.String()
						if pe.Rule != "" {
							reason += ": " + pe.Rule
						}
						bad(p+".arguments"+profilePath(pe.Path), reason)
					} else {
						bad(p+".arguments", "is not an argument profile")
					}
				}
			} else if prof.Tool() != t.Name {
				// A profile reviewed for another tool would check the
				// wrong members' headers.
				bad(p+".arguments.tool", "must be the mapping's name: the profile was reviewed for another tool")
			} else if !sameHeaders(prof.Mirrored(), schemaHeaders(t.Definition.InputSchema)) {
				// Clients mirror what the served inputSchema marks; a
				// profile expecting other headers would refuse every
				// 2026-07-28 call, or check none of them.
				bad(p+".arguments", "its header members differ from the x-mcp-header members of definition.inputSchema")
			}
		}
	}
	if c.ClientAuth != nil {
		if u, err := url.Parse(c.ClientAuth.Resource); err == nil && u.Host != "" && !strings.HasSuffix(u.Path, "/mcp") {
			// The gateway serves MCP at /mcp; a proxy may add a prefix.
			bad("clientAuth.resource", "must be the gateway's public URL of its MCP endpoint, ending in /mcp")
		}
		// Build is the one validation of the block (it reads the token
		// file and CA files it names, as New will); the TokenReview API
		// is not called here.
		if _, err := clientauth.Build(*c.ClientAuth, checkOnlyReviews{}, logr.Discard()); err != nil {
			for _, e := range flatten(err) {
				var ce *clientauth.Error
				if errors.As(e, &ce) {
					path := "clientAuth"
					if ce.Field != "" {
						path += "." + ce.Field
					}
					bad(path, ce.Detail)
				} else {
					bad("clientAuth", "is not a usable client authentication block")
				}
			}
		}
	}
	return append(errs, c.checkHost()...)
}

// schemaHeaders are the x-mcp-header annotations of an inputSchema's
// properties, at any depth, by the member's JSON pointer.
func schemaHeaders(raw json.RawMessage) map[string]string {
	type prop struct {
		Header     *string         `json:"x-mcp-header"`
		Properties map[string]prop `json:"properties"`
	}
	var root prop
	out := map[string]string{}
	if json.Unmarshal(raw, &root) != nil {
		return out
	}
	var walk func(props map[string]prop, path string)
	walk = func(props map[string]prop, path string) {
		for name, p := range props {
			ptr := path + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
			if p.Header != nil {
				out[ptr] = *p.Header
			}
			walk(p.Properties, ptr)
		}
	}
	walk(root.Properties, "")
	return out
}

// sameHeaders: the profile mirrors exactly the schema's annotated members,
// each under the same header name (header names compare as HTTP does).
func sameHeaders(m []argprofile.Mirrored, schema map[string]string) bool {
	if len(m) != len(schema) {
		return false
	}
	for _, h := range m {
		if s, ok := schema[h.Pointer]; !ok || !strings.EqualFold(s, h.Header) {
			return false
		}
	}
	return true
}

// flatten unfolds errors.Join trees into their leaves, so each is
// reported at its own path.
func flatten(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	if err == nil {
		return nil
	}
	return []error{err}
}

// profilePath puts an argprofile path (a path in the draft, "(document)"
// for the whole) after the arguments field.
func profilePath(p string) string {
	switch {
	case p == "" || p == "(document)":
		return ""
	case strings.HasPrefix(p, "["), strings.HasPrefix(p, "."):
		return p
	}
	return "." + p
}

// checkOnlyReviews stands in for the TokenReview API while a
// configuration is validated: Build needs one, and nothing calls it.
type checkOnlyReviews struct{}

func (checkOnlyReviews) Create(context.Context, *authnv1.TokenReview, metav1.CreateOptions) (*authnv1.TokenReview, error) {
	return nil, errors.New("not a live TokenReview API")
}

// CheckToolgateURL is the rule toolgate.url meets, and the gateway's
// --toolgate-url that overrides it: an http or https URL.
func CheckToolgateURL(u string) error {
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return &ConfigError{Path: "toolgate.url", Reason: "must be an http or https URL of the toolgate service"}
	}
	return nil
}

// MaxArgs is the effective argument bound.
func (c *Config) MaxArgs() int {
	if c.MaxArgumentBytes == 0 {
		return DefaultMaxArgumentBytes
	}
	return c.MaxArgumentBytes
}

// Digest is the definition's canonical digest: SHA-256 over the canonical
// JSON of {"description", "inputSchema"} (object keys sorted, no white
// space, numbers as written). Key order and layout of a server's answer do
// not count; any change of content does.
func (d Definition) Digest() (string, error) {
	if len(d.InputSchema) == 0 {
		return "", errors.New("is missing")
	}
	schema, err := canonical(d.InputSchema)
	if err != nil {
		return "", errors.New("is not one JSON object")
	}
	if !bytes.HasPrefix(schema, []byte("{")) {
		return "", errors.New("must be a JSON object")
	}
	desc, _ := json.Marshal(d.Description)
	var b bytes.Buffer
	b.WriteString(`{"description":`)
	b.Write(desc)
	b.WriteString(`,"inputSchema":`)
	b.Write(schema)
	b.WriteString(`}`)
	sum := sha256.Sum256(b.Bytes())
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// canonical re-encodes JSON with sorted keys (encoding/json sorts map keys)
// and every number as the shortest form of its IEEE double: the SDK client
// reads a live inputSchema into float64s, so the reviewed side is read the
// same way, as JSON Schema validators read bounds.
func canonical(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data")
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

func compileSchema(raw json.RawMessage) (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, errors.New("not a JSON Schema object")
	}
	return s.Resolve(nil)
}

func objectTyped(raw json.RawMessage) bool {
	var s struct {
		Type any `json:"type"`
	}
	return json.Unmarshal(raw, &s) == nil && s.Type == "object"
}
