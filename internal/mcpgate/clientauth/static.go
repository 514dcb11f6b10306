package clientauth

import (
	"context"
	"errors"
	"slices"

	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/toolgate/toolgate/internal/tokenfile"
)

// TokenFileVerifier verifies tokens against the standalone token file
// (internal/tokenfile, the service's format): token → subject and groups.
// Its identities have Issuer IssuerTokenFile, no scopes and no expiry.
type TokenFileVerifier struct {
	table *tokenfile.Table
}

// NewTokenFileVerifier verifies against table (tokenfile.Load or New).
func NewTokenFileVerifier(table *tokenfile.Table) (*TokenFileVerifier, error) {
	if table == nil {
		return nil, configError("tokenFile", "a token file verifier needs a table")
	}
	return &TokenFileVerifier{table: table}, nil
}

// Verify implements Verifier.
func (v *TokenFileVerifier) Verify(_ context.Context, token string) (Identity, error) {
	c, ok := v.table.Lookup(token)
	if !ok {
		return Identity{}, reject(ReasonUnknownToken, "the token file does not list the token")
	}
	return Identity{Issuer: IssuerTokenFile, Subject: c.Name, Groups: c.Groups}, nil
}

// TokenReviewer is the one call of the Kubernetes TokenReview API the
// verifier makes; client-go's
// kubernetes.Interface.AuthenticationV1().TokenReviews() satisfies it.
type TokenReviewer interface {
	Create(ctx context.Context, review *authnv1.TokenReview, opts metav1.CreateOptions) (*authnv1.TokenReview, error)
}

// TokenReviewVerifier verifies tokens (projected ServiceAccount tokens, in
// cluster) with the Kubernetes TokenReview API for one audience: the
// gateway's canonical resource URI, so a token requested for another
// service does not pass here. Its identities have Issuer
// IssuerTokenReview, the user name as Subject, the user's groups, the
// audience and no scopes. It caches nothing itself; Build puts a Cache in
// front of it.
type TokenReviewVerifier struct {
	reviews  TokenReviewer
	audience string
}

// NewTokenReviewVerifier reviews tokens through reviews for audience.
func NewTokenReviewVerifier(reviews TokenReviewer, audience string) (*TokenReviewVerifier, error) {
	var errs []error
	if reviews == nil {
		errs = append(errs, configError("tokenReview", "a TokenReview verifier needs the API"))
	}
	if _, err := canonicalResource(audience); err != nil {
		errs = append(errs, configError("tokenReview.audience", "%s", err.Error()))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &TokenReviewVerifier{reviews: reviews, audience: audience}, nil
}

// Verify implements Verifier.
func (v *TokenReviewVerifier) Verify(ctx context.Context, token string) (Identity, error) {
	res, err := v.reviews.Create(ctx, &authnv1.TokenReview{
		Spec: authnv1.TokenReviewSpec{Token: token, Audiences: []string{v.audience}},
	}, metav1.CreateOptions{})
	if err != nil || res == nil {
		// The apiserver cannot vouch: fail closed, and say nothing of err,
		// which a client may have built from the request.
		return Identity{}, reject(ReasonUnavailable, "the TokenReview API did not answer")
	}
	st := res.Status
	switch {
	case !st.Authenticated || st.Error != "":
		return Identity{}, reject(ReasonUnknownToken, "the TokenReview API did not authenticate the token")
	case !slices.Contains(st.Audiences, v.audience):
		return Identity{}, reject(ReasonAudience, "the token is not for this resource")
	case st.User.Username == "":
		return Identity{}, reject(ReasonMalformed, "the TokenReview named no user")
	}
	return Identity{Issuer: IssuerTokenReview, Subject: st.User.Username, Groups: slices.Clone(st.User.Groups),
		Audience: []string{v.audience}}, nil
}
