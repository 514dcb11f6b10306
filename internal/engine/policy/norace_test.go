//go:build !race

package policy_test

// raceDetector is true under -race (race_test.go).
const raceDetector = false
