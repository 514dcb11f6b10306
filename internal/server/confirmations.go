package server

import (
	"cmp"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/serving"
)

// The confirmations API, /v1/confirmations (toolgate.confirmations/1,
// docs/confirmation.md): confirmation requests opened by authorize, listed
// and shown to who may see them, answered once by a confirmer. Requests
// live in this replica's memory until they expire; the durable,
// cluster-wide store is the Confirmation resource to come.

// maxConfirmations bounds the confirmation requests a replica keeps.
const maxConfirmations = 10_000

// confirmationEntry is one request and its answer; guarded by the store's
// mutex.
type confirmationEntry struct {
	domain  *serving.Domain
	binding *host.ConfirmationBinding
	toolID  string
	version string
	answer  *host.Confirmation
	used    bool
}

type confirmationStore struct {
	mu   sync.Mutex
	byID map[string]*confirmationEntry
}

func newConfirmationStore() *confirmationStore {
	return &confirmationStore{byID: map[string]*confirmationEntry{}}
}

// confirmationID is the hex of a binding digest: public, content-derived.
func confirmationID(b *host.ConfirmationBinding) string {
	return strings.TrimPrefix(b.Digest().String(), "sha256:")
}

// open keeps e, first dropping requests whose binding and answer have
// expired by now; it refuses when the store is full.
func (c *confirmationStore) open(e *confirmationEntry, now uint64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.byID) >= maxConfirmations {
		for id, old := range c.byID {
			if old.closedBy(now) {
				delete(c.byID, id)
			}
		}
	}
	if len(c.byID) >= maxConfirmations {
		return errConfirmationsFull
	}
	id := confirmationID(e.binding)
	if _, ok := c.byID[id]; !ok {
		c.byID[id] = e
	}
	return nil
}

var errConfirmationsFull = &refusal{e: client.Error{Code: "unavailable", Message: "too many open confirmation requests; retry later"}}

func (e *confirmationEntry) closedBy(now uint64) bool {
	end := e.binding.ExpiresAt().Seconds()
	if e.answer != nil {
		end = max(end, e.answer.ExpiresAt().Seconds())
	}
	return now >= end
}

func (e *confirmationEntry) state(now uint64) string {
	switch {
	case e.used:
		return "used"
	case e.answer != nil && e.answer.Answer().String() == "deny":
		return "denied"
	case e.answer != nil && now < e.answer.ExpiresAt().Seconds():
		return "approved"
	case e.answer == nil && now < e.binding.ExpiresAt().Seconds():
		return "pending"
	}
	return "expired"
}

// visible reports whether caller may see e: a confirmer of its domain, or
// the requester.
func (e *confirmationEntry) visible(caller host.Caller) bool {
	return caller.Name == e.binding.Requester() || e.domain.IsConfirmer(caller)
}

func (e *confirmationEntry) wire(now uint64) client.Confirmation {
	b := e.binding
	d := b.Decision()
	in := d.Input()
	id := b.Subject()
	req := b.Requirement()
	out := client.Confirmation{
		ID: confirmationID(b), Binding: b.Digest().String(),
		HostAuthority: client.HostAuthorityRef{Namespace: e.domain.Namespace(), Name: e.domain.Name()},
		State:         e.state(now), Requester: b.Requester(),
		Subject: client.Identity{
			Subject: id.Subject().String(), Tenant: id.Tenant().String(), Session: id.Session().ID().String(),
			SessionIndependent: id.Session().IsIndependent(), Delegation: id.Delegation().String(),
		},
		ToolID: e.toolID, Version: e.version, Decision: WireDecision(d),
		RequestedCapabilities: []string{}, RequestedResources: []string{},
		AuthorizationID: b.AuthorizationID().String(),
		RequestedAt:     b.RequestedAt().Seconds(), ExpiresAt: b.ExpiresAt().Seconds(),
		NamedConfirmers: req.Subjects, ExcludesRequester: req.ExcludeRequester,
	}
	for _, c := range in.RequestedCapabilities() {
		out.RequestedCapabilities = append(out.RequestedCapabilities, c.String())
	}
	for _, r := range in.RequestedResources() {
		out.RequestedResources = append(out.RequestedResources, r.String())
	}
	if a := e.answer; a != nil {
		out.Confirmer, out.AnsweredAt, out.AnswerExpiresAt = a.Confirmer(), a.ConfirmedAt().Seconds(), a.ExpiresAt().Seconds()
	}
	return out
}

