package clientauth

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// WellKnownPath is the RFC 9728 Section 3 well-known path prefix.
const WellKnownPath = "/.well-known/oauth-protected-resource"

// Config is the resource-server side of the gateway: what it is and what
// it asks of a token.
type Config struct {
	// Resource is the gateway's canonical resource URI (RFC 8707 Section 2,
	// the MCP authorization specification's canonical server URI): https
	// (http only for a loopback host), lower-case scheme and host, no
	// query, fragment, user information or trailing slash. Tokens must
	// name it as their audience.
	Resource string
	// AuthorizationServers are the issuer identifiers (RFC 8414) of the
	// authorization servers that issue tokens for Resource; at least one,
	// each https.
	AuthorizationServers []string
	// Scopes every request's token must carry; missing ones answer 403
	// insufficient_scope.
	Scopes []string
	// ScopesSupported are the scopes the metadata advertises; Scopes when
	// empty.
	ScopesSupported []string
	// ResourceName is the metadata's human-readable name (optional).
	ResourceName string
}

// Gate is the gateway's OAuth 2.1 resource server: the metadata document,
// and the middleware that admits only requests with a verified token.
type Gate struct {
	verifier    Verifier
	log         logr.Logger
	metadata    oauthex.ProtectedResourceMetadata
	metadataURL string
	paths       []string
	scopes      []string
}

// New validates cfg and returns the Gate that verifies tokens with v and
// logs rejections (their reason, never a token) to log at V(1). Every
// configuration error is reported at once, each an *Error with its field.
func New(cfg Config, v Verifier, log logr.Logger) (*Gate, error) {
	var errs []error
	res, err := canonicalResource(cfg.Resource)
	if err != nil {
		errs = append(errs, configError("resource", "%s", err.Error()))
	}
	if len(cfg.AuthorizationServers) == 0 {
		errs = append(errs, configError("authorizationServers", "the MCP authorization specification asks for at least one authorization server"))
	}
	for i, as := range cfg.AuthorizationServers {
		if err := httpsURL(as); err != nil {
			errs = append(errs, configError(indexed("authorizationServers", i), "%s", err.Error()))
		}
	}
	for i, s := range cfg.Scopes {
		if !scopeToken(s) {
			errs = append(errs, configError(indexed("scopes", i), "not an RFC 6749 scope token"))
		}
	}
	for i, s := range cfg.ScopesSupported {
		if !scopeToken(s) {
			errs = append(errs, configError(indexed("scopesSupported", i), "not an RFC 6749 scope token"))
		}
	}
	if strings.ContainsAny(cfg.ResourceName, "\"\\\r\n") {
		errs = append(errs, configError("resourceName", "a name has no quote, backslash or line break"))
	}
	if v == nil {
		errs = append(errs, configError("verifier", "a gate needs a verifier"))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	supported := cfg.ScopesSupported
	if len(supported) == 0 {
		supported = cfg.Scopes
	}
	g := &Gate{
		verifier: v,
		log:      log,
		metadata: oauthex.ProtectedResourceMetadata{
			Resource:               res.String(),
			AuthorizationServers:   slices.Clone(cfg.AuthorizationServers),
			ScopesSupported:        slices.Clone(supported),
			BearerMethodsSupported: []string{"header"},
			ResourceName:           cfg.ResourceName,
		},
		scopes: slices.Clone(cfg.Scopes),
	}
	// RFC 9728 Section 3.1: the well-known segment goes between the host
	// and the resource's path. The root form is served too for a resource
	// with a path, since clients of earlier MCP revisions look only there.
	suffixed := WellKnownPath + res.Path
	g.paths = []string{suffixed}
	if res.Path != "" {
		g.paths = append(g.paths, WellKnownPath)
	}
	g.metadataURL = (&url.URL{Scheme: res.Scheme, Host: res.Host, Path: suffixed}).String()
	return g, nil
}

// Metadata returns a copy of the RFC 9728 document the gate serves.
func (g *Gate) Metadata() oauthex.ProtectedResourceMetadata {
	m := g.metadata
	m.AuthorizationServers = slices.Clone(m.AuthorizationServers)
	m.ScopesSupported = slices.Clone(m.ScopesSupported)
	m.BearerMethodsSupported = slices.Clone(m.BearerMethodsSupported)
	return m
}

// MetadataURL is the absolute URL of the metadata document, as the
// WWW-Authenticate challenge names it.
func (g *Gate) MetadataURL() string { return g.metadataURL }

// MetadataPaths are the paths the metadata document is served at: the
// path-suffixed form first, then the root form for a resource with a path.
func (g *Gate) MetadataPaths() []string { return slices.Clone(g.paths) }

// MetadataHandler serves the metadata document (GET, and CORS preflight,
// through the MCP Go SDK's handler).
func (g *Gate) MetadataHandler() http.Handler {
	m := g.Metadata()
	return auth.ProtectedResourceMetadataHandler(&m)
}

// Handler serves the metadata document at MetadataPaths and everything
// else through Middleware(next): the one call the gateway makes.
func (g *Gate) Handler(next http.Handler) http.Handler {
	mux := http.NewServeMux()
	meta := g.MetadataHandler()
	for _, p := range g.paths {
		mux.Handle(p, meta)
	}
	mux.Handle("/", g.Middleware(next))
	return mux
}

// sdkSkew bounds the MCP Go SDK's own expiry check, which runs after the
// verifier's exact one (with its own leeway): it is a second net only.
const sdkSkew = 5 * time.Minute

// Middleware admits a request only with one verified bearer token in its
// Authorization header. The Identity is then in the request's context
// (IdentityFrom), and so is the MCP Go SDK's auth.TokenInfo (its UserID is
// issuer and subject), which the SDK's transports use to bind a session to
// its user. Rejections answer as RFC 6750 Section 3 asks, naming the
// metadata document.
func (g *Gate) Middleware(next http.Handler) http.Handler {
	sdk := auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		id, ok := IdentityFrom(ctx)
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Scopes: id.Scopes, Expiration: id.Expiry, UserID: id.Issuer + " " + id.Subject,
			Extra: map[string]any{tokenInfoKey: verified{id: id}}}, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true, ClockSkew: sdkSkew})(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := g.authenticate(r)
		if err != nil {
			g.refuse(w, r, err)
			return
		}
		sdk.ServeHTTP(w, r.WithContext(withIdentity(r.Context(), id)))
	})
}

