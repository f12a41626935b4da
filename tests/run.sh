#!/bin/sh
# run.sh - runs every cmocka test binary given as an argument, then the
# command-line tests (cli_*.sh) and the integration tests against real
# servers (it_*.sh), and prints one closing line: "N passed, N failed".
# Environment: TG_BIN (the tracegate binary), TG_SHARED (default ../shared),
# TG_SKIP_SERVERS=1: skip the suites that start real servers (PostgreSQL,
# radosgw, git daemon, the forge fakes), for a quick local run; ignored
# when CI=true (CI never skips a suite).
set -u
servers=" it_daemon_servers.sh it_faults.sh it_forges.sh it_git.sh it_s3.sh it_security.sh it_store_pg.sh "
skip_servers=0
if [ "${TG_SKIP_SERVERS:-0}" = 1 ]; then
	if [ "${CI:-}" = true ]; then
		echo "# CI=true: TG_SKIP_SERVERS=1 is ignored, every suite runs"
	else
		skip_servers=1
	fi
fi
passed=0
failed=0
failed_names=""
skipped=""
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
	case "$servers" in *" $name "*)
		if [ "$skip_servers" = 1 ]; then
			echo "# SKIP $name: it starts real servers and TG_SKIP_SERVERS=1 (CI never skips it)"
			skipped="$skipped $name"
			continue
		fi
	esac
	if sh "$s" "${TG_BIN:-./tracegate}"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		failed_names="$failed_names $name"
	fi
done
echo
[ -n "$failed_names" ] && echo "failed suites:$failed_names"
[ -n "$skipped" ] && echo "skipped (TG_SKIP_SERVERS=1):$skipped"
echo "suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
