package server

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/toolgate/toolgate/client"
)

// randomValues draws strings, lists and numbers from the characters JSON
// quoting treats specially: escapes, control characters, HTML characters,
// invalid UTF-8 and line separators; lists nil, empty or filled.
type randomValues struct{ r *rand.Rand }

var pieces = []string{"", "a", "é", "\"", "\\", "\b", "\f", "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "<", ">", "&",
	"\u2028", "\u2029", "\xff", "\xe2\x80", "😀", "sha256:0a", "/", "eyJhbGciOiJFZERTQSJ9.e30.c2ln"}

func (v randomValues) str() string {
	if v.r.IntN(3) == 0 {
		return ""
	}
	s := ""
	for range v.r.IntN(5) {
		s += pieces[v.r.IntN(len(pieces))]
	}
	return s
}

func (v randomValues) list() []string {
	switch v.r.IntN(3) {
	case 0:
		return nil
	case 1:
		return []string{}
	}
	out := []string{}
	for range 1 + v.r.IntN(3) {
		out = append(out, v.str())
	}
	return out
}

func (v randomValues) uint() uint64 {
	switch v.r.IntN(3) {
	case 0:
		return 0
	case 1:
		return v.r.Uint64()
	}
	return uint64(v.r.IntN(100000))
}

func (v randomValues) err() client.Error {
	return client.Error{Code: v.str(), Path: v.str(), Message: v.str()}
}

func (v randomValues) authorizeResponse() client.AuthorizeResponse {
	out := client.AuthorizeResponse{Decision: client.Decision{ID: v.str(), Outcome: v.str(), Reasons: v.list(),
		MatchedRules: v.list(), Capabilities: v.list(), Resources: v.list()},
		Selection: client.Selection{Registry: client.RegistrySelection{SnapshotID: v.str(), Generation: v.str()},
			Policy: client.PolicySelection{SnapshotID: v.str(), SnapshotGeneration: v.str(), PolicyID: v.str(), PolicyGeneration: v.str()}}}
	switch v.r.IntN(3) {
	case 1:
		out.Decision.Obligations = []client.Obligation{}
	case 2:
		for range 1 + v.r.IntN(3) {
			out.Decision.Obligations = append(out.Decision.Obligations, client.Obligation{Kind: v.str(), Seconds: v.uint(), Boundary: v.str()})
		}
	}
	if v.r.IntN(2) == 0 {
		out.Authorization = &client.Authorization{Artifact: v.str(), ID: v.str(), ConsumptionID: v.str(),
			IssuedAt: v.uint(), ExpiresAt: v.uint()}
	}
	if v.r.IntN(3) == 0 {
		e := v.err()
		out.Ineligible = &e
	}
	return out
}

// encodingJSON is what the service wrote before: json.Encoder's output.
func encodingJSON(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestResponsesAsEncodingJSON: each hand-written response body is byte for
// byte what encoding/json's Encoder writes for the same value, over
// randomized values of every member (set, empty, nil; strings with every
// kind of escape) — so clients see the same octets as before.
func TestResponsesAsEncodingJSON(t *testing.T) {
	t.Parallel()
	v := randomValues{rand.New(rand.NewPCG(18, 1))}
	for range 5000 {
		a := v.authorizeResponse()
		if got, want := appendAuthorizeResponse(nil, &a), encodingJSON(t, a); !bytes.Equal(got, want) {
			t.Fatalf("authorize response\ngot  %s\nwant %s", got, want)
		}
		val := client.ValidateResponse{Binding: v.str(), ExpiresAt: v.uint(), Consumed: v.r.IntN(2) == 0}
		if got, want := appendValidateResponse(nil, &val), encodingJSON(t, val); !bytes.Equal(got, want) {
			t.Fatalf("validate response\ngot  %s\nwant %s", got, want)
		}
		e := client.ErrorResponse{Error: v.err()}
		if got, want := appendErrorResponse(nil, &e), encodingJSON(t, e); !bytes.Equal(got, want) {
			t.Fatalf("error response\ngot  %s\nwant %s", got, want)
		}
	}
}

// TestAnUnknownResponseBodyIsAnInternalError: writeJSON has a writer for
// each of the API's bodies only; another value (a programming error) is
// answered as 500 with the API's error shape, not encoded by reflection.
func TestAnUnknownResponseBodyIsAnInternalError(t *testing.T) {
	t.Parallel()
	s := &Server{}
	s.buffers.New = func() any { return new(response) }
	rec := httptest.NewRecorder()
	s.writeJSON(rec, http.StatusOK, struct{ A int }{1})
	var got client.ErrorResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != http.StatusInternalServerError || got.Error.Code != "internal" {
		t.Fatalf("status %d, body %s (%v): want 500 with code internal", rec.Code, rec.Body, err)
	}
}
