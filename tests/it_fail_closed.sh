#!/bin/sh
# it_fail_closed.sh - issue 21's attacks, played end to end as an uploader
# who can write anything to the artifact storage and push commits, without
# the signing key or the forge token, against the daemon with a signing key
# and a GitHub fake behind prism (every request and answer checked against
# GitHub's published description), twice: local storage with SQLite, and S3
# (s3rver) with PostgreSQL. docs/security.md lists each attack with the
# check that plays it here.
#   nothing judged is a success     no baseline posts the state on_unjudged chose (success here,
#                                   a check run then neutral); baseline unusable, not comparable:
#                                   pending, never success or neutral
#   crowd out the baseline          17 unsigned workloads at a new main commit before its signed
#                                   run: the signed run still gets in; the pull request undoing
#                                   that commit's optimisation is blocked against it
#   decide someone else's PR        7 fast runs under another open pull request's head, without its
#                                   CI run or with one that ran elsewhere: judged alone, nothing
#                                   posted; the victim's verdict and comment stay; its own two runs
#                                   of one confirmed CI run pool
#   replay a signed run             the signed manifest re-serialised 7 times and copied under the
#                                   commit's folder in capitals: one run, nothing posted again
#   spoil the signed baseline       the newest signed run's trace overwritten: recorded as tampered
#                                   (log, history), the pull request judged against the commit's
#                                   other signed run; both spoiled: pending, naming the tampering
#   retarget, re-push               a pull request retargeted gets a fresh verdict against the new
#                                   branch; its head pushed back to a judged commit, judged again
#   hard link (local)               a trace hard-linked to another repository's: refused
#   change the trace while it is read (local)   bytes written into the signed baseline's trace
#                                   while the daemon reads it: the digest of what was parsed
#                                   differs, nothing passes
#   the database (SQLite)           created 0640
# $1: the tracegate binary; TG_GEN: the generator; TG_SHARED: ../shared.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(pwd)/tests/servers/it_common.sh"
export TG_SHARED=$(cd "${TG_SHARED:-../shared}" 2>/dev/null && pwd || echo "${TG_SHARED:-../shared}")
. tests/servers/forges.sh
. tests/servers/s3.sh
. tests/servers/pg.sh

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	tg_skip_all "it_fail_closed: node and npm are not installed (contrib/install-deps.sh --servers)"
fi
TG_RUN=$(mktemp -d "${TMPDIR:-/tmp}/tg-it-fail-closed.XXXXXX")
export TG_RUN
cleanup() {
	tg_pg_stop >/dev/null 2>&1
	tg_stop_all
	[ -n "${TG_KEEP:-}" ] && echo "# kept $TG_RUN" || rm -rf "$TG_RUN"
}
trap cleanup EXIT
if ! tg_forges_install || ! tg_forges_specs; then
	tg_skip_all "it_fail_closed: cannot install the forge servers into $TG_CACHE (offline?)"
fi
tg_npm_install s3 "$TG_S3RVER_PKG" >/dev/null || tg_skip_all "it_fail_closed: s3rver cannot be installed from npm"
cd "$TG_RUN"

