#!/bin/sh
# it_endpoints.sh - the daemon's endpoints (daemon.listen) while it runs
# for real: a local storage folder, SQLite, a git repository (file://) and
# the GitHub fake (tests/servers/fake-forge.js, node, on loopback).
#   started        /readyz 200 once the storage is listed, /healthz 200,
#                  /metrics passes `promtool check metrics`, every counter 0
#   main's run     the counters move: runs seen and judged, a verdict,
#                  the forge's 201s, the job and analysis histograms, polls;
#                  a missing trace and a bad folder name refused, by reason
#   a stuck loop   the forge holds a status post for 8 s (longer than the
#                  lease, 3 s): /healthz 503 naming the job's step, while
#                  /metrics and /readyz still answer; 200 again once the
#                  forge answers, and the pull request is judged (block)
#   the server     404 and 405, and it cannot hold the daemon: 40 idle
#                  connections while a run is judged
#   stopping       SIGTERM: exit 0, the port closed
#   a taken port   the daemon does not start: exit 1, the port named
# $1: the tracegate binary; TG_GEN: the generator.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(pwd)/tests/servers/it_common.sh"
if ! command -v node >/dev/null 2>&1; then
	tg_skip_all "it_endpoints: node is not installed (contrib/install-deps.sh --servers)"
fi
if ! command -v promtool >/dev/null 2>&1; then
	[ "${CI:-}" = true ] && { tg_not_ok "promtool is installed (contrib/install-deps.sh --servers)"; exit 1; }
	tg_skip_all "it_endpoints: promtool is not installed (contrib/install-deps.sh --servers: prometheus)"
fi
tg_it_run_folder it-endpoints

# --- a repository: main, and a pull request that slows attention down
git init -q src
echo a > src/a && git -C src add a && git -C src commit -qm base
main1=$(git -C src rev-parse HEAD)
git -C src checkout -qb slow
echo s >> src/a && git -C src commit -qam "attention: slower"
slow=$(git -C src rev-parse HEAD)
git -C src checkout -q main
git clone -q --bare src repo.git
G="--steps 8 --seq 4096 --layers 2 --noise 1"
"$gen" $G --seed 1 -o base.json.gz
"$gen" $G --seed 2 --sdpa-scale 1.08 -o slow.json.gz
mkdir -p storage

# --- the GitHub fake, straight (no prism: the contract is it_daemon_servers'
# business; this suite needs a forge that can be made to hang)
export GH_TOKEN=tg-endpoints-token
for try in 1 2 3; do
	fp=$(tg_free_port)
	FAKE_TOKEN=$GH_TOKEN tg_start fake node "$top/tests/servers/fake-forge.js" github "$fp" "http://127.0.0.1:$fp" >/dev/null
	tg_wait_port "$fp" 20 "$(cat "$TG_RUN/fake.pid")" && break
	tg_stop fake
	[ "$try" -eq 3 ] && { echo "it_endpoints: the GitHub fake did not start: $(tail -3 "$TG_RUN/fake.log")" >&2; exit 1; }
done
fake=http://127.0.0.1:$fp
port=$(tg_free_port)
cat > tracegate.yaml <<EOF
storage:
  local: storage
  poll_interval: 1s
database:
  sqlite: tracegate.db
forges:
  - name: github
    kind: github
    api_url: $fake
    token: {env: GH_TOKEN}
repositories:
  - name: acme/llm
    forge: github
    clone_url: file://$TG_RUN/repo.git
daemon:
  state_dir: state
  lease: 3s
  listen: 127.0.0.1:$port
http:
  timeout: 20s
  retries: 1
EOF

get() { curl -s -o "$2" -w '%{http_code}' "http://127.0.0.1:$port$1"; }
metric() { # NAME{LABELS} as written: its value in metrics.txt, or "none"
	awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print "none" }' metrics.txt
}
scrape() { get /metrics metrics.txt >/dev/null; }
# wait_metric NAME WANT SECONDS: until the sample reads WANT
wait_metric() {
	local i
	for i in $(seq 1 $(($3 * 5))); do
		scrape
		[ "$(metric "$1")" = "$2" ] && return 0
		sleep 0.2
	done
	return 1
}

