#!/bin/sh
# daemon.sh - `make bench`, the daemon part: on the embedded default (local
# storage, SQLite, the outbox forge, a file:// git repository):
#   latency     a running daemon; a run's manifest is written; the time until
#               its final status is posted, minus the daemon's own analysis
#               time (its log says "analysed in X ms"), median of 10 runs
#               (target: under 1 s)
#   throughput  a backlog of 50 runs in storage, then `daemon --once`: runs
#               a second, and the time per run minus analysis
# Usage: bench/daemon.sh TRACEGATE TG_GEN
set -eu
tg=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
gen=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
top=$(pwd)
upload=$top/contrib/ci/tracegate-upload.sh
work=$(mktemp -d)
trap 'kill $dpid 2>/dev/null; rm -rf "$work"' EXIT
dpid=
cd "$work"
git() { command git -c user.name=b -c user.email=b@b -c init.defaultBranch=main "$@"; }
git init -q src
echo 0 > src/a && git -C src add a && git -C src commit -qm c0
for i in $(seq 1 60); do echo "$i" > src/a && git -C src commit -qam "c$i"; done
git clone -q --bare src repo.git
"$gen" --steps 4 --layers 2 -o t.json.gz
mkdir -p storage
cat > b.yaml <<EOF
storage: {local: storage, poll_interval: 10s}
database: {sqlite: b.db}
forges: [{name: outbox, kind: outbox, outbox: outbox}]
repositories: [{name: acme/llm, forge: outbox, clone_url: "file://$work/repo.git"}]
daemon: {state_dir: state}
EOF
commits=$(git -C src rev-list --reverse HEAD)
set -- $commits
ms() { date +%s%N | cut -c1-13; }

# latency: a live daemon, one run at a time (main's history: each run has a baseline)
"$tg" daemon --config b.yaml 2> live.log &
dpid=$!
sleep 0.3
lat=""
for i in $(seq 1 10); do
	sha=$1
	shift
	t0=$(ms)
	"$upload" --dest storage --repo acme/llm --commit "$sha" --branch main --workload w --run-id "r$i" t.json.gz >/dev/null
	while ! grep -q "\"sha\":\"$sha\".*\"state\":\"\(success\|failure\)\"" outbox/statuses.log 2>/dev/null; do sleep 0.005; done
	t1=$(ms)
	an=$(grep "analysed in" live.log | tail -1 | sed -E 's/.*analysed in ([0-9.]+) ms.*/\1/')
	lat="$lat $(awk -v a="$t0" -v b="$t1" -v c="$an" 'BEGIN { printf "%.1f:%.1f", b - a - c, b - a }')"
done
kill -TERM "$dpid"; wait "$dpid" || true; dpid=
echo "$lat" | tr ' ' '\n' | grep . | sort -t: -k1 -n > lat.txt
med=$(awk -F: '{ a[NR] = $1; t[NR] = $2 } END { m = int((NR + 1) / 2); printf "%.0f ms (whole: %.0f ms)", a[m], t[m] }' lat.txt)

# throughput: a backlog of 50 runs, one daemon --once
n=0
for sha in "$@"; do
	n=$((n + 1))
	[ $n -le 50 ] || break
	"$upload" --dest storage --repo acme/llm --commit "$sha" --branch main --workload w --run-id "b$n" t.json.gz >/dev/null
done
t0=$(ms)
"$tg" daemon --config b.yaml --once 2> backlog.log
t1=$(ms)
done_n=$(grep -c "posted success\|posted failure" backlog.log || true)
an=$(grep "analysed in" backlog.log | sed -E 's/.*analysed in ([0-9.]+) ms.*/\1/' | awk '{ s += $1 } END { printf "%.0f", s }')
awk -v n="$done_n" -v a="$t0" -v b="$t1" -v an="$an" -v med="$med" 'BEGIN {
	s = (b - a) / 1000
	printf "bench: daemon latency, manifest written to verdict posted, minus analysis: %s, median of 10 (target < 1 s)\n", med
	printf "bench: daemon backlog: %d runs in %.2f s = %.1f runs/s; %.0f ms a run of which %.0f ms analysis\n", n, s, n / s, (b - a) / n, an / n
}'
[ "$done_n" -eq 50 ] || { echo "bench: only $done_n of 50 runs posted"; exit 1; }
awk -F: 'NR == 6 { exit !($1 < 1000) }' lat.txt || { echo "bench: daemon latency TARGET MISSED"; exit 1; }
