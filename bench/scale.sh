#!/bin/sh
# scale.sh - `make bench`, the scale part: time and peak RSS of `report` and
# `diff` on generated training traces of 10 MB, 100 MB and 1 GB of JSON,
# plain and gzip, each as a ratio to `cat` (plain) or `gzip -dc` (gzip) of
# the same file(s) measured in the same run.
#   targets: cost linear in size (10x the size costs at most 11x the time),
#            report on a gzip trace at most 1.5x gzip -dc,
#            peak RSS at most 15 % of the JSON size (checked and reported, but a
#            miss does not fail the bench: a known shortfall, docs/scale.md)
# Usage: bench/scale.sh TRACEGATE TG_GEN   (SCALE_SIZES="10 100 1000" MB by default)
set -eu
tg=$1
gen=$2
sizes=${SCALE_SIZES:-10 100 1000}
work=$(mktemp -d "${TMPDIR:-/tmp}/tg-scale.XXXXXX")
trap 'rm -rf "$work"' EXIT
free_mb=$(df -Pm "$work" | awk 'NR == 2 { print $4 }')
mean() { awk -F, 'NR == 2 { print $2 }' "$1"; }
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
runs_for() { if [ "$1" -ge 1000 ]; then echo 3; elif [ "$1" -ge 100 ]; then echo 5; else echo 10; fi; }

: > "$work/rows"
for mb in $sizes; do
	need=$((mb * 3 + 200))
	if [ "$free_mb" -lt "$need" ]; then
		echo "bench: scale $mb MB skipped: $free_mb MB free in $work, $need MB needed"
		continue
	fi
	b=$work/b$mb
	"$gen" --train --target-mb "$mb" --seed 1 --noise 1 -o "$b.json"
	"$gen" --train --target-mb "$mb" --seed 2 --noise 1 -o "$b-new.json"
	gzip -1 -c "$b.json" > "$b.json.gz"
	gzip -1 -c "$b-new.json" > "$b-new.json.gz"
	bytes=$(stat -c %s "$b.json")
	runs=$(runs_for "$mb")
	hf() { hyperfine -N --warmup 1 --runs "$runs" --export-csv "$1" "$2" >/dev/null; }
	hf "$work/cat.csv" "cat $b.json"
	hf "$work/gz.csv" "gzip -dc $b.json.gz"
	hyperfine --warmup 1 --runs "$runs" --export-csv "$work/cat2.csv" "cat $b.json $b-new.json > /dev/null" >/dev/null
	hyperfine --warmup 1 --runs "$runs" --export-csv "$work/gz2.csv" \
		"gzip -dc $b.json.gz > /dev/null; gzip -dc $b-new.json.gz > /dev/null" >/dev/null
	hf "$work/rp.csv" "$tg report $b.json --format csv -o $work/r"
	hf "$work/rg.csv" "$tg report $b.json.gz --format csv -o $work/r"
	hf "$work/dp.csv" "$tg diff $b.json $b-new.json --format md -o $work/d.md"
	hf "$work/dg.csv" "$tg diff $b.json.gz $b-new.json.gz --format md -o $work/d.md"
	set +e
	m_rp=$(rss "$tg" report "$b.json" --format csv -o "$work/r")
	m_rg=$(rss "$tg" report "$b.json.gz" --format csv -o "$work/r")
	m_dp=$(rss "$tg" diff "$b.json" "$b-new.json" --format md -o "$work/d.md")
	m_dg=$(rss "$tg" diff "$b.json.gz" "$b-new.json.gz" --format md -o "$work/d.md")
	set -e
	echo "$mb $bytes $(mean "$work/cat.csv") $(mean "$work/gz.csv") $(mean "$work/cat2.csv") $(mean "$work/gz2.csv") \
$(mean "$work/rp.csv") $(mean "$work/rg.csv") $(mean "$work/dp.csv") $(mean "$work/dg.csv") $m_rp $m_rg $m_dp $m_dg" >> "$work/rows"
	rm -f "$b.json" "$b-new.json" "$b.json.gz" "$b-new.json.gz"
done

awk '
function pct(kb, bytes) { return 100 * kb * 1024 / bytes }
{
	mb[NR] = $1; by[NR] = $2; cat[NR] = $3; gz[NR] = $4; cat2[NR] = $5; gz2[NR] = $6
	rp[NR] = $7; rg[NR] = $8; dp[NR] = $9; dg[NR] = $10; mrp[NR] = $11; mrg[NR] = $12; mdp[NR] = $13; mdg[NR] = $14
}
END {
	ok = 1; rss_ok = 1
	printf "bench: scale (generated training traces; one run: ratios to cat / gzip -dc of the same files)\n"
	printf "bench: %7s  %-34s %-34s %-30s %-30s\n", "JSON", "report plain (x cat)", "report gzip (x gzip -dc)", "diff plain (x cat of both)", "diff gzip (x gzip -dc of both)"
	for (i = 1; i <= NR; i++) {
		printf "bench: %5d MB  %6.2f s %5.1fx %5.0f MB %4.0f%%   %6.2f s %4.2fx %5.0f MB %4.0f%%   %6.2f s %5.1fx %5.0f MB   %6.2f s %4.2fx %5.0f MB\n",
		       mb[i], rp[i], rp[i] / cat[i], mrp[i] / 1024, pct(mrp[i], by[i]),
		       rg[i], rg[i] / gz[i], mrg[i] / 1024, pct(mrg[i], by[i]),
		       dp[i], dp[i] / cat2[i], mdp[i] / 1024, dg[i], dg[i] / gz2[i], mdg[i] / 1024
		if (rg[i] / gz[i] > 1.5 && mb[i] >= 100) { ok = 0; printf "bench:   report on gzip above 1.5x gzip -dc at %d MB\n", mb[i] }
		if (pct(mrp[i], by[i]) > 15 && mb[i] >= 100) { rss_ok = 0; printf "bench:   report peak RSS %.0f %% of the JSON at %d MB, above the 15 %% target (known shortfall: docs/scale.md)\n", pct(mrp[i], by[i]), mb[i] }
	}
	for (i = 2; i <= NR; i++) {
		s = by[i] / by[i - 1]
		printf "bench: %d MB -> %d MB (%.1fx the size): report %.1fx the time (gzip %.1fx), diff %.1fx (gzip %.1fx)\n",
		       mb[i - 1], mb[i], s, rp[i] / rp[i - 1], rg[i] / rg[i - 1], dp[i] / dp[i - 1], dg[i] / dg[i - 1]
		if (mb[i - 1] >= 100 && rp[i] / rp[i - 1] > s * 1.1) { ok = 0; printf "bench:   report not linear from %d MB\n", mb[i - 1] }
		if (mb[i - 1] >= 100 && dp[i] / dp[i - 1] > s * 1.1) { ok = 0; printf "bench:   diff not linear from %d MB\n", mb[i - 1] }
	}
	printf "bench: scale %s; peak RSS %s\n", ok ? "time targets met (linear, gzip within 1.5x)" : "TIME TARGET MISSED",
	       rss_ok ? "within 15 % of the JSON" : "above 15 % of the JSON (docs/scale.md)"
	exit ok ? 0 : 1
}' "$work/rows"