// openConfirmation opens the confirmation request of a requireConfirmation
// Decision in a domain that takes confirmations; nil otherwise.
func (s *Server) openConfirmation(q *call, d *serving.Domain, r host.AuthorizeRequest, res *host.Result, named []string) (*client.Confirmation, error) {
	if !d.ConfirmationsEnabled() || !host.IsRequireConfirmation(res.Decision) {
		return nil, nil
	}
	b, err := d.RequestConfirmation(r, res, named)
	if err != nil {
		return nil, err
	}
	e := &confirmationEntry{domain: d, binding: b, toolID: r.Proposal.ToolID, version: r.Proposal.Version}
	now := uint64(q.now.Unix())
	if err := s.confirmations.open(e, now); err != nil {
		return nil, err
	}
	q.entry.Confirmation, q.entry.Requester = b.Digest().String(), b.Requester()
	w := e.wire(now)
	return &w, nil
}

// confirmationVerb authenticates, reads the clock, runs h and writes the
// response, the decision-log line and the metrics, as post does for the
// POST verbs; the mux has checked the method (GET or POST).
func (s *Server) confirmationVerb(verb string, h func(q *call, r *http.Request) (int, any)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now() // for the latency metric only
		q := &call{verb: verb, entry: Entry{Verb: verb}}
		var status int
		var body any
		if caller, err := s.auth.Authenticate(r); err != nil {
			status, body = http.StatusUnauthorized, client.Error{Code: "unauthenticated", Message: "a valid bearer token is required"}
		} else {
			q.caller, q.entry.Caller = caller, caller.Name
			status, body = h(q, r)
		}
		s.readClock(q)
		q.entry.Time = UnixTime(q.now.Unix())
		if e, ok := body.(client.Error); ok {
			q.entry.Code, q.entry.Path = e.Code, e.Path
			if q.entry.Result == "" {
				q.entry.Result = "rejected"
			}
			s.writeError(w, status, e)
		} else {
			s.writeJSON(w, status, body)
		}
		s.log.Write(q.entry)
		s.metrics.duration.get([2]string{verb, q.entry.Result}).Observe(time.Since(start).Seconds())
	}
}

func (s *Server) listConfirmations(q *call, _ *http.Request) (int, any) {
	s.readClock(q)
	now := uint64(q.now.Unix())
	out := client.ConfirmationList{Confirmations: []client.Confirmation{}}
	s.confirmations.mu.Lock()
	for _, e := range s.confirmations.byID {
		if e.visible(q.caller) && e.state(now) == "pending" {
			out.Confirmations = append(out.Confirmations, e.wire(now))
		}
	}
	s.confirmations.mu.Unlock()
	// No output depends on map order.
	slices.SortFunc(out.Confirmations, func(a, b client.Confirmation) int {
		return cmp.Or(cmp.Compare(a.RequestedAt, b.RequestedAt), strings.Compare(a.ID, b.ID))
	})
	q.entry.Result = "listed"
	return http.StatusOK, out
}

// lookup returns the entry id names when the caller may see it; an entry
// the caller may not see is as absent as one that does not exist.
func (s *Server) lookup(q *call, id string) (*confirmationEntry, *client.Error) {
	e, ok := s.confirmations.byID[id]
	if !ok || !e.visible(q.caller) {
		return nil, &client.Error{Code: "confirmationNotFound", Path: "confirmation",
			Message: "no confirmation request with this identity is visible to the caller"}
	}
	q.entry.Namespace, q.entry.HostAuthority = e.domain.Namespace(), e.domain.Name()
	q.entry.Confirmation, q.entry.Requester = e.binding.Digest().String(), e.binding.Requester()
	return e, nil
}

func (s *Server) showConfirmation(q *call, r *http.Request) (int, any) {
	s.readClock(q)
	s.confirmations.mu.Lock()
	defer s.confirmations.mu.Unlock()
	e, err := s.lookup(q, r.PathValue("id"))
	if err != nil {
		return http.StatusNotFound, *err
	}
	q.entry.Result = "shown"
	return http.StatusOK, e.wire(uint64(q.now.Unix()))
}

