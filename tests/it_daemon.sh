#!/bin/sh
# it_daemon.sh - the daemon end to end on the embedded default: a local
# storage folder, SQLite, a real git repository (file://), the outbox forge.
# Runs upload traces made by the generator; the checks read the outbox's
# statuses and comments, the job store (tracegate history) and the logs.
#   main run        -> no baseline (pending: on_unjudged), numbers in the history
#   PR, SDPA +8 %   -> pending, then failure; one comment
#   PR re-run, fixed -> success; the same comment edited, not a second one
#   a self-approving commit trailer -> still failure, the comment says it was ignored
#   bad manifest, bad trace, missing trace, a trace without GPU activity -> error status, the others still served
#   a trace over limits.max_string_bytes or limits.max_depth -> error status naming the limit
#   kill -9 at seen, analysing, posting, between status and comment -> resumed,
#                   one comment, the right final status
# $1: the tracegate binary; TG_GEN: the generator.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(pwd)/tests/servers/it_common.sh"
tg_it_run_folder it-daemon

# --- a repository: main with two commits, branches for the pull requests
git init -q src
echo a > src/a && git -C src add a && git -C src commit -qm base
main1=$(git -C src rev-parse HEAD)
echo b >> src/a && git -C src commit -qam "main: second"
main2=$(git -C src rev-parse HEAD)
git -C src checkout -qb slow "$main2"
echo s >> src/a && git -C src commit -qam "attention: slower"
slow=$(git -C src rev-parse HEAD)
echo f >> src/a && git -C src commit -qam "attention: fixed"
fixed=$(git -C src rev-parse HEAD)
git -C src checkout -qb accepted "$main2"
echo x >> src/a && git -C src commit -qam "attention: slower on purpose

Tracegate-Accept: sdpa-forward: the new kernel is exact where the old one was not"
acc=$(git -C src rev-parse HEAD)
git -C src checkout -qb broken "$main2"
echo y >> src/a && git -C src commit -qam "broken upload"
broken=$(git -C src rev-parse HEAD)
git -C src checkout -q main
git clone -q --bare src repo.git

# --- traces (small and fast: 8 steps, attention ~400 us a step)
G="--steps 8 --seq 4096 --layers 2 --noise 1"
"$gen" $G --seed 1 -o base.json.gz
"$gen" $G --seed 2 --sdpa-scale 1.08 -o slow.json.gz
"$gen" $G --seed 3 -o fine.json.gz
mkdir -p storage
cat > tracegate.yaml <<EOF
storage:
  local: storage
  poll_interval: 1s
database:
  sqlite: tracegate.db
forges:
  - name: outbox
    kind: outbox
    outbox: outbox
repositories:
  - name: acme/llm
    forge: outbox
    clone_url: file://$TG_RUN/repo.git
daemon:
  state_dir: state
  lease: 2s
  max_attempts: 3
  docs_url: https://git.example/acme/tracegate/blob/HEAD/docs
limits:
  max_string_bytes: 64KiB
  max_depth: 16
EOF

up() { tg_it_up "$@"; }
once() { tg_it_once; }
status_of() { # COMMIT: the last status state posted for it
	grep "\"sha\": *\"$1\"" outbox/statuses.log 2>/dev/null | tail -1 | sed -E 's/.*"state": *"([a-z]+)".*/\1/'
}
statuses_of() { grep "\"sha\": *\"$1\"" outbox/statuses.log 2>/dev/null | sed -E 's/.*"state": *"([a-z]+)".*/\1/' | tr '\n' ' '; }
comments() { find outbox -name 'comment-*.md' 2>/dev/null | wc -l | tr -d ' '; }

tg_check "config --check" "$tg" daemon --config tracegate.yaml --check

