package registry

import (
	"cmp"
	"slices"

	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// MaxCapabilities bounds the Capabilities of one Tool Definition (1–16).
const MaxCapabilities = 16

// DefinitionDraft is the untrusted, declarative description of one Tool
// Definition as a Host administrator writes it. Publish validates every field.
type DefinitionDraft struct {
	ID            string // Tool Definition identity, lower-token(64)
	ToolID        string // Tool Identifier
	Version       string // Tool Version as canonical generation text
	Lifecycle     string // active | deprecated | retired
	Risk          string
	SideEffect    string
	Reversibility string
	Capabilities  []string // 1–16 unique Section 48 Capabilities; any order
	Title         string
	Summary       string
	DocRef        string // optional; "" is absent
	Schema        SchemaDraft
}

// SchemaDraft names and describes the complete Schema of a definition.
type SchemaDraft struct {
	ID      string // Schema identity, lower-token(64)
	Version string // "v1"
	Root    schema.Draft
}

// Definition is one immutable, validated Tool Definition (Section 9). It
// contains no executable behavior and grants no authority: its Capabilities
// are maxima, not grants.
type Definition struct {
	id            ident.DefinitionID
	toolID        ident.ToolID
	version       ident.Generation
	lifecycle     vocab.Lifecycle
	risk          vocab.Risk
	sideEffect    vocab.SideEffect
	reversibility vocab.Reversibility
	capabilities  []vocab.Capability // unique, ascending
	title         ident.Text
	summary       ident.Text
	docRef        ident.DocRef
	schema        schema.Schema
	digest        digest.Digest
}

// ID returns the Tool Definition identity.
func (d *Definition) ID() ident.DefinitionID { return d.id }

// ToolID returns the Tool Identifier.
func (d *Definition) ToolID() ident.ToolID { return d.toolID }

// Version returns the Tool Version.
func (d *Definition) Version() ident.Generation { return d.version }

// Lifecycle returns the lifecycle.
func (d *Definition) Lifecycle() vocab.Lifecycle { return d.lifecycle }

// Risk returns the risk classification.
func (d *Definition) Risk() vocab.Risk { return d.risk }

// SideEffect returns the side-effect classification.
func (d *Definition) SideEffect() vocab.SideEffect { return d.sideEffect }

// Reversibility returns the reversibility classification.
func (d *Definition) Reversibility() vocab.Reversibility { return d.reversibility }

// Capabilities returns a copy of the maximum Capabilities, in ASCII order.
func (d *Definition) Capabilities() []vocab.Capability { return slices.Clone(d.capabilities) }

// HasCapability reports whether c is within the maximum Capabilities.
func (d *Definition) HasCapability(c vocab.Capability) bool {
	return slices.Contains(d.capabilities, c)
}

// Title returns the non-authoritative display title.
func (d *Definition) Title() ident.Text { return d.title }

// Summary returns the non-authoritative safe summary.
func (d *Definition) Summary() ident.Text { return d.summary }

// DocRef returns the documentation reference; IsZero when absent.
func (d *Definition) DocRef() ident.DocRef { return d.docRef }

// Schema returns the complete Schema.
func (d *Definition) Schema() schema.Schema { return d.schema }

// Digest returns the digest of the complete definition content, including
// the complete Schema.
func (d *Definition) Digest() digest.Digest { return d.digest }

// Equal reports complete content equality. Identifier equality is
// not enough (Section 9): any difference in metadata or Schema content makes
// two definitions different.
func (a *Definition) Equal(b *Definition) bool {
	return a != nil && b != nil && a.digest.Equal(b.digest)
}

func newDefinition(d DefinitionDraft) (*Definition, error) {
	// Every field is checked, so that a publication reports all its
	// violations, not only the first.
	var def Definition
	var errs fault.Errors
	var err error
	if def.id, err = ident.ParseDefinitionID(d.ID); err != nil {
		errs.Add("id", err)
	}
	if def.toolID, err = ident.ParseToolID(d.ToolID); err != nil {
		errs.Add("toolID", err)
	}
	if def.version, err = ident.ParseGeneration(d.Version); err != nil {
		errs.Add("version", err)
	}
	if def.lifecycle, err = vocab.ParseLifecycle(d.Lifecycle); err != nil {
		errs.Add("lifecycle", err)
	}
	if def.risk, err = vocab.ParseRisk(d.Risk); err != nil {
		errs.Add("risk", err)
	}
	if def.sideEffect, err = vocab.ParseSideEffect(d.SideEffect); err != nil {
		errs.Add("sideEffect", err)
	}
	if def.reversibility, err = vocab.ParseReversibility(d.Reversibility); err != nil {
		errs.Add("reversibility", err)
	}
	if def.capabilities, err = parseCapabilities(d.Capabilities); err != nil {
		errs.Add("capabilities", err)
	}
	if def.title, err = ident.ParseTitle(d.Title); err != nil {
		errs.Add("title", err)
	}
	if def.summary, err = ident.ParseSummary(d.Summary); err != nil {
		errs.Add("summary", err)
	}
	if d.DocRef != "" {
		if def.docRef, err = ident.ParseDocRef(d.DocRef); err != nil {
			errs.Add("docRef", err)
		}
	}
	if def.schema, err = newSchema(d.Schema); err != nil {
		errs.Add("schema", err)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	def.digest = def.computeDigest()
	return &def, nil
}

func newSchema(d SchemaDraft) (schema.Schema, error) {
	var errs fault.Errors
	id, err := ident.ParseSchemaID(d.ID)
	errs.Add("id", err)
	v, err := vocab.ParseVersion(d.Version)
	errs.Add("version", err)
	if err := errs.Err(); err != nil {
		// The root is still checked, with placeholders for the rejected
		// identity, so its violations are reported too.
		placeholder, _ := ident.ParseSchemaID("placeholder") // a valid constant identity
		_, rootErr := schema.New(placeholder, vocab.V1, d.Root)
		errs.Add("root", rootErr)
		return schema.Schema{}, errs.Err()
	}
	s, err := schema.New(id, v, d.Root)
	if err != nil {
		return schema.Schema{}, fault.Within("root", err)
	}
	return s, nil
}

// parseCapabilities accepts 1–16 unique Capability tokens in any order and
// returns them in ASCII order, the set's deterministic representation.
func parseCapabilities(tokens []string) ([]vocab.Capability, error) {
	if len(tokens) == 0 {
		return nil, fault.New(fault.Missing, "a tool definition declares 1–16 capabilities")
	}
	// Capability constants follow token ASCII order.
	return ident.ParseSet(tokens, vocab.ParseCapability, cmp.Compare, MaxCapabilities,
		"a tool definition declares at most 16 capabilities", "capabilities are unique")
}

func (d *Definition) computeDigest() digest.Digest {
	b := digest.New("toolgate.definition/1")
	b.String(d.id.String())
	b.String(d.toolID.String())
	b.Uint(d.version.Uint64())
	b.Uint(uint64(d.lifecycle))
	b.Uint(uint64(d.risk))
	b.Uint(uint64(d.sideEffect))
	b.Uint(uint64(d.reversibility))
	b.Count(len(d.capabilities))
	for _, c := range d.capabilities {
		b.Uint(uint64(c))
	}
	b.String(d.title.String())
	b.String(d.summary.String())
	if d.docRef.IsZero() {
		b.Absent()
	} else {
		b.String(d.docRef.String())
	}
	b.Digest(d.schema.Digest())
	return b.Sum()
}
