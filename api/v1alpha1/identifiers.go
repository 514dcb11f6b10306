package v1alpha1

// Identifier and number types shared by the toolgate kinds. Each carries the
// OpenAPI markers of its Section 49 grammar and Section 39 bound, so the
// apiserver (kubectl apply, kubectl explain) gives the first answer before
// any webhook runs. The engine still validates every value completely.

// LowerToken is a Section 49 lower-token(64): one lower-alnum (a–z, 0–9), or
// 2–64 octets whose first and last octets are lower-alnum and whose interior
// octets are lower-alnum or "-". No dot, no upper case, no trimming. Section
// 49 applies it to Registry Snapshot, Tool Definition, Schema, Resource,
// Phase 4 controlled (Host Authority, Influence boundary), Policy (Snapshot,
// Definition, Rule) and Authorization/Consumption identities; Section 39
// bounds each at 1–64 octets.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=64
// +kubebuilder:validation:Pattern=`^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`
type LowerToken string

// Generation is a Section 49 version text: a canonical positive unsigned
// 64-bit decimal, 1–18446744073709551615, first digit 1–9, at most 20
// octets (Section 39 "numeric generation text": 1–20 digits, zero not
// accepted). Leading zeros, signs, whitespace, decimal points and overflow
// reject. It is a string, not an integer: Kubernetes integers are signed
// 64-bit and JSON numbers lose precision above 2^53, so the exact text is
// the only lossless form; every number in a toolgate spec is written this
// way.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=20
// +kubebuilder:validation:Pattern=`^[1-9][0-9]{0,19}$`
// +kubebuilder:validation:XValidation:rule="size(self) < 20 || self <= '18446744073709551615'",message="a generation is at most 18446744073709551615 (2^64-1)",reason="FieldValueInvalid"
type Generation string

// ToolIdentifier is a Section 49 Tool Identifier: 2–8 dot-separated
// lower-token(32) segments, at most 128 octets in total (Section 39: Tool
// Identifier total 128, segments 2–8, segment 1–32), e.g. payments.submit.
// +kubebuilder:validation:MinLength=3
// +kubebuilder:validation:MaxLength=128
// +kubebuilder:validation:Pattern=`^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?){1,7}$`
type ToolIdentifier string

// Seconds is a whole number of seconds 1–3,600 written as canonical decimal
// text (no leading zero, no sign): the Section 39 bound of both the
// maximum evaluation-age obligation and the Authorization maximum lifetime.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=4
// +kubebuilder:validation:Pattern=`^([1-9][0-9]{0,2}|[12][0-9]{3}|3[0-5][0-9]{2}|3600)$`
type Seconds string

// SHA256Hex is a SHA-256 digest as 64 lowercase hexadecimal digits, without
// a prefix (so that it can be part of an object name).
// +kubebuilder:validation:MinLength=64
// +kubebuilder:validation:MaxLength=64
// +kubebuilder:validation:Pattern=`^[0-9a-f]{64}$`
type SHA256Hex string

// Patterns of the identifier types, for tests and for code that checks a
// value before sending it to the apiserver. They are exactly the OpenAPI
// patterns above.
const (
	LowerTokenPattern     = `^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`
	GenerationPattern     = `^[1-9][0-9]{0,19}$`
	ToolIdentifierPattern = `^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?){1,7}$`
	SecondsPattern        = `^([1-9][0-9]{0,2}|[12][0-9]{3}|3[0-5][0-9]{2}|3600)$`
	SHA256HexPattern      = `^[0-9a-f]{64}$`
)
