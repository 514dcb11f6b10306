// Package server is toolgate's authorization service: the HTTP/JSON API
// under /v1 that agent runtimes call before a tool call (authorize) and
// executors call immediately before a side effect (validate, consume). It
// is a thin layer over the Host façade (internal/host) that supplies what
// the protocol core defers to a production Host (spec Section 41): caller
// authentication, signed portable artifacts, a trusted clock read once per
// request (once its body has arrived), atomic durable Consumption, a decision log and metrics.
package server

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/artifact"
	"github.com/toolgate/toolgate/internal/consume"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/serving"
)

// DefaultMaxBodyBytes bounds a request body: the Host's default raw
// argument bound, twice over (a binding rides along), plus the facts.
const DefaultMaxBodyBytes = 2*host.DefaultMaxArgumentBytes + 1<<20

// Config configures a Server. Domains, Auth and Store are required.
type Config struct {
	Domains serving.Domains
	Auth    Authenticator
	Store   consume.Store
	// Clock is read once per request; time.Now when nil.
	Clock func() time.Time
	// Log receives one line per request; none when nil.
	Log *DecisionLog
	// MaxBodyBytes bounds request bodies; DefaultMaxBodyBytes when 0.
	MaxBodyBytes int64
	// RebuildCacheEntries bounds the Authorizations kept rebuilt between a
	// validate and the consume of the same envelope;
	// DefaultRebuildCacheEntries when 0, none when negative.
	RebuildCacheEntries int
	// IssuedCacheEntries bounds the Authorizations this replica remembers
	// issuing, so that an identical authorize gets the same one;
	// DefaultIssuedCacheEntries when 0, none when negative.
	IssuedCacheEntries int
}

// Server serves the API.
type Server struct {
	domains serving.Domains
	auth    Authenticator
	store   consume.Store
	clock   func() time.Time
	log     *DecisionLog
	limit   int64
	cache   *rebuildCache
	issued  *issuedCache
	buffers sync.Pool // of *response
	bodies  sync.Pool // of *[]byte, for reading request bodies
	metrics *metrics
	// confirmations are the open confirmation requests (confirmations.go).
	confirmations *confirmationStore
}

// New returns a Server for cfg.
func New(cfg Config) (*Server, error) {
	if cfg.Domains == nil || cfg.Auth == nil || cfg.Store == nil {
		return nil, errors.New("server: domains, an authenticator and a consumption store are required")
	}
	s := &Server{
		buffers: sync.Pool{New: func() any { return &response{buf: make([]byte, 0, 4<<10)} }},
		bodies:  sync.Pool{New: func() any { return new([]byte) }},
		domains: cfg.Domains, auth: cfg.Auth, store: cfg.Store, clock: cfg.Clock, log: cfg.Log,
		limit: cfg.MaxBodyBytes, cache: newRebuildCache(cfg.RebuildCacheEntries),
		confirmations: newConfirmationStore(),
		issued:        newIssuedCache(cfg.IssuedCacheEntries),
	}
	if s.clock == nil {
		s.clock = time.Now
	}
	if s.limit == 0 {
		s.limit = DefaultMaxBodyBytes
	}
	s.metrics = newMetrics(s)
	return s, nil
}

// Handler returns the service's HTTP handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/authorize", s.post("authorize", s.authorize))
	mux.HandleFunc("/v1/validate", s.post("validate", s.validate))
	mux.HandleFunc("/v1/consume", s.post("consume", s.consume))
	mux.HandleFunc("/v1/current", s.post("current", s.current))
	s.confirmationRoutes(mux)
	mux.Handle("/healthz", s.get(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })))
	mux.Handle("/readyz", s.get(http.HandlerFunc(s.ready)))
	mux.Handle("/metrics", s.get(promhttp.HandlerFor(s.metrics.registry, promhttp.HandlerOpts{})))
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		s.writeError(w, http.StatusNotFound, client.Error{Code: "notFound", Message: "no such endpoint; the API is POST /v1/authorize, /v1/validate, /v1/consume, /v1/current"})
	})
	return mux
}

// get serves h for GET (and HEAD) only.
func (s *Server) get(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			s.writeError(w, http.StatusMethodNotAllowed, client.Error{Code: "unsupported", Message: "use GET"})
			return
		}
		h.ServeHTTP(w, r)
	})
}

