#!/bin/sh
# judge.sh - `make bench`, the cost of judging (issue 21, item 6), on the
# embedded default (local storage, SQLite, the outbox forge, a file:// git
# repository), with traces from the generator:
#   tiny runs   a 250 MB baseline (tg-gen --train --target-mb 250) on main,
#               then 100 pull requests of one tiny run each, every manifest
#               padded to 1 MB, judged by one `daemon --once`: the time of
#               that pass, wall and CPU (target: under 10 s of CPU in all,
#               the daemon's and its jobs'; it was 126 s when each
#               judgement read the baseline's trace again), and the
#               database's size
#   pooled      8 runs of 250 MB at one pull request's commit (each judged
#               with the ones before it), under daemon.job_memory: 1GiB:
#               every run judged, each trace read once (8 reads, not 36),
#               and the largest job's peak memory under the budget
# JUDGE_MB (default 250) sets the size of the big traces; a size is
# skipped, saying so, when the disk lacks room. Exits 1 when a target is
# missed.
# Usage: bench/judge.sh TRACEGATE TG_GEN
set -eu
tg=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
gen=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
top=$(pwd)
upload=$top/contrib/ci/tracegate-upload.sh
mb=${JUDGE_MB:-250}
work=$(mktemp -d "${TMPDIR:-/tmp}/tg-judge.XXXXXX")
trap '[ -n "${JUDGE_KEEP:-}" ] && echo "bench: judge: kept $work" || rm -rf "$work"' EXIT
free_mb=$(df -Pm "$work" | awk 'NR == 2 { print $4 }')
if [ "$free_mb" -lt $((mb + 1000)) ]; then
	echo "bench: judge: skipped: $free_mb MB free in ${TMPDIR:-/tmp}, it needs about $((mb + 1000)) MB"
	exit 0
fi
cd "$work"
git() { command git -c user.name=b -c user.email=b@b -c init.defaultBranch=main "$@"; }
git init -q src
echo 0 > src/a && git -C src add a && git -C src commit -qm c0
main=$(git -C src rev-parse HEAD)
for i in $(seq 1 101); do
	git -C src checkout -qb "pr$i" "$main"
	echo "$i" >> src/a && git -C src commit -qam "pr $i"
done
git -C src checkout -q main
git clone -q --bare src repo.git
mkdir -p storage
cat > b.yaml <<EOF
storage: {local: storage, poll_interval: 10s}
database: {sqlite: b.db}
forges: [{name: outbox, kind: outbox, outbox: outbox}]
repositories: [{name: acme/llm, forge: outbox, clone_url: "file://$work/repo.git"}]
daemon: {state_dir: state, job_memory: 1GiB, job_timeout: 10m}
EOF
ms() { date +%s%N | cut -c1-13; }
# up COMMIT BRANCH RUN TRACE [PR]: one run, its manifest padded to 1 MB
pad=$(head -c 1000000 /dev/zero | tr '\0' x)
up() {
	"$upload" --dest storage --repo acme/llm --commit "$1" --branch "$2" ${5:+--pr $5 --target-branch main} \
		--workload train --run-id "$3" "$4" >/dev/null
	m=storage/acme/llm/$1/train/$3/manifest.json
	{ printf '{"padding": "%s", ' "$pad"; tail -c +2 "$m"; } > "$m.tmp" && mv "$m.tmp" "$m"
}

# the baseline, measured once
"$gen" --train --target-mb "$mb" --seed 1 --gzip-level 1 -o base.json.gz
json=$(gzip -dc base.json.gz | wc -c)
up "$main" main base base.json.gz
t0=$(ms)
"$tg" daemon --config b.yaml --once >/dev/null 2> base.log
t1=$(ms)
base_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1000 }')

# 100 tiny pull requests
for i in $(seq 1 100); do
	"$gen" --train --steps 2 --seed "$i" -o tiny.json.gz
	up "$(git -C src rev-parse "pr$i")" "pr$i" "t$i" tiny.json.gz "$i"
done
t0=$(ms)
/usr/bin/time -f '%U %S' -o tiny.cpu "$tg" daemon --config b.yaml --once >/dev/null 2> tiny.log
t1=$(ms)
tiny_cpu=$(awk '{ printf "%.2f", $1 + $2 }' tiny.cpu) # the daemon and every job's process
tiny_split=$(awk '{ printf "user %.2f, sys %.2f", $1, $2 }' tiny.cpu)
posted=$(grep -c "posted " tiny.log || true)
measured=$(grep -c "bytes of JSON measured" tiny.log || true)
tiny_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1000 }')
db_mb=$(du -sm b.db* | awk '{ s += $1 } END { print s }')
load=$(cut -d' ' -f1 /proc/loadavg)
printf 'bench: judge: a %.0f MB baseline measured once in %s s; 100 tiny pull requests (1 MB manifests) against it: %s s in all, %s s of CPU (%s; target < 10 s; 126 s before), %s posted, %s traces measured, database %s MB (load average %s)\n' \
	"$(awk -v j="$json" 'BEGIN { print j / 1e6 }')" "$base_s" "$tiny_s" "$tiny_cpu" "$tiny_split" "$posted" "$measured" "$db_mb" "$load"
fail=0
[ "$posted" -eq 100 ] || { echo "bench: judge: only $posted of 100 tiny runs posted" >&2; fail=1; }
# the target holds the CPU the pass took (the daemon is serial: on an idle machine that is its
# wall time; on a shared one the wall time counts the neighbours' builds too)
awk -v s="$tiny_cpu" 'BEGIN { exit !(s < 10) }' || { echo "bench: judge: 100 tiny runs over the 10 s target ($tiny_cpu s of CPU)" >&2; fail=1; }

# 8 pooled runs of 250 MB at one commit, each judged as it comes
pr=$(git -C src rev-parse pr101)
: > pool.log
for k in 1 2 3 4 5 6 7 8; do
	"$gen" --train --target-mb "$mb" --seed $((k + 1)) --gzip-level 1 -o p.json.gz
	up "$pr" pr101 "big$k" p.json.gz 101
	"$tg" daemon --config b.yaml --once >/dev/null 2>> pool.log
	rm -f p.json.gz
done
pooled_s=$(grep "its analysis took" pool.log | sed -E 's/.*took ([0-9]+) ms.*/\1/' | awk '{ s += $1 } END { printf "%.1f", s / 1000 }')
peak=$(grep "its analysis took" pool.log | sed -E 's/.*ms and ([0-9]+) MiB.*/\1/' | sort -n | tail -1)
ok=$(grep "posted " pool.log | grep -vc "posted error" || true)
more=$(cat outbox/acme__llm/pr-101/comment-*.md | grep -o 'and [0-9]* more runs\? of this commit' | head -1)
traces_read=$(grep -c "bytes of JSON measured" pool.log || true)
printf 'bench: judge: 8 pooled %d MB runs at one commit: %s of 8 judged (%s), %s s of analysis in all, %s traces measured (8: once each), largest job %s MiB (daemon.job_memory 1024 MiB)\n' \
	"$mb" "$ok" "${more:-no pooled run}" "$pooled_s" "$traces_read" "$peak"
[ "$ok" -eq 8 ] || { echo "bench: judge: only $ok of 8 pooled runs judged" >&2; fail=1; }
[ "${peak:-99999}" -lt 1024 ] || { echo "bench: judge: a pooled job went over its memory budget" >&2; fail=1; }
exit $fail
