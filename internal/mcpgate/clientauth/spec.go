package clientauth

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"os"
	"time"

	"github.com/go-logr/logr"

	"github.com/toolgate/toolgate/internal/tokenfile"
)

// Spec is the client-authentication block of a gateway configuration, as
// YAML or JSON: what the resource is, and exactly one way of verifying
// tokens.
type Spec struct {
	// Resource is the gateway's canonical resource URI (Config.Resource);
	// it is also the audience every token must carry.
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorizationServers"`
	Scopes               []string `json:"scopes,omitempty"`
	ScopesSupported      []string `json:"scopesSupported,omitempty"`
	ResourceName         string   `json:"resourceName,omitempty"`

	// JWT verifies access tokens as JWTs of one issuer.
	JWT *JWTSpec `json:"jwt,omitempty"`
	// TokenFile is a token file (the service's format) to verify against.
	TokenFile string `json:"tokenFile,omitempty"`
	// TokenReview verifies tokens with the Kubernetes TokenReview API, for
	// the audience Resource, caching answers for DefaultCacheTTL.
	TokenReview bool `json:"tokenReview,omitempty"`
}

// JWTSpec is the jwt block of a Spec (JWTConfig without the audience,
// which is the Spec's Resource).
type JWTSpec struct {
	Issuer     string   `json:"issuer"`
	JWKSURL    string   `json:"jwksURL"`
	Algorithms []string `json:"algorithms"`
	// Leeway is a Go duration ("30s"); DefaultLeeway when empty.
	Leeway                 string `json:"leeway,omitempty"`
	GroupsClaim            string `json:"groupsClaim,omitempty"`
	RequireAccessTokenType bool   `json:"requireAccessTokenType,omitempty"`
	// CAFile, when set, is the only CA the JWKS server's certificate may
	// chain to (PEM).
	CAFile string `json:"caFile,omitempty"`
}

// Build makes the Gate a Spec describes. reviews is the TokenReview API,
// needed only when spec.TokenReview is set. Every error is reported at
// once, each an *Error with its field in the Spec.
func Build(spec Spec, reviews TokenReviewer, log logr.Logger) (*Gate, error) {
	var errs []error
	n := 0
	for _, set := range []bool{spec.JWT != nil, spec.TokenFile != "", spec.TokenReview} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, configError("", "exactly one of jwt, tokenFile and tokenReview")
	}
	var v Verifier
	switch {
	case spec.JWT != nil:
		aud := spec.Resource
		if _, err := canonicalResource(aud); err != nil {
			aud = "https://resource.invalid" // New reports the resource's error, at its field
		}
		cfg := JWTConfig{Issuer: spec.JWT.Issuer, Audience: aud, JWKSURL: spec.JWT.JWKSURL,
			Algorithms: spec.JWT.Algorithms, GroupsClaim: spec.JWT.GroupsClaim, RequireAccessTokenType: spec.JWT.RequireAccessTokenType}
		if spec.JWT.Leeway != "" {
			d, err := time.ParseDuration(spec.JWT.Leeway)
			if err != nil {
				errs = append(errs, configError("jwt.leeway", "not a duration"))
			}
			cfg.Leeway = d
		}
		if spec.JWT.CAFile != "" {
			client, err := caClient(spec.JWT.CAFile)
			if err != nil {
				errs = append(errs, err)
			}
			cfg.HTTPClient = client
		}
		jv, err := NewJWTVerifier(cfg)
		if err != nil {
			errs = append(errs, err)
		}
		v = jv
	case spec.TokenFile != "":
		tab, err := tokenfile.Load(spec.TokenFile)
		if err != nil {
			// tokenfile's errors name an entry's index, never a token.
			errs = append(errs, configError("tokenFile", "%s", err.Error()))
			break
		}
		v, _ = NewTokenFileVerifier(tab)
	default:
		tv, err := NewTokenReviewVerifier(reviews, spec.Resource)
		if err != nil {
			errs = append(errs, err)
			break
		}
		// An MCP session is many HTTP requests; the apiserver is asked
		// once per token and DefaultCacheTTL.
		v, _ = NewCache(tv, DefaultCacheTTL)
	}
	if len(errs) > 0 {
		// New still runs, with a stand-in verifier, to report the
		// resource's own errors with these.
		_, err := New(spec.config(), rejectAll{}, log)
		return nil, errors.Join(append(errs, err)...)
	}
	return New(spec.config(), v, log)
}

func (s Spec) config() Config {
	return Config{Resource: s.Resource, AuthorizationServers: s.AuthorizationServers, Scopes: s.Scopes,
		ScopesSupported: s.ScopesSupported, ResourceName: s.ResourceName}
}

func caClient(path string) (*http.Client, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, configError("jwt.caFile", "unreadable")
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, configError("jwt.caFile", "no PEM certificate")
	}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		Proxy:           http.ProxyFromEnvironment,
	}}, nil
}

// rejectAll stands in for a verifier that could not be built.
type rejectAll struct{}

func (rejectAll) Verify(_ context.Context, _ string) (Identity, error) {
	return Identity{}, reject(ReasonUnavailable, "")
}
