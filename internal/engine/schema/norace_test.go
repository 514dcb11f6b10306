//go:build !race

package schema_test

// raceDetector is true under -race (race_test.go).
const raceDetector = false
