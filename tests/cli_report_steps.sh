#!/bin/sh
# cli_report_steps.sh - `tracegate report --step N` on a 2-rank job from the
# synthetic generator (one NCCL allreduce per step, rank 1 arriving 40 us
# late): every table follows the step, the collectives per rank and across
# ranks and the kernel tables across ranks included; the steps add up to
# the whole trace; a step missing on one rank is an error before any output.
# Usage: sh tests/cli_report_steps.sh TRACEGATE   (generator: $TG_GEN, default build/tg-gen)
set -u
TG=$1
. "$(dirname "$0")/tap.sh"
tap_tmp
tap_generator

# col FILE COLUMN [RANK]: the column's cells, one a line, header excluded
# (CSV with quoted cells that may hold commas, as "[0, 1]"); with RANK, only
# the row whose rank column is RANK.
col() {
	awk -v want="$2" -v rank="${3-}" '
	function split_csv(line, out,    n, i, c, q, cell) {
		n = 0; q = 0; cell = ""
		for (i = 1; i <= length(line); i++) {
			c = substr(line, i, 1)
			if (c == "\"") q = !q
			else if (c == "," && !q) { out[++n] = cell; cell = "" }
			else cell = cell c
		}
		out[++n] = cell
		return n
	}
	NR == 1 { n = split_csv($0, h); for (i = 1; i <= n; i++) { if (h[i] == want) k = i; if (h[i] == "rank") kr = i }; next }
	k { split_csv($0, f); if (rank == "" || f[kr] == rank) print f[k] }' "$1"
}
rows() { echo $(($(wc -l <"$1") - 1)); }
sum() { col "$1" "$2" | awk '{ s += $1 } END { printf "%.6f\n", s }'; }

for r in 0 1; do
	"$GEN" --ranks 2 --rank $r --steps 4 --straggler 1 --skew-us 40 -o "$tmp/rank$r.json.gz" 2>"$tmp/gen.err" ||
		not_ok "generate rank $r" "$(head -c 300 "$tmp/gen.err")"
done
T="$tmp/rank0.json.gz $tmp/rank1.json.gz"

# shellcheck disable=SC2086
if "$TG" report $T --format csv -o "$tmp/all" 2>"$tmp/err" && [ ! -s "$tmp/err" ]; then
	ok "report, whole trace"
else
	not_ok "report, whole trace" "$(head -c 300 "$tmp/err")"
fi
A=$tmp/all
check "whole trace: 4 collectives on rank 0" "$(rows "$A/rank0/coll_per_rank.csv")" [ "$(rows "$A/rank0/coll_per_rank.csv")" = 4 ]
check "whole trace: operation_count 4" "$(col "$A/rank0/coll_analysis.csv" operation_count)" [ "$(col "$A/rank0/coll_analysis.csv" operation_count)" = 4 ]
check "whole trace: 4 matched collectives" "$(rows "$A/nccl_implicit_sync.csv")" [ "$(rows "$A/nccl_implicit_sync.csv")" = 4 ]
check "whole trace: count 4 in the summary" "$(col "$A/nccl_summary_implicit_sync.csv" count)" [ "$(col "$A/nccl_summary_implicit_sync.csv" count)" = 4 ]
ST=$A/nccl_straggler_summary.csv
check "whole trace: rank 1 last 4 times, the straggler" "$(cat "$ST")" \
	[ "$(col "$ST" times_arrived_last 1) $(col "$ST" straggler 1)" = "4 1" ]
check "whole trace: rank 0 waits 4 x 40 us" "$(cat "$ST")" [ "$(col "$ST" total_wait_time_us 0)" = 160.0 ]
whole_dur=$(col "$ST" total_nccl_dur_us 0)
whole_gemm=$(col "$A/kernel_distribution_across_ranks.csv" "total (us)" | head -1)

