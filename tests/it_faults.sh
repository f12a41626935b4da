#!/bin/sh
# it_faults.sh - the daemon under faults: it keeps running, says what is
# wrong, resumes when the fault is gone, and loses no run.
#   disk full     the SQLite database under a file-size limit (ulimit -f, the
#                 daemon ignores SIGXFSZ): writes fail with EFBIG while runs
#                 keep coming; the daemon reports it once per poll period,
#                 stays up, and once the limit is lifted (prlimit on the same
#                 process) every run is judged, one comment per pull request
#   trace gone    a trace deleted before it is read (during the
#                 TRACEGATE_TEST_STALL=analysing stall): an error status that
#                 says so, and the next run is served; a trace deleted while
#                 the daemon reads it (seen in /proc/PID/fd): Linux keeps the
#                 open file, the run is judged whole
#   storage down  S3 (s3rver) not there when the daemon starts: it starts,
#                 reports, and serves the runs once S3 is up
#   database down PostgreSQL not there at start: exit 1 with the reason (for
#                 systemd's Restart=on-failure); stopped in the middle of a
#                 run: the daemon reports, keeps running, and once
#                 PostgreSQL is back every run is judged once
# Local storage, the outbox forge and git over file:// unless said.
# $1: the tracegate binary; TG_GEN: the generator.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(pwd)/tests/servers/it_common.sh"
. "$top/tests/servers/s3.sh"
. "$top/tests/servers/pg.sh"

TG_RUN=$(mktemp -d "${TMPDIR:-/tmp}/tg-it-faults.XXXXXX")
export TG_RUN
DPIDS=()
cleanup() {
	local p
	for p in "${DPIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${DPIDS[@]}"; do wait "$p" 2>/dev/null; done
	tg_pg_stop >/dev/null 2>&1
	tg_stop_all
	[ -n "${TG_KEEP:-}" ] && echo "# kept $TG_RUN" || rm -rf "$TG_RUN"
}
trap cleanup EXIT
cd "$TG_RUN"
t_start=$(date +%s)

# --- a repository: main, and a branch per pull request made on demand
git init -q src
echo a > src/a && git -C src add a && git -C src commit -qm base
main1=$(git -C src rev-parse HEAD)
git clone -q --bare src repo.git
newcommit() { # BRANCH: a commit on a new branch off main, pushed; prints its sha
	git -C src checkout -qb "$1" "$main1" && echo "$1" >> src/a && git -C src commit -qam "$1" &&
		git -C src push -q "$TG_RUN/repo.git" "$1" && git -C src rev-parse HEAD && git -C src checkout -q main
}

G="--steps 8 --seq 4096 --layers 2 --noise 1"
"$gen" $G --seed 1 -o base.json.gz
"$gen" $G --seed 2 --sdpa-scale 1.08 -o slow.json.gz
"$gen" $G --seed 3 -o fine.json.gz

# conf NAME STORAGE-YAML DATABASE-YAML [DAEMON-EXTRA]: NAME.yaml with the outbox out-NAME
# (a run without a baseline posts success here, on_unjudged: these tests
# wait for each run's final status, and a pending one is not final)
conf() {
	cat > "$1.yaml" <<EOF
storage: $2
database: $3
forges:
  - {name: outbox, kind: outbox, outbox: out-$1}
repositories:
  - {name: acme/llm, forge: outbox, clone_url: "file://$TG_RUN/repo.git", on_unjudged: {no_baseline: success}}
daemon: {state_dir: state-$1, lease: 2s, max_attempts: 50${4:+, $4}}
http: {timeout: 2s, connect_timeout: 1s, retries: 2, backoff: 100ms, max_wait: 1s}
EOF
}
up() { # DEST COMMIT BRANCH RUN TRACE [PR]
	mkdir -p "u-$4" && cp "$5" "u-$4/rank0.pt.trace.json.gz"
	"$upload" --dest "$1" --repo acme/llm --commit "$2" --branch "$3" ${6:+--pr $6 --target-branch main} \
		--workload train --run-id "$4" "u-$4/rank0.pt.trace.json.gz" >/dev/null
}
# the outbox of config NAME: final (not pending) states posted for a sha,
# the last one, and the comments of a pull request
finals() { grep -h "\"sha\":\"$2\"" "out-$1/statuses.log" 2>/dev/null | grep -v '"state":"pending"' |
	sed -E 's/.*"state":"([a-z]+)".*/\1/' | tr '\n' ' ' | sed 's/ $//'; }
