package host

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"

	"github.com/toolgate/toolgate/internal/artifact"
	"github.com/toolgate/toolgate/internal/engine/authz"
	"github.com/toolgate/toolgate/internal/engine/evidence"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/lineage"
	"github.com/toolgate/toolgate/internal/engine/principal"
)

// PortableVersion is the version of the portable issuance record. Version
// 2 is the binary form below; version 1 (canonical JSON) is no longer read
// (docs/decisions.md).
const PortableVersion = "toolgate.authorization/2"

// PortableConfirmedVersion is the version of the portable record of a
// confirmed Authorization (toolgate.confirmations/1): version 2's fields,
// then the confirmation's (confirmedRecord). A Phase 1–6 record is
// unchanged.
const PortableConfirmedVersion = "toolgate.authorization-confirmed/1"

// maxPortableBytes bounds a portable record before it is decoded: the raw
// argument bound plus room for every fact at its protocol limits.
func (h *Host) maxPortableBytes() int { return h.limits.MaxArgumentBytes*2 + 1<<20 }

// record is the portable issuance record: everything needed to re-run the
// complete issuance of one Authorization in another replica of the same
// Host (Sections 23–28), and what that issuance must reproduce.
//
// Its byte form is a compact binary encoding (walkRecord): the fields in
// one fixed order, each string and byte string as its uvarint length and
// its bytes, each number as a uvarint, each list as its uvarint count and
// its elements, an optional fact as a presence byte (0 or 1), nothing
// else; the version comes first. The encoding is a function of the
// record, so Rebuild accepts only bytes that the re-run issuance encodes
// to exactly: a changed byte anywhere either fails to decode, or changes a
// bound value and fails the re-run, or fails that last comparison.
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
	// Confirmed is set exactly for PortableConfirmedVersion.
	Confirmed *confirmedRecord
}

// confirmedRecord is what a confirmed issuance adds: the confirmation
// binding's own fields (the rest is the request's) and the approval. A
// rebuild builds the binding again from the re-run Decision, attests the
// approval again with the domain's confirmer attester, accepts it and
// issues: every rule of the extension is checked again.
type confirmedRecord struct {
	Requester                          string
	NamedConfirmers                    []string
	ExcludeRequester                   bool
	RequestedAt, BindingExpiresAt      uint64
	ID, Confirmer                      string
	ConfirmedAt, ConfirmationExpiresAt uint64
}

// encode returns the portable record of a, issued for r.
func (h *Host) encode(r AuthorizeRequest, p prepared, a *authz.Authorization) ([]byte, error) {
	return h.encodeRecord(r, p, a, nil)
}

// encodeRecord is encode, for a confirmed Authorization when cr is set.
func (h *Host) encodeRecord(r AuthorizeRequest, p prepared, a *authz.Authorization, cr *confirmedRecord) ([]byte, error) {
	r.Caller = Caller{} // checked at issuance; the service logs who asked
	var args bytes.Buffer
	args.Grow(len(r.Proposal.Arguments))
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
	rec := record{
		Version:         PortableVersion,
		Instance:        h.instance,
		AuthorityDigest: h.authority.Digest().String(),
		Request:         r,
		RegistryDigest:  p.reg.Digest().String(),
		PolicyDigest:    p.pol.Digest().String(),
		IssuedAt:        a.IssuedAt().Seconds(),
		ExpiresAt:       a.ExpiresAt().Seconds(),
		BindingDigest:   a.Binding().Digest().String(),
	}
	if cr != nil {
		rec.Version, rec.Confirmed = PortableConfirmedVersion, cr
	}
	var size recordSizer
	walkRecord(&size, &rec)
	w := &recordWriter{b: make([]byte, 0, size.n)}
	walkRecord(w, &rec)
	return w.b, nil
}

// recordCodec is one direction of the record's encoding: walkRecord visits
// every field in the one fixed order, and the writer appends it or the
// reader fills it in. One walk for both keeps them symmetric.
type recordCodec interface {
	str(*string)
	strs(*[]string)
	blob(*[]byte)
	num(*uint64)
	flag(*bool)
	// count encodes n or decodes a list length (bounded by the bytes left).
	count(n int) int
}

