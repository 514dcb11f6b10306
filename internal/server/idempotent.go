package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/consume"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/serving"
)

// Idempotent authorize (docs/api.md, "Retries are safe"). An issued Authorization's three
// identities are claimed in the Consumption store before it is handed out
// (consume.Store.Claim): an identity backs one consumable Authorization
// per domain, and an identical request is answered with the same one.
// Nothing but the claim is stored: issuance is a function of the request
// and the time, and Ed25519 signatures are deterministic, so re-running
// the request at the claim's IssuedAt reproduces the artifact byte for
// byte (TestIssuanceIsDeterministic); the claim's binding digest proves
// that it did.

// issued is an Authorization ready to be handed out: the Host's result
// and its sealed envelope, and whether it answers a retry.
type issued struct {
	res      *host.Result
	envelope string
	retry    bool
}

// claim records the identities of the Authorization first issued for req
// at q.now, or finds the claim an identical request made before and
// re-issues that Authorization at its time while it has not expired. Any
// other answer hands out nothing: an identity claimed by another request
// is 409 identityReused at that identity, an identical request after the
// Authorization expired 409 identityExpired, a store that cannot answer
// 503 unavailable.
func (s *Server) claim(ctx context.Context, q *call, d *serving.Domain, req *client.AuthorizeRequest, first issued) (issued, int, *client.Error) {
	a := first.res.Authorization
	c := consume.Claim{
		Domain:     d.Instance(),
		Identities: [3]string{a.ID().String(), a.ReplayID().String(), a.ConsumptionID().String()},
		Request:    RequestDigest(req, q.caller),
		Binding:    bindingHex(first.res),
		IssuedAt:   time.Unix(int64(a.IssuedAt().Seconds()), 0),
		ExpiresAt:  time.Unix(int64(a.ExpiresAt().Seconds()), 0),
	}
	got, err := s.store.Claim(ctx, c)
	var reused *consume.IdentityReusedError
	switch {
	case err == nil && got.Same(c):
		return first, 0, nil
	case err == nil && !q.now.Before(got.ExpiresAt):
		// The same request's Authorization has expired (consumed or not:
		// a Consumption record may already be swept, so the service cannot
		// tell). A dead artifact is no answer, and a fresh one under the
		// same identities could be consumed a second time: refuse.
		return issued{}, http.StatusConflict, &client.Error{Code: codeIdentityExpired, Path: consume.IdentityFields[consume.AuthorizationIdentity],
			Message: "these identities back an Authorization of this request that has expired; an expired Authorization is not handed out again: use new identities"}
	case err == nil:
		// The same request claimed these identities at got.IssuedAt.
		res, envelope, err := d.Authorize(HostRequest(*req, q.caller, uint64(got.IssuedAt.Unix())))
		if err != nil || res.Authorization == nil || bindingHex(res) != got.Binding {
			// The domain no longer issues what it issued then (its
			// configuration changed): the identities stay with the
			// Authorization they back.
			return issued{}, http.StatusConflict, &client.Error{Code: codeIdentityReused, Path: consume.IdentityFields[consume.AuthorizationIdentity],
				Message: "these identities back an earlier Authorization this domain no longer issues the same way; use new identities"}
		}
		return issued{res: res, envelope: envelope, retry: true}, 0, nil
	case errors.As(err, &reused):
		return issued{}, http.StatusConflict, &client.Error{Code: codeIdentityReused, Path: reused.Field,
			Message: "this identity backs an Authorization issued for a different request; use a new identity (an identical request is answered with the same Authorization)"}
	default:
		return issued{}, http.StatusServiceUnavailable, &client.Error{Code: "unavailable",
			Message: "the consumption store did not answer, so no authorization was issued; retry the identical request"}
	}
}

// Codes of an authorize refused for its identities: one backs another
// request's Authorization (identityReused), or they back this request's
// Authorization, which has expired (identityExpired).
const (
	codeIdentityReused  = "identityReused"
	codeIdentityExpired = "identityExpired"
)

// bindingHex is the issued Authorization's Consumption Binding digest as
// 64 hex digits.
func bindingHex(res *host.Result) string {
	d := res.Authorization.Binding().Digest().String()
	return d[len("sha256:"):]
}

// RequestDigest is the digest of an authorize request as the service
// decoded it, for caller: two requests are the same request exactly when
// their digests are equal. It covers the caller's name and groups (as a
// set), every member of the request as decoded — so the layout of the body
// (whitespace, member order, escapes) does not count — and the raw bytes
// of the arguments and of the intent binding, which the Host hashes as
// sent. A retry must send those two byte for byte.
func RequestDigest(req *client.AuthorizeRequest, caller host.Caller) string {
	d := digesters.Get().(*requestDigester)
	defer d.release()
	// The fields are written into one buffer and hashed at once: the same
	// octets a streaming hasher would see, without a hash.Hash interface
	// that every written slice would escape through.
	b := appendDigestField(d.octets[:0], "toolgate.authorize-request/1")
	b = appendDigestField(b, caller.Name)
	d.groups = append(d.groups[:0], caller.Groups...)
	slices.Sort(d.groups)
	d.groups = slices.Compact(d.groups)
	b = binary.BigEndian.AppendUint64(b, uint64(len(d.groups)))
	for _, g := range d.groups {
		b = appendDigestField(b, g)
	}
	d.rest = *req
	d.rest.Proposal.Arguments, d.rest.Facts.Intent.Binding = nil, nil
	// Encode writes what Marshal returns (struct order: deterministic;
	// HTML-safe quoting) and a newline, which is not hashed.
	if err := d.enc.Encode(&d.rest); err != nil {
		// Every member is a string, number, bool or a list or struct of
		// them: Encode cannot fail. Were it to, the empty digest fails
		// Claim.Validate and nothing is issued.
		return ""
	}
	b = appendDigestField(b, bytes.TrimSuffix(d.buf.Bytes(), []byte("\n")))
	b = appendDigestField(b, req.Proposal.Arguments)
	b = appendDigestField(b, req.Facts.Intent.Binding)
	d.octets = b
	sum := sha256.Sum256(b)
	var out [2 * sha256.Size]byte
	hex.Encode(out[:], sum[:])
	return string(out[:])
}

// appendDigestField appends f after its length, so no two sequences of
// fields write the same octets.
func appendDigestField[T ~string | ~[]byte](b []byte, f T) []byte {
	return append(binary.BigEndian.AppendUint64(b, uint64(len(f))), f...)
}

// requestDigester is RequestDigest's reusable state (pooled: a request is
// encoded on every issuing authorize; the pool only holds memory and never
// affects a digest): the octets hashed, a copy of the request without its
// raw members, its encoder and buffer, the groups.
type requestDigester struct {
	octets []byte
	rest   client.AuthorizeRequest
	buf    bytes.Buffer
	enc    *json.Encoder
	groups []string
}

var digesters = sync.Pool{New: func() any {
	d := &requestDigester{}
	d.enc = json.NewEncoder(&d.buf)
	return d
}}

// release returns d to the pool without its references to the request's
// and the caller's strings (the byte buffers are overwritten by the next
// digest), unless a buffer grew outsized.
func (d *requestDigester) release() {
	d.rest = client.AuthorizeRequest{}
	clear(d.groups[:cap(d.groups)])
	d.buf.Reset()
	if cap(d.octets) > 64<<10 || d.buf.Cap() > 64<<10 {
		return
	}
	digesters.Put(d)
}
