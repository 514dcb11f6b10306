#!/usr/bin/env bash
# CPU and allocation profiles of authorize and consume (make profile):
# `toolgate serve` on the shipped samples in its default configuration
# (bbolt and its journal on disk, the audit log on; the decision log to a
# file), driven by hack/loadgen at 16 clients for 10 s per phase, its
# profiles read from its --pprof-listen. Writes OUT/authorize.{cpu,allocs}.pprof,
# OUT/consume.{cpu,allocs}.pprof and OUT/loadgen.txt (the run's numbers).
#
#   hack/profile.sh BIN/toolgate OUT
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: hack/profile.sh TOOLGATE-BINARY OUT-DIR" >&2; exit 2; }
bin=$1 out=$2
port=${PROFILE_PORT:-18480}
pport=$((port + 1))
mkdir -p "$out"
state=$(mktemp -d)
"$bin" serve --manifests config/samples --state "$state" --tokens examples/standalone/tokens.yaml \
  --listen "127.0.0.1:$port" --pprof-listen "127.0.0.1:$pport" --decision-log "$state/decisions.log" \
  2>"$state/serve.log" &
pid=$!
trap 'kill -INT $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$state"' EXIT
for _ in $(seq 150); do
  curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break
  kill -0 $pid 2>/dev/null || { cat "$state/serve.log" >&2; exit 1; }
  sleep 0.2
done
{
  echo "$(date -u +%Y-%m-%dT%H:%MZ) $(git rev-parse --short HEAD 2>/dev/null || echo unknown); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
  go run ./hack/loadgen -target "http://127.0.0.1:$port" -server-pid $pid -pprof "http://127.0.0.1:$pport" \
    -profile-dir "$out" -c 16 -n 100000 -d 10s
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$out/loadgen.txt"