s_rows=0; s_dur=0; s_gemm=0; s_lat=0; s_wait=0
for s in 1 2 3 4; do
	D=$tmp/s$s
	# shellcheck disable=SC2086
	if ! "$TG" report $T --step $s --format csv -o "$D" 2>"$tmp/err" || [ -s "$tmp/err" ]; then
		not_ok "report --step $s" "$(head -c 300 "$tmp/err")"
	fi
	check "step $s: 1 collective on each rank" "$(rows "$D/rank0/coll_per_rank.csv") $(rows "$D/rank1/coll_per_rank.csv")" \
		[ "$(rows "$D/rank0/coll_per_rank.csv") $(rows "$D/rank1/coll_per_rank.csv")" = "1 1" ]
	check "step $s: operation_count 1" "$(col "$D/rank1/coll_analysis.csv" operation_count)" \
		[ "$(col "$D/rank1/coll_analysis.csv" operation_count)" = 1 ]
	# the step's collective keeps its whole-trace id: the (s-1)-th of group 0
	check "step $s: collective 0_$((s - 1)) matched" "$(col "$D/nccl_implicit_sync.csv" collective_id)" \
		[ "$(col "$D/nccl_implicit_sync.csv" collective_id)" = "0_$((s - 1))" ]
	check "step $s: skew 40 us, rank 1 last" "$(cat "$D/nccl_implicit_sync.csv")" \
		[ "$(col "$D/nccl_implicit_sync.csv" "skew in start time") $(col "$D/nccl_implicit_sync.csv" "latest arrival rank")" = "40.0 1" ]
	check "step $s: count 1 in the summary" "$(col "$D/nccl_summary_implicit_sync.csv" count)" \
		[ "$(col "$D/nccl_summary_implicit_sync.csv" count)" = 1 ]
	check "step $s: num_collectives 1" "$(col "$D/nccl_straggler_summary.csv" num_collectives | tr '\n' ' ')" \
		[ "$(col "$D/nccl_straggler_summary.csv" num_collectives | tr '\n' ' ')" = "1 1 " ]
	check "step $s: the kernel tables across ranks follow the step" "$(head -3 "$D/kernel_distribution_across_ranks.csv")" \
		[ "$(col "$D/kernel_distribution_across_ranks.csv" count | head -1)" -lt "$(col "$A/kernel_distribution_across_ranks.csv" count | head -1)" ]
	s_rows=$((s_rows + $(rows "$D/rank0/coll_per_rank.csv")))
	check "step $s: rank 0 waits 40 us" "$(cat "$D/nccl_straggler_summary.csv")" \
		[ "$(col "$D/nccl_straggler_summary.csv" total_wait_time_us 0)" = 40.0 ]
	s_dur=$(echo "$s_dur $(col "$D/nccl_straggler_summary.csv" total_nccl_dur_us 0)" | awk '{ printf "%.6f", $1 + $2 }')
	s_wait=$(echo "$s_wait $(col "$D/nccl_straggler_summary.csv" total_wait_time_us 0)" | awk '{ printf "%.6f", $1 + $2 }')
	s_gemm=$(echo "$s_gemm $(col "$D/kernel_distribution_across_ranks.csv" "total (us)" | head -1)" | awk '{ printf "%.6f", $1 + $2 }')
	s_lat=$(echo "$s_lat $(sum "$D/nccl_implicit_sync.csv" comm_latency)" | awk '{ printf "%.6f", $1 + $2 }')
done
check "steps add up: 4 collectives" "$s_rows" [ "$s_rows" = 4 ]
check "steps add up: collective time $whole_dur us" "$s_dur" \
	awk -v a="$s_dur" -v b="$whole_dur" 'BEGIN { exit !(a - b < 1e-6 && b - a < 1e-6 && b > 0) }'
check "steps add up: rank 0's wait" "$s_wait" [ "$s_wait" = 160.000000 ]
check "steps add up: comm latency" "$s_lat vs $(sum "$A/nccl_implicit_sync.csv" comm_latency)" \
	[ "$s_lat" = "$(sum "$A/nccl_implicit_sync.csv" comm_latency)" ]
check "steps add up: top kernel's time across ranks $whole_gemm us" "$s_gemm" \
	awk -v a="$s_gemm" -v b="$whole_gemm" 'BEGIN { exit !(a - b < 1e-6 && b - a < 1e-6 && b > 0) }'

# text output names the same step's tables
# shellcheck disable=SC2086
"$TG" report $T --step 3 >"$tmp/out" 2>"$tmp/err"
check "text --step 3: the across-ranks section" "$(head -c 300 "$tmp/err")" grep -q '^== Across ranks$' "$tmp/out"

# a step that one rank lacks: exit 2, one line naming that trace, no output
"$GEN" --ranks 2 --rank 1 --steps 3 -o "$tmp/short.json.gz" 2>"$tmp/gen.err" || not_ok "generate short" "$(head -c 300 "$tmp/gen.err")"
"$TG" report "$tmp/rank0.json.gz" "$tmp/short.json.gz" --step 4 >"$tmp/out" 2>"$tmp/err"
rc=$?
want="tracegate: $tmp/short.json.gz: no ProfilerStep#4 in this trace (3 steps)"
if [ "$rc" -eq 2 ] && [ "$(cat "$tmp/err")" = "$want" ] && [ ! -s "$tmp/out" ]; then
	ok "step missing on one rank: exit 2 before any output"
else
	not_ok "step missing on one rank" "exit $rc: $(head -c 300 "$tmp/err") / $(head -c 100 "$tmp/out")"
fi
"$TG" report "$tmp/rank0.json.gz" "$tmp/short.json.gz" --step 3 --format csv -o "$tmp/s3short" 2>"$tmp/err"
check "a step both ranks have still works" "$(head -c 300 "$tmp/err")" [ -s "$tmp/s3short/nccl_implicit_sync.csv" ]

[ "$fails" -eq 0 ]
