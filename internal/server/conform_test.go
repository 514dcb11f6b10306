package server_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/toolgate/toolgate/internal/testutil"
)

// The contract check: every response the service gives in this package's
// tests is validated against docs/openapi.yaml by kin-openapi's response
// validation, so a status or body shape the document does not declare
// fails the test that provoked it.

var contract struct {
	once   sync.Once
	doc    *openapi3.T
	router routers.Router
	err    error
}

// openAPIRouter loads docs/openapi.yaml once and routes requests by it.
func openAPIRouter(t testing.TB) (*openapi3.T, routers.Router) {
	t.Helper()
	contract.once.Do(func() {
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromFile(filepath.Join(testutil.RepoRoot(t), "docs", "openapi.yaml"))
		if err != nil {
			contract.err = err
			return
		}
		contract.doc = doc
		contract.router, contract.err = legacy.NewRouter(doc)
	})
	if contract.err != nil {
		t.Fatalf("docs/openapi.yaml: %v", contract.err)
	}
	return contract.doc, contract.router
}

// exchange is one request and the response the service gave to it.
type exchange struct {
	method, path string
	status       int
	header       http.Header
	body         []byte
}

// conforming wraps h so that each response is recorded and, when the test
// ends, validated against docs/openapi.yaml.
func conforming(t testing.TB, h http.Handler) http.Handler {
	t.Helper()
	openAPIRouter(t)
	var mu sync.Mutex
	var seen []exchange
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, e := range seen {
			if err := conforms(t, e); err != nil {
				t.Errorf("%s %s answered %d %q %s: not as docs/openapi.yaml declares: %v",
					e.method, e.path, e.status, e.header.Get("Content-Type"), e.body, err)
			}
		}
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &recorder{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		status := rec.status
		if status == 0 {
			status = http.StatusOK
		}
		mu.Lock()
		seen = append(seen, exchange{r.Method, r.URL.Path, status, w.Header().Clone(), bytes.Clone(rec.body.Bytes())})
		mu.Unlock()
	})
}

// conforms validates one exchange. A request whose method the document does
// not route for its path is checked against the path's declared operation
// (the document declares 405 there); a path it does not hold at all must
// answer 404 with the API's error body.
func conforms(t testing.TB, e exchange) error {
	doc, router := openAPIRouter(t)
	req := httptest.NewRequest(e.method, e.path, nil)
	route, params, err := router.FindRoute(req)
	var re *routers.RouteError
	errors.As(err, &re)
	switch {
	case re != nil && re.Reason == routers.ErrMethodNotAllowed.Error():
		item := doc.Paths.Find(e.path)
		for _, op := range item.Operations() {
			route = &routers.Route{Spec: doc, Path: e.path, PathItem: item, Method: e.method, Operation: op}
		}
	case re != nil && re.Reason == routers.ErrPathNotFound.Error():
		if e.status != http.StatusNotFound {
			return fmt.Errorf("an undocumented path answered %d, not 404", e.status)
		}
		item := doc.Paths.Find("/v1/authorize")
		route = &routers.Route{Spec: doc, Path: "/v1/authorize", PathItem: item, Method: http.MethodPost, Operation: item.Post}
	case err != nil:
		return err
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 e.status,
		Header:                 e.header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes(e.body)
	return openapi3filter.ValidateResponse(context.Background(), in)
}

// recorder copies what the handler writes.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	r.body.Write(p)
	return r.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
