package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/toolgate/toolgate/client"
)

// The confirmations verbs (toolgate.confirmations/1, docs/confirmation.md):
// a person lists, reads and answers the confirmation requests a
// requireConfirmation Decision opened, over the service's API, as whoever
// the bearer token authenticates.

type confirmationsOptions struct {
	verb      string
	server    string
	tokenFile string
	timeout   time.Duration
	output    *outputFlags
}

func confirmationsFlags(verb string) func(fs *pflag.FlagSet) *confirmationsOptions {
	return func(fs *pflag.FlagSet) *confirmationsOptions {
		o := &confirmationsOptions{verb: verb}
		fs.StringVar(&o.server, "server", "http://127.0.0.1:8080", "the authorization service's base `URL`")
		fs.StringVar(&o.tokenFile, "token-file", "", "a file (`PATH`) holding the bearer token that authenticates you; TOOLGATE_TOKEN when not given")
		fs.DurationVar(&o.timeout, "timeout", 10*time.Second, "give up on the service after this `DURATION`")
		o.output = addOutputFlags(fs, false)
		return o
	}
}

// client returns the API client for o, its token read once.
func (o *confirmationsOptions) client() (*client.Client, error) {
	token := os.Getenv("TOOLGATE_TOKEN")
	if o.tokenFile != "" {
		b, err := os.ReadFile(o.tokenFile)
		if err != nil {
			return nil, fmt.Errorf("read --token-file: %w", errors.Unwrap(err))
		}
		token = strings.TrimSpace(string(b))
	}
	if token == "" {
		return nil, usageError{o.verb + " needs a bearer token: --token-file or TOOLGATE_TOKEN"}
	}
	return client.New(strings.TrimRight(o.server, "/"), token, &http.Client{Timeout: o.timeout}), nil
}

// withID runs an action on one confirmation request identity.
func (o *confirmationsOptions) withID(args []string) (string, error) {
	if len(args) != 1 || args[0] == "" {
		return "", usageError{o.verb + " takes one confirmation request ID (toolgate confirmations list shows them)"}
	}
	return args[0], nil
}

func confirmationsList(o *confirmationsOptions, args []string, out io.Writer) error {
	if len(args) != 0 {
		return usageError{"confirmations list takes flags only"}
	}
	mode, err := o.output.mode()
	if err != nil {
		return err
	}
	c, err := o.client()
	if err != nil {
		return err
	}
	list, err := c.Confirmations(context.Background())
	if err != nil {
		return apiFailure(err)
	}
	if mode != formatText {
		return emit(out, mode, list)
	}
	if len(list.Confirmations) == 0 {
		_, err := fmt.Fprintln(out, "no pending confirmation requests visible to you")
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tDOMAIN\tTOOL\tSUBJECT\tREQUESTER\tEXPIRES")
	for _, x := range list.Confirmations {
		fmt.Fprintf(tw, "%s\t%s/%s\t%s@%s\t%s\t%s\t%s\n", x.ID[:16], x.HostAuthority.Namespace, x.HostAuthority.Name,
			x.ToolID, x.Version, x.Subject.Subject, x.Requester, time.Unix(int64(x.ExpiresAt), 0).UTC().Format(time.RFC3339))
	}
	return tw.Flush()
}

// resolve accepts a full identity or the 16-digit prefix list prints, when
// exactly one visible request has it.
func resolve(ctx context.Context, c *client.Client, id string) (string, error) {
	if len(id) == 64 {
		return id, nil
	}
	list, err := c.Confirmations(ctx)
	if err != nil {
		return "", apiFailure(err)
	}
	match := ""
	for _, x := range list.Confirmations {
		if strings.HasPrefix(x.ID, id) {
			if match != "" {
				return "", errors.New("the ID prefix names more than one pending request; give more of it")
			}
			match = x.ID
		}
	}
	if match == "" {
		return id, nil // the service says it is not found (or not pending)
	}
	return match, nil
}

// target is what show, approve and deny share: the one confirmation the
// arguments name (a unique prefix resolved by the service's list), the
// output mode and the client.
func (o *confirmationsOptions) target(ctx context.Context, args []string) (*client.Client, string, string, error) {
	id, err := o.withID(args)
	if err != nil {
		return nil, "", "", err
	}
	mode, err := o.output.mode()
	if err != nil {
		return nil, "", "", err
	}
	c, err := o.client()
	if err != nil {
		return nil, "", "", err
	}
	if id, err = resolve(ctx, c, id); err != nil {
		return nil, "", "", err
	}
	return c, id, mode, nil
}

func confirmationsShow(o *confirmationsOptions, args []string, out io.Writer) error {
	ctx := context.Background()
	c, id, mode, err := o.target(ctx, args)
	if err != nil {
		return err
	}
	got, err := c.Confirmation(ctx, id)
	if err != nil {
		return apiFailure(err)
	}
	return writeConfirmation(out, mode, got)
}

func writeConfirmation(out io.Writer, mode string, x *client.Confirmation) error {
	if mode != formatText {
		return emit(out, mode, x)
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	rows := [][2]string{
		{"id", x.ID}, {"state", x.State},
		{"domain", x.HostAuthority.Namespace + "/" + x.HostAuthority.Name},
		{"tool", x.ToolID + " version " + x.Version},
		{"subject", x.Subject.Subject + " (tenant " + x.Subject.Tenant + ")"},
		{"requester", x.Requester},
		{"decision", x.Decision.Outcome + ": " + strings.Join(x.Decision.Reasons, ", ")},
		{"matched rules", strings.Join(x.Decision.MatchedRules, ", ")},
		{"capabilities", strings.Join(x.RequestedCapabilities, ", ")},
		{"resources", strings.Join(x.RequestedResources, ", ")},
		{"authorization", x.AuthorizationID},
		{"expires", time.Unix(int64(x.ExpiresAt), 0).UTC().Format(time.RFC3339)},
	}
	if len(x.NamedConfirmers) > 0 {
		rows = append(rows, [2]string{"confirmers", strings.Join(x.NamedConfirmers, ", ")})
	}
	if x.ExcludesRequester {
		rows = append(rows, [2]string{"second person", "required (the requester and the subject may not confirm)"})
	}
	if x.Confirmer != "" {
		rows = append(rows, [2]string{"answered by", x.Confirmer}, [2]string{"answer expires", time.Unix(int64(x.AnswerExpiresAt), 0).UTC().Format(time.RFC3339)})
	}
	for _, r := range rows {
		fmt.Fprintf(tw, "%s:\t%s\n", r[0], r[1])
	}
	return tw.Flush()
}

func confirmationsAnswer(answer string) func(o *confirmationsOptions, args []string, out io.Writer) error {
	return func(o *confirmationsOptions, args []string, out io.Writer) error {
		ctx := context.Background()
		c, id, mode, err := o.target(ctx, args)
		if err != nil {
			return err
		}
		answerFn := c.Approve
		if answer == "deny" {
			answerFn = c.Deny
		}
		got, err := answerFn(ctx, id)
		if err != nil {
			return apiFailure(err)
		}
		return writeConfirmation(out, mode, got)
	}
}

// apiFailure is an API refusal in one line: its reason code, path and the
// service's rule (which never quotes input).
func apiFailure(err error) error {
	var ae *client.APIError
	if errors.As(err, &ae) {
		msg := ae.Err.Code
		if ae.Err.Path != "" {
			msg += " at " + ae.Err.Path
		}
		return errors.New(msg + ": " + ae.Err.Message)
	}
	return err
}
