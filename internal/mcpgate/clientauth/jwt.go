package clientauth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Bounds of the JWT verifier.
const (
	// DefaultLeeway is the clock skew allowed on exp, nbf and iat.
	DefaultLeeway = 30 * time.Second
	// MaxLeeway is the largest leeway a configuration may set.
	MaxLeeway = 5 * time.Minute
	// DefaultMinRefresh is the shortest interval between two JWKS fetches
	// an unknown key ID may trigger.
	DefaultMinRefresh = time.Minute
	// DefaultMaxKeyAge is how long a fetched JWKS is used before it is
	// fetched again.
	DefaultMaxKeyAge = time.Hour
)

// asymmetric are the JWS algorithms a configuration may pin: public-key
// ones only, so a public JWKS key can never verify an HMAC (HS*) tag, and
// never none.
var asymmetric = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA,
}

// JWTConfig is how access tokens are checked.
type JWTConfig struct {
	// Issuer is the iss every token carries exactly (an https URL, the
	// authorization server's issuer identifier).
	Issuer string
	// Audience is the aud a token must contain: the gateway's canonical
	// resource URI (Config.Resource), as RFC 8707 binds it.
	Audience string
	// JWKSURL is the issuer's JWK Set, fetched over https.
	JWKSURL string
	// Algorithms are the JWS algorithms accepted, from RS256, RS384,
	// RS512, PS256, PS384, PS512, ES256, ES384, ES512 and EdDSA.
	Algorithms []string
	// Leeway is the clock skew allowed on exp, nbf and iat (DefaultLeeway
	// when zero, at most MaxLeeway).
	Leeway time.Duration
	// GroupsClaim names the claim holding the subject's groups (an array of
	// strings); "groups" when empty.
	GroupsClaim string
	// RequireAccessTokenType rejects a token whose typ header is not
	// at+jwt (RFC 9068 Section 4). Off by default: many authorization
	// servers type their access tokens JWT; the audience check already
	// keeps ID tokens (whose audience is a client) out.
	RequireAccessTokenType bool
	// MinRefresh and MaxKeyAge bound JWKS fetches (DefaultMinRefresh and
	// DefaultMaxKeyAge when zero).
	MinRefresh, MaxKeyAge time.Duration
	// HTTPClient fetches the JWKS; a client with a 10 s timeout when nil.
	// Redirects to anything but https are refused either way.
	HTTPClient *http.Client
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// JWTVerifier verifies access tokens that are JWTs (RFC 9068 shape) signed
// by one issuer.
type JWTVerifier struct {
	issuer, audience string
	algs             []jose.SignatureAlgorithm
	leeway           time.Duration
	groupsClaim      string
	requireType      bool
	now              func() time.Time
	keys             *keySet
}

// NewJWTVerifier validates cfg; every error is reported at once, each an
// *Error with its field under "jwt".
func NewJWTVerifier(cfg JWTConfig) (*JWTVerifier, error) {
	var errs []error
	if err := httpsURL(cfg.Issuer); err != nil {
		errs = append(errs, configError("jwt.issuer", "%s", err.Error()))
	}
	if _, err := canonicalResource(cfg.Audience); err != nil {
		errs = append(errs, configError("jwt.audience", "%s", err.Error()))
	}
	if err := httpsURL(cfg.JWKSURL); err != nil {
		errs = append(errs, configError("jwt.jwksURL", "%s", err.Error()))
	}
	var algs []jose.SignatureAlgorithm
	if len(cfg.Algorithms) == 0 {
		errs = append(errs, configError("jwt.algorithms", "pin at least one signature algorithm"))
	}
	for i, a := range cfg.Algorithms {
		alg := jose.SignatureAlgorithm(a)
		switch {
		case !slices.Contains(asymmetric, alg):
			errs = append(errs, configError(indexed("jwt.algorithms", i), "not a public-key JWS algorithm this verifier accepts"))
		case slices.Contains(algs, alg):
			errs = append(errs, configError(indexed("jwt.algorithms", i), "listed twice"))
		default:
			algs = append(algs, alg)
		}
	}
	if cfg.Leeway < 0 || cfg.Leeway > MaxLeeway {
		errs = append(errs, configError("jwt.leeway", "between 0 and %s", MaxLeeway))
	}
	if cfg.MinRefresh < 0 || cfg.MaxKeyAge < 0 {
		errs = append(errs, configError("jwt.minRefresh", "refresh intervals are not negative"))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	v := &JWTVerifier{issuer: cfg.Issuer, audience: cfg.Audience, algs: algs,
		leeway: cmpOr(cfg.Leeway, DefaultLeeway), groupsClaim: cmpOr(cfg.GroupsClaim, "groups"), requireType: cfg.RequireAccessTokenType, now: cfg.Now}
	if v.now == nil {
		v.now = time.Now
	}
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	c := *client
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.URL.Scheme != "https" || len(via) > 3 {
			return errors.New("a JWKS redirect stays on https")
		}
		return nil
	}
	v.keys = &keySet{url: cfg.JWKSURL, client: &c, now: v.now,
		minRefresh: cmpOr(cfg.MinRefresh, DefaultMinRefresh), maxAge: cmpOr(cfg.MaxKeyAge, DefaultMaxKeyAge)}
	return v, nil
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// accessClaims are the claims read beside the registered ones.
type accessClaims struct {
	Scope string `json:"scope"`
}

// Verify implements Verifier.
func (v *JWTVerifier) Verify(ctx context.Context, token string) (Identity, error) {
	alg, kid, err := v.header(token)
	if err != nil {
		return Identity{}, err
	}
	tok, err := jwt.ParseSigned(token, v.algs)
	if err != nil || len(tok.Headers) != 1 {
		return Identity{}, reject(ReasonMalformed, "not a compact JWS with one signature")
	}
	key, err := v.keys.lookup(ctx, kid, alg)
	if err != nil {
		return Identity{}, err
	}
	var (
		std   jwt.Claims
		extra accessClaims
		all   map[string]json.RawMessage
	)
	if err := tok.Claims(key.Key, &std, &extra, &all); err != nil {
		if errors.Is(err, jose.ErrCryptoFailure) {
			return Identity{}, reject(ReasonSignature, "the signature does not verify")
		}
		return Identity{}, reject(ReasonMalformed, "the claims are not an access token's")
	}
	if std.Subject == "" || std.Expiry == nil || len(std.Audience) == 0 {
		return Identity{}, reject(ReasonMalformed, "an access token carries sub, aud and exp")
	}
	now := v.now()
	switch err := std.ValidateWithLeeway(jwt.Expected{Issuer: v.issuer, AnyAudience: jwt.Audience{v.audience}, Time: now}, v.leeway); {
	case err == nil:
	case errors.Is(err, jwt.ErrInvalidIssuer):
		return Identity{}, reject(ReasonIssuer, "the token is from another issuer")
	case errors.Is(err, jwt.ErrInvalidAudience):
		return Identity{}, reject(ReasonAudience, "the token is not for this resource")
	case errors.Is(err, jwt.ErrExpired):
		return Identity{}, reject(ReasonExpired, "the token has expired")
	case errors.Is(err, jwt.ErrNotValidYet), errors.Is(err, jwt.ErrIssuedInTheFuture):
		return Identity{}, reject(ReasonNotYetValid, "the token is not valid yet")
	default:
		return Identity{}, reject(ReasonMalformed, "the registered claims do not validate")
	}
	groups, err := stringArray(all[v.groupsClaim])
	if err != nil {
		return Identity{}, err
	}
	return Identity{
		Issuer:   std.Issuer,
		Subject:  std.Subject,
		Audience: slices.Clone([]string(std.Audience)),
		Groups:   groups,
		Scopes:   strings.Fields(extra.Scope),
		Expiry:   std.Expiry.Time(),
	}, nil
}

// header reads the protected header's alg and kid before anything else, so
// an algorithm outside the pinned list (none among them) rejects as such.
func (v *JWTVerifier) header(token string) (jose.SignatureAlgorithm, string, error) {
	seg, _, ok := strings.Cut(token, ".")
	if !ok || strings.Count(token, ".") != 2 {
		return "", "", reject(ReasonMalformed, "not a compact JWS")
	}
	raw, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return "", "", reject(ReasonMalformed, "the header is not base64url")
	}
	var h struct {
		Alg string `json:"alg"`
		Kid string `json:"kid"`
		Typ string `json:"typ"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return "", "", reject(ReasonMalformed, "the header is not a JSON object")
	}
	alg := jose.SignatureAlgorithm(h.Alg)
	if !slices.Contains(v.algs, alg) {
		return "", "", reject(ReasonAlgorithm, "the signature algorithm is not pinned")
	}
	// RFC 9068 Section 4: "at+jwt", or the full media type.
	if typ := strings.ToLower(h.Typ); v.requireType && typ != "at+jwt" && typ != "application/at+jwt" {
		return "", "", reject(ReasonMalformed, "the token is not typed at+jwt")
	}
	return alg, h.Kid, nil
}

func stringArray(raw json.RawMessage) ([]string, error) {
	if raw == nil {
		return nil, nil
	}
	var out []string
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, reject(ReasonMalformed, "the groups claim is not an array of strings")
	}
	return out, nil
}
