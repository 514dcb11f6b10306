package testutil

import (
	"os"
	"path/filepath"
)

// RequireEnvtest names the environment variable that turns missing envtest
// binaries from a skip into a failure (make test-envtest sets it, so CI
// never skips a suite that needs a kube-apiserver).
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

// EnvtestGate is EnvtestAssets for a Ginkgo suite: it returns the binary
// directory, or calls fail (RequireEnvtest set) or skip with the reason;
// pass Ginkgo's Fail and Skip.
func EnvtestGate(fail, skip func(message string, callerSkip ...int)) string {
	dir, missing, required := EnvtestAssets()
	switch {
	case dir != "":
	case required:
		fail(RequireEnvtest + " is set but the envtest binaries are absent: " + missing)
	default:
		skip("envtest binaries absent: " + missing)
	}
	return dir
}
