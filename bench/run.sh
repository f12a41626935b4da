#!/bin/sh
# run.sh - `make bench`: time and memory of reading a trace and building its
# tree, of the report, the critical path and a diff, against `gzip -dc` (and
# `cat` for plain JSON) of the same file,
# measured in the same run with hyperfine. Exits 1 when a target is missed.
# Usage: bench/run.sh BENCH_READ_BINARY TRACEGATE_BINARY  (SHARED=../shared by default)
set -eu
bin=$1
tg=${2:-./tracegate}
shared=${SHARED:-../shared}
trace=$shared/traces/tracelens/tests/traces/inference/xdit_sd_3.5/profile_trace_rank_0.json.gz
if [ ! -f "$trace" ]; then
	echo "bench: skipped: $trace is absent (the benchmark needs ../shared/traces)"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gzip -dc "$trace" > "$tmp/trace.json"
# A perturbed copy for the diff: the first decimal of every kernel's
# duration set to 9 (up to +0.9 us a kernel, about +0.3 % of GPU time).
sed -E 's/("cat": "kernel", "name": "[^"]*", "pid": [0-9]+, "tid": [0-9]+, "ts": [0-9.]+, "dur": [0-9]+\.)[0-9]/\19/g' \
	"$tmp/trace.json" | gzip -6 > "$tmp/perturbed.json.gz"

# mean seconds of a command from hyperfine's CSV export
mean() { awk -F, 'NR == 2 { print $2 }' "$1"; }

hyperfine -N --warmup 3 --runs 15 --export-csv "$tmp/gz.csv" "gzip -dc $trace" >/dev/null
hyperfine -N --warmup 3 --runs 15 --export-csv "$tmp/tg.csv" "$bin $trace" >/dev/null
hyperfine -N --warmup 3 --runs 15 --export-csv "$tmp/cat.csv" "cat $tmp/trace.json" >/dev/null
hyperfine -N --warmup 3 --runs 15 --export-csv "$tmp/tgp.csv" "$bin $tmp/trace.json" >/dev/null
hyperfine -N --warmup 2 --runs 10 --export-csv "$tmp/rep.csv" "$tg report $trace --format csv -o $tmp/rep" >/dev/null
hyperfine -N --warmup 2 --runs 10 --export-csv "$tmp/cp.csv" "$tg critical-path $trace --format json -o $tmp/cp.json" >/dev/null
hyperfine --warmup 2 --runs 10 --export-csv "$tmp/gz2.csv" "gzip -dc $trace > /dev/null; gzip -dc $tmp/perturbed.json.gz > /dev/null" >/dev/null
hyperfine -N --warmup 2 --runs 10 --export-csv "$tmp/diff.csv" "$tg diff $trace $tmp/perturbed.json.gz --format md -o $tmp/diff.md" >/dev/null
# augment: read, tree, counters, the copy gzipped again, against the copy's floor (inflate + deflate)
hyperfine -N --warmup 2 --runs 10 --export-csv "$tmp/aug.csv" "$tg augment $trace -o $tmp/aug.json.gz" >/dev/null
hyperfine --warmup 2 --runs 10 --export-csv "$tmp/regz.csv" "gzip -dc $trace | gzip -6 > /dev/null" >/dev/null

# the statistics' share of a diff's time (issue 13: under 10 %): the
# median of 7 runs of TG_DIFF_TIMING's "statistics X s (Y %)"
for i in 1 2 3 4 5 6 7; do
	TG_DIFF_TIMING=1 "$tg" diff "$trace" "$tmp/perturbed.json.gz" --format md -o "$tmp/diff.md" 2>&1 >/dev/null |
		sed -nE 's/.*statistics ([0-9.]+) s \(([0-9.]+) %\).*/\2 \1/p'
done | sort -n > "$tmp/stats.txt"
stats_pct=$(sed -n 4p "$tmp/stats.txt" | cut -d' ' -f1)
stats_s=$(sed -n 4p "$tmp/stats.txt" | cut -d' ' -f2)

rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
rss_gz=$(rss "$bin" "$trace")
rss_plain=$(rss "$bin" "$tmp/trace.json")
rss_report=$(rss "$tg" report "$trace" --format csv -o "$tmp/rep")
rss_cp=$(rss "$tg" critical-path "$trace" --format json -o "$tmp/cp.json")
rss_diff=$(rss "$tg" diff "$trace" "$tmp/perturbed.json.gz" --format md -o "$tmp/diff.md")
rss_aug=$(rss "$tg" augment "$trace" -o "$tmp/aug.json.gz")

"$bin" -v "$trace" 2>&1 | head -1 | sed 's/^/bench: /'
awk -v gz="$(mean "$tmp/gz.csv")" -v tg="$(mean "$tmp/tg.csv")" \
    -v cat="$(mean "$tmp/cat.csv")" -v tgp="$(mean "$tmp/tgp.csv")" \
    -v rep="$(mean "$tmp/rep.csv")" -v rr="$rss_report" \
    -v cp="$(mean "$tmp/cp.csv")" -v rc="$rss_cp" \
    -v gz2="$(mean "$tmp/gz2.csv")" -v dif="$(mean "$tmp/diff.csv")" -v rd="$rss_diff" \
    -v rg="$rss_gz" -v rp="$rss_plain" -v stp="$stats_pct" -v sts="$stats_s" \
    -v aug="$(mean "$tmp/aug.csv")" -v regz="$(mean "$tmp/regz.csv")" -v ra="$rss_aug" 'BEGIN {
	ratio = tg / gz
	printf "bench: xdit_sd_3.5 (62 MB JSON, 239k events), read + tree\n"
	printf "bench:   gzip file:  %.3f s   gzip -dc %.3f s   ratio %.2f (target <= 1.5)   peak RSS %.1f MB (target <= 100)\n", tg, gz, ratio, rg / 1024
	printf "bench:   plain JSON: %.3f s   cat      %.3f s   ratio %.2f                    peak RSS %.1f MB\n", tgp, cat, tgp / cat, rp / 1024
	printf "bench: report --format csv (every table): %.3f s   ratio to gzip -dc %.2f (target <= 2.0)   peak RSS %.1f MB (target <= 120)\n", rep, rep / gz, rr / 1024
	printf "bench:   TraceLens on the same file: 12-16 s, 0.8 GB\n"
	printf "bench: critical-path --format json (HTA\x27s, whole path): %.3f s   ratio to gzip -dc %.2f (target <= 2.0)   peak RSS %.1f MB (target <= 150)\n", cp, cp / gz, rc / 1024
	printf "bench: diff against a perturbed copy (md comment): %.3f s   gzip -dc of both %.3f s   ratio %.2f (target <= 2.5)   peak RSS %.1f MB\n", dif, gz2, dif / gz2, rd / 1024
	printf "bench:   TraceLens TraceDiff on such a pair: 11-15 s, 0.8 GB\n"
	printf "bench: the statistics of that diff (rules, per-op intervals, noise): %.3f s, %.1f %% of its time (target < 10)\n", sts, stp
	printf "bench: augment (counters, gzip out): %.3f s   gzip -dc | gzip -6 %.3f s   ratio %.2f (target <= 2.0)   peak RSS %.1f MB (target <= 120)\n", aug, regz, aug / regz, ra / 1024
	ok = ratio <= 1.5 && rg / 1024 <= 100 && rep / gz <= 2.0 && rr / 1024 <= 120 && dif / gz2 <= 2.5 && stp < 10 && \
	     aug / regz <= 2.0 && ra / 1024 <= 120 && cp / gz <= 2.0 && rc / 1024 <= 150
	printf "bench: %s\n", ok ? "targets met" : "TARGET MISSED"
	exit ok ? 0 : 1
}'
