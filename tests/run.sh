#!/bin/sh
# run.sh - runs every cmocka test binary given as an argument, then the
# command-line tests (cli_*.sh) and the integration tests against real
# servers (it_*.sh), and prints the suites that failed, those that were
# skipped, and one closing line: "suites: N passed, N skipped, N failed".
#
# A suite says it could not run (all of it, or a part: a server or tool
# missing) by exiting 77; it counts as skipped, not passed. With CI=true a
# skipped suite fails the run (CI must run the real-server suites, not
# drop them silently), unless its name is in TG_ALLOW_SKIP (space-separated
# names such as "cli_diff_hta.sh", for a CI without ../shared).
#
# A cmocka binary whose tests skip exits 0: each one's output is read for
# its skipped tests ("[  SKIPPED ] test_x"), and those not listed in
# tests/skips.expected (SUITE TEST WHY, TEST a shell pattern) are printed
# at the end; with CI=true they fail the run too, unless the suite is in
# TG_ALLOW_SKIP.
# Environment: TG_BIN (the tracegate binary), TG_SHARED (default ../shared),
# CI, TG_ALLOW_SKIP, and TG_SKIP_SERVERS=1: skip the suites that start real
# servers (PostgreSQL, radosgw, git daemon, the forge fakes) for a quick
# local run; they count as skipped; ignored when CI=true (CI never skips).
set -u
servers=" it_daemon_servers.sh it_endpoints.sh it_faults.sh it_forges.sh it_git.sh it_s3.sh it_security.sh it_store_pg.sh it_upload.sh "
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
skipped=0
failed_names=""
skipped_names=""
ci_skips=""
unexpected=""
expected_file=tests/skips.expected
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# Whether test $2 of suite $1 is in $expected_file.
skip_expected() {
	[ -f "$expected_file" ] || return 1
	while read -r suite pattern _; do
		case "$suite" in '#'* | '') continue ;; esac
		[ "$suite" = "$1" ] || continue
		# shellcheck disable=SC2254 # the pattern is meant as one
		case "$2" in $pattern) return 0 ;; esac
	done <"$expected_file"
	return 1
}
# The skipped tests in suite $1's output $2 that are not expected.
check_skips() {
	for t in $(sed -n 's/^\[  SKIPPED \] \(test_[A-Za-z0-9_]*\)$/\1/p' "$2" | sort -u); do
		skip_expected "$1" "$t" && continue
		case " ${TG_ALLOW_SKIP:-} " in *" $1 "*) continue ;; esac
		unexpected="$unexpected $1:$t"
	done
}
record() { # NAME STATUS
	case "$2" in
	0) passed=$((passed + 1)) ;;
	77)
		skipped=$((skipped + 1))
		skipped_names="$skipped_names $1"
		case " ${TG_ALLOW_SKIP:-} " in
		*" $1 "*) ;;
		*) ci_skips="$ci_skips $1" ;;
		esac
		;;
	*)
		failed=$((failed + 1))
		failed_names="$failed_names $1"
		;;
	esac
}
for t in "$@"; do
	name=$(basename "$t")
	{
		"$t" 2>&1
		echo $? >"$tmp/rc"
	} | tee "$tmp/out"
	check_skips "$name" "$tmp/out"
	record "$name" "$(cat "$tmp/rc")"
done
for s in tests/cli_*.sh tests/it_*.sh; do
	[ -f "$s" ] || continue
	name=$(basename "$s")
	case "$servers" in *" $name "*)
		if [ "$skip_servers" = 1 ]; then
			echo "# SKIP $name: it starts real servers and TG_SKIP_SERVERS=1 (CI never skips it)"
			record "$name" 77
			continue
		fi
	esac
	sh "$s" "${TG_BIN:-./tracegate}"
	record "$name" $?
done
echo
[ -n "$failed_names" ] && echo "failed suites:$failed_names"
[ -n "$skipped_names" ] && echo "skipped suites (all or part; see their '# SKIP' lines):$skipped_names"
[ -n "$unexpected" ] && echo "skipped tests not in $expected_file (each one's SKIPPED line says why):$unexpected"
echo "suites: $passed passed, $skipped skipped, $failed failed"
if [ "${CI:-}" = true ] && [ -n "$ci_skips" ]; then
	echo "CI=true: a suite may not skip here:$ci_skips (install what its SKIP line names, or list it in TG_ALLOW_SKIP)"
	exit 1
fi
if [ "${CI:-}" = true ] && [ -n "$unexpected" ]; then
	echo "CI=true: a test may not skip here:$unexpected (give it what it lacks, or list it in $expected_file with why)"
	exit 1
fi
[ "$failed" -eq 0 ]
