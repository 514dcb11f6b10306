#!/usr/bin/env bash
# One hack/mcpbench run against fresh processes (docs/performance.md, the MCP
# gateway): starts `toolgate serve` (standalone, the samples, a new state
# directory), the test upstream and `toolgate mcp gateway` from the binaries
# in DIR, runs DIR/mcpbench with the CPU time of all three per mode, and
# stops the three processes it started.
#   usage: hack/mcpbench/run.sh DIR CLIENTS CALLS [PROFILE_SECONDS]
# DIR holds toolgate, mcp-upstream and mcpbench (go build -o DIR/... ./cmd/toolgate
# ./test/mcp/upstream ./hack/mcpbench). Run from the repository root. With
# PROFILE_SECONDS, CPU profiles of the gateway and the service are taken from
# the start of the run. GATEWAY_ENV (e.g. GOMAXPROCS=1) is set for the gateway.
set -euo pipefail
dir=$1 clients=$2 calls=$3 prof=${4:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/mcpbench.XXXXXX")
"$dir/toolgate" serve --standalone --manifests config/samples --state "$work/state" \
	--tokens examples/standalone/tokens.yaml --decision-log "$work/decisions.jsonl" \
	--listen 127.0.0.1:18080 --pprof-listen 127.0.0.1:18098 >"$work/serve.log" 2>&1 &
service=$!
"$dir/mcp-upstream" --listen 127.0.0.1:18091 --effects "$work/effects" >"$work/upstream.log" 2>&1 &
upstream=$!
trap 'kill $service $upstream ${gateway:-} 2>/dev/null || true' EXIT
echo dev-payments-executor-token-7c3e5a9b1f2d >"$work/token"
sed -e "s|tokenFile: .state/mcp-executor.token|tokenFile: $work/token|" \
	-e "s|outcomeLog: .state/mcp-outcomes.jsonl|outcomeLog: $work/outcomes.jsonl|" \
	-e 's|http://127.0.0.1:8080|http://127.0.0.1:18080|' config/mcp/gateway.yaml >"$work/gateway.yaml"
for _ in $(seq 50); do curl -sf http://127.0.0.1:18080/healthz >/dev/null && break; sleep 0.2; done
env ${GATEWAY_ENV:-} "$dir/toolgate" mcp gateway --config "$work/gateway.yaml" --listen 127.0.0.1:18090 \
	--upstream-url http://127.0.0.1:18091/mcp --pprof-listen 127.0.0.1:18099 >"$work/gateway.log" 2>&1 &
gateway=$!
for _ in $(seq 50); do curl -sf http://127.0.0.1:18090/healthz >/dev/null && break; sleep 0.2; done
sleep 1
echo "$dir, $clients clients, $calls calls, $(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"
profiles=()
if [[ -n $prof ]]; then
	curl -so "$work/gateway.prof" "http://127.0.0.1:18099/debug/pprof/profile?seconds=$prof" &
	profiles+=($!)
	curl -so "$work/service.prof" "http://127.0.0.1:18098/debug/pprof/profile?seconds=$prof" &
	profiles+=($!)
fi
"$dir/mcpbench" -n "$calls" -c "$clients" -cpu "gateway=$gateway,service=$service,upstream=$upstream"
curl -so "$work/gateway-allocs.prof" http://127.0.0.1:18099/debug/pprof/allocs
for p in "${profiles[@]}"; do wait "$p" || true; done
echo "end load $(cut -d' ' -f1-3 /proc/loadavg); logs and profiles in $work"
