package policy

import (
	"slices"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// operand is the operand family of a predicate (Section 20 "Operand and
// limit rule" column, Section 48 signatures).
type operand uint8

const (
	opNone                 operand = iota // no operand
	opToolID                              // Identifier: Tool Identifier
	opDefinitionID                        // Identifier: Tool Definition identity
	opControlled                          // Identifier: Phase 4 controlled identity
	opResource                            // Identifier: Resource
	opGeneration                          // Generation
	opRegistry                            // Identifier (Registry Snapshot identity) + Generation
	opEnum                                // Value: one closed token
	opEnumSet                             // Values: closed tokens
	opCapabilitySet                       // Values: Capabilities
	opResourceSet                         // Values: Resources
	opBoundaryCompleteness                // Identifier (boundary) + Value (completeness)
	opCount                               // Count: 0–64
	opSeconds                             // Seconds: 0–2^64−1
	opWindow                              // Window
)

// closed is one closed vocabulary used by enum operands.
type closed struct {
	parse  func(string) (uint8, error)
	token  func(uint8) string // the inverse of parse, for explanations
	maxSet int                // bound of a set operand of this vocabulary
	bound  string             // rule text for that bound
}

func vocabulary[T interface {
	~uint8
	String() string
}](parse func(string) (T, error), maxSet int, bound string) *closed {
	return &closed{parse: func(s string) (uint8, error) {
		v, err := parse(s)
		return uint8(v), err
	}, token: func(v uint8) string { return T(v).String() }, maxSet: maxSet, bound: bound}
}

var (
	lifecycles      = vocabulary(vocab.ParseLifecycle, 0, "")
	risks           = vocabulary(vocab.ParseRisk, 0, "")
	sideEffects     = vocabulary(vocab.ParseSideEffect, 0, "")
	reversibilities = vocabulary(vocab.ParseReversibility, 0, "")
	assurances      = vocabulary(vocab.ParseAssurance, MaxOperandAssurances, "an assurance operand has 1–6 unique values")
	methods         = vocabulary(vocab.ParseAuthMethod, MaxOperandMethods, "an authentication-method operand has 1–6 unique values")
	capabilities    = vocabulary(vocab.ParseCapability, MaxOperandCapabilities, "a capability operand has 1–16 unique values")
	coverages       = vocabulary(vocab.ParseProvenanceCoverage, 0, "")
	sources         = vocabulary(vocab.ParseProvenanceSource, 0, "")
	trusts          = vocabulary(vocab.ParseTrust, MaxOperandTrusts, "a trust operand has 1–3 unique values")
	transformations = vocabulary(vocab.ParseTransformation, 0, "")
	completenesses  = vocabulary(vocab.ParseCompleteness, 0, "")
	kinds           = vocabulary(vocab.ParseInfluenceKind, 0, "")
)

// signature is the operand shape of one predicate.
type signature struct {
	op    operand
	vocab *closed
}

// signatures is indexed by vocab.Predicate (Section 48 order, 1-based).
var signatures = [...]signature{
	vocab.ExactToolID:                                {op: opToolID},
	vocab.ExactToolVersion:                           {op: opGeneration},
	vocab.ExactDefinitionID:                          {op: opDefinitionID},
	vocab.ExactRegistrySnapshot:                      {op: opRegistry},
	vocab.LifecycleIs:                                {op: opEnum, vocab: lifecycles},
	vocab.RiskIs:                                     {op: opEnum, vocab: risks},
	vocab.SideEffectIs:                               {op: opEnum, vocab: sideEffects},
	vocab.ReversibilityIs:                            {op: opEnum, vocab: reversibilities},
	vocab.ExactSubject:                               {op: opControlled},
	vocab.ExactTenant:                                {op: opControlled},
	vocab.ExactSession:                               {op: opControlled},
	vocab.SessionIsIndependent:                       {op: opNone},
	vocab.DelegationPresent:                          {op: opNone},
	vocab.ExactDelegationID:                          {op: opControlled},
	vocab.AssuranceIsOneOf:                           {op: opEnumSet, vocab: assurances},
	vocab.AuthenticationMethodIncludes:               {op: opEnum, vocab: methods},
	vocab.AuthenticationMethodsIncludeAll:            {op: opEnumSet, vocab: methods},
	vocab.RequestedCapabilitiesSubsetOf:              {op: opCapabilitySet, vocab: capabilities},
	vocab.RequestedCapabilitiesInclude:               {op: opCapabilitySet, vocab: capabilities},
	vocab.IntendedCapabilitiesInclude:                {op: opCapabilitySet, vocab: capabilities},
	vocab.ExactRequestedResource:                     {op: opResource},
	vocab.RequestedResourcesSubsetOf:                 {op: opResourceSet},
	vocab.RequestedResourcesInclude:                  {op: opResourceSet},
	vocab.ProvenanceCoverageIs:                       {op: opEnum, vocab: coverages},
	vocab.ProvenanceContainsSource:                   {op: opEnum, vocab: sources},
	vocab.ProvenanceTrustIsOneOf:                     {op: opEnumSet, vocab: trusts},
	vocab.ProvenanceContainsTransformation:           {op: opEnum, vocab: transformations},
	vocab.ProvenanceContainsNoSemanticTransformation: {op: opNone},
	vocab.InfluenceBoundaryCompletenessIs:            {op: opBoundaryCompleteness, vocab: completenesses},
	vocab.AllInfluenceBoundariesComplete:             {op: opNone},
	vocab.InfluenceContainsKind:                      {op: opEnum, vocab: kinds},
	vocab.InfluenceContainsNoKind:                    {op: opEnum, vocab: kinds},
	vocab.ExactInfluenceBoundary:                     {op: opControlled},
	vocab.MaximumInfluenceCount:                      {op: opCount},
	vocab.EvaluationTimeWithin:                       {op: opWindow},
	vocab.RenewalGenerationIs:                        {op: opGeneration},
	vocab.MaximumIntentAge:                           {op: opSeconds},
	vocab.MaximumContextAge:                          {op: opSeconds},
}

// Operand fields of PredicateDraft, as a bit set.
const (
	fIdentifier = 1 << iota
	fGeneration
	fValue
	fValues
	fCount
	fSeconds
	fWindow
)

var fieldNames = [...]string{"identifier", "generation", "value", "values", "count", "seconds", "window"}

func (o operand) fields() int {
	switch o {
	case opToolID, opDefinitionID, opControlled, opResource:
		return fIdentifier
	case opGeneration:
		return fGeneration
	case opRegistry:
		return fIdentifier | fGeneration
	case opEnum:
		return fValue
	case opEnumSet, opCapabilitySet, opResourceSet:
		return fValues
	case opBoundaryCompleteness:
		return fIdentifier | fValue
	case opCount:
		return fCount
	case opSeconds:
		return fSeconds
	case opWindow:
		return fWindow
	}
	return 0
}

func present(d *PredicateDraft) int {
	var f int
	if d.Identifier != "" {
		f |= fIdentifier
	}
	if d.Generation != "" {
		f |= fGeneration
	}
	if d.Value != "" {
		f |= fValue
	}
	if len(d.Values) > 0 {
		f |= fValues
	}
	if d.Count != "" {
		f |= fCount
	}
	if d.Seconds != "" {
		f |= fSeconds
	}
	if d.Window != nil {
		f |= fWindow
	}
	return f
}

// ceiling is the publisher's Host Authority ceiling: policy content cannot
// name a Capability or Resource outside it (Section 19).
type ceiling struct {
	capabilities uint32           // bit 1<<Capability
	resources    []ident.Resource // ASCII order
}

func (c *ceiling) hasResource(r ident.Resource) bool {
	_, ok := slices.BinarySearchFunc(c.resources, r, ident.Resource.Compare)
	return ok
}

const (
	capabilityCeilingRule = "policy content cannot name a capability outside the publisher's host authority ceiling"
	resourceCeilingRule   = "policy content cannot name a resource outside the publisher's host authority ceiling"
)

// newPredicate validates a predicate draft into its typed, normalized form.
// Paths are relative to the predicate ("name", "values[0]", ...).
func newPredicate(d *PredicateDraft, c *ceiling) (predicate, error) {
	name, err := vocab.ParsePredicate(d.Name)
	if err != nil {
		return predicate{}, fault.Within("name", err)
	}
	sig := signatures[name]
	want, got := sig.op.fields(), present(d)
	for i, n := range fieldNames {
		bit := 1 << i
		switch {
		case got&bit != 0 && want&bit == 0:
			return predicate{}, fault.At(n, fault.UnknownField, "this predicate does not take this operand")
		case want&bit != 0 && got&bit == 0:
			return predicate{}, fault.At(n, fault.Missing, "this predicate requires this operand; collection operands are nonempty")
		}
	}
	p := predicate{name: name}
	switch sig.op {
	case opToolID:
		v, err := ident.ParseToolID(d.Identifier)
		if err != nil {
			return predicate{}, fault.Within("identifier", err)
		}
		p.id = v.String()
	case opDefinitionID:
		v, err := ident.ParseDefinitionID(d.Identifier)
		if err != nil {
			return predicate{}, fault.Within("identifier", err)
		}
		p.id = v.String()
	case opControlled, opBoundaryCompleteness:
		v, err := ident.ParseControlledID(d.Identifier)
		if err != nil {
			return predicate{}, fault.Within("identifier", err)
		}
		p.id = v.String()
	case opResource:
		v, err := ident.ParseResource(d.Identifier)
		if err != nil {
			return predicate{}, fault.Within("identifier", err)
		}
		if !c.hasResource(v) {
			return predicate{}, fault.At("identifier", fault.OutOfRange, resourceCeilingRule)
		}
		p.id = v.String()
	case opRegistry:
		v, err := ident.ParseSnapshotID(d.Identifier)
		if err != nil {
			return predicate{}, fault.Within("identifier", err)
		}
		p.id = v.String()
	}
	switch sig.op {
	case opGeneration, opRegistry:
		g, err := ident.ParseGeneration(d.Generation)
		if err != nil {
			return predicate{}, fault.Within("generation", err)
		}
		p.num = g.Uint64()
	case opEnum, opBoundaryCompleteness:
		v, err := sig.vocab.parse(d.Value)
		if err != nil {
			return predicate{}, fault.Within("value", err)
		}
		p.enum = v
	case opEnumSet, opCapabilitySet:
		if err := p.enumSet(d.Values, sig.vocab, sig.op == opCapabilitySet, c); err != nil {
			return predicate{}, err
		}
	case opResourceSet:
		if err := p.resourceSet(d.Values, c); err != nil {
			return predicate{}, err
		}
	case opCount:
		n, err := parseDecimal(d.Count, MaxInfluenceCount, "influence count is a canonical decimal from 0 to 64")
		if err != nil {
			return predicate{}, fault.Within("count", err)
		}
		p.num = n
	case opSeconds:
		n, err := parseDecimal(d.Seconds, ^uint64(0), "age is a canonical decimal number of seconds from 0 to 18446744073709551615")
		if err != nil {
			return predicate{}, fault.Within("seconds", err)
		}
		p.num = n
	case opWindow:
		w, err := newWindow(d.Window)
		if err != nil {
			return predicate{}, fault.Within("window", err)
		}
		p.window = w
	}
	p.key = p.computeKey(sig.op)
	return p, nil
}

func (p *predicate) enumSet(values []string, v *closed, capability bool, c *ceiling) error {
	if len(values) > v.maxSet {
		return fault.At("values", fault.LimitExceeded, v.bound)
	}
	for i, s := range values {
		e, err := v.parse(s)
		if err != nil {
			return fault.Within("values"+fault.Index(i), err)
		}
		bit := uint32(1) << e
		if p.mask&bit != 0 {
			return fault.At("values"+fault.Index(i), fault.Duplicate, "collection operands are unique")
		}
		if capability && c.capabilities&bit == 0 {
			return fault.At("values"+fault.Index(i), fault.OutOfRange, capabilityCeilingRule)
		}
		p.mask |= bit
	}
	return nil
}

func (p *predicate) resourceSet(values []string, c *ceiling) error {
	if len(values) > MaxOperandResources {
		return fault.At("values", fault.LimitExceeded, "a resource operand has 1–32 unique values")
	}
	rs := make([]ident.Resource, 0, len(values))
	for i, s := range values {
		r, err := ident.ParseResource(s)
		if err != nil {
			return fault.Within("values"+fault.Index(i), err)
		}
		if slices.Contains(rs, r) {
			return fault.At("values"+fault.Index(i), fault.Duplicate, "collection operands are unique")
		}
		if !c.hasResource(r) {
			return fault.At("values"+fault.Index(i), fault.OutOfRange, resourceCeilingRule)
		}
		rs = append(rs, r)
	}
	slices.SortFunc(rs, ident.Resource.Compare)
	p.resources = rs
	return nil
}

func newWindow(d *WindowDraft) (epoch.Validity, error) {
	const rule = "window times are canonical decimal epoch seconds from 0 to 4102444800"
	var ts [3]epoch.Time
	for i, f := range [...]struct{ name, text string }{
		{"issuedAt", d.IssuedAt}, {"notBefore", d.NotBefore}, {"expiresAt", d.ExpiresAt},
	} {
		s, err := parseDecimal(f.text, epoch.Max, rule)
		if err != nil {
			return epoch.Validity{}, fault.Within(f.name, err)
		}
		ts[i], _ = epoch.New(s)
	}
	return epoch.NewValidity(ts[0], ts[1], ts[2])
}

// computeKey builds the Section 50 predicate key: the two-digit order, then
// ":" and the normalized operand where the predicate has one. Identifiers are
// exact text, generations, counts and seconds canonical decimal, enum values
// their 0-based Section 48 order number, lists normalized then comma-joined.
func (p *predicate) computeKey(op operand) string {
	var b strings.Builder
	order := int(p.name) - 1
	b.WriteByte(byte('0' + order/10))
	b.WriteByte(byte('0' + order%10))
	if op == opNone {
		return b.String()
	}
	b.WriteByte(':')
	switch op {
	case opToolID, opDefinitionID, opControlled, opResource:
		b.WriteString(p.id)
	case opGeneration, opCount, opSeconds:
		b.WriteString(strconv.FormatUint(p.num, 10))
	case opRegistry:
		b.WriteString(p.id)
		b.WriteByte(':')
		b.WriteString(strconv.FormatUint(p.num, 10))
	case opEnum:
		b.WriteString(strconv.Itoa(int(p.enum) - 1))
	case opBoundaryCompleteness:
		b.WriteString(p.id)
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(int(p.enum) - 1))
	case opEnumSet, opCapabilitySet:
		first := true
		for e := 1; e < 32; e++ {
			if p.mask&(1<<e) == 0 {
				continue
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			b.WriteString(strconv.Itoa(e - 1))
		}
	case opResourceSet:
		for i, r := range p.resources {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(r.String())
		}
	case opWindow:
		b.WriteString(strconv.FormatUint(p.window.IssuedAt().Seconds(), 10))
		b.WriteByte(':')
		b.WriteString(strconv.FormatUint(p.window.NotBefore().Seconds(), 10))
		b.WriteByte(':')
		b.WriteString(strconv.FormatUint(p.window.ExpiresAt().Seconds(), 10))
	}
	return b.String()
}