func walkRecord(c recordCodec, rec *record) {
	c.str(&rec.Version)
	if rd, ok := c.(*recordReader); ok && rd.fail == nil && rec.Version != PortableVersion && rec.Version != PortableConfirmedVersion {
		rd.fail = errVersion()
		return
	}
	c.str(&rec.Instance)
	c.str(&rec.AuthorityDigest)
	r := &rec.Request
	c.num(&r.Time)
	c.str(&r.Proposal.ProposalID)
	c.str(&r.Proposal.ToolID)
	c.str(&r.Proposal.Version)
	c.blob(&r.Proposal.Arguments)
	c.str(&r.Registry.SnapshotID)
	c.str(&r.Registry.Generation)
	c.str(&r.Policy.SnapshotID)
	c.str(&r.Policy.SnapshotGeneration)
	c.str(&r.Policy.PolicyID)
	c.str(&r.Policy.PolicyGeneration)
	c.str(&r.DecisionID)
	f := &r.Facts
	c.str(&f.Assessment.ProposalID)
	c.str(&f.Assessment.AssessmentID)
	c.strs(&f.Assessment.ProvenanceIDs)
	c.strs(&f.Assessment.InfluenceIDs)
	c.str(&f.SecurityContext.ID)
	walkIdentity(c, &f.SecurityContext.Identity)
	c.str(&f.SecurityContext.Assurance)
	c.strs(&f.SecurityContext.Methods)
	walkWindow(c, &f.ContextValidity)
	c.str(&f.Intent.ID)
	walkIdentity(c, &f.Intent.Identity)
	c.strs(&f.Intent.Capabilities)
	c.strs(&f.Intent.Resources)
	c.str(&f.Intent.RenewalGeneration)
	c.str(&f.Intent.Display)
	c.str(&f.Intent.Binding)
	c.str(&f.IntentTarget)
	walkWindow(c, &f.IntentValidity)
	// f.IntentBinding is never recorded: Intent.Binding holds its digest.
	present := f.Delegation != nil
	c.flag(&present)
	if present {
		if f.Delegation == nil {
			f.Delegation = &evidence.DelegationDraft{}
		}
		c.str(&f.Delegation.ID)
		c.str(&f.Delegation.Subject)
	}
	walkWindow(c, &f.DelegationValidity)
	walkList(c, &f.ProvenanceRecords, func(x *lineage.RecordDraft) {
		c.str(&x.ID)
		c.str(&x.Source)
		c.str(&x.Custody)
		c.strs(&x.Transformations)
		c.str(&x.Verification)
	})
	walkWindow(c, &f.ProvenanceValidity)
	walkList(c, &f.InfluenceCollections, func(x *lineage.CollectionDraft) {
		c.str(&x.Boundary)
		c.str(&x.Completeness)
		c.str(&x.Evidence)
	})
	walkList(c, &f.InfluenceNodes, func(x *lineage.NodeDraft) {
		c.str(&x.ID)
		c.str(&x.Kind)
		c.str(&x.Boundary)
		c.strs(&x.Parents)
	})
	walkWindow(c, &f.InfluenceValidity)
	c.strs(&r.RequestedCapabilities)
	c.strs(&r.RequestedResources)
	c.str(&r.AuthorizationID)
	c.str(&r.ReplayID)
	c.str(&r.ConsumptionID)
	c.num(&r.MaxLifetime)
	c.str(&rec.RegistryDigest)
	c.str(&rec.PolicyDigest)
	c.num(&rec.IssuedAt)
	c.num(&rec.ExpiresAt)
	c.str(&rec.BindingDigest)
	if rec.Version == PortableConfirmedVersion {
		if rec.Confirmed == nil {
			rec.Confirmed = &confirmedRecord{}
		}
		x := rec.Confirmed
		c.str(&x.Requester)
		c.strs(&x.NamedConfirmers)
		c.flag(&x.ExcludeRequester)
		c.num(&x.RequestedAt)
		c.num(&x.BindingExpiresAt)
		c.str(&x.ID)
		c.str(&x.Confirmer)
		c.num(&x.ConfirmedAt)
		c.num(&x.ConfirmationExpiresAt)
	}
}

// walkList encodes the length of *s or decodes it (allocating the list
// when reading), then walks every element with elem.
func walkList[T any](c recordCodec, s *[]T, elem func(x *T)) {
	if n := c.count(len(*s)); n > 0 && *s == nil {
		*s = make([]T, n)
	}
	for i := range *s {
		elem(&(*s)[i])
	}
}

func walkIdentity(c recordCodec, d *principal.Draft) {
	c.str(&d.Subject)
	c.str(&d.Tenant)
	c.str(&d.Session)
	c.flag(&d.SessionIndependent)
	c.str(&d.Delegation)
}

func walkWindow(c recordCodec, w *Window) {
	c.num(&w.IssuedAt)
	c.num(&w.NotBefore)
	c.num(&w.ExpiresAt)
}

// recordWriter appends the record's encoding to b.
type recordWriter struct{ b []byte }

func (w *recordWriter) str(s *string) {
	w.b = binary.AppendUvarint(w.b, uint64(len(*s)))
	w.b = append(w.b, *s...)
}

func (w *recordWriter) strs(s *[]string) {
	w.count(len(*s))
	for i := range *s {
		w.str(&(*s)[i])
	}
}