func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	switch {
	case s.domains.Len() == 0:
		s.writeError(w, http.StatusServiceUnavailable, client.Error{Code: "unavailable", Message: "no host authority domain is loaded"})
	case s.store.Ready(ctx) != nil:
		s.writeError(w, http.StatusServiceUnavailable, client.Error{Code: "unavailable", Message: "the consumption store does not answer"})
	default:
		w.WriteHeader(http.StatusOK)
	}
}

// call is one API call in progress.
type call struct {
	verb string
	// now is the service clock, read once per request after its body has
	// arrived (readClock): a body trickled in for seconds must not be validated
	// by a time read before it began (docs/decisions.md, "Consumption stores").
	now    time.Time
	caller host.Caller
	entry  Entry
}

// readClock reads the service clock for q, once.
func (s *Server) readClock(q *call) {
	if q.now.IsZero() {
		q.now = s.clock()
	}
}

// handler serves one verb; it returns the HTTP status and the response
// body, or an error status and the rejection.
type handler func(ctx context.Context, q *call, r *http.Request) (int, any)

// post authenticates, runs h (which reads the clock once its body has
// arrived), writes the response, the decision-log line and the metrics.
func (s *Server) post(verb string, h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now() // for the latency metric only
		q := &call{verb: verb}
		q.entry = Entry{Verb: verb}
		status, body := s.serve(r, q, h)
		s.readClock(q) // a request rejected before its body was read
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
		if verb != "current" { // a read decides nothing: the decision log stays a log of decisions
			s.log.Write(q.entry)
		}
		s.metrics.duration.get([2]string{verb, q.entry.Result}).Observe(time.Since(start).Seconds())
	}
}

func (s *Server) serve(r *http.Request, q *call, h handler) (int, any) {
	if r.Method != http.MethodPost {
		return http.StatusMethodNotAllowed, client.Error{Code: "unsupported", Message: "use POST"}
	}
	caller, err := s.auth.Authenticate(r)
	if err != nil {
		return http.StatusUnauthorized, client.Error{Code: "unauthenticated", Message: "a valid bearer token is required"}
	}
	q.caller, q.entry.Caller = caller, caller.Name
	return h(r.Context(), q, r)
}

// maxCachedBody bounds the body an issued Authorization in the rebuild
// cache may pin: DefaultRebuildCacheEntries of them hold at most 256 MiB.
const maxCachedBody = 64 << 10