# 1. main's run: no baseline
up "$main1" main m1 base.json.gz
once
tg_eq "main run: status pending (no baseline: on_unjudged's default, fail closed)" pending "$(status_of "$main1")"
tg_check "main run: pending first" sh -c "grep \"$main1\" outbox/statuses.log | head -1 | grep -q pending"
tg_check "main run: description says no baseline" grep -q "no baseline" outbox/statuses.log
tg_check "main run: not marked neutral (neutral only where on_unjudged chose success)" sh -c "grep \"$main1\" outbox/statuses.log | tail -1 | grep -vq '\"neutral\":true'"
tg_eq "main run: no comment (not a pull request)" 0 "$(comments)"
"$tg" history --config tracegate.yaml --repo acme/llm --branch main --metric 'rule:*' --format csv > hist.csv
tg_check "history: the rules' values of main's run" grep -q "train,rule:sdpa-forward" hist.csv
"$tg" history --config tracegate.yaml --repo acme/llm --branch main --format json > hist.json
tg_check "history json parses" node -e 'const h=JSON.parse(require("fs").readFileSync("hist.json"));if(h.tracegate_history!==1||!h.series.length)process.exit(1)'

# a second main run (main2) gets main1 as its baseline and records more history
up "$main2" main m2 fine.json.gz
once
tg_eq "main2: success against main1" success "$(status_of "$main2")"
tg_check "main2: judged (not 'no baseline')" sh -c "grep \"$main2\" outbox/statuses.log | tail -1 | grep -vq 'no baseline'"
tg_check "main2: judged, so not neutral" sh -c "grep \"$main2\" outbox/statuses.log | tail -1 | grep -vq neutral"
# the history of main's two runs in every format (the renderings themselves: test_history_render.c)
"$tg" history --config tracegate.yaml --repo acme/llm --branch main --format json > hist2.json
"$tg" history --config tracegate.yaml --repo acme/llm --branch main --format html -o hist2.html
"$tg" history --config tracegate.yaml --repo acme/llm --branch main --metric gpu_busy_ms > hist2.txt
# (the comparability fingerprint is a series in json, and a line in words on the page)
nser=$(node -e 'const h=JSON.parse(require("fs").readFileSync("hist2.json"));console.log(h.series.filter(s=>!s.metric.startsWith("fingerprint:")).length)')
tg_eq "history json: two points in every series" "" "$(node -e 'const h=JSON.parse(require("fs").readFileSync("hist2.json"));for(const s of h.series)if(s.points.length!==2||s.points[0].commit!==process.argv[1])console.log(s.metric)' "$main1")"
tg_check "history: several series recorded" test "$nser" -ge 2
nflat=$(sed -n 's/.*<p>[0-9]* series, \([0-9]*\) of them flat.*/\1/p' hist2.html)
tg_check "history html: says how many series are flat" test -n "$nflat"
tg_eq "history html: one chart per series that moves" "$((nser - nflat))" "$(grep -c '<svg' hist2.html)"
tg_eq "history html: two points in every chart" "$((2 * (nser - nflat)))" "$(grep -o '<circle' hist2.html | wc -l | tr -d ' ')"
tg_check "history html: what the runs ran on, in words (the runtime as CUDA 12.4, not 12040), no fingerprint series" \
	sh -c "grep -q '<p class=\"ref\">train ran on NVIDIA H100 80GB HBM3, driver [^,]*, CUDA [0-9]*\.[0-9]*, world size 1 (2 runs)</p>' hist2.html && ! grep -q 'fingerprint' hist2.html"
tg_check "history html: tooltips name run, date and unit" grep -q '<title>run [0-9]* &#183; 20[0-9-]* [0-9:]* UTC &#183; [0-9a-f]\{12\}&#10;[0-9.e+-]* ms (' hist2.html
tg_check "history html: self-contained" sh -c "! grep -Eq '<script|src=|href=|<link' hist2.html"
tg_eq "history text: one series, two runs" "train  gpu_busy_ms  (ms)|${main1:0:12}|${main2:0:12}" \
	"$(sed -n '3p' hist2.txt)|$(sed -n '4p' hist2.txt | awk '{print $3}')|$(sed -n '5p' hist2.txt | awk '{print $3}')"
