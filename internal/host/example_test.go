package host_test

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/internal/artifact"
)

// A complete allow: the Decision, its scope and obligations, and the
// single-use Authorization the service signs and returns.
func ExampleHost_Authorize_allow() {
	h := newPaymentsHost()
	res, err := h.Authorize(payment())
	if err != nil {
		fmt.Println("rejected:", err)
		return
	}
	d, a := res.Decision, res.Authorization
	fmt.Printf("%v %v %v\n", d.Outcome(), d.Reasons(), d.MatchedRules())
	fmt.Printf("scope: %v %v\n", d.Capabilities(), d.Resources())
	fmt.Println("obligations:", len(d.Obligations()))
	fmt.Println("authorization:", a.ID(), "valid", a.IssuedAt().Seconds()-now, "to", a.ExpiresAt().Seconds()-now, "s")
	// Output:
	// allow [allowRuleMatched] [allow-acme-payments]
	// scope: [data.read financial.transfer] [acct-1001 acct-2002]
	// obligations: 1
	// authorization: authz-1 valid 0 to 120 s
}

// A deny carries its reasons and the rules that matched, and never an
// Authorization.
func ExampleHost_Authorize_deny() {
	h := newPaymentsHost()
	res, err := h.Authorize(as(payment(), "alice", "globex"))
	if err != nil {
		fmt.Println("rejected:", err)
		return
	}
	d := res.Decision
	fmt.Printf("%v %v %v %v\n", d.Outcome(), d.Reasons(), d.MatchedRules(), res.Authorization == nil)
	// Output:
	// deny [denyRuleMatched tenantMismatch] [deny-globex] true
}

// requireConfirmation is not an allow: no Authorization is issued.
func ExampleHost_Authorize_requireConfirmation() {
	h := newPaymentsHost()
	res, err := h.Authorize(as(payment(), "bob", "acme"))
	if err != nil {
		fmt.Println("rejected:", err)
		return
	}
	d := res.Decision
	fmt.Printf("%v %v %v %v\n", d.Outcome(), d.Reasons(), d.MatchedRules(), res.Authorization == nil)
	// Output:
	// requireConfirmation [confirmationRuleMatched allowRuleMatched] [allow-acme-payments confirm-bob] true
}

// The executor validates the Authorization against the exact call it is
// about to make; one changed argument rejects the whole Validation.
func ExampleHost_Validate() {
	h := newPaymentsHost()
	res, _ := h.Authorize(payment())

	binding, err := h.Validate(executor, res.Authorization, expectations(), now+5)
	fmt.Println(binding != nil, err)

	changed := expectations()
	changed.Arguments = []byte(strings.Replace(string(changed.Arguments), `"amount":12500`, `"amount":12501`, 1))
	_, err = h.Validate(executor, res.Authorization, changed, now+5)
	fmt.Println(err)
	// Output:
	// true <nil>
	// engine: request: mismatch: the authorization differs from the independent expectation
}

// Another replica of the same Host rebuilds an Authorization from its
// portable record by re-running the complete issuance in its own domain.
func ExampleHost_Rebuild() {
	issuer, replica := newPaymentsHost(), newPaymentsHost()
	res, _ := issuer.Authorize(payment())

	// The service signs the record with the domain's key; Open verifies the
	// signature and constructs the only value Rebuild accepts.
	key, _ := artifact.NewKey(bytes.Repeat([]byte{1}, ed25519.SeedSize))
	lookup := func(string) (ed25519.PublicKey, bool) { return key.Public(), true }
	record, _ := artifact.Open(key.Seal(res.Portable), lookup)
	a, err := replica.Rebuild(record)
	fmt.Println(err, a.Binding().Digest() == res.Authorization.Binding().Digest())

	// The authorization identity changed, and signed: authentic bytes that
	// are not what was issued.
	tampered := bytes.Replace(res.Portable, []byte("authz-1"), []byte("authz-2"), 1)
	record, _ = artifact.Open(key.Seal(tampered), lookup)
	_, err = replica.Rebuild(record)
	fmt.Println(err)
	// Output:
	// <nil> true
	// engine: record.bindingDigest: mismatch: re-running the issuance does not reproduce the recorded authorization
}
