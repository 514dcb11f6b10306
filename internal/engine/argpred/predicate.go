package argpred

import (
	"slices"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/engine/value"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Operand bounds of toolgate.argument-predicates/1.
const (
	MaxValues   = 32 // values of integerIn, stringIn, emailDomainIn
	MaxHosts    = 32 // hosts of urlIn
	MaxSchemes  = 8  // schemes of urlIn
	MaxScale    = 18 // decimal scale of an integer operand
	MaxSegments = 8  // segments of a field path (the Schema depth bound)
)

// Draft is one untrusted argument predicate as a policy author writes it.
// Name, Tool, Version and Path are always required; exactly the operand
// fields the predicate takes must be present (docs/policy-arguments.md).
type Draft struct {
	Name    string   // a Vocabulary token
	Tool    string   // Tool Identifier whose arguments the predicate reads
	Version string   // its Tool Version, canonical decimal
	Path    string   // field path, "/a/b", "*" for every array element
	Value   string   // single operand
	Values  []string // set operand
	Scale   string   // decimal scale of integer operands, 1–18 (optional)
	Root    string   // pathWithin
	Schemes []string // urlIn
	Hosts   []string // urlIn: host or host:port
}

// Result is the three-valued result of a predicate (Section 20).
type Result uint8

// The three results.
const (
	NotMatched Result = 1 + iota
	Matched
	Indeterminate
)

// Predicate is one validated argument predicate, bound to the complete
// content of one Tool Definition. It is immutable.
type Predicate struct {
	name    Name
	tool    ident.ToolID
	version ident.Generation
	def     digest.Digest // the bound Tool Definition's digest
	path    []string      // segments; "*" is every element
	text    string        // the path as written (valid, so canonical)
	signed  bool          // integer predicates: the field is signed
	num     uint64        // single integer operand (two's complement when signed)
	nums    []uint64      // integerIn operand, numeric order
	str     string        // single string operand, or pathWithin's root
	strs    []string      // string set operand (stringIn, emailDomainIn), ASCII order
	schemes []string      // ASCII order
	hosts   []string      // ASCII order
	key     string
}

// Operand fields of Draft, as a bit set.
const (
	fValue = 1 << iota
	fValues
	fScale
	fRoot
	fSchemes
	fHosts
)

var fieldNames = [...]string{"value", "values", "scale", "root", "schemes", "hosts"}

// shape is what a predicate takes: its operand fields (required, and
// optional), and the field kinds it applies to.
type shape struct {
	required, optional int
	kinds              []vocab.ValueKind
}

var (
	integers = []vocab.ValueKind{vocab.KindSignedInteger, vocab.KindUnsignedInteger}
	texts    = []vocab.ValueKind{vocab.KindString, vocab.KindResourceID, vocab.KindEnumeration}
	strs     = []vocab.ValueKind{vocab.KindString}
	arrays   = []vocab.ValueKind{vocab.KindArray}
)

var shapes = [...]shape{
	IntegerAtMost:       {fValue, fScale, integers},
	IntegerAtLeast:      {fValue, fScale, integers},
	IntegerIn:           {fValues, fScale, integers},
	StringEquals:        {fValue, 0, texts},
	StringIn:            {fValues, 0, texts},
	StringHasPrefix:     {fValue, 0, texts},
	StringHasSuffix:     {fValue, 0, texts},
	OctetLengthAtMost:   {fValue, 0, texts},
	OctetLengthAtLeast:  {fValue, 0, texts},
	ElementCountAtMost:  {fValue, 0, arrays},
	ElementCountAtLeast: {fValue, 0, arrays},
	PathWithin:          {fRoot, 0, strs},
	URLIn:               {fSchemes | fHosts, 0, strs},
	EmailDomainIn:       {fValues, 0, strs},
}

func present(d *Draft) int {
	var f int
	if d.Value != "" {
		f |= fValue
	}
	if len(d.Values) > 0 {
		f |= fValues
	}
	if d.Scale != "" {
		f |= fScale
	}
	if d.Root != "" {
		f |= fRoot
	}
	if len(d.Schemes) > 0 {
		f |= fSchemes
	}
	if len(d.Hosts) > 0 {
		f |= fHosts
	}
	return f
}

// Tools resolves a Tool Identifier and Version to its Tool Definition:
// a *registry.Snapshot.
type Tools interface {
	Lookup(tool ident.ToolID, version ident.Generation) (registry.Resolution, error)
}

// New validates d against the Schema of its tool in tools and returns the
// bound predicate, or every violation at once, each at its path relative
// to the predicate ("path", "values[2]", ...). Nothing partial is returned.
// A Resource named by an exact operand of a resourceID field must satisfy
// within, the publisher's Host Authority ceiling (Section 19: policy
// content names no Resource outside it); nil admits every Resource.
func New(d Draft, tools Tools, within func(ident.Resource) bool) (*Predicate, error) {
	var errs fault.Errors
	name, err := ParseName(d.Name)
	errs.Add("name", err)
	tool, err := ident.ParseToolID(d.Tool)
	errs.Add("tool", err)
	version, err := ident.ParseGeneration(d.Version)
	errs.Add("version", err)
	segs, err := parsePath(d.Path)
	errs.Add("path", err)
	if name.IsValid() {
		sh := shapes[name]
		got := present(&d)
		for i, n := range fieldNames {
			bit := 1 << i
			switch {
			case got&bit != 0 && (sh.required|sh.optional)&bit == 0:
				errs.Add("", fault.At(n, fault.UnknownField, "this argument predicate does not take this operand"))
			case sh.required&bit != 0 && got&bit == 0:
				errs.Add("", fault.At(n, fault.Missing, "this argument predicate requires this operand; set operands are nonempty"))
			}
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	if tools == nil {
		return nil, fault.At("tool", fault.NotFound, "argument predicates read the tools of the policy's bound registry snapshot")
	}
	res, err := tools.Lookup(tool, version)
	if err != nil {
		return nil, fault.At("tool", fault.NotFound, "the tool and version are in the policy's bound registry snapshot, in an eligible lifecycle")
	}
	def := res.Definition()
	leaf, err := resolve(def.Schema().Draft(), segs)
	if err != nil {
		return nil, fault.Within("path", err)
	}
	kind, _ := vocab.ParseValueKind(leaf.Kind)
	sh := shapes[name]
	if !slices.Contains(sh.kinds, kind) {
		return nil, fault.At("path", fault.KindMismatch, "the field's kind is not one this argument predicate applies to")
	}
	p := &Predicate{name: name, tool: tool, version: version, def: def.Digest(), path: segs, text: d.Path}
	if err := p.operands(&d, kind, leaf.Cases, within); err != nil {
		return nil, err
	}
	p.key = p.computeKey()
	return p, nil
}

// parsePath reads "/seg/seg/...": 1–8 segments, each a field name
// (lower-token) or "*".
func parsePath(s string) ([]string, error) {
	const rule = "a field path is '/' followed by 1–8 '/'-separated field names or '*'"
	if len(s) < 2 || s[0] != '/' {
		return nil, fault.New(fault.Malformed, rule)
	}
	segs := strings.Split(s[1:], "/")
	if len(segs) > MaxSegments {
		return nil, fault.New(fault.LimitExceeded, rule)
	}
	for _, seg := range segs {
		if seg == "*" {
			continue
		}
		if _, err := ident.ParseName(seg); err != nil {
			return nil, fault.New(fault.Malformed, rule)
		}
	}
	return segs, nil
}

// resolve walks segs through the Schema draft from its root object.
func resolve(n schema.Draft, segs []string) (schema.Draft, error) {
	for _, seg := range segs {
		if seg == "*" {
			if n.Items == nil {
				return schema.Draft{}, fault.New(fault.KindMismatch, "'*' stands for the elements of an array field")
			}
			n = *n.Items
			continue
		}
		if n.Kind != vocab.KindObject.String() {
			return schema.Draft{}, fault.New(fault.KindMismatch, "a field name segment follows an object field")
		}
		i := slices.IndexFunc(n.Fields, func(f schema.FieldDraft) bool { return f.Name == seg })
		if i < 0 {
			return schema.Draft{}, fault.New(fault.NotFound, "every path segment names a field of the tool's schema")
		}
		n = n.Fields[i].Type
	}
	return n, nil
}

// operands validates the operand fields of d for a field of kind (with
// cases for an enumeration).
func (p *Predicate) operands(d *Draft, kind vocab.ValueKind, cases []string, within func(ident.Resource) bool) error {
	switch p.name {
	case IntegerAtMost, IntegerAtLeast, IntegerIn:
		p.signed = kind == vocab.KindSignedInteger
		scale := 0
		if d.Scale != "" {
			n, ok := canonicalDecimal(d.Scale, MaxScale)
			if !ok || n == 0 {
				return fault.At("scale", fault.OutOfRange, "a scale is canonical decimal 1–18")
			}
			scale = int(n)
		}
		if p.name != IntegerIn {
			n, err := parseInteger(d.Value, p.signed, scale)
			if err != nil {
				return fault.Within("value", err)
			}
			p.num = n
			return nil
		}
		return p.integerSet(d.Values, scale)
	case StringEquals, StringHasPrefix, StringHasSuffix:
		if err := textOperand(d.Value, kind, cases, p.name == StringEquals, within); err != nil {
			return fault.Within("value", err)
		}
		p.str = d.Value
	case StringIn:
		set, err := stringSet("values", d.Values, MaxValues, func(s string) error { return textOperand(s, kind, cases, true, within) })
		if err != nil {
			return err
		}
		p.strs = set
	case OctetLengthAtMost, OctetLengthAtLeast, ElementCountAtMost, ElementCountAtLeast:
		max, rule := uint64(value.MaxStringLen), "an octet length is canonical decimal 0–1024"
		if p.name == ElementCountAtMost || p.name == ElementCountAtLeast {
			max, rule = value.MaxElements, "an element count is canonical decimal 0–64"
		}
		n, ok := canonicalDecimal(d.Value, max)
		if !ok {
			return fault.At("value", fault.OutOfRange, rule)
		}
		p.num = n
	case PathWithin:
		if !validPath(d.Root, true) || len(d.Root) > value.MaxStringLen {
			return fault.At("root", fault.Malformed, "a root is '/' or '/'-separated nonempty segments other than '.' and '..', without '//', a trailing '/', '\\' or NUL")
		}
		p.str = d.Root
	case URLIn:
		schemes, err := stringSet("schemes", d.Schemes, MaxSchemes, func(s string) error {
			if !validScheme(s) {
				return fault.New(fault.Malformed, "a scheme is lowercase a–z, then a–z, 0–9, '+', '.' or '-'")
			}
			return nil
		})
		hosts, herr := stringSet("hosts", d.Hosts, MaxHosts, func(s string) error {
			if !validHostPort(s) {
				return fault.New(fault.Malformed, "a host is a lowercase DNS name or a canonical IPv4 address, optionally with ':' and a port 1–65535")
			}
			return nil
		})
		var errs fault.Errors
		errs.Add("", err)
		errs.Add("", herr)
		if err := errs.Err(); err != nil {
			return err
		}
		p.schemes, p.hosts = schemes, hosts
	case EmailDomainIn:
		set, err := stringSet("values", d.Values, MaxValues, func(s string) error {
			if !validDNSName(s) {
				return fault.New(fault.Malformed, "a domain is a lowercase DNS name without a trailing dot")
			}
			return nil
		})
		if err != nil {
			return err
		}
		p.strs = set
	}
	return nil
}

// textOperand checks one string operand for a field of kind: printable
// ASCII of at most 1,024 octets, nonempty for a prefix or suffix; for an
// exact comparison with a resourceID field a Resource identifier, with an
// enumeration field a declared case (anything else could never match and
// is an operand of the wrong kind).
func textOperand(s string, kind vocab.ValueKind, cases []string, exact bool, within func(ident.Resource) bool) error {
	switch {
	case len(s) > value.MaxStringLen || !ident.IsPrintableASCII(s):
		return fault.New(fault.Malformed, "a string operand is 0–1024 printable ASCII octets")
	case !exact && s == "":
		return fault.New(fault.Missing, "a prefix or suffix operand is nonempty")
	case exact && kind == vocab.KindResourceID:
		r, err := ident.ParseResource(s)
		if err != nil {
			return fault.New(fault.KindMismatch, "an operand for a resourceID field is a Resource identifier")
		}
		if within != nil && !within(r) {
			return fault.New(fault.OutOfRange, "policy content cannot name a resource outside the publisher's host authority ceiling")
		}
	case exact && kind == vocab.KindEnumeration:
		if !slices.Contains(cases, s) {
			return fault.New(fault.NotFound, "an operand for an enumeration field is one of its declared cases")
		}
	}
	return nil
}

// stringSet checks a set operand: 1–max members, each valid, unique. It
// returns the set in ASCII order; violations are reported all at once.
func stringSet(field string, ss []string, max int, check func(string) error) ([]string, error) {
	if len(ss) > max {
		return nil, fault.At(field, fault.LimitExceeded, "a set operand has at most "+strconv.Itoa(max)+" members")
	}
	var errs fault.Errors
	for i, s := range ss {
		path := field + fault.Index(i)
		if err := check(s); err != nil {
			errs.Add(path, err)
			continue
		}
		if slices.Contains(ss[:i], s) {
			errs.Add("", fault.At(path, fault.Duplicate, "set operands are unique"))
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	out := slices.Clone(ss)
	slices.Sort(out)
	return out, nil
}

func (p *Predicate) integerSet(values []string, scale int) error {
	if len(values) > MaxValues {
		return fault.At("values", fault.LimitExceeded, "a set operand has at most 32 members")
	}
	var errs fault.Errors
	nums := make([]uint64, 0, len(values))
	for i, s := range values {
		path := "values" + fault.Index(i)
		n, err := parseInteger(s, p.signed, scale)
		switch {
		case err != nil:
			errs.Add(path, err)
		case slices.Contains(nums, n):
			errs.Add("", fault.At(path, fault.Duplicate, "set operands are unique"))
		default:
			nums = append(nums, n)
		}
	}
	if err := errs.Err(); err != nil {
		return err
	}
	slices.SortFunc(nums, p.compare)
	p.nums = nums
	return nil
}

// compare orders two operands in the field's domain.
func (p *Predicate) compare(a, b uint64) int {
	if p.signed {
		return compareOrdered(int64(a), int64(b))
	}
	return compareOrdered(a, b)
}

func compareOrdered[T int64 | uint64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// parseInteger reads an integer operand in the field's domain: canonical
// decimal, with a '-' only for a signed field and never "-0"; with scale
// > 0 also a decimal with 1–scale fractional digits, converted exactly to
// the integer number of 10^-scale units. The result is the value's bits
// (two's complement when signed).
func parseInteger(s string, signed bool, scale int) (uint64, error) {
	const rule = "an integer operand is canonical decimal in the field's domain; with a scale, at most that many fractional digits"
	neg := strings.HasPrefix(s, "-")
	if neg {
		if !signed {
			return 0, fault.New(fault.OutOfRange, rule)
		}
		s = s[1:]
	}
	whole, frac, dotted := strings.Cut(s, ".")
	if dotted && (scale == 0 || frac == "" || len(frac) > scale || !allDigits(frac)) {
		return 0, fault.New(fault.Malformed, rule)
	}
	limit := ^uint64(0)
	if signed {
		limit = 1<<63 - 1
		if neg {
			limit = 1 << 63
		}
	}
	if whole == "" || (len(whole) > 1 && whole[0] == '0') || !allDigits(whole) {
		return 0, fault.New(fault.Malformed, rule)
	}
	m, ok := canonicalDecimal(whole, limit)
	if !ok {
		return 0, fault.New(fault.OutOfRange, rule)
	}
	for i := 0; i < scale; i++ {
		var d uint64
		if i < len(frac) {
			d = uint64(frac[i] - '0')
		}
		if m > (limit-d)/10 {
			return 0, fault.New(fault.OutOfRange, rule)
		}
		m = m*10 + d
	}
	switch {
	case m > limit:
		return 0, fault.New(fault.OutOfRange, rule)
	case neg && m == 0:
		return 0, fault.New(fault.Malformed, rule)
	case neg:
		return -m, nil // two's complement of the magnitude; 1<<63 is itself
	}
	return m, nil
}

// Name returns the predicate token.
func (p *Predicate) Name() Name { return p.name }

// Key returns the normalization key: the two-digit vocabulary order, ':',
// then every part of the predicate, each length-prefixed ("<len>:<text>"),
// so the key is injective whatever octets an operand holds.
func (p *Predicate) Key() string { return p.key }

func (p *Predicate) computeKey() string {
	var b strings.Builder
	order := int(p.name) - 1
	b.WriteByte(byte('0' + order/10))
	b.WriteByte(byte('0' + order%10))
	b.WriteByte(':')
	part := func(s string) {
		b.WriteString(strconv.Itoa(len(s)))
		b.WriteByte(':')
		b.WriteString(s)
	}
	list := func(ss []string) {
		part(strconv.Itoa(len(ss)))
		for _, s := range ss {
			part(s)
		}
	}
	part(p.tool.String())
	part(p.version.String())
	part(p.def.String())
	part(p.text)
	d := p.Draft()
	part(d.Value)
	list(d.Values)
	part(d.Root)
	list(d.Schemes)
	list(d.Hosts)
	return b.String()
}

// Draft returns the predicate in the words of its draft, normalized: sets
// in order, integers as canonical decimal in the field's unit (a scaled
// operand as its converted integer, without the scale).
func (p *Predicate) Draft() Draft {
	d := Draft{Name: p.name.String(), Tool: p.tool.String(), Version: p.version.String(), Path: p.text}
	switch p.name {
	case IntegerAtMost, IntegerAtLeast:
		d.Value = p.format(p.num)
	case IntegerIn:
		for _, n := range p.nums {
			d.Values = append(d.Values, p.format(n))
		}
	case StringEquals, StringHasPrefix, StringHasSuffix:
		d.Value = p.str
	case StringIn, EmailDomainIn:
		d.Values = slices.Clone(p.strs)
	case OctetLengthAtMost, OctetLengthAtLeast, ElementCountAtMost, ElementCountAtLeast:
		d.Value = strconv.FormatUint(p.num, 10)
	case PathWithin:
		d.Root = p.str
	case URLIn:
		d.Schemes, d.Hosts = slices.Clone(p.schemes), slices.Clone(p.hosts)
	}
	return d
}

func (p *Predicate) format(n uint64) string {
	if p.signed {
		return strconv.FormatInt(int64(n), 10)
	}
	return strconv.FormatUint(n, 10)
}

// Eval applies p to the validated arguments root of a request for the
// Tool Definition whose digest is def: NotMatched for another definition
// (A5), Indeterminate for an absent optional field on the path (A6) or a
// value its rule refuses (A7), and otherwise the comparison; under '*'
// every element must match, and one indeterminate element makes the
// result indeterminate.
func (p *Predicate) Eval(def digest.Digest, root value.Value) Result {
	if !def.Equal(p.def) {
		return NotMatched
	}
	return p.walk(root, 0)
}

func (p *Predicate) walk(v value.Value, i int) Result {
	if i == len(p.path) {
		return p.leaf(v)
	}
	if p.path[i] == "*" {
		if v.Kind() != vocab.KindArray {
			return Indeterminate
		}
		out := Matched
		for j := range v.Len() {
			switch p.walk(v.Elem(j), i+1) {
			case Indeterminate:
				return Indeterminate
			case NotMatched:
				out = NotMatched
			}
		}
		return out
	}
	f, ok := v.Lookup(p.path[i])
	if !ok {
		return Indeterminate
	}
	return p.walk(f, i+1)
}

func is(b bool) Result {
	if b {
		return Matched
	}
	return NotMatched
}

func (p *Predicate) leaf(v value.Value) Result {
	k := v.Kind()
	if !slices.Contains(shapes[p.name].kinds, k) {
		return Indeterminate // not the reviewed Schema's value: fail closed
	}
	switch p.name {
	case IntegerAtMost, IntegerAtLeast, IntegerIn:
		if (k == vocab.KindSignedInteger) != p.signed {
			return Indeterminate
		}
		x := v.Uint() // the two's-complement bits of a signed value
		switch p.name {
		case IntegerAtMost:
			return is(p.compare(x, p.num) <= 0)
		case IntegerAtLeast:
			return is(p.compare(x, p.num) >= 0)
		}
		_, found := slices.BinarySearchFunc(p.nums, x, p.compare)
		return is(found)
	case StringEquals:
		return is(v.Text() == p.str)
	case StringIn:
		_, found := slices.BinarySearch(p.strs, v.Text())
		return is(found)
	case StringHasPrefix:
		return is(strings.HasPrefix(v.Text(), p.str))
	case StringHasSuffix:
		return is(strings.HasSuffix(v.Text(), p.str))
	case OctetLengthAtMost:
		return is(uint64(len(v.Text())) <= p.num)
	case OctetLengthAtLeast:
		return is(uint64(len(v.Text())) >= p.num)
	case ElementCountAtMost:
		return is(uint64(v.Len()) <= p.num)
	case ElementCountAtLeast:
		return is(uint64(v.Len()) >= p.num)
	case PathWithin:
		in, ok := within(p.str, v.Text())
		if !ok {
			return Indeterminate
		}
		return is(in)
	case URLIn:
		scheme, host, ok := splitURL(v.Text())
		if !ok {
			return Indeterminate
		}
		_, s := slices.BinarySearch(p.schemes, scheme)
		_, h := slices.BinarySearch(p.hosts, host)
		return is(s && h)
	case EmailDomainIn:
		domain, ok := emailDomain(v.Text())
		if !ok {
			return Indeterminate
		}
		_, found := slices.BinarySearch(p.strs, domain)
		return is(found)
	}
	return Indeterminate
}

// String returns notMatched, matched or indeterminate.
func (r Result) String() string {
	switch r {
	case NotMatched:
		return "notMatched"
	case Matched:
		return "matched"
	case Indeterminate:
		return "indeterminate"
	}
	return "invalid"
}