tg_check "history text: every value says its unit" sh -c "sed -n '4,5p' hist2.txt | awk '{print \$5}' | grep -cx ms | grep -qx 2"
# a rule's metric name finds the stored series; a miss lists the real names
"$tg" history --config tracegate.yaml --repo acme/llm --branch main --metric gpu_busy > hist2b.txt 2>hist2b.err
tg_check "history --metric gpu_busy: the gpu_busy_ms series" cmp hist2.txt hist2b.txt
"$tg" history --config tracegate.yaml --repo acme/llm --branch main --metric gpu_bsy > hist2c.txt 2>hist2c.err
tg_eq "history --metric (a miss): exit 2, one line, nothing on stdout" "2 1 0" "$? $(wc -l < hist2c.err) $(wc -c < hist2c.txt)"
tg_check "history --metric (a miss): lists the recorded names" grep -q "^tracegate: history: acme/llm on main: --metric gpu_bsy: no such series; recorded: .*gpu_busy_ms.*rule:sdpa-forward" hist2c.err
# a repository or branch nothing knows (a typo) is an error listing the known ones,
# not an empty history; a configured target branch with no run yet is no error
"$tg" history --config tracegate.yaml --repo acme/llm --branch mian > hist2d.txt 2>hist2d.err
tg_eq "history --branch mian: exit 2, nothing on stdout" "2 0" "$? $(wc -c < hist2d.txt)"
tg_eq "history --branch mian: one line listing the known branches" \
	"tracegate: history: no branch mian of acme/llm in the configuration or the store; known branches: main" "$(cat hist2d.err)"
"$tg" history --config tracegate.yaml --repo acme/lm --branch main > hist2e.txt 2>hist2e.err
tg_eq "history --repo acme/lm: exit 2, one line listing the known repositories" \
	"2 tracegate: history: no repository acme/lm in the configuration or the store; known repositories: acme/llm" \
	"$? $(cat hist2e.err)"
sed 's|^    clone_url:|    target_branches: [main, release]\n    clone_url:|' tracegate.yaml > release.yaml
"$tg" history --config release.yaml --repo acme/llm --branch release > hist2f.txt 2>hist2f.err
tg_eq "history of a target branch without runs yet: exit 0, 'no history'" \
	"0 tracegate: no history for acme/llm on release" "$? $(cat hist2f.err)"
# read-only: no S3 key nor forge token is needed to read the database
sed -e 's|^  local: storage|  s3: {endpoint: "http://127.0.0.1:9", bucket: b, region: us-east-1, access_key: {env: TG_UNSET_S3_KEY}, secret_key: {file: /nonexistent/s3-secret}}|' \
	-e 's|^    outbox: outbox|    outbox: outbox\n  - name: gh\n    kind: github\n    api_url: "http://127.0.0.1:9"\n    token: {env: TG_UNSET_GH_TOKEN}|' tracegate.yaml > nosecrets.yaml
tg_check "a config naming secrets that are not set is refused by the daemon" sh -c "! '$tg' daemon --config nosecrets.yaml --check 2>/dev/null"
tg_check "history reads the database without them" sh -c "env -u TG_UNSET_S3_KEY -u TG_UNSET_GH_TOKEN '$tg' history --config nosecrets.yaml --repo acme/llm --branch main --metric gpu_busy_ms | cmp -s - hist2.txt"
(umask 022 && "$tg" history --config tracegate.yaml --repo acme/llm --branch main --format html -o hist-mode.html)
tg_eq "history html: the umask's mode (644 under 022), not 600" 644 "$(stat -c %a hist-mode.html)"

# 2. a pull request 8 % slower on attention: blocked, one comment
up "$slow" slow pr1 slow.json.gz 7
once
tg_eq "PR slow: pending then failure" "pending failure " "$(statuses_of "$slow")"
tg_eq "PR slow: one comment" 1 "$(comments)"
c=$(find outbox -name 'comment-*.md' | head -1)
tg_check "comment: marker first" sh -c "head -1 '$c' | grep -q '<!-- tracegate:train -->'"
tg_check "comment: the verdict blocks on sdpa-forward" grep -q "block: sdpa-forward" "$c"
tg_check "comment: a history chart" grep -q "xychart-beta" "$c"
tg_eq "comment: the footer links to how to read it (daemon.docs_url)" \
	"<sub>tracegate $("$tg" --version | cut -d' ' -f2) · [how to read this comment](https://git.example/acme/tracegate/blob/HEAD/docs/comment.md)</sub>" \
	"$(tail -1 "$c")"