func (s *Server) authorize(ctx context.Context, q *call, r *http.Request) (int, any) {
	var req client.AuthorizeRequest
	if status, err := decodeBody(r, s.limit, &s.bodies, decodeAuthorize, &req); err != nil {
		return status, apiError(err)
	}
	s.readClock(q)
	if err := requireMembers(
		member{"hostAuthority.namespace", req.HostAuthority.Namespace}, member{"hostAuthority.name", req.HostAuthority.Name},
		member{"registry.snapshotID", req.Registry.SnapshotID}, member{"registry.generation", req.Registry.Generation},
		member{"policy.snapshotID", req.Policy.SnapshotID}, member{"policy.snapshotGeneration", req.Policy.SnapshotGeneration},
	); err != nil {
		return http.StatusBadRequest, apiError(err)
	}
	d, ok := s.domains.ByName(req.HostAuthority.Namespace, req.HostAuthority.Name)
	if !ok {
		return http.StatusNotFound, client.Error{Code: "notFound", Path: "hostAuthority",
			Message: "this service serves no such HostAuthority (or it is not ready yet)"}
	}
	// Only a resolved name reaches the decision log: an unserved one is
	// caller input (Section 38).
	q.entry.Namespace, q.entry.HostAuthority = d.Namespace(), d.Name()
	// The Host's selection, made once on one reading of the served state:
	// a generation the request names as current becomes the exact one,
	// and from here on the request is the request as selected — what the
	// Host decides, what the Authorization binds, what the response
	// reports and what a retry must equal (docs/api.md, "Retries are
	// safe").
	requested := req.Policy.SnapshotGeneration
	definitionCurrent := req.Policy.PolicyGeneration == host.Current
	sel, err := d.Select(serving.Selection{RegistryID: req.Registry.SnapshotID, RegistryGeneration: req.Registry.Generation,
		PolicyID: req.Policy.SnapshotID, PolicyGeneration: req.Policy.SnapshotGeneration,
		DefinitionID: req.Policy.PolicyID, DefinitionGeneration: req.Policy.PolicyGeneration}, q.now)
	if err != nil {
		if serving.ReasonOf(err) != 0 {
			return stateRefusal(err)
		}
		return statusOf(err), apiError(err)
	}
	req.Registry.Generation, req.Policy.SnapshotGeneration, req.Policy.PolicyGeneration =
		sel.RegistryGeneration, sel.PolicyGeneration, sel.DefinitionGeneration
	// Served identities only, as the HostAuthority's name above: the
	// snapshots Select found served, and the policy version once the Host
	// found it in the snapshot (a missing one is caller input).
	q.entry.Selection = sel.RegistryID + "@" + sel.RegistryGeneration + " " + sel.PolicyID + "@" + sel.PolicyGeneration
	hr := HostRequest(req, q.caller, uint64(q.now.Unix()))
	var res *host.Result
	var envelope string
	var pending *client.Confirmation
	if req.Confirmation != "" {
		// A confirmed call (confirmations.go).
		var status int
		var e *client.Error
		if res, envelope, status, e = s.authorizeConfirmed(q, d, hr, req.Confirmation); e != nil {
			return status, *e
		}
	} else {
		var err error
		// With the domain's shadow evaluated beside it when the request
		// selected the current generation (shadow.go).
		if res, envelope, err = s.decide(q, d, hr, requested, sel, definitionCurrent); err != nil {
			return statusOf(err), apiError(err)
		}
		if pending, err = s.openConfirmation(q, d, hr, res, req.Confirmers); err != nil {
			return statusOf(err), apiError(err)
		}
	}
	if p := res.Decision.Policy(); p != nil {
		q.entry.Selection += " " + p.ID().String() + "@" + p.Generation().String()
	}
	retry := false
	if res.Authorization != nil {
		// A revoked tool version or Authorization identity issues nothing:
		// the artifact is dropped unsent, before the store is asked.
		if err := d.Standing(res.Authorization, d.KeyID()); err != nil {
			return stateRefusal(err)
		}
		// The same Authorization for an identical request, and none for
		// an identity a Consumption holds (idempotent.go).
		got, status, e := s.answer(ctx, q, d, &req, issued{res: res, envelope: envelope})
		if e != nil {
			q.entry.DecisionID, q.entry.Outcome = res.Decision.ID().String(), res.Decision.Outcome().String()
			return status, *e
		}
		res, envelope, retry = got.res, got.envelope, got.retry
		// What the executor's validate or consume of this envelope would
		// verify and rebuild is the Authorization just issued, by this
		// domain's active key: cache it, so that their first check skips
		// the signature verification and the re-run (docs/decisions.md,
		// "The rebuild cache learns at issuance"). Its strings share the
		// request body, so the entry pins the body while it lives: a body
		// over maxCachedBody (or of unannounced length) is not cached, and
		// that executor's first check verifies and rebuilds instead.
		if r.ContentLength >= 0 && r.ContentLength <= maxCachedBody {
			s.cache.put(sha256.Sum256([]byte(envelope)), d, d.KeyID(), res.Authorization, res.Authorization.ExpiresAt().Seconds())
		}
	}
	wire := WireDecision(res.Decision)
	q.entry.DecisionID, q.entry.Outcome = wire.ID, wire.Outcome
	q.entry.Reasons, q.entry.MatchedRules = wire.Reasons, wire.MatchedRules
	s.metrics.decisions.get(wire.Outcome).Inc()
	for _, reason := range wire.Reasons {
		s.metrics.reasons.get(reason).Inc()
	}
	out := client.AuthorizeResponse{Decision: wire, Selection: client.Selection{Registry: req.Registry, Policy: req.Policy}, Confirmation: pending}
	q.entry.Result = "decided"
	if res.Ineligible != nil {
		e := apiError(res.Ineligible)
		out.Ineligible = &e
	}
	if a := res.Authorization; a != nil {
		id := a.ID().String()
		out.Authorization = &client.Authorization{
			Artifact: envelope, ID: id, ConsumptionID: a.ConsumptionID().String(),
			IssuedAt: a.IssuedAt().Seconds(), ExpiresAt: a.ExpiresAt().Seconds(),
		}
		q.entry.AuthorizationID, q.entry.Binding, q.entry.Result = id, a.Binding().Digest().String(), "issued"
		if retry {
			q.entry.Result = "reissued"
		}
	}
	return http.StatusOK, out
}

