package consumetest

import (
	"testing"

	"github.com/toolgate/toolgate/internal/testutil"
)

// RequireEnvtest names the environment variable that turns missing envtest
// binaries from a skip into a failure (make test-envtest sets it).
const RequireEnvtest = testutil.RequireEnvtest

// EnvtestAssets is testutil.EnvtestAssets.
func EnvtestAssets() (dir, missing string, required bool) { return testutil.EnvtestAssets() }

// Assets returns the envtest binary directory, or skips tb with a clear
// message when it is absent, or fails tb when RequireEnvtest is set.
func Assets(tb testing.TB) string {
	tb.Helper()
	dir, missing, required := EnvtestAssets()
	switch {
	case dir != "":
		return dir
	case required:
		tb.Fatalf("%s is set but the envtest binaries are absent: %s", RequireEnvtest, missing)
	default:
		tb.Skipf("skipped: needs the envtest binaries: %s", missing)
	}
	return ""
}