final() { finals "$1" "$2" | awk '{print $NF}'; }
comments() { find "out-$1" -path "*pr-$2/*" -name 'comment-*.md' 2>/dev/null | wc -l | tr -d ' '; }
# wait_until SECONDS CMD...: polls CMD every 0.1 s
wait_until() {
	local t=$1 i
	shift
	for i in $(seq 1 $((t * 10))); do "$@" && return 0; sleep 0.1; done
	return 1
}
has_final() { [ -n "$(final "$1" "$2")" ]; }
daemon_start() { # NAME [ENV=VALUE...]: a live daemon, its log in NAME.log; sets dpid
	local name=$1
	shift
	env "$@" "$tg" daemon --config "$name.yaml" >>"$name.out" 2>>"$name.log" &
	dpid=$!
	DPIDS+=("$dpid")
}
daemon_stop() { kill -TERM "$1" 2>/dev/null; wait "$1" 2>/dev/null; }

# ======================================================= 1. disk full (SQLite)
conf full "{local: st-full, poll_interval: 1s}" "{sqlite: db-full/tracegate.db}"
mkdir -p st-full db-full
up st-full "$main1" main m1 base.json.gz
# 300 KiB per file: the database's write-ahead log takes ~95 KiB a run, so a
# couple of runs fit, then its writes fail with EFBIG; every other file the
# daemon writes (state, outbox, git mirror) stays far below
(ulimit -S -f 300 && exec "$tg" daemon --config full.yaml >>full.out 2>>full.log) &
dpid=$!
DPIDS+=("$dpid")
wait_until 30 has_final full "$main1"
tg_eq "disk full: the baseline run is judged first" success "$(final full "$main1")"
declare -A WANT
shas=()
i=0
while [ $i -lt 12 ]; do
	i=$((i + 1))
	sha=$(newcommit "full-$i")
	shas+=("$sha")
	[ $((i % 2)) -eq 1 ] && { up st-full "$sha" "full-$i" "r$i" slow.json.gz $((100 + i)); WANT[$sha]=failure; } ||
		{ up st-full "$sha" "full-$i" "r$i" fine.json.gz $((100 + i)); WANT[$sha]=success; }
	wait_until 4 has_final full "$sha"
	grep -q "disk I/O error" full.log && break
done
# two more runs arrive while the disk is full
for k in 1 2; do
	i=$((i + 1))
	sha=$(newcommit "full-$i")
	shas+=("$sha")
	up st-full "$sha" "full-$i" "r$i" fine.json.gz $((100 + i))
	WANT[$sha]=success
done
sleep 3
tg_check "disk full: the daemon reports the failed database write" grep -q "disk I/O error" full.log
tg_check "disk full: the daemon keeps running (EFBIG, not SIGXFSZ)" kill -0 "$dpid"
pending=0
for s in "${shas[@]}"; do has_final full "$s" || pending=$((pending + 1)); done
tg_check "disk full: runs wait while the database cannot be written ($pending of ${#shas[@]})" [ "$pending" -ge 2 ]
n0=$(grep -c . full.log)
sleep 3
n1=$(grep -c . full.log)
tg_check "disk full: reported once per poll period, not in a loop ($((n1 - n0)) lines in 3 s)" [ $((n1 - n0)) -le 24 ]
# space again: the same process goes on
prlimit --pid "$dpid" --fsize=unlimited:unlimited
all_final() { local s; for s in "${shas[@]}"; do has_final full "$s" || return 1; done; }
wait_until 60 all_final
bad=""
for s in "${shas[@]}"; do [ "$(final full "$s")" = "${WANT[$s]}" ] || bad="$bad ${s:0:8}:$(final full "$s")"; done
tg_eq "disk full: every run judged once the limit is lifted (${#shas[@]} runs)" "" "$bad"
bad=""
for k in $(seq 1 "$i"); do [ "$(comments full $((100 + k)))" = 1 ] || bad="$bad pr$((100 + k)):$(comments full $((100 + k)))"; done
tg_eq "disk full: one comment per pull request" "" "$bad"
dup=0
for s in "${shas[@]}"; do [ "$(finals full "$s" | wc -w)" -gt 1 ] && dup=$((dup + 1)); done
tg_log "disk full: $dup of ${#shas[@]} runs had their (identical) status posted again after a failed database write"
tg_eq "disk full: every job done in the database" "$((${#shas[@]} + 1)) 0" \
	"$(sqlite3 db-full/tracegate.db "select count(*), sum(state <> 'done') from runs" | tr '|' ' ')"
