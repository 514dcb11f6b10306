//go:build race

package policy_test

// raceDetector is true under -race, which makes the differential test ten
// times slower: make test (-race) runs its short form.
const raceDetector = true
