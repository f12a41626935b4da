#!/bin/sh
# run.sh - `make bench`: time and memory of reading a trace and building its
# tree, against `gzip -dc` (and `cat` for plain JSON) of the same file,
# measured in the same run with hyperfine. Exits 1 when a target is missed.
# Usage: bench/run.sh BENCH_READ_BINARY   (SHARED=../shared by default)
set -eu
bin=$1
shared=${SHARED:-../shared}
trace=$shared/traces/tracelens/tests/traces/inference/xdit_sd_3.5/profile_trace_rank_0.json.gz
if [ ! -f "$trace" ]; then
	echo "bench: skipped: $trace is absent (the benchmark needs ../shared/traces)"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gzip -dc "$trace" > "$tmp/trace.json"

# mean seconds of a command from hyperfine's CSV export
mean() { awk -F, 'NR == 2 { print $2 }' "$1"; }

hyperfine -N --warmup 3 --runs 15 --export-csv "$tmp/gz.csv" "gzip -dc $trace" >/dev/null
hyperfine -N --warmup 3 --runs 15 --export-csv "$tmp/tg.csv" "$bin $trace" >/dev/null
hyperfine -N --warmup 3 --runs 15 --export-csv "$tmp/cat.csv" "cat $tmp/trace.json" >/dev/null
hyperfine -N --warmup 3 --runs 15 --export-csv "$tmp/tgp.csv" "$bin $tmp/trace.json" >/dev/null

rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
rss_gz=$(rss "$bin" "$trace")
rss_plain=$(rss "$bin" "$tmp/trace.json")

"$bin" -v "$trace" 2>&1 | head -1 | sed 's/^/bench: /'
awk -v gz="$(mean "$tmp/gz.csv")" -v tg="$(mean "$tmp/tg.csv")" \
    -v cat="$(mean "$tmp/cat.csv")" -v tgp="$(mean "$tmp/tgp.csv")" \
    -v rg="$rss_gz" -v rp="$rss_plain" 'BEGIN {
	ratio = tg / gz
	printf "bench: xdit_sd_3.5 (62 MB JSON, 239k events), read + tree\n"
	printf "bench:   gzip file:  %.3f s   gzip -dc %.3f s   ratio %.2f (target <= 1.5)   peak RSS %.1f MB (target <= 100)\n", tg, gz, ratio, rg / 1024
	printf "bench:   plain JSON: %.3f s   cat      %.3f s   ratio %.2f                    peak RSS %.1f MB\n", tgp, cat, tgp / cat, rp / 1024
	printf "bench:   TraceLens on the same file: 12-16 s, 0.8 GB\n"
	ok = ratio <= 1.5 && rg / 1024 <= 100
	printf "bench: %s\n", ok ? "targets met" : "TARGET MISSED"
	exit ok ? 0 : 1
}'