tg_eq "disk full: the database is sound" ok "$(sqlite3 db-full/tracegate.db 'pragma integrity_check')"
tg_check "disk full: the daemon stayed the same process" kill -0 "$dpid"
daemon_stop "$dpid"

# ================================================ 2. a trace deleted under the daemon
conf gone "{local: st-gone, poll_interval: 1s}" "{sqlite: gone.db}"
mkdir -p st-gone
daemon_start gone TRACEGATE_TEST_STALL=analysing:2
shaA=$(newcommit gone-a)
up st-gone "$shaA" gone-a ra fine.json.gz 201
wait_until 20 grep -q "stall at analysing" gone.log
rm "st-gone/acme/llm/$shaA/train/ra/rank0.pt.trace.json.gz"
wait_until 20 has_final gone "$shaA"
tg_eq "deleted before it is read: error status" error "$(final gone "$shaA")"
tg_check "deleted before it is read: the description says the trace is missing" \
	grep -q '"description":"cannot judge: rank0.pt.trace.json.gz: the manifest names a trace that is not in storage"' out-gone/statuses.log
tg_eq "deleted before it is read: the pull request's comment says so" 1 "$(comments gone 201)"
# a big trace (~100 MB of JSON, ~1 s to read): deleted once the daemon has it open
"$gen" --steps 8 --seq 4096 --layers 2 --target-mb 100 --summary -o big.json.gz 2>big.sum
steps=$(grep -c '^[0-9]' big.sum)
shaB=$(newcommit gone-b)
up st-gone "$shaB" gone-b rb big.json.gz 202
big=$(readlink -f "st-gone/acme/llm/$shaB/train/rb/rank0.pt.trace.json.gz")
caught=0
for k in $(seq 1 3000); do
	# the analysis runs in a child of the daemon (budget.c)
	if for p in $dpid $(pgrep -P "$dpid"); do ls -l "/proc/$p/fd" 2>/dev/null; done | grep -qF -- "-> $big"; then
		rm "$big" && caught=1
		break
	fi
	has_final gone "$shaB" && break
	sleep 0.01
done
wait_until 60 has_final gone "$shaB"
if [ "$caught" = 1 ]; then
	tg_eq "deleted while being read: judged normally (the open file stays readable)" success "$(final gone "$shaB")"
	tg_check "deleted while being read: all $steps steps counted" sh -c \
		"'$tg' history --config gone.yaml --repo acme/llm --branch gone-b --metric steps --format csv | grep -q ',$steps\$'"
else
	tg_log "SKIP deleted while being read: the read ended before /proc showed the file open"
fi
tg_check "trace gone: the daemon keeps running" kill -0 "$dpid"
daemon_stop "$dpid"

