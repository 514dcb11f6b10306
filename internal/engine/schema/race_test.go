//go:build race

package schema_test

// raceDetector is true under -race, which makes the differential test many
// times slower: make test (-race) runs its short form.
const raceDetector = true
