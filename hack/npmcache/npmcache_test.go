package npmcache

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// pinned writes a package.json and lock into a new directory.
func pinned(t *testing.T, lock string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{"package.json": `{"name":"p","private":true}`, "package-lock.json": lock} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A completed install of the same package.json and lock is reused without
// running npm; a different lock is a different cache entry.
func TestAnInstallIsReusedPerLockDigest(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("PATH", t.TempDir()) // no npm: running it fails the test
	dir := pinned(t, `{"lockfileVersion":3}`)
	sum := sha256.Sum256([]byte(`{"name":"p","private":true}` + "\x00" + `{"lockfileVersion":3}`))
	modules := filepath.Join(cache, "toolgate", "npm", hex.EncodeToString(sum[:8]), "node_modules")
	if err := os.MkdirAll(modules, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(modules, ".package-lock.json"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Install(dir, io.Discard)
	if err != nil || got != modules {
		t.Fatalf("Install = %q, %v; want the cached %q", got, err, modules)
	}
	if _, err := Install(pinned(t, `{"lockfileVersion":3,"packages":{}}`), io.Discard); err == nil {
		t.Fatal("a different lock reused the cached install")
	}
	left, err := filepath.Glob(filepath.Join(cache, "toolgate", "npm", "install-*"))
	if err != nil || len(left) > 0 {
		t.Errorf("a failed install left %v behind", left)
	}
}

// A directory without its lock is refused before npm runs.
func TestInstallNeedsTheLock(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := pinned(t, "")
	if err := os.Remove(filepath.Join(dir, "package-lock.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(dir, io.Discard); err == nil {
		t.Fatal("installed without a lock")
	}
}

func ExampleInstall() {
	modules, err := Install(filepath.Join("test", "mcp", "testdata", "reference", "npm"), os.Stderr)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(filepath.Join(modules, "@modelcontextprotocol", "server-everything", "dist", "index.js"))
}