"$tg" daemon --config tracegate.yaml 2>daemon.log &
dpid=$!
echo "$dpid" > "$TG_RUN/daemon.pid"
tg_check "the daemon listens on 127.0.0.1:$port" tg_wait_port "$port" 20 "$dpid"
for i in $(seq 1 50); do [ "$(get /readyz ready.txt)" = 200 ] && break; sleep 0.1; done
tg_eq "/readyz: 200 once the storage is listed" "200 ready" "$(get /readyz ready.txt) $(cat ready.txt)"
code=$(get /healthz health.txt)
tg_check "/healthz: 200, ok" test "$code" = 200 -a "$(cut -c1-19 health.txt)" = "ok: the loop moved "
tg_eq "/metrics: 200" 200 "$(get /metrics metrics.txt)"
promtool check metrics < metrics.txt > promtool.log 2>&1
tg_check "promtool check metrics passes at start" test $? -eq 0 -a ! -s promtool.log
tg_eq "at start: nothing seen, judged or refused" "0 0 0 0" "$(metric tracegate_runs_seen_total) \
$(metric tracegate_runs_judged_total) $(metric 'tracegate_runs_refused_total{reason="bad_trace"}') \
$(metric 'tracegate_verdicts_total{verdict="pass"}')"
tg_eq "build info" 1 "$(metric 'tracegate_build_info{version="'"$("$tg" --version | awk '{print $2}')"'"}')"
tg_check "the storage was polled, the time recorded" \
	test "$(metric tracegate_storage_polls_total)" -ge 1 -a "$(metric tracegate_last_successful_poll_timestamp_seconds)" -ge "$(($(date +%s) - 60))"
tg_eq "the log names the endpoints" 1 "$(grep -c "endpoints: http://127.0.0.1:$port/healthz, /readyz, /metrics" daemon.log)"

# --- main's run: the counters move
tg_it_up "$main1" main ci-1 base.json.gz
tg_check "main's run: judged (no baseline: inconclusive)" \
	wait_metric 'tracegate_verdicts_total{verdict="inconclusive"}' 1 60
tg_eq "runs seen, judged; jobs done; queue empty" "1 1 1 0 0" "$(metric tracegate_runs_seen_total) \
$(metric tracegate_runs_judged_total) $(metric 'tracegate_jobs{state="done"}') $(metric tracegate_queue_length) \
$(metric tracegate_queue_oldest_age_seconds)"
tg_check "the forge's 201s counted (pending and final status)" \
	test "$(metric 'tracegate_forge_requests_total{forge="github",code="201"}')" -ge 2
tg_eq "one job and one analysis timed" "1 1" "$(metric tracegate_job_duration_seconds_count) \
$(metric tracegate_analysis_duration_seconds_count)"
tg_eq "job duration: in the +Inf bucket" 1 "$(metric 'tracegate_job_duration_seconds_bucket{le="+Inf"}')"
promtool check metrics < metrics.txt > promtool.log 2>&1
tg_check "promtool check metrics passes after a run" test $? -eq 0 -a ! -s promtool.log

# --- refusals: a run whose trace is missing, a run-id folder that is not a name
mkdir -p "storage/acme/llm/$main1/train/gone-1" "storage/acme/llm/$main1/train/bad@id"
for d in gone-1 'bad@id'; do
	printf '{"schema":"tracegate.run/1","repo":"acme/llm","commit":"%s","branch":"main","workload":"train","run_id":"%s","traces":[{"path":"rank0.pt.trace.json.gz","rank":0}]}\n' \
		"$main1" "$d" >"storage/acme/llm/$main1/train/$d/manifest.json"
done
tg_check "a missing trace: refused as bad_trace" wait_metric 'tracegate_runs_refused_total{reason="bad_trace"}' 1 60
tg_eq "  ... an error verdict; a bad folder name refused; nothing else" "1 1 0 1" \
	"$(metric 'tracegate_verdicts_total{verdict="error"}') $(metric 'tracegate_runs_refused_total{reason="folder_name"}') \
$(metric 'tracegate_runs_refused_total{reason="bad_manifest"}') $(metric tracegate_runs_judged_total)"

# --- a stuck loop: the forge holds the pull request's pending status for 8 s
curl -s -X POST "$fake/_fake/seed" -d "{\"repo\":\"acme/llm\",\"pr\":7,\"head\":\"$slow\",\"base\":\"main\"}" >/dev/null
curl -s -X POST "$fake/_fake/fail" \
	-d '{"count":1,"status":502,"delay_ms":8000,"method":"POST","path":"/statuses/"}' >/dev/null