tg_check "comment: says what was compared (commits, branch, pull request, run ids) and that the base is main2, the merge-base" \
	grep -q "^| source | <code>${main2:0:7}</code> on <code>main</code> (the merge-base), run <code>m2</code> | <code>${slow:0:7}</code> (pull request 7, <code>slow</code>), run <code>pr1</code> |$" "$c"
tg_eq "comment: the baseline said once (the compared table), no 'Baseline:' line" 0 "$(grep -c 'Baseline:' "$c")"
"$tg" history --config tracegate.yaml --repo acme/llm --branch main --metric rule:sdpa-forward --format html -o hist-pr.html
tg_check "history html: pull request 7's run marked on main's page, with its run and commit" \
	grep -q "<path class=\"pr\" d=\"M[0-9.]* [0-9.]*l5 5l-5 5l-5 -5z\" fill=\"#8250df\" stroke=\"#fff\"><title>pull request 7 &#183; run [0-9]* &#183; 20[0-9-]* [0-9:]* UTC &#183; ${slow:0:12}" hist-pr.html
tg_check "history html: the legend names the pull request runs" grep -q "1 pull request run into main, placed by run time" hist-pr.html
tg_check "history text: the pull request's run listed under main's series" \
	sh -c "'$tg' history --config tracegate.yaml --repo acme/llm --branch main --metric rule:sdpa-forward | grep -q '${slow:0:12} .* pull request 7, run '"
tg_check "comment: the history chart in percent of the baseline, coloured, with the threshold" \
	sh -c "grep -q 'y-axis \"% of the baseline\"' '$c' && grep -q 'plotColorPalette' '$c' && grep -q 'red: the block threshold (105 %)' '$c'"
tg_check "status: the description names the rule" sh -c "grep \"$slow\" outbox/statuses.log | tail -1 | grep -q 'sdpa-forward'"

# 3. the pull request fixed: the same comment, edited
up "$fixed" slow pr2 fine.json.gz 7
once
tg_eq "PR fixed: success" success "$(status_of "$fixed")"
tg_eq "PR fixed: still one comment" 1 "$(comments)"
tg_check "PR fixed: the comment now passes" grep -q "tracegate: pass" "$c"

# 4. a regression "accepted" by the PR author's own commit trailer: not an
#    approval (accept_trailers is off by default; labels are the way)
up "$acc" accepted pr3 slow.json.gz 8
once
tg_eq "PR with a self-approving trailer: still blocked" failure "$(status_of "$acc")"
c8=$(find outbox -path '*pr-8*' -name 'comment-*.md' | head -1)
tg_check "PR with a trailer: the comment says it was ignored" grep -q "Ignored: a Tracegate-Accept trailer (trailers are off" "$c8"

# 5. bad input: a malformed manifest, a corrupt trace, a missing trace; the daemon serves the rest
mkdir -p "storage/acme/llm/$broken/train/bad-manifest"
printf '{"schema": "tracegate.run/1", "repo": "acme/llm", ' > "storage/acme/llm/$broken/train/bad-manifest/manifest.json"
mkdir -p u-badtrace && printf '{"traceEvents": [{"ph": "X", "name": "k", "ts": ' | gzip > u-badtrace/rank0.pt.trace.json.gz
"$upload" --dest storage --repo acme/llm --commit "$broken" --branch broken --workload infer --run-id bad-trace \
	u-badtrace/rank0.pt.trace.json.gz >/dev/null
mkdir -p u-missing && cp base.json.gz u-missing/rank0.pt.trace.json.gz
"$upload" --dest storage --repo acme/llm --commit "$broken" --branch broken --workload eval --run-id missing \
	u-missing/rank0.pt.trace.json.gz >/dev/null
