#!/usr/bin/env bash
# Build the envtest control plane (kube-apiserver and etcd) from the Go module
# proxy, because no release binaries can be downloaded here.
#
# The binaries are cached in a machine-wide directory keyed by the Kubernetes
# version pinned in this directory's go.mod, so every clone on the machine
# reuses them:
#
#   ${ENVTEST_CACHE_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/toolgate/envtest}/k8s-<version>/{kube-apiserver,etcd}
#
# A binary is built only when it is missing (cold: see CONTRIBUTING.md, "How
# long the tests take"; cached: instant, and go is not even invoked). Builds go to a temporary file
# that is renamed into place, so an interrupted build never leaves a
# half-written binary behind. Progress goes to stderr; the last line on stdout
# is the cache directory, suitable for KUBEBUILDER_ASSETS. Exits non-zero on
# any failure.
set -euo pipefail

GO=${GO:-go}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Read the pinned versions from go.mod without invoking go, so the cached path
# stays fast even with an empty module cache.
modver() {
	awk -v m="$1" '$1 == m && $2 ~ /^v/ { print $2; exit }' "$here/go.mod"
}
k8s_version=$(modver k8s.io/kubernetes)
etcd_version=$(modver go.etcd.io/etcd/server/v3)
if [[ -z $k8s_version || -z $etcd_version ]]; then
	echo "envtest: cannot read k8s.io/kubernetes / go.etcd.io/etcd/server/v3 versions from $here/go.mod" >&2
	exit 1
fi

cache_root=${ENVTEST_CACHE_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/toolgate/envtest}
dir="$cache_root/k8s-${k8s_version#v}"
mkdir -p "$dir"

# Serialise concurrent runs (two clones running make at once) when flock exists.
if command -v flock >/dev/null 2>&1; then
	exec 9>"$dir/.lock"
	flock 9
fi

k8s_minor=${k8s_version#v1.}
k8s_minor=${k8s_minor%%.*}
k8s_ldflags="-s -w"
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
	k8s_ldflags+=" -X $p.gitVersion=$k8s_version -X $p.gitMajor=1 -X $p.gitMinor=$k8s_minor -X $p.gitTreeState=clean"
done

# Remove a half-written binary if the build fails or is interrupted.
tmp=
cleanup() { if [[ -n $tmp ]]; then rm -f "$tmp"; fi; }
trap cleanup EXIT

# build <binary name> <main package> <ldflags>
build() {
	local name=$1 pkg=$2 ldflags=$3
	if [[ -x $dir/$name ]]; then
		return 0
	fi
	echo "envtest: building $name ($pkg) into $dir ..." >&2
	local start=$SECONDS
	tmp="$dir/.$name.tmp.$$"
	CGO_ENABLED=0 "$GO" -C "$here" build -buildvcs=false -trimpath -ldflags "$ldflags" -o "$tmp" "$pkg"
	mv -f "$tmp" "$dir/$name"
	tmp=
	echo "envtest: built $name in $((SECONDS - start))s" >&2
}

build kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver "$k8s_ldflags"
build etcd go.etcd.io/etcd/server/v3 "-s -w"

echo "$dir"