# --- servers: GitHub behind prism, s3rver, PostgreSQL
TOKEN=tg-secret-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
tg_forge_start GH github "$TG_FORGES_SPECS/github.json" "$TOKEN" 40 1 || { echo "it_fail_closed: cannot start the GitHub fake" >&2; exit 1; }
s3port=$(tg_free_port)
(cd "$top" && tg_s3rver_start "$s3port" artifacts) || { echo "it_fail_closed: s3rver did not start" >&2; exit 1; }
tg_pg_start || { echo "it_fail_closed: PostgreSQL did not start" >&2; exit 1; }
tg_forge_ensure GH 90 github "$TG_FORGES_SPECS/github.json" "$TOKEN" 40 1 || { echo "it_fail_closed: the GitHub fake did not start" >&2; exit 1; }
FAKE=http://127.0.0.1:$TG_FORGE_FAKE_GH
export TOKEN_GH=$TOKEN TG_PG=$TG_PG_URL TG_S3_KEY=${TG_S3RVER_KEYS%%:*} TG_S3_SECRET=${TG_S3RVER_KEYS#*:}
export TG_SIGNING_KEY=the-target-branch-ci-key

# --- one history for both repositories (acme/fc: local; acme/fc3: S3)
#   m1 -- m2                main (m2 makes attention 30 % faster)
#    \     \-- p5, v6, p7, p8, p9 -- p9b, p10, p11     pull requests into main
#     \-- r1 -- p12          release (and a pull request into it)
git init -q src
c() { echo "$1" >> src/a && git -C src add a && git -C src commit -qm "$1" && git -C src rev-parse HEAD; }
m1=$(c m1)
m2=$(c m2)
br() { git -C src checkout -qb "$1" "$2" && c "$1"; }
p5=$(br pr5 "$m2"); v6=$(br pr6 "$m2"); p7=$(br pr7 "$m2"); p8=$(br pr8 "$m2"); p9=$(br pr9 "$m2")
p9b=$(c pr9b); p10=$(br pr10 "$m2"); p11=$(br pr11 "$m2")
r1=$(br release "$m1"); p12=$(br pr12 "$r1")
git -C src checkout -q main
git clone -q --bare src repo.git

G="--steps 8 --seq 4096 --layers 2 --noise 1"
"$gen" $G --seed 1 --sdpa-scale 1.3 -o before.json.gz # main before m2's optimisation
"$gen" $G --seed 2 -o base.json.gz                    # m2: attention 30 % faster
"$gen" $G --seed 3 -o base2.json.gz                   # m2 again (another signed run)
"$gen" $G --seed 4 --sdpa-scale 1.3 -o slow.json.gz   # a pull request 30 % slower on attention
"$gen" $G --seed 5 --sdpa-scale 1.3 -o slow2.json.gz
"$gen" $G --seed 6 --sdpa-scale 0.7 -o fast.json.gz   # the attacker's
"$gen" $G --seed 7 -o fine.json.gz
"$gen" $G --seed 8 --gpu "NVIDIA A100-SXM4-80GB" -o a100.json.gz
B="--steps 16 --seq 4096 --layers 16 --noise 1"
"$gen" $B --seed 9 -o big.json                         # release: a large plain trace
"$gen" $B --seed 9 --sdpa-scale 1.3 -o bigslow.json
"$gen" $B --seed 10 --sdpa-scale 1.3 -o p12.json

conf() { # NAME STORAGE DATABASE REPO
	cat <<EOF
storage:
$2
  poll_interval: 1s
  signing_key: {env: TG_SIGNING_KEY}
database: {$3}
forges:
  - {name: gh, kind: github, api_url: "http://127.0.0.1:$TG_FORGE_PROXY_GH", token: {env: TOKEN_GH}, check_runs: true}
repositories:
  - name: $4
    forge: gh
    clone_url: file://$TG_RUN/repo.git
    target_branches: [main, release]
    on_unjudged: {no_baseline: success}
daemon: {state_dir: state-$1, lease: 2s, max_attempts: 2, recheck: 1s}
http: {timeout: 5s, connect_timeout: 2s, retries: 3, backoff: 100ms, max_wait: 1s}
EOF
}
conf a "  local: storage" "sqlite: a.db" acme/fc > a.yaml
conf b "  s3: {endpoint: \"http://127.0.0.1:$s3port\", bucket: artifacts, prefix: runs/, access_key: {env: TG_S3_KEY}, secret_key: {env: TG_S3_SECRET}}" \
	"postgresql: {env: TG_PG}" acme/fc3 > b.yaml
mkdir -p storage

# --- helpers over one configuration: MODE (a: local + SQLite, b: S3 + PostgreSQL) and REPO
S3E=http://127.0.0.1:$s3port/artifacts/runs
# up COMMIT BRANCH RUN TRACE [PR [TARGET [CI_RUN [WORKLOAD]]]]: an upload as a CI job does it
# (signed when SIGN=1: a target branch's job)
up() {
	local d=u-$MODE-$3-${8:-train} key=
	mkdir -p "$d" && cp "$4" "$d/rank0.pt.trace.json${4##*.json}"
	[ "${SIGN:-0}" = 1 ] && key=$TG_SIGNING_KEY
	local dest=storage
	[ "$MODE" = b ] && dest=s3://artifacts/runs
	env -u GITHUB_RUN_ID -u CI_PIPELINE_ID TRACEGATE_SIGNING_KEY=$key TRACEGATE_S3_ENDPOINT=http://127.0.0.1:$s3port \
		AWS_ACCESS_KEY_ID=$TG_S3_KEY AWS_SECRET_ACCESS_KEY=$TG_S3_SECRET \
		"$upload" --dest "$dest" --repo "$REPO" --commit "$1" --branch "$2" ${5:+--pr $5 --target-branch ${6:-main}} \
		--workload "${8:-train}" --run-id "$3" ${7:+--ci-run $7} "$d"/rank0.* >/dev/null
}
# put KEY FILE / get KEY OUT: an object of the storage, as an attacker writes and reads it
put() {
	if [ "$MODE" = a ]; then mkdir -p "storage/$(dirname "$1")" && cp "$2" "storage/$1.tmp" && mv "storage/$1.tmp" "storage/$1"
	else tg_s3_curl "$TG_S3RVER_KEYS" -o /dev/null -T "$2" "$S3E/$1"; fi
}
get() {
	if [ "$MODE" = a ]; then cp "storage/$1" "$2"; else tg_s3_curl "$TG_S3RVER_KEYS" -o "$2" "$S3E/$1"; fi
}
trace_of() { echo "$REPO/$1/train/$2/rank0.pt.trace.json.gz"; }
once() { "$tg" daemon --config "$MODE.yaml" --once >>"$MODE.out" 2>>"$MODE.log"; }
seed() { curl -s -X POST "$FAKE/_fake/seed" -d "$1" >/dev/null; }
seed_pr() { seed "{\"repo\":\"$REPO\",\"pr\":$1,\"head\":\"$2\",\"base\":\"${3:-main}\",\"ref\":\"pr$1\"}"; }
seed_run() { seed "{\"repo\":\"$REPO\",\"ci_run\":$1,\"run_head\":\"$2\",\"run_branch\":\"$3\",\"run_repo\":\"${4:-$REPO}\"}"; }
q() { curl -s "$FAKE/_fake/state" | node -e "let d='';process.stdin.on('data',c=>d+=c).on('end',()=>{const s=JSON.parse(d);console.log($1)})"; }
words() { q "s.statuses.filter(x=>x.sha==='$1'&&x.repo==='$REPO'&&x.context==='tracegate/${2:-train}').map(x=>x.state).join(' ')"; }
last_desc() { q "(s.statuses.filter(x=>x.sha==='$1'&&x.repo==='$REPO').pop()||{}).description"; }
checks() { q "s.check_runs.filter(x=>x.head_sha==='$1'&&x.repo==='$REPO').map(x=>x.status+'/'+x.conclusion).join(' ')"; }
comment() { q "(s.comments.find(x=>x.repo==='$REPO'&&x.pr===$1&&x.body.startsWith('<!-- tracegate:train -->'))||{body:''}).body"; }
# has TEXT PATTERN / lacks TEXT PATTERN: grep -E over a text (a comment, a description)
has() { printf '%s\n' "$1" | grep -Eq -- "$2"; }
lacks() { ! printf '%s\n' "$1" | grep -Eq -- "$2"; }
source_row() { comment "$1" | grep '^| source'; }
ncomments() { q "s.comments.filter(x=>x.repo==='$REPO'&&x.pr===$1).length"; }
sql() {
	if [ "$MODE" = a ]; then sqlite3 a.db "$1"; else psql -qtA "$TG_PG_URL" -c "$1"; fi
}
logged() { grep -q "$1" "$MODE.log"; }
# forget RUN_ID: drop the run data the store keeps for a run (docs/store.md, "Run data"), as for a
# run measured before tracegate kept it: a judgement then reads its traces again, and checks them.
# (With its run data kept, a spoiled trace is never read: the run is judged with what was
# measured when it was signed: it_budget.sh.)
forget() {
	sql "delete from run_traces where run in (select id from runs where run_id = '$1')" >/dev/null
	sql "delete from trace_data where digest not in (select digest from run_traces)" >/dev/null
}
T() { printf '%s: %s' "$MODE" "$1"; }

play() { # MODE REPO
	MODE=$1 REPO=$2

	# 1. nothing judged is a success unless the operator chose: no baseline (chosen: success)
	SIGN=1 up "$m1" main m1 before.json.gz
	once
	tg_eq "$(T "no baseline, on_unjudged success: the status")" "pending success" "$(words "$m1")"
	tg_eq "$(T "... and its check run concludes neutral")" "completed/neutral" "$(checks "$m1")"

	# 2. crowd out the baseline: 17 unsigned workloads at m2 (claiming a pull request) before its CI uploads
	for i in $(seq -w 0 16); do up "$m2" main "atk$i" fast.json.gz 99 main "" "atk$i"; done
	SIGN=1 up "$m2" main m2a base.json.gz
	once
	tg_eq "$(T "crowd out: the signed run of m2 is in the store, trusted")" 1 "$(sql "select trusted from runs where run_id = 'm2a'")"
	tg_eq "$(T "crowd out: 16 unsigned workloads admitted, the 17th refused")" 16 "$(sql "select count(distinct workload) from runs where commit_sha = '$m2' and trusted = 0")"
	tg_check "$(T "crowd out: the log names the limit and the class")" logged "atk16/atk16/manifest.json: run refused: more than limits.max_workloads (16) workloads of unsigned runs at this commit"
	tg_eq "$(T "crowd out: m2's signed run judged against m1")" "pending success" "$(words "$m2")"
	seed_pr 5 "$p5"; seed_run 5001 "$p5" pr5
	up "$p5" pr5 r5 slow.json.gz 5 main 5001
	once
	tg_eq "$(T "crowd out: the pull request undoing m2's optimisation is blocked")" "pending failure" "$(words "$p5")"
	tg_check "$(T "crowd out: ... against m2, not m1")" has "$(source_row 5)" "<code>${m2:0:7}</code> on <code>main</code>"

	# 3. decide someone else's pull request: the victim's two runs of CI run 6001, then 7 fast uploads
	seed_pr 6 "$v6"; seed_run 6001 "$v6" pr6; seed_run 7001 "$v6" evil mallory/fork
	up "$v6" pr6 v1 slow.json.gz 6 main 6001
	up "$v6" pr6 v2 slow2.json.gz 6 main 6001
	once
	tg_eq "$(T "victim: its CI run's two runs, blocked")" "pending failure pending failure" "$(words "$v6")"
	tg_check "$(T "victim: the comment pools its two runs")" has "$(source_row 6)" "run <code>v[12]</code> and 1 more run of this commit"
	for i in 1 2 3 4; do up "$v6" pr6 "x$i" fast.json.gz 6; done
	for i in 5 6 7; do up "$v6" pr6 "x$i" fast.json.gz 6 main 7001; done
	once
	tg_eq "$(T "attack: 7 fast runs under the victim's head: no status posted, the verdict stays")" "pending failure pending failure" "$(words "$v6")"
	tg_check "$(T "attack: the comment is the victim's")" lacks "$(comment 6)" "<code>x[1-7]</code>"
	tg_eq "$(T "attack: one comment on the pull request")" 1 "$(ncomments 6)"
	tg_check "$(T "attack: runs without a CI run: judged alone")" logged "names no CI run (ci_run): judged alone"
	tg_check "$(T "attack: CI run 7001 ran on another branch: judged alone")" logged "CI run 7001 ran on mallory/fork:evil, not on pull request 6's branch: judged alone"
	tg_check "$(T "attack: nothing posted, and why")" logged "its CI run is not confirmed, and run v[12] of a confirmed CI run has judged this head of pull request 6: judged, nothing posted"

	# 4. retarget and re-push: judged again
	seed_pr 9 "$p9"; seed_run 9009 "$p9" pr9
	up "$p9" pr9 r9 slow.json.gz 9 main 9009
	once
	tg_eq "$(T "pull request 9 into main: blocked against m2")" "pending failure" "$(words "$p9")"
	seed_pr 9 "$p9" release
	once
	tg_eq "$(T "retargeted to release: judged again, against m1 (its merge-base): a fresh verdict")" "pending failure pending success" "$(words "$p9")"
	tg_check "$(T "retarget: the log says why")" logged "(acme/fc[3]*#9, train): retargeted from main to release: judged again"
	tg_check "$(T "retarget: the comment names m1 now")" has "$(source_row 9)" "<code>${m1:0:7}</code> on <code>main</code>"
	seed_pr 9 "$p9b" release; seed_run 9010 "$p9b" pr9
	up "$p9b" pr9 r9b fine.json.gz 9 release 9010
	once
	tg_check "$(T "re-push: the comment shows the new head")" has "$(source_row 9)" "<code>${p9b:0:7}</code> \(pull request 9"
	seed_pr 9 "$p9" release
	once
	tg_eq "$(T "head pushed back to a judged commit: judged again")" "pending failure pending success pending success" "$(words "$p9")"
	tg_check "$(T "re-push: the comment shows that commit again")" has "$(source_row 9)" "<code>${p9:0:7}</code> \(pull request 9"
	once
	tg_eq "$(T "... once: the next look finds nothing to do")" "pending failure pending success pending success" "$(words "$p9")"

	# 5. replay a signed run: its manifest re-serialised 7 times, and copied under the commit in capitals
	local mk=$REPO/$m2/train/m2a/manifest.json
	get "$mk" m2a.json
	for i in 1 2 3 4 5 6 7; do
		node -e "const m=JSON.parse(require('fs').readFileSync('m2a.json'));process.stdout.write(JSON.stringify(m,null,$i))" > "m2a-$i.json"
		put "$mk" "m2a-$i.json"
		once
	done
	local up2=${m2^^}
	put "$REPO/$up2/train/m2a/rank0.pt.trace.json.gz" "u-$MODE-m2a-train/rank0.pt.trace.json.gz"
	put "$REPO/$up2/train/m2a/manifest.json" m2a-3.json
	once
	tg_eq "$(T "replay: one run m2a in the store")" 1 "$(sql "select count(*) from runs where run_id = 'm2a'")"
	tg_eq "$(T "replay: m2's statuses not posted again")" "pending success" "$(words "$m2")"
	tg_check "$(T "replay: a rewritten manifest is not a new run (logged)")" logged "a rewritten manifest of run $REPO/$m2/train/m2a (job [0-9]*): not a new run, nothing posted again"
	tg_check "$(T "replay: nor a copy in capitals")" logged "another copy of run $REPO/$m2/train/m2a (job [0-9]*): not a new run"

	# 6. spoil the signed baseline: the newest signed run of m2 overwritten
	SIGN=1 up "$m2" main m2b base2.json.gz
	once
	put "$(trace_of "$m2" m2b)" fast.json.gz
	forget m2b
	seed_pr 7 "$p7"; seed_run 7007 "$p7" pr7
	up "$p7" pr7 r7 slow.json.gz 7 main 7007
	once
	tg_eq "$(T "spoiled m2b: the pull request is still blocked, against m2a")" "pending failure" "$(words "$p7")"
	tg_check "$(T "spoiled: the comment says which run was left out")" has "$(comment 7)" "Baseline runs left out as tampered.*m2b.*does not match the sha256 its manifest gives.*Compared with run <code>m2a</code>"
	tg_check "$(T "spoiled: recorded as tampered in the store")" has "$(sql "select tampered from runs where run_id = 'm2b'")" "m2b/rank0.pt.trace.json.gz: does not match the sha256 its manifest gives"
	tg_check "$(T "spoiled: the log says so")" logged "baseline run $REPO/$m2/train/m2b (job [0-9]*) recorded as tampered: .*does not match the sha256 its manifest gives"
	"$tg" history --config "$MODE.yaml" --repo "$REPO" --branch main > "hist-$MODE.txt" 2>&1
	tg_check "$(T "spoiled: history lists the tampered run")" grep -q "^  .*  ${m2:0:12}  train run m2b: .*does not match the sha256 its manifest gives" "hist-$MODE.txt"
	put "$(trace_of "$m2" m2a)" fast.json.gz
	forget m2a
	seed_pr 8 "$p8"; seed_run 8008 "$p8" pr8
	up "$p8" pr8 r8 fast.json.gz 8 main 8008
	once
	tg_eq "$(T "every signed run of m2 spoiled: pending, not a pass of the fast upload")" "pending pending" "$(words "$p8")"
	tg_check "$(T "... the status names the tampering")" has "$(last_desc "$p8")" "^baseline unusable: no run of train at the baseline commit ${m2:0:12} can be used \(tampered: run m2"
	tg_check "$(T "... its check run is neither success nor neutral")" lacks "$(checks "$p8")" "success|neutral"
	tg_check "$(T "... and the walk did not go back to m1")" lacks "$(comment 8)" "${m1:0:7}"

	# 7. not comparable (another GPU): pending, not success
	seed_pr 10 "$p10" release; seed_run 1010 "$p10" pr10
	up "$p10" pr10 r10 a100.json.gz 10 release 1010
	once
	tg_eq "$(T "another GPU: not comparable, pending")" "pending pending" "$(words "$p10")"
	tg_check "$(T "... the status says why")" has "$(last_desc "$p10")" "not comparable"
}

# ----------------------------------------------------------- local + SQLite
play a acme/fc
MODE=a REPO=acme/fc
# hard link: a trace that is another repository's file
seed_pr 11 "$p11"; seed_run 1111 "$p11" pr11
mkdir -p storage/other/secret/$m1/train/s1
cp fine.json.gz storage/other/secret/$m1/train/s1/rank0.pt.trace.json.gz
up "$p11" pr11 r11 fine.json.gz 11 main 1111
d=storage/acme/fc/$p11/train/r11
rm "$d/rank0.pt.trace.json.gz" && ln storage/other/secret/$m1/train/s1/rank0.pt.trace.json.gz "$d/rank0.pt.trace.json.gz"
once
tg_eq "a: hard link to another repository's trace: an error status" "pending error" "$(words "$p11")"
tg_check "a: ... naming the link" has "$(last_desc "$p11")" "rank0.pt.trace.json.gz has 2 hard links \(storage links are never followed\)"
# change the trace while it is read: the signed baseline of release, written into between the
# daemon's first read of it and the rest
SIGN=1 up "$r1" release r1 big.json
once
forget r1
seed_pr 12 "$p12" release; seed_run 1212 "$p12" pr12
up "$p12" pr12 r12 p12.json 12 release 1212
TRACEGATE_TEST_STALL=reading:3 "$tg" daemon --config a.yaml --once >>a.out 2>stall.log &
dpid=$!
for i in $(seq 1 200); do [ "$(grep -c 'stall at reading' stall.log)" -ge 2 ] && break; sleep 0.1; done
rt=storage/acme/fc/$r1/train/r1/rank0.pt.trace.json
tg_eq "a: while it reads the baseline's trace (stalled after its first bytes)" 2 "$(grep -c 'stall at reading' stall.log)"
dd if=bigslow.json of="$rt" bs=1M seek=1 skip=1 conv=notrunc status=none
wait "$dpid"
cat stall.log >> a.log
tg_check "a: the bytes written meanwhile are not parsed: no pass" lacks "$(words "$p12")" success
tg_check "a: ... the trace read does not match its sha256: the baseline is tampered" \
	grep -q "baseline run acme/fc/$r1/train/r1 (job [0-9]*) recorded as tampered: .*rank0.pt.trace.json: does not match the sha256 its manifest gives" a.log
tg_check "a: ... and the status says so" has "$(last_desc "$p12")" "^baseline unusable: .*tampered"
umask_now=$(umask)
tg_eq "a: the SQLite database is created 0640 (umask $umask_now)" "$(printf '%o' $((0640 & ~0$umask_now)))" "$(stat -c %a a.db)"

# ------------------------------------------------------- S3 + PostgreSQL
play b acme/fc3

# --- the forge saw nothing break its description, and no secret leaked
errs=$(grep -c '✖' "$TG_RUN/prism-GH.log")
tg_eq "prism found no request or answer breaking GitHub's description" 0 "$errs"
[ "$errs" -eq 0 ] || grep '✖' "$TG_RUN/prism-GH.log" | head -5 | cut -c1-400 | sed 's/^/#   /'
tg_check "no token, key or password in the logs" sh -c "! grep -qF -e '$TOKEN' -e '$TG_SIGNING_KEY' -e '$TG_PG_PASSWORD' a.log b.log a.out b.out"
tg_check "no crash or sanitizer report in the logs" sh -c "! grep -Eq 'runtime error|AddressSanitizer|LeakSanitizer' a.log b.log"
tg_done it_fail_closed