// current reports what a domain serves as current, to a caller that holds
// one of its roles or is one of its executors (docs/api.md, "POST
// /v1/current"). It reads; it decides and logs no Decision.
func (s *Server) current(_ context.Context, q *call, r *http.Request) (int, any) {
	var req client.CurrentRequest
	if status, err := decodeBody(r, s.limit, &s.bodies, decodeCurrent, &req); err != nil {
		return status, apiError(err)
	}
	s.readClock(q)
	if err := requireMembers(member{"hostAuthority.namespace", req.HostAuthority.Namespace}, member{"hostAuthority.name", req.HostAuthority.Name}); err != nil {
		return http.StatusBadRequest, apiError(err)
	}
	d, ok := s.domains.ByName(req.HostAuthority.Namespace, req.HostAuthority.Name)
	if !ok {
		return http.StatusNotFound, client.Error{Code: "notFound", Path: "hostAuthority",
			Message: "this service serves no such HostAuthority (or it is not ready yet)"}
	}
	q.entry.Namespace, q.entry.HostAuthority = d.Namespace(), d.Name()
	if !d.CanRead(q.caller) {
		return http.StatusForbidden, client.Error{Code: fault.Unauthorized.String(), Path: "caller",
			Message: "only a caller that holds a role in this host authority, or is one of its executors, may read what it serves"}
	}
	q.entry.Result = "read"
	return http.StatusOK, WireCurrent(d.Current())
}

// check runs a validate or consume request in the one order that tells a
// caller nothing it may not know: open the envelope (its signature by a
// served domain's key), resolve the domain, check that the caller is one of
// the domain's executors, rebuild the Authorization, check that its
// snapshots are still served, validate it against the executor's
// expectations — for a consume with the Host's consume rule (an
// Authorization that binds an agent-safe intent binding needs the binding).
// A non-executor is rejected before any issuance work, and never learns
// whether the artifact binds an intent (docs/decisions.md, "One door to the
// engine").
func (s *Server) check(q *call, r *http.Request) (*serving.Domain, *host.Authorization, *host.ConsumptionBinding, int, *client.Error) {
	var req client.ValidateRequest
	if status, err := decodeBody(r, s.limit, &s.bodies, decodeValidate, &req); err != nil {
		e := apiError(err)
		return nil, nil, nil, status, &e
	}
	s.readClock(q)
	if err := requireMembers(member{"artifact", req.Artifact}); err != nil {
		e := apiError(err)
		return nil, nil, nil, http.StatusBadRequest, &e
	}
	d, a, keyID, status, e := s.rebuild(q, req.Artifact)
	if e != nil {
		return nil, nil, nil, status, e
	}
	if err := d.Standing(a, keyID); err != nil {
		status, e := stateRefusal(err)
		return nil, nil, nil, status, &e
	}
	q.entry.AuthorizationID, q.entry.Binding = a.ID().String(), a.Binding().Digest().String()
	q.entry.DecisionID, q.entry.Outcome = a.Decision().ID().String(), a.Decision().Outcome().String()
	exp := HostExpectations(req.Expectations)
	validate := d.Validate
	if q.verb == "consume" {
		validate = d.ValidateForConsumption
	}
	b, err := validate(q.caller, a, exp, uint64(q.now.Unix()))
	if err != nil {
		status := statusOf(err)
		if host.IsIntentBindingRequired(err) {
			// Missing, but in a well-formed request: the protocol rejects it.
			status = http.StatusUnprocessableEntity
		}
		e := apiError(fault.Within("expectations", err))
		return nil, nil, nil, status, &e
	}
	return d, a, b, 0, nil
}

