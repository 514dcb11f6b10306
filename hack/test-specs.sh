#!/usr/bin/env bash
# Run Ginkgo suites with go test -v and print, per package, its result and
# Ginkgo's spec count ("Ran 24 of 24 Specs"), keeping the full log in
# $SPEC_LOG. Fails when a package fails, when a suite ran no spec, or when a
# suite skipped any spec, so `make test` never reports ok for a suite that
# did not run.
#   usage: hack/test-specs.sh [go test flags and packages]
set -uo pipefail
GO=${GO:-go}
log=${SPEC_LOG:-bin/test-specs.log}
mkdir -p "$(dirname "$log")"
status=0
"$GO" test -v "$@" 2>&1 | sed -E 's/\x1b\[[0-9;]*m//g' >"$log" || status=$?
# One line per package (ok/FAIL) preceded by its suites' summaries.
grep -oE '^(ok|FAIL|--- FAIL|--- SKIP) .*|Ran [0-9]+ of [0-9]+ Specs|[0-9]+ Passed \| [0-9]+ Failed \| [0-9]+ Pending \| [0-9]+ Skipped' "$log" || true
if [[ $status -ne 0 ]]; then
	echo "test-specs: a suite failed; the full log is $log" >&2
	exit "$status"
fi
if grep -qE 'Ran 0 of [0-9]+ Specs|\| [1-9][0-9]* Skipped|^--- SKIP' "$log"; then
	echo "test-specs: a suite ran no spec or skipped specs (see $log): the envtest binaries are missing or a spec was skipped" >&2
	exit 1
fi
if ! grep -qE 'Ran [1-9][0-9]* of [0-9]+ Specs' "$log"; then
	echo "test-specs: no Ginkgo suite reported a spec count (see $log)" >&2
	exit 1
fi
