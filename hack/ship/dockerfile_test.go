package ship_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/hack/dockerfile"
	"github.com/toolgate/toolgate/internal/testutil"
)

// parseDockerfile reads the instructions of the Dockerfile at path
// (hack/dockerfile, the reader hack/image uses too) and requires its two
// stages, build and runtime.
func parseDockerfile(t *testing.T, path string) []dockerfile.Instruction {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ins, err := dockerfile.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if n := dockerfile.Stages(ins); n != 2 {
		t.Fatalf("Dockerfile has %d stages, want 2 (build, runtime)", n)
	}
	return ins
}

// copySources are the build-context paths the COPY instructions without
// --from name, in order.
func copySources(ins []dockerfile.Instruction) []string {
	var srcs []string
	for _, in := range ins {
		if in.Keyword != "COPY" || strings.HasPrefix(in.Args, "--from") {
			continue
		}
		f := strings.Fields(in.Args)
		for _, s := range f[:len(f)-1] {
			srcs = append(srcs, strings.TrimSuffix(s, "/"))
		}
	}
	return srcs
}

// TestDockerignoreAdmitsExactlyTheCopySet: the .dockerignore excludes
// everything, then re-admits exactly the Dockerfile's COPY sources, so the
// context can neither miss a COPY source nor carry .git, bin/ or state.
func TestDockerignoreAdmitsExactlyTheCopySet(t *testing.T) {
	root := testutil.RepoRoot(t)
	srcs := copySources(parseDockerfile(t, filepath.Join(root, "Dockerfile")))
	raw, err := os.ReadFile(filepath.Join(root, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	var admitted []string
	excludesAll := false
	for _, l := range strings.Split(string(raw), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "*":
			excludesAll = true
		case strings.HasPrefix(l, "!"):
			admitted = append(admitted, strings.TrimSuffix(l[1:], "/"))
		}
	}
	if !excludesAll {
		t.Error(".dockerignore does not start from excluding everything (*)")
	}
	slices.Sort(srcs)
	slices.Sort(admitted)
	if d := cmp.Diff(srcs, admitted); d != "" {
		t.Errorf(".dockerignore's allow-list differs from the Dockerfile's COPY sources (-copy +dockerignore):\n%s", d)
	}
}

// TestDockerfileContextBuilds copies exactly the Dockerfile's COPY set from
// the tracked files (what a clean clone holds) into an empty directory, runs
// the Dockerfile's `go build` line there with VERSION and COMMIT set, and
// checks the binary names that version and commit: a package the image
// needs but the Dockerfile does not copy fails here, not in a user's
// docker build.
func TestDockerfileContextBuilds(t *testing.T) {
	root := testutil.RepoRoot(t)
	ins := parseDockerfile(t, filepath.Join(root, "Dockerfile"))
	srcs := copySources(ins)
	var build string
	for _, in := range ins {
		if in.Stage == 0 && in.Keyword == "RUN" && strings.Contains(in.Args, "go build") {
			build = in.Args
		}
	}
	if build == "" {
		t.Fatal("the Dockerfile's build stage has no RUN … go build")
	}

	ls := exec.Command("git", "-C", root, "ls-files", "-z")
	tracked, err := ls.Output()
	if err != nil {
		t.Fatalf("git ls-files (the test needs a git checkout): %v", err)
	}
	ctx := t.TempDir()
	copied := 0
	for _, f := range strings.Split(strings.TrimRight(string(tracked), "\x00"), "\x00") {
		if !slices.ContainsFunc(srcs, func(s string) bool { return f == s || strings.HasPrefix(f, s+"/") }) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatalf("tracked file %s: %v", f, err)
		}
		dst := filepath.Join(ctx, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
		copied++
	}
	if copied == 0 {
		t.Fatal("the COPY set matched no tracked file")
	}

	const wantVersion, wantCommit = "v0.0.0-shipcheck", "0123456789abcdef0123456789abcdef01234567"
	out := filepath.Join(ctx, "out")
	cmd := exec.Command("sh", "-c", strings.ReplaceAll(build, "/out/", out+"/"))
	cmd.Dir = ctx
	cmd.Env = append(os.Environ(), "VERSION="+wantVersion, "COMMIT="+wantCommit, "GOWORK=off", "GOFLAGS=-mod=readonly")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the Dockerfile's go build fails in a context of its COPY set: %v\n%s", err, b)
	}
	got, err := exec.Command(filepath.Join(out, "toolgate"), "version").Output()
	if err != nil {
		t.Fatalf("toolgate version: %v", err)
	}
	want := "toolgate " + wantVersion + " (" + wantCommit[:12] + ") " + runtime.Version() + "\n"
	if string(got) != want {
		t.Errorf("the image's toolgate version = %q, want %q", got, want)
	}
}

// TestImageRunsAsNonRootFromDistroless checks the runtime stage's
// configuration: a distroless static base, a numeric non-root user, the
// binary as exec-form entrypoint, and the OCI labels naming the source,
// version and revision.
func TestImageRunsAsNonRootFromDistroless(t *testing.T) {
	root := testutil.RepoRoot(t)
	var from, user string
	var entrypoint []string
	labels := map[string]bool{}
	for _, in := range parseDockerfile(t, filepath.Join(root, "Dockerfile")) {
		if in.Stage != 1 {
			continue
		}
		switch in.Keyword {
		case "FROM":
			from = in.Args
		case "USER":
			user = in.Args
		case "ENTRYPOINT":
			if err := json.Unmarshal([]byte(in.Args), &entrypoint); err != nil {
				t.Errorf("ENTRYPOINT %q is not the exec (JSON) form: %v", in.Args, err)
			}
		case "LABEL":
			for _, f := range strings.Fields(in.Args) {
				if k, _, ok := strings.Cut(f, "="); ok {
					labels[k] = true
				}
			}
		}
	}
	if !strings.HasPrefix(from, "gcr.io/distroless/static") {
		t.Errorf("runtime base %q is not distroless/static", from)
	}
	uid, _, _ := strings.Cut(user, ":")
	if n, err := strconv.Atoi(uid); err != nil || n == 0 {
		t.Errorf("USER %q is not a numeric non-root user (Kubernetes runAsNonRoot needs a number)", user)
	}
	if !slices.Equal(entrypoint, []string{"/toolgate"}) {
		t.Errorf("ENTRYPOINT %q, want [\"/toolgate\"]", entrypoint)
	}
	for _, l := range []string{"org.opencontainers.image.source", "org.opencontainers.image.version", "org.opencontainers.image.revision"} {
		if !labels[l] {
			t.Errorf("the image lacks the label %s", l)
		}
	}
}