// rebuild verifies the envelope, checks that the caller is an executor of
// the domain whose key signed it, and rebuilds its Authorization — or takes
// the domain and the Authorization from the cache when this envelope's
// exact bytes were verified and rebuilt by the Same domain before; the role
// check runs on a hit too. Everything after (the served snapshots, the
// expectations, the clock, the Consumption) runs on every request.
func (s *Server) rebuild(q *call, envelope string) (*serving.Domain, *host.Authorization, string, int, *client.Error) {
	digest := sha256.Sum256([]byte(envelope))
	if hit, ok := s.cache.get(digest, uint64(q.now.Unix())); ok {
		if d, ok := s.domains.ByKey(hit.keyID); ok && d.Same(hit.domain) {
			s.metrics.cacheHit.Inc()
			if status, e := s.executor(q, d); e != nil {
				return nil, nil, "", status, e
			}
			return d, hit.a, hit.keyID, 0, nil
		}
	}
	s.metrics.cacheMiss.Inc()
	d, v, err := serving.Open(s.domains, envelope)
	if err != nil {
		if errors.Is(err, artifact.ErrRevokedKey) {
			// The same answer as any other revocation (serving.RefusalError).
			status, e := stateRefusal(&serving.RefusalError{Reason: serving.Revoked, Path: "artifact"})
			return nil, nil, "", status, &e
		}
		return nil, nil, "", http.StatusUnprocessableEntity, &client.Error{Code: "artifact", Path: "artifact", Message: err.Error()}
	}
	if status, e := s.executor(q, d); e != nil {
		return nil, nil, "", status, e
	}
	a, err := d.Rebuild(v)
	if err != nil {
		e := apiError(fault.Within("artifact", err))
		return nil, nil, "", statusOf(err), &e
	}
	s.cache.put(digest, d, v.KeyID(), a, a.ExpiresAt().Seconds())
	return d, a, v.KeyID(), 0, nil
}

// executor records the domain d of the request and rejects a caller that
// is not one of its executors. The rejection is the one Validate gives
// (403 unauthorized at expectations.caller), so that only its timing
// changed when the check moved before the rebuild.
func (s *Server) executor(q *call, d *serving.Domain) (int, *client.Error) {
	q.entry.Namespace, q.entry.HostAuthority = d.Namespace(), d.Name()
	if err := d.CheckExecutor(q.caller); err != nil {
		e := apiError(fault.Within("expectations", err))
		return statusOf(err), &e
	}
	return 0, nil
}

func (s *Server) validate(_ context.Context, q *call, r *http.Request) (int, any) {
	_, _, b, status, e := s.check(q, r)
	if e != nil {
		return status, *e
	}
	q.entry.Result = "valid"
	return http.StatusOK, client.ValidateResponse{Binding: b.Digest().String(), ExpiresAt: b.ExpiresAt().Seconds()}
}

func (s *Server) consume(ctx context.Context, q *call, r *http.Request) (int, any) {
	d, a, b, status, e := s.check(q, r)
	if e != nil {
		s.metrics.consumption.get("rejected").Inc()
		return status, *e
	}
	digest := b.Digest().String()
	err := s.store.Consume(ctx, consume.Record{
		Key:        consume.Key{Domain: d.Instance(), Binding: digest[len("sha256:"):]},
		Identities: [3]string{a.ID().String(), a.ReplayID().String(), a.ConsumptionID().String()},
		ExpiresAt:  time.Unix(int64(b.ExpiresAt().Seconds()), 0),
	})
	var reused *consume.IdentityReusedError
	switch {
	case err == nil:
		s.metrics.consumption.get("consumed").Inc()
		q.entry.Result = "consumed"
		return http.StatusOK, client.ValidateResponse{Binding: digest, ExpiresAt: b.ExpiresAt().Seconds(), Consumed: true}
	case errors.Is(err, consume.ErrExpired):
		// The store's clock, read immediately before the atomic step, is
		// past the expiry this request was validated before.
		s.metrics.consumption.get("rejected").Inc()
		return http.StatusUnprocessableEntity, client.Error{Code: fault.Expired.String(), Path: "validationTime", Message: "the authorization has expired"}
	case errors.Is(err, consume.ErrConsumed):
		s.metrics.consumption.get("conflict").Inc()
		q.entry.Result = "conflict"
		return http.StatusConflict, client.Error{Code: "consumed", Message: "this authorization was already consumed"}
	case errors.As(err, &reused):
		// Another Authorization naming this identity was consumed: the
		// one side effect the identity permits is spent (docs/api.md).
		s.metrics.consumption.get("conflict").Inc()
		q.entry.Result = "conflict"
		return http.StatusConflict, client.Error{Code: codeIdentityReused, Path: reused.Field,
			Message: "another authorization naming this identity was consumed; this one permits nothing"}
	default:
		s.metrics.consumption.get("unavailable").Inc()
		q.entry.Result = "unavailable"
		return http.StatusServiceUnavailable, client.Error{Code: "unavailable", Message: "the consumption store did not answer, so this call permits nothing; a write it received may still commit: retry, and a 409 then means the artifact is spent"}
	}
}