// answerConfirmation records a confirmer's approve or deny. One answer per
// request: a second is confirmationAnswered, so a "no" stays final.
func (s *Server) answerConfirmation(answer string) func(q *call, r *http.Request) (int, any) {
	return func(q *call, r *http.Request) (int, any) {
		if r.ContentLength > 0 {
			return http.StatusBadRequest, client.Error{Code: "unknownField", Message: "an answer has no body"}
		}
		s.readClock(q)
		now := uint64(q.now.Unix())
		s.confirmations.mu.Lock()
		defer s.confirmations.mu.Unlock()
		e, ref := s.lookup(q, r.PathValue("id"))
		if ref != nil {
			return http.StatusNotFound, *ref
		}
		if e.answer != nil {
			return http.StatusConflict, client.Error{Code: "confirmationAnswered", Path: "confirmation",
				Message: "this confirmation request has been answered; an answer is final"}
		}
		c, err := e.domain.Confirm(q.caller, e.binding, "c-"+confirmationID(e.binding)[:40], answer, now)
		if err != nil {
			status, ae := confirmationRefusal(err)
			return status, ae
		}
		e.answer = c
		q.entry.Result = "approved"
		if answer == "deny" {
			q.entry.Result = "denied"
		}
		return http.StatusOK, e.wire(now)
	}
}

// confirmationRefusal is the API reason of a refused answer or use
// (docs/confirmation.md, "Refusal codes").
func confirmationRefusal(err error) (int, client.Error) {
	var fe *fault.Error
	if !errors.As(err, &fe) {
		return http.StatusInternalServerError, apiError(err)
	}
	e := client.Error{Path: fe.Path, Message: fe.Rule}
	switch {
	case fe.Code == fault.Unauthorized && fe.Path == "confirmer.requester":
		e.Code = "selfConfirmation"
		return http.StatusForbidden, e
	case fe.Code == fault.Unauthorized && fe.Path == "confirmer":
		e.Code = "confirmerNotAuthorized"
		return http.StatusForbidden, e
	case fe.Code == fault.Expired:
		e.Code = "confirmationExpired"
		return http.StatusConflict, e
	case fe.Code == fault.Unsupported && fe.Path == "confirmations":
		e.Code = "confirmationsDisabled"
		return http.StatusNotFound, e
	case fe.Code == fault.Ineligible && fe.Path == "confirmation.answer":
		e.Code = "confirmationDenied"
		return http.StatusConflict, e
	case fe.Code == fault.Mismatch:
		e.Code = "confirmationMismatch"
		return http.StatusConflict, e
	}
	return statusOf(err), apiError(err)
}

// confirmationRoutes adds /v1/confirmations to mux.
func (s *Server) confirmationRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/confirmations", s.confirmationVerb("confirmation.list", s.listConfirmations))
	mux.HandleFunc("GET /v1/confirmations/{id}", s.confirmationVerb("confirmation.show", s.showConfirmation))
	mux.HandleFunc("POST /v1/confirmations/{id}/approve", s.confirmationVerb("confirmation.approve", s.answerConfirmation("approve")))
	mux.HandleFunc("POST /v1/confirmations/{id}/deny", s.confirmationVerb("confirmation.deny", s.answerConfirmation("deny")))
}

// authorizeConfirmed issues the Authorization of a call whose confirmation
// request id was approved: only its requester, only while the approval is
// usable, once (the request is marked used when an Authorization is
// issued; a refused attempt leaves it usable for the exact call).
func (s *Server) authorizeConfirmed(q *call, d *serving.Domain, r host.AuthorizeRequest, id string) (*host.Result, string, int, *client.Error) {
	now := uint64(q.now.Unix())
	s.confirmations.mu.Lock()
	defer s.confirmations.mu.Unlock()
	e, ref := s.lookup(q, id)
	if ref != nil || !e.domain.Same(d) {
		return nil, "", http.StatusNotFound, &client.Error{Code: "confirmationNotFound", Path: "confirmation",
			Message: "no confirmation request with this identity is visible to the caller in this domain"}
	}
	switch e.state(now) {
	case "used":
		return nil, "", http.StatusConflict, &client.Error{Code: "confirmationUsed", Path: "confirmation",
			Message: "this confirmation has already led to an Authorization"}
	case "pending":
		return nil, "", http.StatusConflict, &client.Error{Code: "confirmationPending", Path: "confirmation",
			Message: "this confirmation request has not been answered yet"}
	}
	if e.answer == nil {
		return nil, "", http.StatusConflict, &client.Error{Code: "confirmationExpired", Path: "confirmation",
			Message: "this confirmation request closed unanswered"}
	}
	res, envelope, err := d.AuthorizeConfirmed(r, e.binding, e.answer)
	if err != nil {
		status, ae := confirmationRefusal(err)
		return nil, "", status, &ae
	}
	if res.Authorization != nil {
		e.used = true
		q.entry.Result = "confirmed"
	}
	return res, envelope, 0, nil
}