tg_it_up "$slow" slow ci-2 slow.json.gz 7
stuck=""
for i in $(seq 1 100); do
	code=$(get /healthz health.txt)
	[ "$code" = 503 ] && { stuck=$(cat health.txt); break; }
	sleep 0.1
done
tg_check "the forge hangs: /healthz 503" test -n "$stuck"
case $stuck in
"the loop has been in one step, job 3 (seen) of acme/llm, for "*" s (allowed: 3.0 s, the lease)") tg_ok "  ... saying where: $stuck" ;;
*) tg_not_ok "  ... saying where" "got: $stuck" ;;
esac
tg_eq "  ... while /metrics answers" 200 "$(get /metrics metrics.txt)"
tg_eq "  ... and /readyz too" 200 "$(get /readyz ready.txt)"
back=""
for i in $(seq 1 200); do
	[ "$(get /healthz health.txt)" = 200 ] && { back=1; break; }
	sleep 0.1
done
tg_check "the forge answers again: /healthz 200" test -n "$back"
tg_check "the pull request is judged: block" wait_metric 'tracegate_verdicts_total{verdict="block"}' 1 60
tg_check "the held request counted as a 502" test "$(metric 'tracegate_forge_requests_total{forge="github",code="502"}')" = 1
tg_eq "runs seen, judged" "3 2" "$(metric tracegate_runs_seen_total) $(metric tracegate_runs_judged_total)"
promtool check metrics < metrics.txt > promtool.log 2>&1
tg_check "promtool check metrics passes at the end" test $? -eq 0 -a ! -s promtool.log

# --- the server: paths, methods, idle connections
tg_eq "GET / is 404" 404 "$(get / x.txt)"
tg_eq "POST /metrics is 405" 405 "$(curl -s -o /dev/null -w '%{http_code}' -X POST -d x "http://127.0.0.1:$port/metrics")"
git -C src checkout -q slow && echo f >> src/a && git -C src commit -qam fixed && fixed=$(git -C src rev-parse HEAD)
git -C src push -q "$TG_RUN/repo.git" slow 2>/dev/null
git -C src checkout -q main
curl -s -X POST "$fake/_fake/seed" -d "{\"repo\":\"acme/llm\",\"pr\":7,\"head\":\"$fixed\",\"base\":\"main\"}" >/dev/null
"$gen" $G --seed 3 -o fine.json.gz
# 40 connections that send nothing, held while the fix is judged
for i in $(seq 10 49); do eval "exec $i<>/dev/tcp/127.0.0.1/$port" 2>/dev/null; done
tg_it_up "$fixed" slow ci-3 fine.json.gz 7
final=""
for i in $(seq 1 300); do
	final=$(curl -s "$fake/_fake/state" | node -e "let d='';process.stdin.on('data',c=>d+=c).on('end',()=>{
		const s=JSON.parse(d).statuses.filter(x=>x.sha==='$fixed'&&x.state!=='pending');console.log(s.length?s[s.length-1].state:'')})")
	[ -n "$final" ] && break
	sleep 0.2
done
for i in $(seq 10 49); do eval "exec $i>&-" 2>/dev/null; done
tg_eq "40 idle connections held: the daemon judges the fix all the same (success)" success "$final"
tg_check "  ... and /metrics says pass once they are gone" wait_metric 'tracegate_verdicts_total{verdict="pass"}' 1 30

# --- stopping, and a taken port
kill -TERM "$dpid"
wait "$dpid"
tg_eq "SIGTERM: exit 0" 0 "$?"
rm -f "$TG_RUN/daemon.pid"
tg_check "the port is closed" sh -c "! (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null"
tg_check "no crash or sanitizer report in the log" sh -c "! grep -qE 'runtime error|AddressSanitizer|LeakSanitizer' daemon.log"
node -e 'require("net").createServer().listen('"$port"', "127.0.0.1")' &
holder=$!
echo "$holder" > "$TG_RUN/holder.pid"
tg_wait_port "$port" 10 "$holder"
"$tg" daemon --config tracegate.yaml --once >taken.out 2>taken.err
tg_eq "a taken port: exit 1" 1 "$?"
tg_eq "  ... naming it" "tracegate: tracegate.yaml: daemon.listen 127.0.0.1:$port: cannot listen: Address already in use" \
	"$(cat taken.err)"
tg_stop holder
tg_done it_endpoints
