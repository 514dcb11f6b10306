package canon

// EncodeTwoPass is the reference Encode: a counting pass that rejects an
// oversized request before anything is written, then a writing pass into a
// buffer of exactly the counted size. Encode's single pass into a pooled
// buffer must give the same octets and the same rejection
// (checkRoundTrip).
func EncodeTwoPass(env Envelope) ([]byte, error) {
	if err := env.check(); err != nil {
		return nil, err
	}
	count := encoder{}
	count.envelope(&env)
	if _, err := count.result(); err != nil {
		return nil, err
	}
	w := encoder{buf: make([]byte, 0, count.n), emit: true}
	w.envelope(&env)
	return w.result()
}
