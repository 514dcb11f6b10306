package consumetest

import (
	"os"
	"path/filepath"
	"testing"
)

// RequireEnvtest names the environment variable that turns missing envtest
// binaries from a skip into a failure (make test-envtest sets it).
const RequireEnvtest = "TOOLGATE_REQUIRE_ENVTEST"

// EnvtestAssets returns the directory KUBEBUILDER_ASSETS names when it
// holds the etcd and kube-apiserver binaries (hack/envtest/build.sh builds
// them). Otherwise it returns "" and why, and whether RequireEnvtest is set
// (the caller must then fail, not skip).
func EnvtestAssets() (dir, missing string, required bool) {
	required = os.Getenv(RequireEnvtest) != ""
	dir = os.Getenv("KUBEBUILDER_ASSETS")
	if dir == "" {
		return "", "KUBEBUILDER_ASSETS is unset: run make test-envtest (builds etcd and kube-apiserver once per machine) or set it to $(hack/envtest/build.sh | tail -n 1)", required
	}
	for _, b := range []string{"etcd", "kube-apiserver"} {
		if fi, err := os.Stat(filepath.Join(dir, b)); err != nil || fi.IsDir() {
			return "", "KUBEBUILDER_ASSETS does not hold " + b + ": run make envtest-bins", required
		}
	}
	return dir, "", required
}

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
