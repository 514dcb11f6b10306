// Command mcp-agent plays an agent runtime calling an MCP tool through
// toolgate's MCP gateway (docs/mcp.md): it authorizes the allowed example
// payment with the toolgate service, calls submit_payment through the
// gateway with the official MCP SDK client and the artifact in
// params._meta["dev.toolgate/authorization"], then sends the very same call
// again, which the gateway refuses (consumed) without reaching the server.
//
//	go run ./examples/mcp-agent [-url http://127.0.0.1:8080] [-gateway http://127.0.0.1:8090/mcp]
//
// TOOLGATE_URL and TOOLGATE_MCP_GATEWAY set the defaults of -url and
// -gateway, for a service or gateway on other ports.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/client/mcpclient"
)

func main() {
	url := flag.String("url", envOr("TOOLGATE_URL", "http://127.0.0.1:8080"), "the toolgate service (default from TOOLGATE_URL)")
	gateway := flag.String("gateway", envOr("TOOLGATE_MCP_GATEWAY", "http://127.0.0.1:8090/mcp"), "the MCP gateway's endpoint (default from TOOLGATE_MCP_GATEWAY)")
	token := flag.String("agent-token", "dev-agent-runtime-token-4f8b2c1e9d7a", "the agent runtime's token")
	flag.Parse()
	if err := run(*url, *gateway, *token); err != nil {
		fmt.Fprintln(os.Stderr, "mcp-agent:", err)
		os.Exit(1)
	}
}

// envOr is the environment variable name's value, or def when it is unset
// or empty.
func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func run(url, gateway, token string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	raw, err := os.ReadFile("examples/api/authorize-allow.json")
	if err != nil {
		return err
	}
	var req client.AuthorizeRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return err
	}
	// A new call needs new identities (the same ones would be answered
	// with the same, already consumed, Authorization).
	id := fmt.Sprintf("mcp-agent-%d", time.Now().UnixNano())
	req.DecisionID, req.AuthorizationID, req.ReplayID, req.ConsumptionID = "decision-"+id, "authz-"+id, "replay-"+id, "consumption-"+id
	req.Proposal.ProposalID = "proposal-" + id

	session, err := mcp.NewClient(&mcp.Implementation{Name: "mcp-agent", Version: "v1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: gateway}, nil)
	if err != nil {
		return err
	}
	defer func() { _ = session.Close() }()

	params, err := mcpclient.Authorize(ctx, client.New(url, token, nil), req, "submit_payment")
	if err != nil {
		return err // a *mcpclient.DeniedError for a deny
	}
	for attempt := 1; attempt <= 2; attempt++ {
		res, err := session.CallTool(ctx, params)
		if err != nil {
			return err
		}
		if code, path, refused := mcpclient.Refusal(res); refused {
			fmt.Fprintf(os.Stdout, "attempt %d: refused by the gateway: %s at %s\n", attempt, code, path)
			continue
		}
		out, _ := json.Marshal(res.StructuredContent)
		fmt.Fprintf(os.Stdout, "attempt %d: %s\n", attempt, out)
	}
	return nil
}
