package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
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
	return c.do(ctx, http.MethodPost, path, body, out)
}

// do sends one request (a JSON body when body is not nil) and decodes the
// 200 answer into out; any other status is an *APIError.
func (c *Client) do(ctx context.Context, method, path string, body []byte, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
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

// The confirmations API (toolgate.confirmations/1, docs/confirmation.md).

// Confirmations lists the pending confirmation requests visible to the
// caller: its own, and all of a domain it confirms in.
func (c *Client) Confirmations(ctx context.Context) (*ConfirmationList, error) {
	var out ConfirmationList
	if err := c.do(ctx, http.MethodGet, "/v1/confirmations", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Confirmation shows one confirmation request by its identity.
func (c *Client) Confirmation(ctx context.Context, id string) (*Confirmation, error) {
	var out Confirmation
	if err := c.do(ctx, http.MethodGet, "/v1/confirmations/"+url.PathEscape(id), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Approve answers a confirmation request yes, as a confirmer; Deny answers
// it no. An answer is final: a second one is an *APIError with the code
// "confirmationAnswered".
func (c *Client) Approve(ctx context.Context, id string) (*Confirmation, error) {
	return c.answer(ctx, id, "approve")
}

// Deny answers a confirmation request no; see Approve.
func (c *Client) Deny(ctx context.Context, id string) (*Confirmation, error) {
	return c.answer(ctx, id, "deny")
}

func (c *Client) answer(ctx context.Context, id, verb string) (*Confirmation, error) {
	var out Confirmation
	if err := c.do(ctx, http.MethodPost, "/v1/confirmations/"+url.PathEscape(id)+"/"+verb, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ErrConfirmationDenied is WaitForConfirmation's answer to a "no".
var ErrConfirmationDenied = errors.New("toolgate: the confirmation request was denied")

// ErrConfirmationExpired is WaitForConfirmation's answer to a request that
// closed without an approval, or whose approval expired or was used.
var ErrConfirmationExpired = errors.New("toolgate: the confirmation request expired unanswered or its approval is no longer usable")

// WaitForConfirmation polls the confirmation request id every interval (1 s
// when 0) until it is approved, denied or closed, or ctx ends (give it the
// deadline the agent can wait). It returns the approved request;
// ErrConfirmationDenied, ErrConfirmationExpired, or ctx's error otherwise.
func (c *Client) WaitForConfirmation(ctx context.Context, id string, interval time.Duration) (*Confirmation, error) {
	if interval <= 0 {
		interval = time.Second
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		got, err := c.Confirmation(ctx, id)
		if err != nil {
			return nil, err
		}
		switch got.State {
		case "approved":
			return got, nil
		case "denied":
			return nil, ErrConfirmationDenied
		case "expired", "used":
			return nil, ErrConfirmationExpired
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}