# ====================================================== 3. S3 down at start
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 && tg_npm_install s3 "$TG_S3RVER_PKG" >/dev/null; then
	s3port=$(tg_free_port)
	export TG_S3_KEY=${TG_S3RVER_KEYS%%:*} TG_S3_SECRET=${TG_S3RVER_KEYS#*:}
	conf s3 "{s3: {endpoint: \"http://127.0.0.1:$s3port\", bucket: artifacts, prefix: runs/, access_key: {env: TG_S3_KEY}, secret_key: {env: TG_S3_SECRET}}, poll_interval: 1s}" \
		"{sqlite: s3.db}"
	daemon_start s3
	sleep 2.5
	tg_check "S3 down at start: the daemon starts and keeps running" kill -0 "$dpid"
	tg_check "S3 down at start: it reports the storage unreachable" grep -q "cannot list the storage: .*Couldn't connect" s3.log
	(cd "$top" && tg_s3rver_start "$s3port" artifacts) || tg_not_ok "S3: s3rver did not start"
	up_s3() { TRACEGATE_S3_ENDPOINT=http://127.0.0.1:$s3port AWS_ACCESS_KEY_ID=$TG_S3_KEY AWS_SECRET_ACCESS_KEY=$TG_S3_SECRET up "$@"; }
	shaS=$(newcommit s3-pr)
	up_s3 s3://artifacts/runs "$main1" main s3m base.json.gz
	wait_until 30 has_final s3 "$main1"
	tg_eq "S3 back: the baseline run is judged" success "$(final s3 "$main1")"
	# (after the baseline is done: two runs found in one listing are taken
	# in the order of their keys, and the pull request's may come first)
	up_s3 s3://artifacts/runs "$shaS" s3-pr s3p slow.json.gz 301
	wait_until 30 has_final s3 "$shaS"
	tg_eq "S3 back: the pull request is judged (blocked)" failure "$(final s3 "$shaS")"
	tg_eq "S3 back: one comment" 1 "$(comments s3 301)"
	daemon_stop "$dpid"
	tg_stop s3rver
else
	tg_skip "S3 down at start: node, npm or s3rver is not available (contrib/install-deps.sh --servers)"
fi

# ================================================= 4. PostgreSQL down
if tg_pg_start; then
	export TG_PG=$TG_PG_URL
	conf pg "{local: st-pg, poll_interval: 1s}" "{postgresql: {env: TG_PG}}"
	mkdir -p st-pg
	psql_n() { (cd "$TG_PG_DIR" && tg_pg_as "$TG_PG_BIN/psql" -h "$TG_PG_DIR" -p "$TG_PG_PORT" -U tg -d tgstore -Atc "$1"); }
	# not there at start: a clear message and exit 1 (Restart=on-failure starts it again)
	tg_pg_halt
	"$tg" daemon --config pg.yaml >pg-start.out 2>pg-start.log
	rc=$?
	tg_eq "PostgreSQL down at start: exit 1" 1 "$rc"
	tg_check "PostgreSQL down at start: the message names the store and the cause" \
		grep -q "store postgresql://127.0.0.1:$TG_PG_PORT/tgstore: connect: .*Connection refused" pg-start.log
	tg_pg_resume || tg_not_ok "PostgreSQL did not start again"
	up st-pg "$main1" main pm base.json.gz
	daemon_start pg TRACEGATE_TEST_STALL=analysing:3
	wait_until 30 has_final pg "$main1"
	tg_eq "PostgreSQL: the baseline run is judged" success "$(final pg "$main1")"
	# stopped while a run is being analysed; another run arrives meanwhile
	shaP1=$(newcommit pg-1)
	shaP2=$(newcommit pg-2)
	n_stall=$(grep -c "stall at analysing" pg.log)
	up st-pg "$shaP1" pg-1 p1 slow.json.gz 401
	wait_until 20 sh -c "[ \$(grep -c 'stall at analysing' pg.log) -gt $n_stall ]"
	tg_pg_halt
	up st-pg "$shaP2" pg-2 p2 fine.json.gz 402
	sleep 4
	tg_check "PostgreSQL down: the daemon keeps running" kill -0 "$dpid"
	tg_check "PostgreSQL down: it reports the lost database" grep -q "store postgresql://127.0.0.1:$TG_PG_PORT/tgstore: .*" pg.log
	tg_eq "PostgreSQL down: nothing final posted meanwhile" "" "$(final pg "$shaP1")$(final pg "$shaP2")"
	tg_pg_resume || tg_not_ok "PostgreSQL did not start again"
	wait_until 40 sh -c "[ -n \"\$(grep -h '\"sha\":\"$shaP2\"' out-pg/statuses.log | grep -v pending)\" ]"
	wait_until 20 has_final pg "$shaP1"
	tg_eq "PostgreSQL back: the run cut off is judged" failure "$(final pg "$shaP1")"
	tg_eq "PostgreSQL back: the run that came meanwhile is judged" success "$(final pg "$shaP2")"
	tg_eq "PostgreSQL back: one comment each" "1 1" "$(comments pg 401) $(comments pg 402)"
	tg_eq "PostgreSQL back: every job done" "3 0" "$(psql_n "select count(*), sum((state <> 'done')::int) from runs" | tr '|' ' ')"
	tg_check "PostgreSQL: the daemon stayed up" kill -0 "$dpid"
	daemon_stop "$dpid"
	tg_check "no password in the logs" sh -c "! grep -qF '$TG_PG_PASSWORD' pg.log pg-start.log pg.out"
else
	tg_skip "PostgreSQL down: no PostgreSQL 15 (contrib/install-deps.sh --servers)"
fi

tg_check "no crash or sanitizer report in the logs" sh -c "! grep -Eq 'runtime error|AddressSanitizer|LeakSanitizer' ./*.log"
tg_log "it_faults: $(($(date +%s) - t_start)) s"
tg_done it_faults
