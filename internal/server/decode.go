package server

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"sync"
	"unicode/utf8"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/engine/fault"
)

// refusal is a rejection of the service's own, not a protocol fault: its
// API error as it stands.
type refusal struct{ e client.Error }

func (r *refusal) Error() string { return r.e.Message }

// errBodyTimeout: the body did not arrive before the read deadline every
// request gets (bodyDeadline). It is answered 408 and the connection
// closes (net/http does not read on after a failed body).
var errBodyTimeout error = &refusal{client.Error{Code: codeTimeout, Path: "body",
	Message: "the request body did not arrive within the service's body timeout"}}

// bodyTooLarge: the body is, or is announced, over the limit.
func bodyTooLarge() error {
	return fault.At("body", fault.LimitExceeded, "the request body is larger than the service accepts")
}

// readBody reads one JSON request body: the content type is
// application/json; the body is at most limit octets of valid UTF-8. It is
// returned as a string so that the strict decoder's strings share it. The
// error is a *fault.Error locating the problem, never quoting the body.
func readBody(r *http.Request, limit int64, pool *sync.Pool) (string, int, error) {
	if ct := r.Header.Get("Content-Type"); ct != "application/json" && !isJSON(ct) {
		return "", http.StatusUnsupportedMediaType, fault.At("body", fault.Unsupported, "the content type must be application/json")
	}
	// Read into a pooled buffer of at least the announced size (no 32 KiB
	// copy buffer); the string conversion below is the one copy, which the
	// decoded values share.
	// A body announced over the limit is refused before a byte of it is
	// read: it pins nothing.
	if r.ContentLength > limit {
		return "", http.StatusRequestEntityTooLarge, bodyTooLarge()
	}
	size := int64(512)
	if n := r.ContentLength; n > 0 {
		size = n + 1 // room to see the end without growing
	}
	pooled := pool.Get().(*[]byte)
	defer func() {
		if cap(*pooled) <= 64<<10 { // keep no outsized buffer
			pool.Put(pooled)
		}
	}()
	buf := (*pooled)[:0]
	if int64(cap(buf)) < size {
		buf = make([]byte, 0, size)
	}
	defer func() { *pooled = buf[:0] }()
	lr := http.MaxBytesReader(nil, r.Body, limit)
	for {
		if len(buf) == cap(buf) {
			// Grow by doubling, never past limit+1 (enough to see that a
			// body of unannounced length is over the limit): one request
			// holds at most that much while its body is read.
			next := make([]byte, len(buf), min(2*int64(cap(buf)), limit+1))
			buf = next[:copy(next, buf)]
		}
		n, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				return "", http.StatusRequestEntityTooLarge, bodyTooLarge()
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return "", http.StatusRequestTimeout, errBodyTimeout
			}
			return "", http.StatusBadRequest, fault.At("body", fault.Malformed, "the request body could not be read")
		}
	}
	body := string(buf)
	if !utf8.ValidString(body) {
		return "", http.StatusBadRequest, fault.At("body", fault.Malformed, "the request body is not valid UTF-8")
	}
	return body, 0, nil
}

// isJSON reports whether the content type ct names application/json (with
// any parameters). The exact, common spelling is decided without parsing.
func isJSON(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// decodeBody reads one request body (readBody) and decodes it strictly
// with decode (decodeAuthorize, decodeValidate).
func decodeBody[T any](r *http.Request, limit int64, pool *sync.Pool, decode func(string, *T) error, v *T) (int, error) {
	body, status, err := readBody(r, limit, pool)
	if err != nil {
		return status, err
	}
	if body == "" {
		return http.StatusBadRequest, fault.At("body", fault.Missing, "a JSON object body is required")
	}
	if err := decode(body, v); err != nil {
		return http.StatusBadRequest, err
	}
	return 0, nil
}

// member is one member a verb cannot do without, and its value.
type member struct{ path, value string }

// requireMembers rejects the first member whose value is empty, as
// fault.Missing at its path: the service looks nothing up by an empty
// name, so a body without them is a malformed request (400), never an
// unknown HostAuthority (404) or an unverifiable artifact (422).
func requireMembers(ms ...member) error {
	for _, m := range ms {
		if m.value == "" {
			return fault.At(m.path, fault.Missing, "a required member is missing or empty")
		}
	}
	return nil
}
