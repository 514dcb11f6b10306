package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const (
	wantVersion = "v0.0.0-imagecheck"
	wantCommit  = "0123456789abcdef0123456789abcdef01234567"
	epoch       = 1796083200 // 2026-12-01T00:00:00Z
)

// TestMakeImage runs `make image` as a user would (the Makefile's ldflags,
// version and commit given on the command line), then reads the tarball the
// way `docker load` does — manifest.json (tagged with the version and the
// release tag the manifests pull), the config blob, the layer — with
// archive/tar, not with the library that wrote it: the config runs the
// binary as 65532:65532 through the exec-form entrypoint with the OCI
// labels, the layer holds the static binary stamped with the version, the
// nonroot user and a writable /tmp, and the OCI layout holds the same image.
// (One platform: a cold cross-build of the other architecture's standard
// library and dependencies takes many minutes here; TestMultiPlatformIndex
// covers the index with stand-in binaries.)
func TestMakeImage(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dist := t.TempDir()
	platform := "linux/" + runtime.GOARCH
	mk := exec.Command("make", "--no-print-directory", "-C", root, "image",
		"DIST="+dist, "VERSION="+wantVersion, "COMMIT="+wantCommit,
		"SOURCE_DATE_EPOCH=1796083200", "IMAGE_PLATFORM="+platform)
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("make image: %v\n%s", err, out)
	}
	tarPath := filepath.Join(dist, "toolgate-image.tar")
	files := readTar(t, mustOpen(t, tarPath))

	var manifest []struct {
		Config   string
		RepoTags []string
		Layers   []string
	}
	if err := json.Unmarshal(files["manifest.json"].body, &manifest); err != nil {
		t.Fatalf("manifest.json: %v", err)
	}
	if len(manifest) != 1 || len(manifest[0].Layers) != 1 {
		t.Fatalf("manifest.json = %+v, want one image with one layer", manifest)
	}
	m := manifest[0]
	// The build's version, and the release tag config/manager and the
	// chart pull (charts/test's TestManifestsPullTheReleaseImage).
	release, err := os.ReadFile(filepath.Join(root, "VERSION"))
	if err != nil {
		t.Fatal(err)
	}
	wantTags := []string{"ghcr.io/toolgate/toolgate:" + wantVersion, "ghcr.io/toolgate/toolgate:v" + strings.TrimSpace(string(release))}
	if d := cmp.Diff(wantTags, m.RepoTags, cmpopts.SortSlices(func(a, b string) bool { return a < b })); d != "" {
		t.Errorf("tags (-want +got):\n%s", d)
	}

	var cfg struct {
		OS, Architecture string
		Created          time.Time
		Config           struct {
			User       string
			Entrypoint []string
			Cmd        []string
			Labels     map[string]string
		}
	}
	if err := json.Unmarshal(files[m.Config].body, &cfg); err != nil {
		t.Fatalf("config %s: %v", m.Config, err)
	}
	if got := cfg.OS + "/" + cfg.Architecture; got != platform {
		t.Errorf("platform %s, want %s", got, platform)
	}
	if !cfg.Created.Equal(time.Unix(epoch, 0)) {
		t.Errorf("created %s, want SOURCE_DATE_EPOCH %s", cfg.Created, time.Unix(epoch, 0).UTC())
	}
	if cfg.Config.User != "65532:65532" {
		t.Errorf("user %q, want 65532:65532 (distroless nonroot, numeric for runAsNonRoot)", cfg.Config.User)
	}
	if d := cmp.Diff([]string{"/toolgate"}, cfg.Config.Entrypoint); d != "" {
		t.Errorf("entrypoint (-want +got):\n%s", d)
	}
	if len(cfg.Config.Cmd) != 0 {
		t.Errorf("cmd %q, want none (the verb is the container's args)", cfg.Config.Cmd)
	}
	for k, want := range map[string]string{
		"org.opencontainers.image.version":  wantVersion,
		"org.opencontainers.image.revision": wantCommit,
		"org.opencontainers.image.source":   "https://github.com/toolgate/toolgate",
		"org.opencontainers.image.title":    "toolgate",
	} {
		if got := cfg.Config.Labels[k]; got != want {
			t.Errorf("label %s = %q, want %q", k, got, want)
		}
	}

	gz, err := gzip.NewReader(strings.NewReader(string(files[m.Layers[0]].body)))
	if err != nil {
		t.Fatalf("layer %s: %v", m.Layers[0], err)
	}
	layer := readTar(t, io.NopCloser(gz))
	bin, ok := layer["toolgate"]
	if !ok {
		t.Fatalf("the layer has no /toolgate; it has %v", keys(layer))
	}
	if bin.hdr.Typeflag != tar.TypeReg || bin.hdr.Mode&0o111 == 0 || bin.hdr.Uid != 0 {
		t.Errorf("/toolgate: type %c mode %o uid %d, want a root-owned executable file", bin.hdr.Typeflag, bin.hdr.Mode, bin.hdr.Uid)
	}
	if !strings.Contains(string(layer["etc/passwd"].body), "\nnonroot:x:65532:65532:") {
		t.Errorf("/etc/passwd names no nonroot user 65532:\n%s", layer["etc/passwd"].body)
	}
	if tmp, ok := layer["tmp/"]; !ok || tmp.hdr.Typeflag != tar.TypeDir || tmp.hdr.Mode != 0o1777 {
		t.Errorf("/tmp is not a world-writable sticky directory")
	}
	if home, ok := layer["home/nonroot/"]; !ok || home.hdr.Uid != 65532 {
		t.Errorf("/home/nonroot is not owned by 65532")
	}

	// The binary is static (CGO_ENABLED=0) and stamped with the Makefile's
	// ldflags: run it.
	exe := filepath.Join(t.TempDir(), "toolgate")
	if err := os.WriteFile(exe, bin.body, 0o755); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" {
		got, err := exec.Command(exe, "version").Output()
		if err != nil {
			t.Fatalf("the image's toolgate version: %v", err)
		}
		want := "toolgate " + wantVersion + " (" + wantCommit[:12] + ") " + runtime.Version() + "\n"
		if string(got) != want {
			t.Errorf("the image's toolgate version = %q, want %q", got, want)
		}
		if out, err := exec.Command("ldd", exe).CombinedOutput(); err == nil {
			t.Errorf("the image's binary is dynamically linked:\n%s", out)
		}
	}

	// The OCI layout holds the same image: an OCI manifest of the same
	// config (its digest names the config in the tarball).
	idx, err := layout.ImageIndexFromPath(filepath.Join(dist, "toolgate-image.oci"))
	if err != nil {
		t.Fatalf("OCI layout: %v", err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 || im.Manifests[0].MediaType != types.OCIManifestSchema1 {
		t.Fatalf("OCI layout index %+v, want one OCI manifest", im.Manifests)
	}
	img, err := idx.Image(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	cn, err := img.ConfigName()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Config, cn.Hex) {
		t.Errorf("the OCI layout's config is %s, the tarball's %s", cn, m.Config)
	}
}

// TestMultiPlatformIndex: given several platforms, the OCI layout holds
// one image index under the image's name with one image per platform, in
// the given order, each descriptor and config naming its platform and each
// layer holding that platform's binary; the tarball holds the first
// platform's image. The layout is read back file by file (index.json, the
// blobs) with encoding/json and archive/tar, not with the writer's library.
func TestMultiPlatformIndex(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dist := t.TempDir()
	platforms := []string{"linux/amd64", "linux/arm64", "linux/s390x"}
	o := options{
		root: root, platforms: platforms, version: wantVersion, commit: wantCommit,
		repo: "example.com/toolgate", created: time.Unix(epoch, 0).UTC(),
		tarPath: filepath.Join(dist, "image.tar"), layout: filepath.Join(dist, "image.oci"),
		build: func(p string) ([]byte, error) { return []byte("binary for " + p), nil },
	}
	if err := run(o); err != nil {
		t.Fatal(err)
	}
	blob := func(digest string) []byte {
		t.Helper()
		algo, hex, _ := strings.Cut(digest, ":")
		b, err := os.ReadFile(filepath.Join(o.layout, "blobs", algo, hex))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	type descriptor struct {
		MediaType   string
		Digest      string
		Annotations map[string]string
		Platform    *struct{ OS, Architecture string }
	}
	var top struct{ Manifests []descriptor }
	raw, err := os.ReadFile(filepath.Join(o.layout, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		t.Fatal(err)
	}
	ref := "example.com/toolgate:" + wantVersion
	if len(top.Manifests) != 1 || top.Manifests[0].MediaType != string(types.OCIImageIndex) ||
		top.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != ref {
		t.Fatalf("index.json %+v, want one image index named %s", top.Manifests, ref)
	}
	var multi struct{ Manifests []descriptor }
	if err := json.Unmarshal(blob(top.Manifests[0].Digest), &multi); err != nil {
		t.Fatal(err)
	}
	var got []string
	var firstConfig string
	for _, d := range multi.Manifests {
		if d.MediaType != string(types.OCIManifestSchema1) || d.Platform == nil {
			t.Fatalf("index entry %+v, want an OCI manifest naming its platform", d)
		}
		p := d.Platform.OS + "/" + d.Platform.Architecture
		got = append(got, p)
		var man struct {
			Config struct{ Digest string }
			Layers []struct{ Digest string }
		}
		if err := json.Unmarshal(blob(d.Digest), &man); err != nil || len(man.Layers) != 1 {
			t.Fatalf("%s manifest: %v, %d layers", p, err, len(man.Layers))
		}
		if firstConfig == "" {
			firstConfig = man.Config.Digest
		}
		var cfg struct{ OS, Architecture string }
		if err := json.Unmarshal(blob(man.Config.Digest), &cfg); err != nil {
			t.Fatal(err)
		}
		if cfg.OS+"/"+cfg.Architecture != p {
			t.Errorf("the %s image's config says %s/%s", p, cfg.OS, cfg.Architecture)
		}
		gz, err := gzip.NewReader(bytes.NewReader(blob(man.Layers[0].Digest)))
		if err != nil {
			t.Fatal(err)
		}
		if bin := readTar(t, io.NopCloser(gz))["toolgate"]; string(bin.body) != "binary for "+p {
			t.Errorf("the %s image's /toolgate is %q, want that platform's binary", p, bin.body)
		}
	}
	if d := cmp.Diff(platforms, got); d != "" {
		t.Errorf("index platforms (-want +got):\n%s", d)
	}
	var tarManifest []struct{ Config string }
	if err := json.Unmarshal(readTar(t, mustOpen(t, o.tarPath))["manifest.json"].body, &tarManifest); err != nil || len(tarManifest) != 1 {
		t.Fatalf("the tarball's manifest.json: %v, %d images", err, len(tarManifest))
	}
	if _, hex, _ := strings.Cut(firstConfig, ":"); !strings.Contains(tarManifest[0].Config, hex) {
		t.Errorf("the tarball's config is %s, want the first platform's %s", tarManifest[0].Config, firstConfig)
	}
}

// TestPlatformList: -platform is os/arch or a list of them, none twice.
func TestPlatformList(t *testing.T) {
	for _, tc := range []struct{ name, platforms, wantErr string }{
		{"an architecture alone is refused", "amd64", "os/arch"},
		{"an empty entry is refused", "linux/amd64,", "os/arch"},
		{"a variant path is refused", "linux/arm/v7/x", "os/arch"},
		{"a platform named twice is refused", "linux/amd64,linux/arm64,linux/amd64", "twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := options{platforms: strings.Split(tc.platforms, ","), layout: t.TempDir(),
				build: func(string) ([]byte, error) { t.Fatal("built despite a bad -platform"); return nil, nil }}
			if err := run(o); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("err = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// TestImageIsReproducible: the same binary and time give the same digest
// (entries sorted, timestamps fixed), and a different binary a different one.
func TestImageIsReproducible(t *testing.T) {
	st := runtimeStage{user: "65532:65532", entrypoint: []string{"/toolgate"}, binaryPath: "/toolgate", labels: map[string]string{"a": "b"}}
	digest := func(bin string) string {
		img, err := assemble(st, "linux/amd64", time.Unix(epoch, 0), []byte(bin), nil)
		if err != nil {
			t.Fatal(err)
		}
		d, err := img.Digest()
		if err != nil {
			t.Fatal(err)
		}
		return d.String()
	}
	if a, b := digest("binary"), digest("binary"); a != b {
		t.Errorf("two builds of one input differ: %s, %s", a, b)
	}
	if a, b := digest("binary"), digest("other binary"); a == b {
		t.Errorf("builds of two binaries share digest %s", a)
	}
}

// TestCABundleIsOptional: without -ca-certs the layer has no /etc/ssl; with
// it, the bundle is /etc/ssl/certs/ca-certificates.crt, byte for byte.
func TestCABundleIsOptional(t *testing.T) {
	for _, tc := range []struct {
		name string
		ca   []byte
	}{
		{"no bundle by default", nil},
		{"a given bundle is installed", []byte("-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := rootfs("/toolgate", time.Unix(epoch, 0), []byte("bin"), tc.ca)
			if err != nil {
				t.Fatal(err)
			}
			files := readTar(t, io.NopCloser(strings.NewReader(string(raw))))
			got, ok := files["etc/ssl/certs/ca-certificates.crt"]
			if ok != (tc.ca != nil) || (ok && string(got.body) != string(tc.ca)) {
				t.Errorf("ca-certificates.crt present %v (%q), want present %v (%q)", ok, got.body, tc.ca != nil, tc.ca)
			}
		})
	}
}

// TestRuntimeStageFromDockerfile: the builder takes exactly the Dockerfile's
// runtime configuration and refuses a runtime stage it would not reproduce.
func TestRuntimeStageFromDockerfile(t *testing.T) {
	const build = "FROM golang AS build\nRUN go build -o /out/toolgate .\n"
	for _, tc := range []struct {
		name, runtime string
		want          runtimeStage
		wantErr       string
	}{
		{
			name: "user, entrypoint, quoted and continued labels with build args",
			runtime: "FROM gcr.io/distroless/static:nonroot\nARG VERSION=\"\"\n" +
				"LABEL a=\"x y\" \\\n  b=\"${VERSION}\" c=bare\nCOPY --from=build /out/toolgate /toolgate\n" +
				"USER 65532:65532\nENTRYPOINT [\"/toolgate\"]\n",
			want: runtimeStage{user: "65532:65532", entrypoint: []string{"/toolgate"}, binaryPath: "/toolgate",
				labels: map[string]string{"a": "x y", "b": "v9", "c": "bare"}},
		},
		{
			name:    "a RUN in the runtime stage is refused",
			runtime: "FROM scratch\nRUN touch /x\nCOPY --from=build /out/toolgate /toolgate\nUSER 1\nENTRYPOINT [\"/toolgate\"]\n",
			wantErr: "has RUN",
		},
		{
			name:    "a shell-form entrypoint is refused",
			runtime: "FROM scratch\nCOPY --from=build /out/toolgate /toolgate\nUSER 1\nENTRYPOINT /toolgate\n",
			wantErr: "exec (JSON) form",
		},
		{
			name:    "a runtime stage without USER is refused",
			runtime: "FROM scratch\nCOPY --from=build /out/toolgate /toolgate\nENTRYPOINT [\"/toolgate\"]\n",
			wantErr: "needs USER",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "Dockerfile")
			if err := os.WriteFile(p, []byte(build+tc.runtime), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := readRuntimeStage(p, map[string]string{"VERSION": "v9"})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got, cmp.AllowUnexported(runtimeStage{})); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

type tarFile struct {
	hdr  *tar.Header
	body []byte
}

func readTar(t *testing.T, r io.ReadCloser) map[string]tarFile {
	t.Helper()
	defer r.Close()
	out := map[string]tarFile{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out[h.Name] = tarFile{hdr: h, body: b}
	}
}

func mustOpen(t *testing.T, p string) *os.File {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func keys(m map[string]tarFile) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
