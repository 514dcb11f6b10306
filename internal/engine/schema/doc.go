// Package schema implements the closed, versioned v1 Schema of spec Section
// 10 and validation of tool-call arguments against it.
//
// A [Schema] is built once by [New] from a [Draft], the untrusted declarative
// form a Host administrator writes. New rejects anything outside the v1 model
// and its Section 39 bounds ([MaxFields], [MaxCases], [MaxDepth],
// [MaxNodes]), then normalizes the tree into the Section 50 order: object
// fields by field-name ASCII order, enumeration cases by case-token ASCII
// order. The result is immutable and carries a content digest, so complete
// Schema equality (not identifier equality) is one comparison ([Equal]).
//
// [Schema.Validate] checks one decoded argument value, produced by package
// jsonexact so that object-member occurrences and integer literals are exact,
// against the Schema. It is all-or-nothing: either every value matches its
// declared kind exactly (no coercion, no defaults, no nulls, no unknown or
// missing fields) and an [Arguments] is returned, or the zero Arguments and
// one *fault.Error are. Arguments carry the typed value tree (package value)
// in Schema field order and the Resource set derived only from resourceID
// fields, unique and in ASCII order.
//
// Vocabularies and grammars come from Sections 48 and 49 (packages vocab and
// ident). Rejections are *fault.Error values; their Path is built from
// indices and reviewed Schema field names only, and their Rule is constant
// text, so an error never echoes rejected input.
package schema
