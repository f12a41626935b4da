#!/bin/sh
# diverge.sh - `make bench`, the divergence part: `diff` (tree diff on, the
# default) of a generated pair of training traces of about 120,000 ops
# each, whose every attention call and every layer diverges (tg-gen
# --split-attention 1.0 --extra-op aten::gelu), against `gzip -dc` of both
# files, median of 5 runs each.
#   target: diff at most 2x gzip -dc of both files (issue 14: the table of
#           divergences was quadratic; 54 s for such a pair)
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
# median wall time of 5 runs of "$@" (output discarded)
median() {
	for i in 1 2 3 4 5; do
		t0=$(now)
		"$@" >/dev/null 2>&1
		t1=$(now)
		awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }' 
	done | sort -g | sed -n 3p
}
gz() { gzip -dc "$work/b.json.gz"; gzip -dc "$work/n.json.gz"; }
t_gz=$(median gz)
t_diff=$(median "$tg" diff "$work/b.json.gz" "$work/n.json.gz" --format md -o "$work/d.md")
points=$(grep -o '([0-9]* points of divergence' "$work/d.md" | tr -dc 0-9)
ratio=$(awk -v a="$t_diff" -v b="$t_gz" 'BEGIN { printf "%.4f", a / b }')
printf 'bench: diverge: %s ops a side, %s points of divergence: diff %.3f s, gzip -dc of both %.3f s: %.2fx (target <= 2x)\n' \
	"$ops" "${points:-?}" "$t_diff" "$t_gz" "$ratio"
awk -v r="$ratio" 'BEGIN { exit !(r <= 2) }' || { echo "bench: diverge: over the 2x target" >&2; exit 1; }
