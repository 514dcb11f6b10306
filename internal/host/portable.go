package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/toolgate/toolgate/internal/engine/authz"
	"github.com/toolgate/toolgate/internal/engine/fault"
)

// PortableVersion is the version of the portable issuance record.
const PortableVersion = "toolgate.authorization/1"

// maxPortableBytes bounds a portable record before it is decoded: the raw
// argument bound (base64 grows it by a third) plus room for every fact at
// its protocol limits.
func (h *Host) maxPortableBytes() int { return h.limits.MaxArgumentBytes*2 + 1<<20 }

// record is the portable issuance record: everything needed to re-run the
// complete issuance of one Authorization in another replica of the same
// Host (Sections 23–28), and what that issuance must reproduce.
//
// Its byte form is canonical: the JSON that encoding/json writes for this
// struct, whose field order is fixed, with the arguments compacted. Rebuild
// accepts only bytes that re-encode to themselves, so a changed byte
// anywhere either fails to decode, fails the canonical check, or changes a
// bound value and fails the re-run.
type record struct {
	Version         string
	Instance        string
	AuthorityDigest string
	Request         AuthorizeRequest
	RegistryDigest  string
	PolicyDigest    string
	IssuedAt        uint64
	ExpiresAt       uint64
	BindingDigest   string
}

// encode returns the portable record of a, issued for r.
func (h *Host) encode(r AuthorizeRequest, p prepared, a *authz.Authorization) ([]byte, error) {
	r.Caller = Caller{} // checked at issuance; the service logs who asked
	var args bytes.Buffer
	if err := json.Compact(&args, r.Proposal.Arguments); err != nil {
		return nil, fault.At("arguments", fault.Malformed, "the arguments are not JSON") // unreachable after request.New
	}
	r.Proposal.Arguments = args.Bytes()
	// The binding document is bound by its digest; the record carries the
	// digest only.
	r.Facts.IntentBinding = nil
	if d, ok := p.in.Intent().Binding(); ok {
		r.Facts.Intent.Binding = d.String()
	}
	return json.Marshal(record{
		Version:         PortableVersion,
		Instance:        h.instance,
		AuthorityDigest: h.authority.Digest().String(),
		Request:         r,
		RegistryDigest:  p.reg.Digest().String(),
		PolicyDigest:    p.pol.Digest().String(),
		IssuedAt:        a.IssuedAt().Seconds(),
		ExpiresAt:       a.ExpiresAt().Seconds(),
		BindingDigest:   a.Binding().Digest().String(),
	})
}

// Rebuild re-runs, in this Host's own domain, the complete issuance that
// the portable record b describes, and returns the Authorization it
// produces: the exact snapshots are re-resolved by identity and generation
// and compared by content digest, every fact is attested again, the policy
// is re-evaluated and the scope, lifetime and Consumption Binding are
// recomputed. Anything that differs rejects (fault.Mismatch at the
// differing record field); an unknown version is fault.Unsupported; bytes
// that are not the canonical record are fault.Malformed.
//
// Rebuild trusts that the record was issued by this Host's domain: the
// caller's roles are not checked again. Call it only on bytes whose
// signature by the domain's key the service has verified.
func (h *Host) Rebuild(b []byte) (*authz.Authorization, error) {
	if len(b) > h.maxPortableBytes() {
		return nil, fault.At("record", fault.LimitExceeded, "the portable record exceeds the host's bound")
	}
	var rec record
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return nil, fault.At("record", fault.Malformed, "not a portable authorization record")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fault.At("record", fault.Malformed, "data follows the portable authorization record")
	}
	if rec.Version != PortableVersion {
		return nil, fault.At("record.version", fault.Unsupported, "the portable record version is not "+PortableVersion)
	}
	again, err := json.Marshal(rec)
	if err != nil || !bytes.Equal(again, b) {
		return nil, fault.At("record", fault.Malformed, "the portable record is not in canonical form")
	}
	var args bytes.Buffer
	if json.Compact(&args, rec.Request.Proposal.Arguments) != nil || !bytes.Equal(args.Bytes(), rec.Request.Proposal.Arguments) {
		return nil, fault.At("record.request.proposal.arguments", fault.Malformed, "the recorded arguments are not compact JSON")
	}
	checks := []struct {
		path      string
		got, want string
	}{
		{"record.instance", rec.Instance, h.instance},
		{"record.authorityDigest", rec.AuthorityDigest, h.authority.Digest().String()},
	}
	for _, c := range checks {
		if c.got != c.want {
			return nil, fault.At(c.path, fault.Mismatch, "the record was issued by another host authority domain")
		}
	}
	r := rec.Request
	r.rebuilding = true
	res, err := h.Authorize(r)
	if err != nil {
		return nil, fault.Within("record.request", err)
	}
	if res.Authorization == nil {
		return nil, fault.At("record.request", fault.Mismatch, "re-running the issuance does not issue an authorization")
	}
	a := res.Authorization
	checks = []struct {
		path      string
		got, want string
	}{
		{"record.registryDigest", rec.RegistryDigest, a.RegistrySnapshot().Digest().String()},
		{"record.policyDigest", rec.PolicyDigest, a.PolicySnapshot().Digest().String()},
		{"record.bindingDigest", rec.BindingDigest, a.Binding().Digest().String()},
	}
	for _, c := range checks {
		if c.got != c.want {
			return nil, fault.At(c.path, fault.Mismatch, "re-running the issuance does not reproduce the recorded authorization")
		}
	}
	if rec.IssuedAt != a.IssuedAt().Seconds() || rec.ExpiresAt != a.ExpiresAt().Seconds() {
		return nil, fault.At("record.expiresAt", fault.Mismatch, "re-running the issuance does not reproduce the recorded lifetime")
	}
	if !bytes.Equal(res.Portable, b) {
		return nil, fault.At("record", fault.Mismatch, "re-running the issuance does not reproduce the record")
	}
	return a, nil
}
