#!/bin/sh
# diverge.sh - `make bench`, the divergence part: `diff` (tree diff on, the
# default) of a generated pair of training traces of about 120,000 ops
# each, whose every attention call and every layer diverges (tg-gen
# --split-attention 1.0 --extra-op aten::gelu), against `gzip -dc` of both
# files, median of 5 runs each.
#   target: diff at most 2x gzip -dc of both files (issue 14: the table of
#           divergences was quadratic; 54 s for such a pair)
# Then the curve of the worst case for an alignment by name: N ops of
# distinct names against the same N in reverse order (tg-gen --distinct-ops
# N --reverse-ops), N = 15k, 30k, 60k, 120k, median of 3 diffs each:
#   targets: 120k reversed ops in under 10 s (issue 21: 134 s, the kernel
#            lists of the divergence table were a linear search per name),
#            and n log n: the time grows from 15k to 120k (8x the ops) by at
#            most 8^1.3 (n log n is about 8^1.1 here, quadratic 8^2)
# Usage: bench/diverge.sh TRACEGATE TG_GEN
set -eu
tg=$1
gen=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/tg-diverge.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$gen" --train --steps 108 --layers 16 -o "$work/b.json.gz"
"$gen" --train --steps 108 --layers 16 --split-attention 1.0 --extra-op aten::gelu -o "$work/n.json.gz"
ops=$(gzip -dc "$work/b.json.gz" | grep -c '"cat": *"cpu_op"' || true)
now() { date +%s.%N; }
# median wall time of $runs runs of "$@" (output discarded); a verdict of
# any kind (0 pass, 1 blocked, 3 inconclusive: the reversed pairs have one
# step a side) is timed, an error (2, a crash) stops the bench
runs=5
median() {
	: >"$work/times"
	for i in $(seq 1 $runs); do
		t0=$(now)
		rc=0
		"$@" >/dev/null 2>&1 || rc=$?
		t1=$(now)
		case $rc in
		0 | 1 | 3) ;;
		*) echo "bench: diverge: '$*' exited $rc" >&2; return 1 ;;
		esac
		awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }' >>"$work/times"
	done
	sort -g "$work/times" | sed -n "$(((runs + 1) / 2))p"
}
gz() { gzip -dc "$work/b.json.gz"; gzip -dc "$work/n.json.gz"; }
t_gz=$(median gz)
t_diff=$(median "$tg" diff "$work/b.json.gz" "$work/n.json.gz" --format md -o "$work/d.md")
points=$(grep -o '([0-9]* points of divergence' "$work/d.md" | tr -dc 0-9)
ratio=$(awk -v a="$t_diff" -v b="$t_gz" 'BEGIN { printf "%.4f", a / b }')
printf 'bench: diverge: %s ops a side, %s points of divergence: diff %.3f s, gzip -dc of both %.3f s: %.2fx (target <= 2x)\n' \
	"$ops" "${points:-?}" "$t_diff" "$t_gz" "$ratio"
fail=0
awk -v r="$ratio" 'BEGIN { exit !(r <= 2) }' || { echo "bench: diverge: over the 2x target" >&2; fail=1; }

# the reversed-names curve
runs=3
: >"$work/curve"
for n in 15000 30000 60000 120000; do
	"$gen" --steps 1 --distinct-ops $n -o "$work/f.json"
	"$gen" --steps 1 --distinct-ops $n --reverse-ops -o "$work/r.json"
	t=$(median "$tg" diff "$work/f.json" "$work/r.json" --format md -o "$work/d.md")
	echo "$n $t" >>"$work/curve"
done
awk '{ n[NR] = $1; t[NR] = $2 } END {
	line = "bench: diverge: reversed names:"
	for (i = 1; i <= NR; i++) {
		line = line sprintf(" %dk ops %.2f s", n[i] / 1000, t[i])
		if (i > 1) # the growth, and what n log n predicts
			line = line sprintf(" (x%.2f, n log n x%.2f)", t[i] / t[i - 1], n[i] * log(n[i]) / (n[i - 1] * log(n[i - 1])))
		line = line (i < NR ? ";" : "")
	}
	print line
	e = log(t[NR] / t[1]) / log(n[NR] / n[1])
	printf "bench: diverge: time ~ ops^%.2f from %dk to %dk (n log n: ^%.2f, quadratic ^2; target <= 1.3), %dk in %.2f s (target < 10 s)\n", e, n[1] / 1000, n[NR] / 1000, 1 + log(log(n[NR]) / log(n[1])) / log(n[NR] / n[1]), n[NR] / 1000, t[NR]
	exit !(e <= 1.3 && t[NR] < 10)
}' "$work/curve" || { echo "bench: diverge: the reversed-names curve missed its target" >&2; fail=1; }
exit $fail
