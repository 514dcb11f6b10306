// Held identities: a Consumption's three identities, written with its
// record (bucket "claims", key domain/index/identity, value the binding
// digest).

package boltstore

import (
	"context"
	"errors"

	bberrors "go.etcd.io/bbolt/errors"

	"github.com/toolgate/toolgate/internal/consume"
)

// Held reports whether one of ids is held in domain, reading what the
// journal and the file hold without joining the commit queue: an issuing
// authorize waits for no group commit and no fdatasync. An entry a batch
// has written but not yet answered may already be seen (it is about to
// be held: the answer can only be the safer one).
func (s *Store) Held(ctx context.Context, domain string, ids [3]string) error {
	if err := consume.ValidateIdentities(domain, ids); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return consume.Unavailable("held", err)
	}
	s.mu.Lock()
	closed, broken := s.closed, s.broken
	s.mu.Unlock()
	switch {
	case closed:
		return consume.Unavailable("held", bberrors.ErrDatabaseNotOpen)
	case broken:
		return consume.Unavailable("held", errJournalFailed)
	}
	// As in run: the read lock spans the read transaction.
	s.fmu.RLock()
	defer s.fmu.RUnlock()
	rtx, err := s.db.Begin(false)
	if err != nil {
		return consume.Unavailable("held", err)
	}
	defer func() { _ = rtx.Rollback() }()
	t := &txn{s: s, rtx: rtx}
	for i, id := range ids {
		if v := t.get(kindClaim, claimKey(domain, i, id)); v != nil {
			if _, err := holder(v); err != nil {
				return consume.Unavailable("held", err)
			}
			return consume.Reused(i)
		}
	}
	return nil
}

// legacyClaimLen is the shortest claim an earlier release wrote at
// issuance (issuedAt, expiresAt, the request and binding digests, three
// one-octet lengths): such an entry holds its identities until it is swept.
const legacyClaimLen = 16 + 2*consume.BindingLen + 3

var errCorruptClaim = errors.New("corrupt identity entry")

// holder is the binding digest an identity entry holds its identity for:
// nil for a legacy claim (held for no binding a Consume can name), and an
// error (a corrupt file, which fails closed) for anything else.
func holder(v []byte) ([]byte, error) {
	switch {
	case len(v) == consume.BindingLen:
		return v, nil
	case len(v) >= legacyClaimLen:
		return nil, nil
	}
	return nil, errCorruptClaim
}

// claimKey is "<domain>/<i>/<identity>": no part contains '/', and i (the
// identity's index) keeps the three identity kinds apart.
func claimKey(domain string, i int, id string) []byte {
	b := make([]byte, 0, len(domain)+3+len(id))
	b = append(b, domain...)
	b = append(b, '/', byte('0'+i), '/')
	return append(b, id...)
}
