package canon

// The previous one-encoder implementation, for the differential checks of
// the external tests (checkRoundTrip).
var (
	ReferenceEncode      = referenceEncode
	ReferenceAppendValue = referenceAppendValue
)
