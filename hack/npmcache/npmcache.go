// Package npmcache installs a committed npm package.json and
// package-lock.json with `npm ci --ignore-scripts` into
// $XDG_CACHE_HOME/toolgate/npm/<digest of both> (~/.cache/…), once per
// lock: a later run, or another clone with the same lock, reuses it. The
// published MCP servers test/mcp gates and hack/mcpcorpus captures are
// installed this way, pinned by exact version and integrity.
package npmcache

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// Install installs the package.json and package-lock.json in dir, unless
// their install is cached, and returns the install's node_modules. npm's
// output goes to log.
func Install(dir string, log io.Writer) (string, error) {
	manifest, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return "", err
	}
	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(append(append(manifest, 0), lock...))
	root := filepath.Join(cache, "toolgate", "npm")
	final := filepath.Join(root, hex.EncodeToString(sum[:8]))
	modules := filepath.Join(final, "node_modules")
	// npm ci writes node_modules/.package-lock.json last.
	if _, err := os.Stat(filepath.Join(modules, ".package-lock.json")); err == nil {
		return modules, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	// Install beside the final directory and rename it into place: a run
	// killed mid-install leaves no half-installed cache entry.
	tmp, err := os.MkdirTemp(root, "install-")
	if err != nil {
		return "", err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	for name, b := range map[string][]byte{"package.json": manifest, "package-lock.json": lock} {
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			return "", err
		}
	}
	cmd := exec.Command("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund")
	cmd.Dir, cmd.Stdout, cmd.Stderr = tmp, log, log
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm ci of %s: %w", dir, err)
	}
	if err := os.Rename(tmp, final); err != nil {
		// Another run installed the same lock meanwhile: use its copy.
		if st, serr := os.Stat(final); serr != nil || !st.IsDir() {
			return "", fmt.Errorf("renaming the install into the cache: %w", err)
		}
	}
	return modules, nil
}
