#!/bin/sh
# run.sh - runs every cmocka test binary given as an argument, then the
# command-line tests (cli_*.sh) and the integration tests against real
# servers (it_*.sh), and prints one closing line: "N passed, N failed".
# Environment: TG_BIN (the tracegate binary), TG_SHARED (default ../shared).
set -u
passed=0
failed=0
failed_names=""
for t in "$@"; do
	name=$(basename "$t")
	if "$t"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		failed_names="$failed_names $name"
	fi
done
for s in tests/cli_*.sh tests/it_*.sh; do
	[ -f "$s" ] || continue
	name=$(basename "$s")
	if sh "$s" "${TG_BIN:-./tracegate}"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		failed_names="$failed_names $name"
	fi
done
echo
[ -n "$failed_names" ] && echo "failed suites:$failed_names"
echo "suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