rm "storage/acme/llm/$broken/eval/missing/rank0.pt.trace.json.gz"
# over the configured reader limits (64KiB strings, 16 levels): the generator's traces are far below
mkdir -p u-long u-deep
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "%s", "ts": 1, "dur": 2, "pid": 0, "tid": 7}]}' \
	"$(head -c 70000 /dev/zero | tr '\0' k)" | gzip > u-long/rank0.pt.trace.json.gz
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2, "pid": 0, "tid": 7, "args": {"a": %s1%s}}]}' \
	"$(printf '[%.0s' $(seq 1 20))" "$(printf ']%.0s' $(seq 1 20))" | gzip > u-deep/rank0.pt.trace.json.gz
"$upload" --dest storage --repo acme/llm --commit "$broken" --branch broken --workload long --run-id long \
	u-long/rank0.pt.trace.json.gz >/dev/null
"$upload" --dest storage --repo acme/llm --commit "$broken" --branch broken --workload deep --run-id deep \
	u-deep/rank0.pt.trace.json.gz >/dev/null
# a profile of nothing (no GPU activity): nothing to judge is an error, not a pass
mkdir -p u-empty && printf '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::empty", "ts": 1, "dur": 2, "pid": 1, "tid": 1}]}' \
	| gzip > u-empty/rank0.pt.trace.json.gz
"$upload" --dest storage --repo acme/llm --commit "$broken" --branch broken --workload empty --run-id empty \
	u-empty/rank0.pt.trace.json.gz >/dev/null
up "$main2" main m2b fine.json.gz
once
n_err=$(grep "\"sha\": *\"$broken\"" outbox/statuses.log | grep -c '"state": *"error"')
tg_eq "bad runs: six error statuses" 6 "$n_err"
tg_check "bad manifest: the description says what is wrong" grep -q '"description":"cannot judge: manifest.json: 1:50: bad JSON' outbox/statuses.log
tg_check "bad trace: the description names the file and the byte" grep -q '"description":"cannot judge: rank0.pt.trace.json.gz: byte 48 of the inflated JSON' outbox/statuses.log
tg_check "missing trace: the description says so" grep -q '"description":"cannot judge: rank0.pt.trace.json.gz: the manifest names a trace that is not in storage"' outbox/statuses.log
tg_check "limits.max_string_bytes: the description names the limit" grep -q '"description":"cannot judge: rank0.pt.trace.json.gz: byte [0-9]* of the inflated JSON: string longer than 65536 bytes (limit)' outbox/statuses.log
tg_check "limits.max_depth: the description names the limit" grep -q '"description":"cannot judge: rank0.pt.trace.json.gz: byte [0-9]* of the inflated JSON: nesting deeper than 16 levels (limit)' outbox/statuses.log
tg_check "a trace without GPU activity: error, nothing to judge, the trace named" grep -q '"description":"cannot judge: nothing to judge: the new trace rank0.pt.trace.json.gz has no GPU activity (no kernel, memcpy or memset)"' outbox/statuses.log
tg_eq "a good run beside them is served" success "$(status_of "$main2")"

# 6. kill -9 at each point, then restart: the run is not lost, one comment, the right verdict
pr=20
for point in seen analysing posting comment; do
	pr=$((pr + 1))
	git -C src checkout -qb "k$point" "$main2"
	echo "$point" >> src/a && git -C src commit -qam "kill at $point"
	sha=$(git -C src rev-parse HEAD)
	git -C src push -q "$TG_RUN/repo.git" "k$point"
	git -C src checkout -q main
	up "$sha" "k$point" "kill-$point" slow.json.gz "$pr"
	TRACEGATE_TEST_STALL="$point:30" "$tg" daemon --config tracegate.yaml --once >>out.log 2>stall.log &
	dpid=$!
	for i in $(seq 1 200); do grep -q "stall at $point" stall.log && break; sleep 0.05; done
	grep -q "stall at $point" stall.log || tg_not_ok "kill at $point: the daemon reached the stall point" "$(tail -3 stall.log)"
	kill -9 "$dpid"; wait "$dpid" 2>/dev/null
	sleep 2.2   # the dead daemon's lease expires
	once
	tg_eq "kill -9 at $point: final status failure" failure "$(status_of "$sha")"
	nc=$(find outbox -path "*pr-$pr*" -name 'comment-*.md' | wc -l | tr -d ' ')
	tg_eq "kill -9 at $point: exactly one comment" 1 "$nc"
