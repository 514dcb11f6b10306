// Command image builds toolgate's container image without a Docker daemon or
// a registry (`make image`; docs/decisions.md, "A daemonless image and docs
// that run"): it cross-builds the static binary, puts it into one layer
// beside the few files a non-root static image needs (/etc/passwd and
// /etc/group naming the nonroot user 65532, /tmp, /home/nonroot), takes the
// user, entrypoint, binary path and OCI labels from the Dockerfile's runtime
// stage — so the two image paths cannot disagree — and writes a tarball that
// `docker load`, `podman load` and `crane push` read, and the same image as
// an OCI image layout directory. Given several platforms (-platform
// linux/amd64,linux/arm64) it builds one image per platform: the layout then
// holds their multi-platform image index, the one reference a registry
// serves to every node's architecture, and the tarball (whose format holds
// one image per tag) the first platform's.
//
// It lives in its own module (hack/image) so go-containerregistry stays out of
// the product's go.mod; it reads the Dockerfile with the main module's
// hack/dockerfile (a replace directive to ../..), the reader hack/ship's
// tests use too. The image is reproducible: every timestamp is
// -created (make image passes the commit time), so one commit and toolchain
// give one digest.
package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// options is one image build.
type options struct {
	root      string   // repository root: cmd/toolgate and the Dockerfile
	platforms []string // os/arch, e.g. linux/amd64; the first is the tarball's
	ldflags   string   // passed to go build as is (make image passes the Makefile's LDFLAGS)
	version   string   // org.opencontainers.image.version, and the tag
	commit    string   // org.opencontainers.image.revision
	repo      string   // the image name the tarball is tagged with
	// alsoTags are the tarball's tags beside the version's: make image adds
	// the release tag config/manager and the chart pull, so the image docker
	// load or kind load puts on a node is the one the manifests ask for.
	alsoTags []string
	created  time.Time
	caCerts  string // optional CA bundle for /etc/ssl/certs/ca-certificates.crt
	tarPath  string
	layout   string
	// build returns the binary for a platform: buildBinary, or a test's stand-in.
	build func(platform string) ([]byte, error)
}

func main() {
	var o options
	var created int64
	var platforms string
	flag.StringVar(&o.root, "root", "../..", "repository root")
	flag.StringVar(&platforms, "platform", "linux/amd64", "target os/arch, or a comma-separated list of them for a multi-platform index (the tarball holds the first)")
	flag.StringVar(&o.ldflags, "ldflags", "", "go build -ldflags (the Makefile's LDFLAGS stamp version and commit)")
	flag.StringVar(&o.version, "version", "", "image version label and tag")
	flag.StringVar(&o.commit, "commit", "", "image revision label")
	flag.StringVar(&o.repo, "repo", "ghcr.io/toolgate/toolgate", "image name in the tarball")
	var alsoTags string
	flag.StringVar(&alsoTags, "also-tag", "", "comma-separated further tags of the image (make image: the release tag the manifests pull)")
	flag.Int64Var(&created, "created", 0, "creation time, Unix seconds (SOURCE_DATE_EPOCH; make image passes the commit time)")
	flag.StringVar(&o.caCerts, "ca-certs", "", "optional PEM bundle installed as /etc/ssl/certs/ca-certificates.crt")
	flag.StringVar(&o.tarPath, "tar", "", "write the image tarball (docker load, podman load, crane push) here")
	flag.StringVar(&o.layout, "oci-layout", "", "write the image as an OCI image layout directory here")
	flag.Parse()
	o.created = time.Unix(created, 0).UTC()
	o.platforms = strings.Split(platforms, ",")
	if alsoTags != "" {
		o.alsoTags = strings.Split(alsoTags, ",")
	}
	o.build = func(p string) ([]byte, error) { return buildBinary(o.root, o.ldflags, p) }
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if o.tarPath == "" && o.layout == "" {
		return errors.New("nothing to write: give -tar, -oci-layout or both")
	}
	for i, p := range o.platforms {
		goos, goarch, ok := strings.Cut(p, "/")
		if !ok || goos == "" || goarch == "" || strings.Contains(goarch, "/") {
			return fmt.Errorf("-platform must be os/arch or a comma-separated list of them, e.g. linux/amd64,linux/arm64")
		}
		if slices.Contains(o.platforms[:i], p) {
			return fmt.Errorf("-platform names %s twice", p)
		}
	}
	st, err := readRuntimeStage(filepath.Join(o.root, "Dockerfile"), map[string]string{"VERSION": o.version, "COMMIT": o.commit})
	if err != nil {
		return err
	}
	var ca []byte
	if o.caCerts != "" {
		if ca, err = os.ReadFile(o.caCerts); err != nil {
			return fmt.Errorf("-ca-certs: %w", err)
		}
	}
	imgs := make([]v1.Image, len(o.platforms))
	for i, p := range o.platforms {
		bin, err := o.build(p)
		if err != nil {
			return err
		}
		if imgs[i], err = assemble(st, p, o.created, bin, ca); err != nil {
			return err
		}
	}
	img := imgs[0]
	ref, err := name.NewTag(o.repo + ":" + tagOf(o.version))
	if err != nil {
		return fmt.Errorf("image name: %w", err)
	}
	refs := []name.Tag{ref}
	for _, t := range o.alsoTags {
		r, err := name.NewTag(o.repo+":"+t, name.StrictValidation)
		if err != nil {
			return fmt.Errorf("-also-tag: %w", err)
		}
		if !slices.Contains(refs, r) {
			refs = append(refs, r)
		}
	}
	if o.tarPath != "" {
		if err := os.MkdirAll(filepath.Dir(o.tarPath), 0o755); err != nil {
			return err
		}
		tags := make(map[name.Tag]v1.Image, len(refs))
		for _, r := range refs {
			tags[r] = img
		}
		if err := tarball.MultiWriteToFile(o.tarPath, tags); err != nil {
			return fmt.Errorf("write tarball: %w", err)
		}
	}
	if o.layout != "" {
		// A layout is a directory of blobs; start from an empty one so a
		// rebuild does not accumulate images.
		if err := os.RemoveAll(o.layout); err != nil {
			return err
		}
		p, err := layout.Write(o.layout, empty.Index)
		if err != nil {
			return fmt.Errorf("write OCI layout: %w", err)
		}
		// One entry, named for the version: crane push sends the layout to
		// whichever reference it is given.
		refName := layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": ref.String()})
		if len(imgs) == 1 {
			err = p.AppendImage(img, refName)
		} else {
			err = p.AppendIndex(index(o.platforms, imgs), refName)
		}
		if err != nil {
			return fmt.Errorf("write OCI layout: %w", err)
		}
	}
	for i, img := range imgs {
		d, err := img.Digest()
		if err != nil {
			return err
		}
		fmt.Printf("image %s (%s) %s\n", ref, o.platforms[i], d)
	}
	if len(imgs) > 1 {
		d, err := index(o.platforms, imgs).Digest()
		if err != nil {
			return err
		}
		fmt.Printf("index %s (%s) %s\n", ref, strings.Join(o.platforms, ", "), d)
	}
	return nil
}

