package digest

// Observe makes every later Sum report its complete octets to f, until the
// returned function is called. It is not safe for concurrent use with other
// tests that compute digests: a test using it must not call t.Parallel, and
// no parallel test of its package may run at the same time.
func Observe(f func(octets []byte)) (stop func()) {
	onSum = f
	return func() { onSum = nil }
}