func (w *recordWriter) blob(b *[]byte) {
	w.b = binary.AppendUvarint(w.b, uint64(len(*b)))
	w.b = append(w.b, *b...)
}

func (w *recordWriter) num(n *uint64) { w.b = binary.AppendUvarint(w.b, *n) }

func (w *recordWriter) flag(f *bool) {
	if *f {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

func (w *recordWriter) count(n int) int {
	w.b = binary.AppendUvarint(w.b, uint64(n))
	return n
}

// recordSizer counts the bytes recordWriter will write, so that the record
// is written into one allocation.
type recordSizer struct{ n int }

// uvarintLen is the length of v's uvarint: 7 bits per byte.
func uvarintLen(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

func (z *recordSizer) str(s *string)  { z.n += uvarintLen(uint64(len(*s))) + len(*s) }
func (z *recordSizer) blob(b *[]byte) { z.n += uvarintLen(uint64(len(*b))) + len(*b) }
func (z *recordSizer) num(n *uint64)  { z.n += uvarintLen(*n) }
func (z *recordSizer) flag(*bool)     { z.n++ }
func (z *recordSizer) count(n int) int {
	z.n += uvarintLen(uint64(n))
	return n
}

func (z *recordSizer) strs(s *[]string) {
	z.count(len(*s))
	for i := range *s {
		z.str(&(*s)[i])
	}
}

func errVersion() error {
	return fault.At("record.version", fault.Unsupported, "the portable record version is not "+PortableVersion)
}

func errMalformed() error {
	return fault.At("record", fault.Malformed, "not a portable authorization record")
}

// recordReader decodes a record from b; the first failure sticks and every
// later read yields zero values.
type recordReader struct {
	b    []byte
	fail error
}

func (r *recordReader) uvarint() uint64 {
	if r.fail != nil {
		return 0
	}
	n, k := binary.Uvarint(r.b)
	if k <= 0 {
		r.fail = errMalformed()
		return 0
	}
	r.b = r.b[k:]
	return n
}

// take returns the next n bytes.
func (r *recordReader) take() []byte {
	n := r.uvarint()
	if r.fail != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.fail = errMalformed()
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

func (r *recordReader) str(s *string) { *s = string(r.take()) }

func (r *recordReader) strs(s *[]string) {
	n := r.count(0)
	if n == 0 {
		return
	}
	*s = make([]string, n)
	for i := range *s {
		r.str(&(*s)[i])
	}
}

func (r *recordReader) blob(b *[]byte) {
	if v := r.take(); len(v) > 0 {
		*b = bytes.Clone(v)
	}
}

func (r *recordReader) num(n *uint64) { *n = r.uvarint() }

func (r *recordReader) flag(f *bool) {
	switch {
	case r.fail != nil:
	case len(r.b) == 0 || r.b[0] > 1:
		r.fail = errMalformed()
	default:
		*f = r.b[0] == 1
		r.b = r.b[1:]
	}
}

// count reads a list length; every element takes at least one byte, so a
// length beyond the bytes left is malformed (and allocates nothing).
func (r *recordReader) count(int) int {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail = errMalformed()
		return 0
	}
	return int(n)
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
// caller's roles are not checked again. That trust is why it takes an
// artifact.Verified, which only a successful signature check
// (artifact.Open) constructs, rather than bytes: the zero Verified rejects
// (fault.Missing at "record"). A record signed by another domain's key
// fails the instance and authority comparison below.
func (h *Host) Rebuild(v artifact.Verified) (*authz.Authorization, error) {
	if v.IsZero() {
		return nil, fault.At("record", fault.Missing, "only a record whose signature verified is rebuilt")
	}
	return h.rebuild(v.Record())
}

// rebuild is Rebuild of the verified record bytes b.
func (h *Host) rebuild(b []byte) (*authz.Authorization, error) {
	if len(b) > h.maxPortableBytes() {
		return nil, fault.At("record", fault.LimitExceeded, "the portable record exceeds the host's bound")
	}
	if len(b) > 0 && b[0] == '{' {
		// Version 1 was a JSON object; a binary record starts with the
		// version's length, 24.
		return nil, errVersion()
	}
	var rec record
	rd := &recordReader{b: b}
	walkRecord(rd, &rec)
	switch {
	case rd.fail != nil:
		return nil, rd.fail
	case len(rd.b) != 0:
		return nil, fault.At("record", fault.Malformed, "data follows the portable authorization record")
	}
	// Whether b is the canonical encoding of rec is decided at the end:
	// the re-run issuance must encode to b exactly.
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
	var res *Result
	var err error
	if rec.Confirmed != nil {
		res, err = h.rebuildConfirmed(r, rec.Confirmed)
	} else {
		res, err = h.Authorize(r)
	}
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
