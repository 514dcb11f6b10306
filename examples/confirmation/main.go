// Command confirmation plays the three people of a confirmed tool call
// against a running toolgate service (`make run`; the sample domain takes
// confirmations, docs/confirmation.md): the agent runtime asks to email the
// vendor, which the policy holds back for a human (requireConfirmation); a
// payments approver — a second person — approves exactly that call; the
// agent, which waited for the approval with a deadline, asks again with the
// confirmation, gets the Authorization from a fresh evaluation, and the
// executor consumes it — twice, to show that the second attempt is refused.
//
//	go run ./examples/confirmation [-url http://127.0.0.1:8080]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/toolgate/toolgate/client"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:8080", "the toolgate service")
	agentToken := flag.String("agent-token", "dev-agent-runtime-token-4f8b2c1e9d7a", "the agent runtime's token")
	approverToken := flag.String("approver-token", "dev-payments-approver-token-2d9e6b4a8c1f", "a payments approver's token")
	executorToken := flag.String("executor-token", "dev-payments-executor-token-7c3e5a9b1f2d", "the executor's token")
	flag.Parse()
	if err := run(os.Stdout, *url, *agentToken, *approverToken, *executorToken); err != nil {
		fmt.Fprintln(os.Stderr, "confirmation:", err)
		os.Exit(1)
	}
}

func run(out io.Writer, url, agentToken, approverToken, executorToken string) error {
	ctx := context.Background()
	var req client.AuthorizeRequest
	if err := readJSON("examples/api/authorize-confirm.json", &req); err != nil {
		return err
	}
	agent := client.New(url, agentToken, nil)
	res, err := agent.Authorize(ctx, req)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "agent: %s %v by %v\n", res.Decision.Outcome, res.Decision.Reasons, res.Decision.MatchedRules)
	if res.Confirmation == nil {
		return errors.New("no confirmation request was opened (does the domain take confirmations?)")
	}
	id := res.Confirmation.ID
	fmt.Fprintf(out, "agent: waiting for a confirmation of %s\n", id[:16])

	// A second person, in another process in real life (the CLI:
	// toolgate confirmations approve ID), approves exactly this call.
	approved := make(chan error, 1)
	go func() {
		c, err := client.New(url, approverToken, nil).Approve(ctx, id)
		if err == nil {
			fmt.Fprintf(out, "approver %s: approved %s for %s\n", c.Confirmer, c.ToolID, c.Subject.Subject)
		}
		approved <- err
	}()
	wait, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := agent.WaitForConfirmation(wait, id, 100*time.Millisecond); err != nil {
		return err
	}
	if err := <-approved; err != nil {
		return err
	}

	req.Confirmation = id
	res, err = agent.Authorize(ctx, req)
	if err != nil {
		return err
	}
	if res.Authorization == nil {
		return errors.New("the confirmed call issued no authorization")
	}
	fmt.Fprintf(out, "agent: authorized %s after the confirmation\n", res.Authorization.ID)
	if _, err := agent.Authorize(ctx, req); err != nil {
		fmt.Fprintf(out, "agent: the confirmation cannot be used again: %v\n", err)
	}

	// The executor knows the call it is about to make; here it is the
	// example's own request, as its tool-call record would hold it.
	exp := client.Expectations{
		AuthorizationID: req.AuthorizationID, ReplayID: req.ReplayID, ConsumptionID: req.ConsumptionID,
		ProposalID: req.Proposal.ProposalID, ToolID: req.Proposal.ToolID, Version: req.Proposal.Version,
		Arguments: req.Proposal.Arguments, Identity: req.Facts.SecurityContext.Identity,
		Capabilities: req.RequestedCapabilities, Resources: req.RequestedResources,
	}
	executor := client.New(url, executorToken, nil)
	for attempt := 1; attempt <= 2; attempt++ {
		done, err := executor.Consume(ctx, client.ValidateRequest{Artifact: res.Authorization.Artifact, Expectations: exp})
		switch {
		case errors.Is(err, client.ErrConsumed):
			fmt.Fprintf(out, "executor, attempt %d: already consumed — no email\n", attempt)
		case err != nil:
			return err
		default:
			fmt.Fprintf(out, "executor, attempt %d: consumed %s — sending the email\n", attempt, done.Binding)
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