done
# a daemon killed -9 on this host holds a lease of 10 minutes: the next
# --once sees its pid is gone and reclaims the job at once
sed 's/^  lease: 2s/  lease: 10m/' tracegate.yaml > longlease.yaml
git -C src checkout -qb kdead "$main2"
echo dead >> src/a && git -C src commit -qam "kill, long lease"
sha=$(git -C src rev-parse HEAD)
git -C src push -q "$TG_RUN/repo.git" kdead
git -C src checkout -q main
up "$sha" kdead kill-dead slow.json.gz 29
TRACEGATE_TEST_STALL="analysing:60" "$tg" daemon --config longlease.yaml --once >>out.log 2>stall.log &
dpid=$!
for i in $(seq 1 200); do grep -q "stall at analysing" stall.log && break; sleep 0.05; done
kill -9 "$dpid"; wait "$dpid" 2>/dev/null
t0=$(date +%s)
"$tg" daemon --config longlease.yaml --once >>out.log 2>reclaim.log
t1=$(date +%s)
tg_eq "kill -9, lease 10 min: the next --once finishes the job" failure "$(status_of "$sha")"
tg_check "kill -9, lease 10 min: reclaimed at once (under 60 s, not 10 min)" test $((t1 - t0)) -lt 60
tg_check "kill -9: the log says the holder is dead and the job reclaimed" grep -q "its lease holder .*:$dpid:[0-9]* is dead (no process $dpid on this host): reclaimed now" reclaim.log
# a live holder is waited for, and the wait is logged
git -C src checkout -qb kalive "$main2"
echo alive >> src/a && git -C src commit -qam "live holder"
sha2=$(git -C src rev-parse HEAD)
git -C src push -q "$TG_RUN/repo.git" kalive
git -C src checkout -q main
up "$sha2" kalive kill-alive slow.json.gz 28
TRACEGATE_TEST_STALL="analysing:30" "$tg" daemon --config longlease.yaml --once >>out.log 2>stall2.log &
dpid=$!
for i in $(seq 1 200); do grep -q "stall at analysing" stall2.log && break; sleep 0.05; done
# a second daemon on this host (its own state folder: one daemon per folder) sharing the database
sed 's/^  state_dir: state/  state_dir: state2/' longlease.yaml > second.yaml
"$tg" daemon --config second.yaml --once >>out.log 2>wait.log
tg_check "a live holder's lease: the wait is logged" grep -q "is leased by .*:$dpid:[0-9]* (a live process on this host) for [0-9]*s more: waiting for it" wait.log
kill -9 "$dpid"; wait "$dpid" 2>/dev/null
once
tg_eq "...and once it is dead, the job is finished" failure "$(status_of "$sha2")"
# counted, not listed: an absent sqlite3 (or a query that fails) must not pass as "nothing unfinished"
if command -v sqlite3 >/dev/null 2>&1; then
	unfinished=$(sqlite3 tracegate.db "select count(*) from runs where state not in ('done','failed')" 2>&1)
	tg_eq "no job left unfinished" 0 "$unfinished"
	tg_check "the store holds the runs (the count above is not vacuous)" \
		test "$(sqlite3 tracegate.db "select count(*) from runs where state = 'done'" 2>&1)" -ge 10
else
	tg_skip "no job left unfinished: sqlite3 is not installed (contrib/install-deps.sh --servers)"
fi

