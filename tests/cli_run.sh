#!/bin/sh
# cli_run.sh - tests/run.sh itself, on stand-in suites in a scratch folder:
# a suite that exits 77 is counted as skipped (not passed) and named; with
# CI=true a skip fails the run unless TG_ALLOW_SKIP names the suite; a
# failure fails it whatever CI says.
set -u
. "$(dirname "$0")/tap.sh"
run=$(cd "$(dirname "$0")" && pwd)/run.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tests"
printf '#!/bin/sh\nexit 0\n' > "$tmp/tests/it_pass.sh"
printf '#!/bin/sh\necho "# SKIP it_skip: no server"\nexit 77\n' > "$tmp/tests/it_skip.sh"
out=$(cd "$tmp" && CI= sh "$run" 2>&1); rc=$?
check "a skip alone passes outside CI" "rc $rc" [ "$rc" -eq 0 ]
check "the closing line counts it as skipped" "$out" sh -c 'printf "%s\n" "$1" | grep -qx "suites: 1 passed, 1 skipped, 0 failed"' - "$out"
check "the skipped suite is named" "$out" sh -c 'printf "%s\n" "$1" | grep -q "^skipped suites (all or part; see their .# SKIP. lines): it_skip.sh$"' - "$out"
out=$(cd "$tmp" && CI=true sh "$run" 2>&1); rc=$?
check "CI=true: a skip fails the run" "rc $rc" [ "$rc" -eq 1 ]
check "CI=true: says which suite skipped" "$out" sh -c 'printf "%s\n" "$1" | grep -q "CI=true: a suite may not skip here: it_skip.sh"' - "$out"
out=$(cd "$tmp" && CI=true TG_ALLOW_SKIP="it_other.sh it_skip.sh" sh "$run" 2>&1); rc=$?
check "CI=true: TG_ALLOW_SKIP lets a named suite skip" "rc $rc $out" [ "$rc" -eq 0 ]
printf '#!/bin/sh\nexit 3\n' > "$tmp/tests/cli_fail.sh"
out=$(cd "$tmp" && CI= sh "$run" 2>&1); rc=$?
check "a failure fails the run" "rc $rc" [ "$rc" -eq 1 ]
check "the closing line counts all three" "$out" sh -c 'printf "%s\n" "$1" | grep -qx "suites: 1 passed, 1 skipped, 1 failed"' - "$out"
tap_exit