func (g *Gate) authenticate(r *http.Request) (Identity, error) {
	values := r.Header.Values("Authorization")
	if len(values) == 0 {
		return Identity{}, reject(ReasonMissingToken, "no Authorization header")
	}
	if len(values) > 1 || r.URL.Query().Has("access_token") {
		return Identity{}, reject(ReasonInvalidRequest, "one bearer token, in one Authorization header")
	}
	scheme, token, ok := strings.Cut(values[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return Identity{}, reject(ReasonMissingToken, "no Bearer credential")
	}
	if !token68(token) {
		return Identity{}, reject(ReasonInvalidRequest, "the credential is not an RFC 6750 b64token")
	}
	id, err := g.verifier.Verify(r.Context(), token)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			return Identity{}, reject(ReasonUnavailable, "the verifier failed")
		}
		return Identity{}, e
	}
	for _, s := range g.scopes {
		if !slices.Contains(id.Scopes, s) {
			return Identity{}, reject(ReasonInsufficientScope, "a required scope is missing")
		}
	}
	return id, nil
}

// refuse answers a rejection: 401 with a challenge for a missing or
// invalid token, 400 for a malformed request, 403 for a missing scope, 503
// when nothing could vouch. Only the reason code is written and logged.
func (g *Gate) refuse(w http.ResponseWriter, r *http.Request, err error) {
	var e *Error
	if !errors.As(err, &e) {
		e = reject(ReasonUnavailable, "")
	}
	g.log.V(1).Info("MCP client rejected", "reason", string(e.Reason), "remote", r.RemoteAddr)
	params := []string{`resource_metadata="` + g.metadataURL + `"`}
	code := http.StatusUnauthorized
	switch e.Reason {
	case ReasonMissingToken:
		// RFC 6750 Section 3.1: no error code when no credential was sent.
	case ReasonInvalidRequest:
		code = http.StatusBadRequest
		params = append(params, `error="invalid_request"`)
	case ReasonInsufficientScope:
		code = http.StatusForbidden
		params = append(params, `error="insufficient_scope"`)
	case ReasonUnavailable:
		// Not the client's fault: a challenge would send it to reauthorize.
		http.Error(w, string(e.Reason), http.StatusServiceUnavailable)
		return
	default:
		params = append(params, `error="invalid_token"`, `error_description="`+string(e.Reason)+`"`)
	}
	if len(g.scopes) > 0 {
		params = append(params, `scope="`+strings.Join(g.scopes, " ")+`"`)
	}
	w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	http.Error(w, string(e.Reason), code)
}

func canonicalResource(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	switch {
	case raw == "":
		return nil, errors.New("the gateway's canonical resource URI is required")
	case err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "":
		return nil, errors.New("not an absolute URI with a host")
	case u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(raw, "#"):
		return nil, errors.New("a resource URI has no user information, query or fragment (RFC 8707 Section 2)")
	case strings.HasSuffix(u.Path, "/"):
		return nil, errors.New("a canonical resource URI has no trailing slash")
	case u.Scheme != strings.ToLower(u.Scheme) || u.Host != strings.ToLower(u.Host):
		return nil, errors.New("a canonical resource URI has a lower-case scheme and host")
	case u.Scheme == "https", u.Scheme == "http" && loopback(u.Hostname()):
	default:
		return nil, errors.New("https, or http for a loopback host")
	}
	// The path becomes a ServeMux pattern and a quoted challenge value:
	// letters, digits, "-", ".", "_", "~" and "/" only.
	if u.RawPath != "" || strings.IndexFunc(u.Path, func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && !strings.ContainsRune("-._~/", r)
	}) >= 0 {
		return nil, errors.New("a resource path has letters, digits, \"-\", \".\", \"_\", \"~\" and \"/\" only")
	}
	return u, nil
}

func httpsURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(raw, "\"\\ ") {
		return errors.New("an https URL without query, fragment or user information")
	}
	return nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func indexed(field string, i int) string {
	return field + "[" + strconv.Itoa(i) + "]"
}

// scopeToken is RFC 6749 Section 3.3's scope-token: 1*( %x21 / %x23-5B /
// %x5D-7E ).
func scopeToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// token68 is RFC 6750 Section 2.1's b64token: 1*( ALPHA / DIGIT / "-" /
// "." / "_" / "~" / "+" / "/" ) *"=".
func token68(s string) bool {
	body := strings.TrimRight(s, "=")
	if body == "" {
		return false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("-._~+/", c) >= 0:
		default:
			return false
		}
	}
	return true
}
