package server

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/toolgate/toolgate/internal/engine/fault"
)

// readBody reads one JSON request body: the content type is
// application/json; the body is at most limit octets of valid UTF-8. It is
// returned as a string so that the strict decoder's strings share it. The
// error is a *fault.Error locating the problem, never quoting the body.
func readBody(r *http.Request, limit int64) (string, int, error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return "", http.StatusUnsupportedMediaType, fault.At("body", fault.Unsupported, "the content type must be application/json")
	}
	var b strings.Builder
	if n := r.ContentLength; n > 0 && n <= limit {
		b.Grow(int(n))
	}
	_, err = io.Copy(&b, http.MaxBytesReader(nil, r.Body, limit))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return "", http.StatusRequestEntityTooLarge, fault.At("body", fault.LimitExceeded, "the request body is larger than the service accepts")
		}
		return "", http.StatusBadRequest, fault.At("body", fault.Malformed, "the request body could not be read")
	}
	body := b.String()
	if !utf8.ValidString(body) {
		return "", http.StatusBadRequest, fault.At("body", fault.Malformed, "the request body is not valid UTF-8")
	}
	return body, 0, nil
}

// decodeBody reads one request body (readBody) and decodes it strictly
// with decode (decodeAuthorize, decodeValidate).
func decodeBody[T any](r *http.Request, limit int64, decode func(string, *T) error, v *T) (int, error) {
	body, status, err := readBody(r, limit)
	if err != nil {
		return status, err
	}
	if err := decode(body, v); err != nil {
		return http.StatusBadRequest, err
	}
	return 0, nil
}
