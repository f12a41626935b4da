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
	"$t"
	record "$(basename "$t")" $?
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
echo "suites: $passed passed, $skipped skipped, $failed failed"
if [ "${CI:-}" = true ] && [ -n "$ci_skips" ]; then
	echo "CI=true: a suite may not skip here:$ci_skips (install what its SKIP line names, or list it in TG_ALLOW_SKIP)"
	exit 1
fi
[ "$failed" -eq 0 ]
