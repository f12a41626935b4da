#!/bin/sh
# it_pool.sh - several runs of one commit in the daemon (issue 13), on the
# embedded default (local storage, SQLite, a file:// git repository, the
# outbox forge), with runs made by the generator's between-run noise model:
#   runs_per_commit: 2  -> a pull request's first run: a pending status
#                          "waiting for runs: 1 of 2", no comment
#   its second run      -> judged with both runs against main's runs (pooled):
#                          the comment says the noise between runs
#   a third run         -> judged again with the three; the same comment edited
#   main's runs         -> those since main's last change point join the base
#                          (history_base.h), the comment says how many
#   main's history      -> the comment's "Noise on `main`" line once main has
#                          enough runs on the same fingerprint; main's attention
#                          6 % slower from its 4th commit: "`main` itself moved"
#                          in the comment, and `history --changes` finds it
# $1: the tracegate binary; TG_GEN: the generator.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(pwd)/tests/servers/it_common.sh"
tg_it_run_folder it-pool
git init -q src
mains=""
for k in 1 2 3 4 5 6; do
	echo "$k" >> src/a && git -C src add a && git -C src commit -qm "main $k"
	mains="$mains $(git -C src rev-parse HEAD)"
done
last=$(git -C src rev-parse HEAD)
git -C src checkout -qb slow "$last"
echo s >> src/a && git -C src commit -qam "attention: slower"
slow=$(git -C src rev-parse HEAD)
git -C src checkout -q main
git clone -q --bare src repo.git

# runs: 1 % noise between runs (0.6 common, 0.8 of the kernel family), 8 steps
G="--steps 8 --seq 4096 --layers 2 --noise 0.5 --run-noise 0.6 --family-noise 0.8"
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
    runs_per_commit: 2
daemon:
  state_dir: state
  lease: 2s
  max_attempts: 3
EOF
seed=10
up() { # COMMIT BRANCH RUN SDPA_SCALE [PR]
	seed=$((seed + 1))
	mkdir -p "u-$3"
	"$gen" $G --seed $seed --sdpa-scale "$4" -o "u-$3/rank0.pt.trace.json.gz"
	"$upload" --dest storage --repo acme/llm --commit "$1" --branch "$2" ${5:+--pr $5 --target-branch main} \
		--workload train --run-id "$3" "u-$3/rank0.pt.trace.json.gz" >/dev/null
}
once() { tg_it_once; }
last_status() { grep "\"sha\": *\"$1\"" outbox/statuses.log 2>/dev/null | tail -1; }
comments() { find outbox -name 'comment-*.md' 2>/dev/null | wc -l | tr -d ' '; }

# main: six commits, two runs each (runs_per_commit 2: the first waits);
# attention 6 % slower from the 4th commit on
i=0
for c in $mains; do
	i=$((i + 1))
	sc=1
	[ $i -ge 4 ] && sc=1.06
	up "$c" main "m$i-a" $sc
	once
	up "$c" main "m$i-b" $sc
	once
done
"$tg" history --config tracegate.yaml --repo acme/llm --branch main --metric rule:sdpa-forward --changes \
	--format json -o hist.json
tg_check "history --changes: main's step found at its 4th commit" python3 - hist.json "$(echo $mains | awk '{print $4}')" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))
s = h["series"][0]
assert s["metric"] == "rule:sdpa-forward" and len(s["points"]) == 12, s
c = s["changes"]
assert len(c) == 1 and c[0]["index"] == 6 and c[0]["commit"] == sys.argv[2] and c[0]["runs_ago"] == 6, c
assert 4 < c[0]["pct"] < 8, c
PY
tg_check "main: a first run waits for the second" sh -c "grep '$(echo $mains | awk '{print $2}')' outbox/statuses.log | grep -q 'waiting for runs: 1 of 2 runs of this commit'"
tg_check "main: the second run is judged (success)" sh -c "echo '$(last_status "$last")' | grep -q '\"state\": *\"success\"'"

# the pull request: first run waits, no comment
up "$slow" slow p1 1.145 7
once
tg_check "PR: first run pending, waiting" sh -c "echo '$(last_status "$slow")' | grep -q 'waiting for runs: 1 of 2'"
tg_check "PR: first run pending (state)" sh -c "echo '$(last_status "$slow")' | grep -q '\"state\": *\"pending\"'"
tg_eq "PR: no comment yet" 0 "$(comments)"

# its second run: judged with both runs against main's two
up "$slow" slow p2 1.145 7
once
tg_check "PR: two runs, +8 % on attention: blocked" sh -c "echo '$(last_status "$slow")' | grep -q '\"state\": *\"failure\"'"
tg_eq "PR: one comment" 1 "$(comments)"
c=$(find outbox -name 'comment-*.md' | head -1)
tg_check "comment: blocks on an SDPA rule" grep -q "block: sdpa-" "$c"
# main's runs since its last change point join the base (history_base.h):
# sdpa-forward and gpu-busy moved at main's 4th commit (4 runs since, less
# the baseline's 2), gemm did not (9 runs)
tg_check "comment: the noise between the runs of each side (2 + 9 and 2)" grep -q "Noise between runs (sd of one run): .*(11 base and 2 new runs" "$c"
tg_check "comment: main's runs since its last change point as base runs" grep -q "Base: 2 runs + runs of \`main\` since its last change point (sdpa-forward 4, gemm 9, gpu-busy 4; 98 % intervals)" "$c"
tg_check "comment: the noise on main from its history" grep -q "Noise on \`main\`: sdpa-forward ±[0-9.]* % ([0-9]* runs)" "$c"
tg_check "comment: main itself moved" grep -q "\`main\` itself moved: sdpa-forward +[0-9.]* % since \`$(echo $mains | awk '{print substr($4, 1, 7)}')\`, 6 runs ago" "$c"
tg_check "comment: two runs a side (16 steps each)" grep -q "^| steps (runs) | 16 (2 runs) | 16 (2 runs) |$" "$c"
tg_check "comment: the pooled run named" grep -q "^| source | .* and 1 more run of this commit | .* and 1 more run of this commit |$" "$c"

# a third run: judged again with three, the same comment edited
up "$slow" slow p3 1.145 7
once
tg_eq "PR third run: still one comment" 1 "$(comments)"
c=$(find outbox -name 'comment-*.md' | head -1)
tg_check "PR third run: three new runs" grep -q "(11 base and 3 new runs" "$c"

tg_check "no crash or sanitizer report in the logs" sh -c "! grep -Eq 'runtime error|AddressSanitizer|LeakSanitizer' daemon.log"
tg_done it_pool
