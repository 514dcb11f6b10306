package client_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolgate/toolgate/client"
)

// An agent runtime authorizes the model's proposal and hands the artifact
// to the executor with the call.
func ExampleClient_Authorize() {
	agent := client.New("https://toolgate-authz.toolgate-system.svc", "AGENT-TOKEN", nil)
	res, err := agent.Authorize(context.Background(), client.AuthorizeRequest{ /* proposal, facts, selections */ })
	if err != nil {
		fmt.Println("rejected:", err)
		return
	}
	if res.Authorization == nil {
		fmt.Println(res.Decision.Outcome, res.Decision.Reasons) // deny or requireConfirmation: do not call the tool
		return
	}
	fmt.Println("pass to the executor:", res.Authorization.Artifact)
}

// An executor consumes the artifact with its own expectations of the call
// immediately before the side effect; only success permits it.
func ExampleClient_Consume() {
	executor := client.New("https://toolgate-authz.toolgate-system.svc", "EXECUTOR-TOKEN", nil)
	_, err := executor.Consume(context.Background(), client.ValidateRequest{
		Artifact:     "…from the agent…",
		Expectations: client.Expectations{ /* the call this executor is about to make */ },
	})
	switch {
	case errors.Is(err, client.ErrConsumed):
		fmt.Println("already consumed: no side effect")
	case err != nil:
		fmt.Println("refused: no side effect:", err)
	default:
		fmt.Println("consumed: perform the side effect now")
	}
}
