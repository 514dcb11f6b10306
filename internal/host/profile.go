package host

import (
	"errors"
	"strings"

	"github.com/toolgate/toolgate/internal/argprofile"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// The argument profile (docs/arguments.md) sits in front of the engine:
// the Host holds each profile beside the Registry Snapshot it was
// published with and, for a definition that carries one, derives the
// protocol arguments from the raw MCP arguments before canonicalization.
// The engine never sees a profile; it sees an ordinary Proposal whose
// definition's docRef is the profile's digest reference.

// ProfilePrefix starts the docRef of every definition that carries an
// argument profile; no other definition may use it.
const ProfilePrefix = "argprofile."

// RegistryDraft is a Registry Snapshot as plain data (Section 9) with the
// argument profiles of its definitions.
type RegistryDraft struct {
	registry.Draft
	// Profiles[i] is the argument profile of Definitions[i], nil when it
	// has none; a shorter list leaves the rest without one.
	Profiles []*argprofile.Profile
}

// Profile returns the argument profile of definition i, or nil.
func (d RegistryDraft) Profile(i int) *argprofile.Profile {
	if i < len(d.Profiles) {
		return d.Profiles[i]
	}
	return nil
}

// CheckProfileBinding checks that definition d and its argument profile p
// (nil when it has none) cannot drift apart: with a profile, d's docRef is
// p.DocRef() and d's Schema root is exactly p.Schema(); without one, d's
// docRef does not start with ProfilePrefix. Every violation is returned at
// once, at "docRef" or "schema.root". A root that is no valid Schema is
// left to registry publication, which reports it.
func CheckProfileBinding(d registry.DefinitionDraft, p *argprofile.Profile) error {
	if p == nil {
		if strings.HasPrefix(d.DocRef, ProfilePrefix) {
			return fault.At("docRef", fault.Missing, "a definition whose docRef starts with argprofile. carries its argument profile (arguments)")
		}
		return nil
	}
	var errs fault.Errors
	if d.DocRef != p.DocRef() {
		errs.Add("", fault.At("docRef", fault.Mismatch, "the docRef of a definition with an argument profile is the profile's reference (argprofile. and 52 hex digits of its digest)"))
	}
	if own, err := schema.New(bindingSchemaID, vocab.V1, d.Schema.Root); err == nil {
		derived, err := schema.New(bindingSchemaID, vocab.V1, p.Schema())
		if err != nil || !own.Equal(derived) {
			errs.Add("", fault.At("schema.root", fault.Mismatch, "the schema root of a definition with an argument profile is exactly the Schema the profile derives to"))
		}
	}
	return errs.Err()
}

// bindingSchemaID names both Schemas CheckProfileBinding compares, so that
// they compare by their trees alone.
var bindingSchemaID = func() ident.SchemaID {
	id, err := ident.ParseSchemaID("argprofile")
	if err != nil {
		panic(err)
	}
	return id
}()

// checkProfiles checks every definition's binding, at definitions[i], and
// that no profile is listed beyond the definitions.
func checkProfiles(d RegistryDraft) error {
	var errs fault.Errors
	if len(d.Profiles) > len(d.Definitions) {
		errs.Add("", fault.At("profiles", fault.OutOfRange, "every argument profile belongs to one definition"))
	}
	for i, def := range d.Definitions {
		errs.Add("definitions"+fault.Index(i), CheckProfileBinding(def, d.Profile(i)))
	}
	return errs.Err()
}

// publishDraft publishes d with the binding rule, and returns the profiles
// of its definitions keyed by their docRef.
func publishDraft(d RegistryDraft) (*registry.Snapshot, map[string]*argprofile.Profile, error) {
	var errs fault.Errors
	errs.Add("", checkProfiles(d))
	s, err := registry.Publish(d.Draft)
	errs.Add("", err)
	if err := errs.Err(); err != nil {
		return nil, nil, err
	}
	var held map[string]*argprofile.Profile
	for _, p := range d.Profiles {
		if p != nil {
			if held == nil {
				held = map[string]*argprofile.Profile{}
			}
			held[p.DocRef()] = p
		}
	}
	return s, held, nil
}

// profileOf returns the argument profile the definition a Proposal names
// in reg carries, or nil when it carries none or does not resolve (the
// engine then rejects the Proposal with its own fault). A held definition
// whose docRef has ProfilePrefix always has its profile held
// (PublishRegistry); its absence fails closed.
func (h *Host) profileOf(reg *registry.Snapshot, p Proposal) (*argprofile.Profile, error) {
	if reg == nil {
		return nil, nil
	}
	tool, err := ident.ParseToolID(p.ToolID)
	if err != nil {
		return nil, nil
	}
	version, err := ident.ParseGeneration(p.Version)
	if err != nil {
		return nil, nil
	}
	res, err := reg.Lookup(tool, version)
	if err != nil {
		return nil, nil
	}
	ref := res.Definition().DocRef().String()
	if !strings.HasPrefix(ref, ProfilePrefix) {
		return nil, nil
	}
	h.mu.RLock()
	prof := h.profiles[ref]
	h.mu.RUnlock()
	if prof == nil {
		return nil, fault.At("registry", fault.NotFound, "the argument profile of this definition is not held in this domain")
	}
	return prof, nil
}

// derived returns p with its raw MCP arguments replaced by the protocol
// arguments its definition's argument profile derives from them, byte for
// byte the same input at authorize and at validate; p unchanged when the
// definition carries no profile. A refusal is located at at (the raw
// arguments' path) followed by the JSON pointer of the refused value.
func (h *Host) derived(reg *registry.Snapshot, p Proposal, at string) (Proposal, error) {
	prof, err := h.profileOf(reg, p)
	if err != nil || prof == nil {
		return p, err
	}
	if len(p.Arguments) > h.limits.MaxArgumentBytes {
		return p, fault.At(at, fault.LimitExceeded, "the raw arguments exceed the Host's argument bound")
	}
	out, err := prof.Derive(p.Arguments)
	if err != nil {
		return p, deriveFault(at, err)
	}
	p.Arguments = out
	return p, nil
}

// deriveFault converts every refusal of a derivation into the engine's
// closed codes (the table in docs/arguments.md, "Binding"), at at followed
// by the refusal's JSON pointer. The rule is the refusal's fixed sentence:
// no value is quoted.
func deriveFault(at string, err error) error {
	var list argprofile.Errors
	if !errors.As(err, &list) || len(list) == 0 {
		return fault.At(at, fault.Malformed, "the argument profile refused the arguments")
	}
	var errs fault.Errors
	for _, e := range list {
		rule := strings.TrimPrefix((&argprofile.Error{Code: e.Code, Rule: e.Rule}).Error(), `argprofile: "": `)
		errs.Add("", fault.At(at+e.Path, ProfileFaultCode(e.Code), "argument profile: "+rule))
	}
	return errs.Err()
}

// ProfileFaultCode maps an argument-profile refusal code onto the engine's
// closed codes, as request.JSONFaultCode maps the decoder's: the kinds the
// protocol does not have (a fraction, an exponent) are KindMismatch, a
// reviewed bound is OutOfRange, an octet or depth bound LimitExceeded.
func ProfileFaultCode(c argprofile.Code) fault.Code {
	//exhaustive:enforce
	switch c {
	case argprofile.CodeDuplicate:
		return fault.Duplicate
	case argprofile.CodeTooLarge, argprofile.CodeTooDeep:
		return fault.LimitExceeded
	case argprofile.CodeKind, argprofile.CodeFraction, argprofile.CodeExponent:
		return fault.KindMismatch
	case argprofile.CodeUnknownMember:
		return fault.UnknownField
	case argprofile.CodeMissing:
		return fault.Missing
	case argprofile.CodeCase:
		return fault.UnknownToken
	case argprofile.CodeTooLong, argprofile.CodeTooShort, argprofile.CodeConst, argprofile.CodeOutOfRange,
		argprofile.CodeInexactNumber, argprofile.CodeTooManyItems, argprofile.CodeTooFewItems:
		return fault.OutOfRange
	case argprofile.CodeHeaderMismatch:
		return fault.Mismatch
	case argprofile.CodeSyntax, argprofile.CodeNotASCII, argprofile.CodePattern, argprofile.CodeFormat, argprofile.CodeInvalidDraft:
		return fault.Malformed
	default: // outside the closed set
		return fault.Malformed
	}
}
