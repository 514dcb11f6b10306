package server

import (
	"errors"
	"io"
	"mime"
	"net/http"
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
	// Read into a buffer of the announced size (one read, no 32 KiB copy
	// buffer); the one string conversion is the decoder's only copy.
	size := int64(512)
	if n := r.ContentLength; n > 0 && n <= limit {
		size = n + 1 // room to see the end without growing
	}
	buf := make([]byte, 0, size)
	lr := http.MaxBytesReader(nil, r.Body, limit)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				return "", http.StatusRequestEntityTooLarge, fault.At("body", fault.LimitExceeded, "the request body is larger than the service accepts")
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