// index is the OCI image index of one image per platform, in the given
// order, each manifest descriptor naming its platform.
func index(platforms []string, imgs []v1.Image) v1.ImageIndex {
	adds := make([]mutate.IndexAddendum, len(imgs))
	for i, img := range imgs {
		goos, goarch, _ := strings.Cut(platforms[i], "/")
		adds[i] = mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{
			MediaType: types.OCIManifestSchema1,
			Platform:  &v1.Platform{OS: goos, Architecture: goarch},
		}}
	}
	return mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...)
}

// buildBinary cross-builds cmd/toolgate of the repository at root
// statically for platform (os/arch) and returns the executable's bytes.
func buildBinary(root, ldflags, platform string) ([]byte, error) {
	goos, goarch, _ := strings.Cut(platform, "/")
	dir, err := os.MkdirTemp("", "toolgate-image-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "toolgate")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", ldflags, "-o", out, "./cmd/toolgate")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch, "GOWORK=off")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go build ./cmd/toolgate for %s: %w", platform, err)
	}
	return os.ReadFile(out)
}

// nonroot is distroless's nonroot user and group, which the Dockerfile's
// USER names by number.
const nonroot = 65532

// assemble makes the image: one layer on an empty base, the runtime stage's
// configuration, OCI media types.
func assemble(st runtimeStage, platform string, created time.Time, bin, caCerts []byte) (v1.Image, error) {
	goos, goarch, _ := strings.Cut(platform, "/")
	layerTar, err := rootfs(st.binaryPath, created, bin, caCerts)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{
		Layer: layer,
		History: v1.History{
			Created:   v1.Time{Time: created},
			CreatedBy: "hack/image: " + st.binaryPath + ", /etc/passwd, /etc/group, /tmp, /home/nonroot",
		},
	})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = goos, goarch
	cf.Created = v1.Time{Time: created}
	cf.Config.User = st.user
	cf.Config.Entrypoint = st.entrypoint
	cf.Config.Labels = st.labels
	cf.Config.WorkingDir = "/"
	cf.Config.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/home/nonroot"}
	return mutate.ConfigFile(img, cf)
}

// rootfs is the layer's tar: what distroless/static's nonroot variant gives a
// static Go binary (users, a writable /tmp, the user's home), the binary, and
// optionally a CA bundle. Entries are sorted and timestamped with created, so
// the layer's digest depends on its content only.
func rootfs(binaryPath string, created time.Time, bin, caCerts []byte) ([]byte, error) {
	passwd := "root:x:0:0:root:/root:/sbin/nologin\n" +
		"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n" +
		"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
	group := "root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n"
	type entry struct {
		name     string
		mode     int64
		uid      int
		body     []byte
		dir, set bool
	}
	entries := []entry{
		{name: "etc/", mode: 0o755, dir: true},
		{name: "etc/group", mode: 0o644, body: []byte(group)},
		{name: "etc/passwd", mode: 0o644, body: []byte(passwd)},
		{name: "home/", mode: 0o755, dir: true},
		{name: "home/nonroot/", mode: 0o700, uid: nonroot, dir: true},
		{name: "tmp/", mode: 0o1777, dir: true},
	}
	if caCerts != nil {
		entries = append(entries,
			entry{name: "etc/ssl/", mode: 0o755, dir: true},
			entry{name: "etc/ssl/certs/", mode: 0o755, dir: true},
			entry{name: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, body: caCerts})
	}
	p := strings.TrimPrefix(binaryPath, "/")
	if p == "" || strings.Contains(p, "/") {
		// The binary sits in / as in the Dockerfile; a nested path would
		// need its directories too.
		return nil, fmt.Errorf("the Dockerfile copies the binary to %q: hack/image supports a file in / only", binaryPath)
	}
	entries = append(entries, entry{name: p, mode: 0o755, body: bin})

	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Uid: e.uid, Gid: e.uid, ModTime: created, Format: tar.FormatPAX}
		if e.dir {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// tagRE is the reference grammar's tag.
var tagRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)

// tagOf is the tag for a version: the version itself when it is a valid tag
// (v1.2.3, v1.2.3-4-gabcdef0-dirty), "devel" otherwise (an unversioned build
// says "(devel)").
func tagOf(version string) string {
	if tagRE.MatchString(version) {
		return version
	}
	return "devel"
}
