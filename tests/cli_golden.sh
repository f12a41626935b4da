#!/bin/sh
# cli_golden.sh - holds what tracegate prints for every shared trace, byte
# for byte: the report of each trace (text, md, json, csv, html) and the
# diffs of known pairs (text, md: the pull-request comment, json), with
# their exit status and stderr, as one SHA-256 line each in
# tests/golden/outputs.sha256. A refactoring must leave every line as it
# is; a change that means to alter an output regenerates the file with
#   TG_GOLDEN_UPDATE=1 sh tests/cli_golden.sh ./tracegate
# and the commit shows which outputs moved (say why in its message).
# Skipped, saying so, without $TG_SHARED/traces (default ../shared).
# Usage: sh tests/cli_golden.sh TRACEGATE
set -u
TG=$1
SHARED=${TG_SHARED:-../shared}
T=$SHARED/traces
GOLD=$(dirname "$0")/golden/outputs.sha256
. "$(dirname "$0")/tap.sh"
if [ ! -d "$T" ]; then
	skip "cli_golden" "$T is absent (set TG_SHARED)"
	tap_exit
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The outputs name the traces by the paths they were given, so every run
# reads them as ../shared/traces/..., whatever TG_SHARED and the working
# folder are: from a folder of its own beside a link to the shared folder.
case $GOLD in /*) ;; *) GOLD=$(pwd)/$GOLD ;; esac
case $TG in */*) case $TG in /*) ;; *) TG=$(pwd)/$TG ;; esac ;; esac
ln -s "$(cd "$SHARED" && pwd)" "$tmp/shared"
mkdir "$tmp/cwd" && cd "$tmp/cwd" || exit 1
SHARED=../shared
T=$SHARED/traces
out=$tmp/outputs.sha256
: >"$out"

# hash NAME FILE...: one line "sha256  NAME" over the files' bytes
hash() {
	name=$1; shift
	h=$(cat "$@" | sha256sum | cut -d' ' -f1)
	echo "$h  $name" >>"$out"
}

# run NAME CMD...: the command's stdout, stderr (paths of the shared
# folder replaced so the hash does not depend on where it lies) and status
run() {
	name=$1; shift
	"$@" >"$tmp/o" 2>"$tmp/e"
	echo "exit $?" >"$tmp/s"
	sed "s|$SHARED/|SHARED/|g" "$tmp/e" >"$tmp/e2"
	hash "$name" "$tmp/o" "$tmp/e2" "$tmp/s"
}

# every trace of the shared folder, by its path below it
(cd "$T" && find . -name '*.json' -o -name '*.json.gz' | sed 's|^\./||' | LC_ALL=C sort) >"$tmp/list"
while read -r rel; do
	f=$T/$rel
	for fmt in text md json; do
		run "report $fmt $rel" "$TG" report "$f" --format "$fmt"
	done
	rm -rf "$tmp/csv" "$tmp/report.html"
	"$TG" report "$f" --format csv -o "$tmp/csv" >/dev/null 2>&1
	if [ -d "$tmp/csv" ] && [ -n "$(ls "$tmp/csv")" ]; then
		(cd "$tmp/csv" && for c in $(ls | LC_ALL=C sort); do echo "== $c"; cat "$c"; done) >"$tmp/csvall"
		hash "report csv $rel" "$tmp/csvall"
	fi
	"$TG" report "$f" --format html -o "$tmp/report.html" >/dev/null 2>&1
	[ -f "$tmp/report.html" ] && hash "report html $rel" "$tmp/report.html"
done <"$tmp/list"

# diffs of pairs that differ in known ways, and of runs of the same code
H=h200-dev
C=tracelens/agent_evals_head/agent_evals/Analysis/analysis_tests/unit_tests_comparative
cat >"$tmp/pairs" <<EOF
$H/base_r1/rank0.pt.trace.json.gz $H/base_r2/rank0.pt.trace.json.gz
$H/base_r1/rank0.pt.trace.json.gz $H/dropout2_r1/rank0.pt.trace.json.gz
$H/base_r1/rank0.pt.trace.json.gz $H/gemm_misaligned_r1/rank0.pt.trace.json.gz
$H/compiled_r1/rank0.pt.trace.json.gz $H/compiled_r2/rank0.pt.trace.json.gz
$H/compiled_r1/rank0.pt.trace.json.gz $H/compiled+dropout2_r1/rank0.pt.trace.json.gz
$C/test01_moe_fused_vs_unfused/trace1.json.gz $C/test01_moe_fused_vs_unfused/trace2.json.gz
$C/test03_attention_fused_vs_unfused/trace1.json.gz $C/test03_attention_fused_vs_unfused/trace2.json.gz
$C/test04_gemm_mm_vs_linear/trace1.json.gz $C/test04_gemm_mm_vs_linear/trace2.json.gz
tracelens/tests/traces/tracediff_test/cpu_op_map_trace1.json tracelens/tests/traces/tracediff_test/cpu_op_map_trace2.json
hta/hta_trace_compare_base_rank1.json.gz hta/hta_trace_compare_test_rank1.json.gz
kineto/kineto_MOCK_unittest_H100_cuda_sync_before_fix.json.gz kineto/kineto_MOCK_unittest_H100_cuda_sync_after_fix.json.gz
hta/hta_trace_diff_control_A100_rank3_of8.json.gz hta/hta_trace_diff_test_V100_rank1_of2.json.gz
EOF
while read -r a b; do
	[ -f "$T/$a" ] && [ -f "$T/$b" ] || continue
	for fmt in text md json; do
		# (md: the footer's docs link given, not the build's, which is the clone's origin)
		run "diff $fmt $a $b" "$TG" diff "$T/$a" "$T/$b" --format "$fmt" --allow-hardware-change \
			$( [ "$fmt" = md ] && echo --docs-url https://docs.example/tracegate/docs )
	done
done <"$tmp/pairs"
# several runs a side: the runs as samples
run "diff md runs base -- dropout2" "$TG" diff "$T/$H/base_r1/rank0.pt.trace.json.gz" \
	"$T/$H/base_r2/rank0.pt.trace.json.gz" "$T/$H/base_r3/rank0.pt.trace.json.gz" -- \
	"$T/$H/dropout2_r1/rank0.pt.trace.json.gz" "$T/$H/dropout2_r2/rank0.pt.trace.json.gz" --format md \
	--docs-url https://docs.example/tracegate/docs

n=$(wc -l <"$out")
if [ "${TG_GOLDEN_UPDATE:-0}" = 1 ]; then
	mkdir -p "$(dirname "$GOLD")"
	cp "$out" "$GOLD"
	ok "golden: wrote $n outputs to $GOLD"
	tap_exit
fi
if [ ! -f "$GOLD" ]; then
	not_ok "golden" "$GOLD is missing (TG_GOLDEN_UPDATE=1 writes it)"
	tap_exit
fi
check "golden: $n outputs, as many as held" "$(wc -l <"$GOLD") held" [ "$n" -eq "$(wc -l <"$GOLD")" ]
if diff "$GOLD" "$out" >"$tmp/d"; then
	ok "golden: every output byte-identical to tests/golden/outputs.sha256"
else
	grep '^>' "$tmp/d" | sed 's/^> [0-9a-f]*  //' | head -20 | while read -r l; do echo "# changed: $l"; done
	not_ok "golden" "$(grep -c '^>' "$tmp/d") outputs differ from tests/golden/outputs.sha256 (listed above)"
fi
tap_exit
