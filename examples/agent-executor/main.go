// Command agent-executor plays both sides of one tool call against a
// running toolgate service (`make run`): as the agent runtime it authorizes
// the allowed example payment, and as the payments executor it consumes the
// artifact immediately before the (pretend) side effect — twice, to show
// that the second attempt is refused.
//
//	go run ./examples/agent-executor [-url http://127.0.0.1:8080]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/toolgate/toolgate/client"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:8080", "the toolgate service")
	agentToken := flag.String("agent-token", "dev-agent-runtime-token-4f8b2c1e9d7a", "the agent runtime's token")
	executorToken := flag.String("executor-token", "dev-payments-executor-token-7c3e5a9b1f2d", "the executor's token")
	flag.Parse()
	if err := run(*url, *agentToken, *executorToken); err != nil {
		fmt.Fprintln(os.Stderr, "agent-executor:", err)
		os.Exit(1)
	}
}

func run(url, agentToken, executorToken string) error {
	ctx := context.Background()
	var req client.AuthorizeRequest
	if err := readJSON("examples/api/authorize-allow.json", &req); err != nil {
		return err
	}
	agent := client.New(url, agentToken, nil)
	res, err := agent.Authorize(ctx, req)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stdout, "agent: %s %v by %v\n", res.Decision.Outcome, res.Decision.Reasons, res.Decision.MatchedRules)
	if res.Authorization == nil {
		return errors.New("no authorization was issued")
	}

	// The executor knows the call it is about to make; it does not read it
	// from the artifact.
	var exp client.Expectations
	if err := readJSON("examples/api/expectations-allow.json", &exp); err != nil {
		return err
	}
	executor := client.New(url, executorToken, nil)
	for attempt := 1; attempt <= 2; attempt++ {
		done, err := executor.Consume(ctx, client.ValidateRequest{Artifact: res.Authorization.Artifact, Expectations: exp})
		switch {
		case errors.Is(err, client.ErrConsumed):
			fmt.Fprintf(os.Stdout, "executor, attempt %d: already consumed — no side effect\n", attempt)
		case err != nil:
			return err
		default:
			fmt.Fprintf(os.Stdout, "executor, attempt %d: consumed %s — performing the payment\n", attempt, done.Binding)
		}
	}
	return nil
}

func readJSON(path string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}
