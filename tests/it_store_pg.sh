#!/bin/bash
# it_store_pg.sh - the job store's tests (build/tests/test_store) against a
# real PostgreSQL 15 started on loopback (tests/servers/pg.sh), SQLite
# included, then checks that no PostgreSQL test was skipped, that the
# password of the URL shows nowhere in the output, and that the server and
# its data are gone afterwards. Environment: TG_BUILD (default build).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/servers/lib.sh
. tests/servers/pg.sh

bin=${TG_BUILD:-build}/tests/test_store
if [ ! -x "$bin" ]; then
	tg_not_ok "$bin is built" "make $bin"
	tg_done it_store_pg
	exit 1
fi
TG_RUN=$(mktemp -d "${TMPDIR:-/tmp}/tg-it-store.XXXXXX") || exit 1
trap 'tg_pg_stop; rm -rf "$TG_RUN"' EXIT
t0=$(date +%s%N)

if ! tg_pg_start; then
	tg_not_ok "PostgreSQL 15 starts"
	tg_done it_store_pg
	exit 1
fi
t1=$(date +%s%N)
user=$(ps -o user= -p "$TG_PG_PID" | tr -d ' ')
tg_ok "PostgreSQL 15 on 127.0.0.1:$TG_PG_PORT, pid $TG_PG_PID, as $user ($(( (t1 - t0) / 1000000 )) ms)"
tg_check "the server does not run as root" test "$user" != root
out=$TG_RUN/test_store.out
TG_TEST_PG_URL=$TG_PG_URL "$bin" > "$out" 2>&1
rc=$?
t2=$(date +%s%N)
if [ "$rc" -eq 0 ]; then
	tg_ok "test_store passes on both backends ($(( (t2 - t1) / 1000000 )) ms)"
else
	tg_not_ok "test_store passes on both backends" "exit status $rc; the failures:" \
		"$(grep -E -A3 'FAILED|ERROR' "$out" | head -n 40)"
fi
tg_eq "PostgreSQL tests skipped" 0 "$(grep -c 'SKIPPED: TG_TEST_PG_URL' "$out")"
tg_eq "tests passed (24 SQLite, 24 PostgreSQL, 2 common)" 50 "$(grep -c '^\[       OK \]' "$out")"
grep '^postgresql: claims per process' "$out" | sed 's/^/# /'
if grep -q -F "$TG_PG_PASSWORD" "$out"; then
	tg_not_ok "the password shows nowhere in the tests' output"
else
	tg_ok "the password shows nowhere in the tests' output"
fi
pg_dir=$TG_PG_DIR
pid=$TG_PG_PID
tg_pg_stop
tg_check "the server is stopped" sh -c "! kill -0 $pid 2>/dev/null"
tg_check "its data is removed" test ! -e "$pg_dir"
t3=$(date +%s%N)
printf "# it_store_pg: %d ms in all\n" $(( (t3 - t0) / 1000000 ))
tg_done it_store_pg
