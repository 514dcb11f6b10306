// Claims: an issuance's three identities, read and written in one
// transaction (bucket "claims", key domain/index/identity).

package boltstore

import (
	"context"
	"encoding/binary"
	"errors"
	"time"

	"github.com/toolgate/toolgate/internal/consume"
)

// Claim records c's identities, decided by consume.Resolve over what the
// store holds for them: all three are written, or none.
func (s *Store) Claim(ctx context.Context, c consume.Claim) (consume.Claim, error) {
	if err := c.Validate(); err != nil {
		return consume.Claim{}, err
	}
	if err := ctx.Err(); err != nil {
		return consume.Claim{}, consume.Unavailable("claim", err)
	}
	var keys [3][]byte
	for i, id := range c.Identities {
		keys[i] = claimKey(c.Domain, i, id)
	}
	value := encodeClaim(c)
	exp := expirySeconds(c.ExpiresAt)
	var (
		out     consume.Claim
		refusal error
	)
	err := s.commit(func(t *txn) error {
		out, refusal = consume.Claim{}, nil // a failed batch runs this function again alone
		var stored [3]*consume.Claim
		for i, k := range keys {
			if v := t.get(kindClaim, k); v != nil {
				got, err := decodeClaim(c.Domain, v)
				if err != nil {
					return err
				}
				stored[i] = &got
			}
		}
		var record bool
		out, record, refusal = consume.Resolve(c, stored)
		if !record || refusal != nil {
			return nil
		}
		for _, k := range keys {
			t.put(entry{kind: kindClaim, exp: exp, key: k, value: value})
		}
		return nil
	})
	switch {
	case err != nil:
		return consume.Claim{}, consume.Unavailable("commit claim", err)
	case refusal != nil:
		return consume.Claim{}, refusal
	}
	return out, nil
}

// claimKey is "<domain>/<i>/<identity>": no part contains '/', and i (the
// identity's index) keeps the three identity kinds apart.
func claimKey(domain string, i int, id string) []byte {
	b := make([]byte, 0, len(domain)+3+len(id))
	b = append(b, domain...)
	b = append(b, '/', byte('0'+i), '/')
	return append(b, id...)
}

// encodeClaim is issuedAt and expiresAt (8 octets each, big-endian Unix
// seconds), the request and binding digests (64 hex digits each) and the
// three identities, each after one length octet. The domain is the key's.
func encodeClaim(c consume.Claim) []byte {
	b := make([]byte, 16, 16+2*consume.DigestLen+3+3*consume.MaxAuthorizationIDLen)
	binary.BigEndian.PutUint64(b[0:8], uint64(c.IssuedAt.Unix()))
	binary.BigEndian.PutUint64(b[8:16], uint64(c.ExpiresAt.Unix()))
	b = append(b, c.Request...)
	b = append(b, c.Binding...)
	for _, id := range c.Identities {
		b = append(b, byte(len(id)))
		b = append(b, id...)
	}
	return b
}

var errCorruptClaim = errors.New("corrupt claim")

// decodeClaim reads encodeClaim's form; anything else is a corrupt file
// (which fails closed: unavailable).
func decodeClaim(domain string, v []byte) (consume.Claim, error) {
	const fixed = 16 + 2*consume.DigestLen
	if len(v) < fixed {
		return consume.Claim{}, errCorruptClaim
	}
	c := consume.Claim{
		Domain:    domain,
		IssuedAt:  time.Unix(int64(binary.BigEndian.Uint64(v[0:8])), 0),
		ExpiresAt: time.Unix(int64(binary.BigEndian.Uint64(v[8:16])), 0),
		Request:   string(v[16 : 16+consume.DigestLen]),
		Binding:   string(v[16+consume.DigestLen : fixed]),
	}
	rest := v[fixed:]
	for i := range c.Identities {
		if len(rest) < 1 || len(rest) < 1+int(rest[0]) {
			return consume.Claim{}, errCorruptClaim
		}
		c.Identities[i] = string(rest[1 : 1+int(rest[0])])
		rest = rest[1+int(rest[0]):]
	}
	if len(rest) != 0 {
		return consume.Claim{}, errCorruptClaim
	}
	return c, nil
}
