package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// ErrConsumed is returned by Consume when the artifact was consumed before:
// the side effect must not happen (again).
var ErrConsumed = errors.New("toolgate: already consumed")

// APIError is any other rejection by the service.
type APIError struct {
	Status int
	Err    Error
}

func (e *APIError) Error() string {
	if e.Err.Path != "" {
		return fmt.Sprintf("toolgate: %d %s at %s: %s", e.Status, e.Err.Code, e.Err.Path, e.Err.Message)
	}
	return fmt.Sprintf("toolgate: %d %s: %s", e.Status, e.Err.Code, e.Err.Message)
}

// Client calls one authorization service with one bearer token.
type Client struct {
	base  string
	token string
	http  *http.Client
}

// New returns a client of the service at baseURL (for example
// https://toolgate-authz.toolgate-system.svc) authenticating with token. A
// nil httpClient means http.DefaultClient.
func New(baseURL, token string, httpClient *http.Client) *Client {
	if httpClient == nil {
		httpClient = http.DefaultClient
	}
	return &Client{base: strings.TrimSuffix(baseURL, "/"), token: token, http: httpClient}
}

// Authorize asks for a Decision and, on an eligible allow, a signed
// single-use Authorization (agent runtimes).
func (c *Client) Authorize(ctx context.Context, r AuthorizeRequest) (*AuthorizeResponse, error) {
	var out AuthorizeResponse
	return &out, c.call(ctx, "/v1/authorize", r, &out)
}

// Current reports what the domain of HostAuthority ref serves as current:
// what a selection of Current would resolve to now. The caller must hold
// a role in the HostAuthority or be one of its executors.
func (c *Client) Current(ctx context.Context, ref HostAuthorityRef) (*CurrentResponse, error) {
	var out CurrentResponse
	return &out, c.call(ctx, "/v1/current", CurrentRequest{HostAuthority: ref}, &out)
}

// Validate checks an artifact against the executor's own expectations; it
// consumes nothing.
func (c *Client) Validate(ctx context.Context, r ValidateRequest) (*ValidateResponse, error) {
	var out ValidateResponse
	return &out, c.call(ctx, "/v1/validate", r, &out)
}

// Consume validates and atomically consumes an artifact immediately before
// the side effect. Only a nil error permits the side effect; ErrConsumed
// means it was consumed before; a revoked artifact is an *APIError with
// the code "revoked".
func (c *Client) Consume(ctx context.Context, r ValidateRequest) (*ValidateResponse, error) {
	var out ValidateResponse
	err := c.call(ctx, "/v1/consume", r, &out)
	var ae *APIError
	if errors.As(err, &ae) && ae.Status == http.StatusConflict && ae.Err.Code == "consumed" {
		// Only "consumed" is ErrConsumed: a 409 superseded or revoked is
		// an *APIError with its code.
		return nil, ErrConsumed
	}
	if err != nil {
		return nil, err
	}
	if !out.Consumed {
		return nil, errors.New("toolgate: the service did not confirm the consumption")
	}
	return &out, nil
}

func (c *Client) call(ctx context.Context, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		var e ErrorResponse
		if json.Unmarshal(raw, &e) != nil || e.Error.Code == "" {
			e.Error = Error{Code: "http", Message: http.StatusText(resp.StatusCode)}
		}
		return &APIError{Status: resp.StatusCode, Err: e.Error}
	}
	return json.Unmarshal(raw, out)
}