// stateRefusal is the API form of a domain's refusal on its served state
// (serving.RefusalError): 404 notFound for a generation it does not serve, 409
// superseded for a selection a later generation has superseded, 409
// revoked for anything a Revocation in force names.
func stateRefusal(err error) (int, client.Error) {
	var r *serving.RefusalError
	if !errors.As(err, &r) {
		return http.StatusInternalServerError, apiError(err)
	}
	e := client.Error{Code: r.Reason.String(), Path: r.Path, Message: r.Error()}
	switch r.Reason {
	case serving.Superseded, serving.Revoked:
		return http.StatusConflict, e
	default:
		e.Code = "notFound"
		if r.Path == "artifact" {
			e.Message = "the authorization was issued on a snapshot this domain no longer serves"
		} else {
			e.Message = "the selected registry or policy snapshot is not served in this domain"
		}
		return http.StatusNotFound, e
	}
}

// apiError is the API form of err: its code and path, and a message that
// never quotes input.
func apiError(err error) client.Error {
	var fe *fault.Error
	if errors.As(err, &fe) {
		return client.Error{Code: fe.Code.String(), Path: fe.Path, Message: fe.Rule}
	}
	var r *refusal
	if errors.As(err, &r) {
		return r.e
	}
	return client.Error{Code: "internal", Message: "the request could not be processed"}
}

// statusOf maps a fault's code to an HTTP status: 400 for a request that
// is not well formed, 403 for a caller without the role, 404 for an
// unknown selection, 422 for a well-formed request the protocol rejects.
func statusOf(err error) int {
	switch fault.CodeOf(err) {
	case fault.Unauthorized:
		return http.StatusForbidden
	case fault.NotFound:
		return http.StatusNotFound
	case fault.Mismatch, fault.MixedDomain, fault.Ineligible, fault.Expired:
		return http.StatusUnprocessableEntity
	case 0:
		return http.StatusInternalServerError
	default:
		return http.StatusBadRequest
	}
}

// response is a pooled response buffer.
type response struct{ buf []byte }

// The values of the constant response headers, shared by every response
// (net/http only reads them; a handler that added a value would append to
// a copy, since len == cap).
var (
	contentTypeJSON = []string{"application/json"}
	cacheNoStore    = []string{"no-store"}
)

// writeJSON writes body as the response: written into a pooled buffer
// first, so that the response has a Content-Length and goes out in one
// write. Every body the API has is written by hand (respond.go); any other
// value is a programming error, answered as an internal error.
func (s *Server) writeJSON(w http.ResponseWriter, status int, body any) {
	out := s.buffers.Get().(*response)
	defer func() {
		if cap(out.buf) <= 64<<10 { // keep no outsized buffer
			out.buf = out.buf[:0]
			s.buffers.Put(out)
		}
	}()
	switch v := body.(type) {
	case client.AuthorizeResponse:
		out.buf = appendAuthorizeResponse(out.buf, &v)
	case client.ValidateResponse:
		out.buf = appendValidateResponse(out.buf, &v)
	case client.CurrentResponse:
		// A read, off the decision path: encoding/json's own output.
		enc, err := json.Marshal(v)
		if err != nil {
			status, enc = http.StatusInternalServerError, []byte(`{"error":{"code":"internal","message":"the response could not be encoded"}}`)
		}
		out.buf = append(append(out.buf, enc...), '\n')
	case client.ErrorResponse:
		out.buf = appendErrorResponse(out.buf, &v)
	case client.Confirmation, client.ConfirmationList:
		out.buf = append(appendMarshaled(out.buf, v), '\n')
	default:
		status = http.StatusInternalServerError
		out.buf = append(out.buf, `{"error":{"code":"internal","message":"the response could not be encoded"}}`+"\n"...)
	}
	h := w.Header()
	h["Content-Type"] = contentTypeJSON
	h["Cache-Control"] = cacheNoStore
	h["Content-Length"] = []string{strconv.Itoa(len(out.buf))}
	w.WriteHeader(status)
	_, _ = w.Write(out.buf)
}

func (s *Server) writeError(w http.ResponseWriter, status int, e client.Error) {
	s.writeJSON(w, status, client.ErrorResponse{Error: e})
}
