package ship_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/testutil"
)

// TestReleaseVersionIsNamedEverywhere: the file VERSION is the one place the
// release is written. Every version a page or hook file tells users to pin
// is v + VERSION, the pins docs/gitops.md and .pre-commit-hooks.yaml show are
// there, CHANGELOG.md has the release's section, and the Makefile's release
// stamps it (the manifests' image tag is charts/test's
// TestManifestsPullTheReleaseImage).
func TestReleaseVersionIsNamedEverywhere(t *testing.T) {
	root := testutil.RepoRoot(t)
	raw, err := os.ReadFile(filepath.Join(root, "VERSION"))
	if err != nil {
		t.Fatal(err)
	}
	release := strings.TrimSpace(string(raw))
	if !regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`).MatchString(release) {
		t.Fatalf("VERSION is %q, want MAJOR.MINOR.PATCH", release)
	}
	tag := "v" + release

	// A semantic version anywhere in these files is toolgate's.
	semver := regexp.MustCompile(`\bv[0-9]+\.[0-9]+\.[0-9]+\b`)
	// The pins a user copies; each file must show at least its own.
	pins := map[string]*regexp.Regexp{
		"docs/gitops.md":            regexp.MustCompile(`uses: toolgate/toolgate@(\S+)|rev: (\S+)`),
		".pre-commit-hooks.yaml":    regexp.MustCompile(`rev: (\S+)`),
		"docs/quickstart.md":        nil,
		"README.md":                 nil,
		"action.yml":                nil,
		"charts/toolgate/README.md": nil,
	}
	for f, pin := range pins {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range semver.FindAllString(string(b), -1) {
			if v != tag {
				t.Errorf("%s names %s, VERSION says %s", f, v, tag)
			}
		}
		if pin == nil {
			continue
		}
		ms := pin.FindAllStringSubmatch(string(b), -1)
		if len(ms) == 0 {
			t.Errorf("%s shows no pin", f)
		}
		for _, m := range ms {
			// The one group of the alternative that matched.
			if got := strings.Join(m[1:], ""); got != tag {
				t.Errorf("%s pins %s, VERSION says %s", f, got, tag)
			}
		}
	}

	changelog, err := os.ReadFile(filepath.Join(root, "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^## \[` + regexp.QuoteMeta(release) + `\] - `).Match(changelog) {
		t.Errorf("CHANGELOG.md has no section ## [%s] - DATE", release)
	}
	if !regexp.MustCompile(`(?m)^## \[Unreleased\]$`).Match(changelog) {
		t.Error("CHANGELOG.md has no ## [Unreleased] section")
	}

	// make release builds with the release's version, not git describe's.
	out, err := exec.Command("make", "--no-print-directory", "-C", root, "-n", "release").Output()
	if err != nil {
		t.Fatalf("make -n release: %v", err)
	}
	if !strings.Contains(string(out), "buildinfo.version="+tag+" ") {
		t.Errorf("make -n release does not stamp %s:\n%s", tag, out)
	}
}