# 7. the daemon keeps running and picks up a run written while it waits
"$tg" daemon --config tracegate.yaml >>out.log 2>live.log &
dpid=$!
sleep 0.5
git -C src checkout -qb live "$main2" && echo l >> src/a && git -C src commit -qam live && live=$(git -C src rev-parse HEAD)
git -C src push -q "$TG_RUN/repo.git" live; git -C src checkout -q main
t0=$(date +%s%N)
up "$live" live live-1 fine.json.gz 30
for i in $(seq 1 200); do [ "$(status_of "$live")" = success ] && break; sleep 0.05; done
t1=$(date +%s%N)
tg_eq "live daemon: the new run is judged" success "$(status_of "$live")"
tg_log "live daemon: upload to verdict in $(( (t1 - t0) / 1000000 )) ms"
kill -TERM "$dpid"; wait "$dpid"
tg_eq "live daemon: exits 0 on SIGTERM" 0 $?
tg_check "live daemon: says it stopped" grep -q "stopped by a signal" live.log

# 8. a backlog: five consecutive main commits and a pull request on the last, all in storage
#    before the daemon looks (claimed in any order): each judged against its predecessor
git -C src checkout -q main
bl=""
for i in 1 2 3 4 5; do
	echo "b$i" >> src/a && git -C src commit -qam "backlog $i"
	bl="$bl $(git -C src rev-parse HEAD)"
done
git -C src checkout -qb blpr && echo p >> src/a && git -C src commit -qam "backlog pr" && blpr=$(git -C src rev-parse HEAD)
git -C src checkout -q main
git -C src push -q "$TG_RUN/repo.git" main blpr
n=0
for sha in $bl; do n=$((n + 1)); up "$sha" main "bl$n" fine.json.gz; done
up "$blpr" blpr bl-pr slow.json.gz 40
once
nob=0
for sha in $bl; do status_of "$sha" | grep -q success || nob=$((nob + 1)); grep "\"sha\": *\"$sha\"" outbox/statuses.log | grep -q "no baseline" && nob=$((nob + 1)); done
tg_eq "backlog: five main runs judged against their predecessors" 0 "$nob"
tg_eq "backlog: the pull request blocks against the last" failure "$(status_of "$blpr")"
c40=$(find outbox -path '*pr-40*' -name 'comment-*.md' | head -1)
last=${bl##* }
tg_check "backlog: the PR's baseline is the last main commit, its merge-base" \
	grep -q "^| source | <code>${last:0:7}</code> on <code>main</code> (the merge-base), run <code>bl5</code> | <code>${blpr:0:7}</code> (pull request 40, " "$c40"

# 9. history in first-parent order: three main commits whose runs arrive f3, f1, f2
git -C src checkout -q main
fp=""
for i in 1 2 3; do
	echo "f$i" >> src/a && git -C src commit -qam "first-parent $i"
	fp="$fp $(git -C src rev-parse HEAD)"
done
git -C src push -q "$TG_RUN/repo.git" main
set -- $fp
f1=$1 f2=$2 f3=$3
for sha in "$f3" "$f1" "$f2"; do
	sleep 1.1   # run times one second apart at least
	up "$sha" main "fp-${sha:0:7}" fine.json.gz
	once
done
order() { # CONFIG: the three commits in the order history prints them
	"$tg" history --config "$1" --repo acme/llm --branch main --metric steps |
		awk '{print $3}' | grep -x -e "${f1:0:12}" -e "${f2:0:12}" -e "${f3:0:12}" | tr '\n' ' '
}
tg_eq "history: runs in first-parent order (the daemon's mirror)" "${f1:0:12} ${f2:0:12} ${f3:0:12} " "$(order tracegate.yaml)"
sed 's/^  state_dir: state/  state_dir: state-nomirror/' tracegate.yaml > nomirror.yaml
tg_eq "history: without a mirror, in the order they ran" "${f3:0:12} ${f1:0:12} ${f2:0:12} " "$(order nomirror.yaml)"

tg_check "no crash or sanitizer report in the logs" sh -c "! grep -Eq 'runtime error|AddressSanitizer|LeakSanitizer' daemon.log live.log stall.log"
tg_done it_daemon
