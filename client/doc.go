// Package client is the Go client of toolgate's authorization service, for
// agent runtimes (authorize) and executors (validate, consume), and the wire
// types of its HTTP API under /v1.
//
// An agent runtime authorizes the model's proposal with the Host facts it
// captured and passes the signed artifact to the executor with the call. The
// executor, immediately before the side effect, consumes the artifact with
// its own expectations of the call; only a successful Consumption permits
// the side effect, and a second Consumption of the same artifact is
// ErrConsumed.
package client
