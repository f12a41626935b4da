#!/bin/sh
# cli_gen.sh - the synthetic trace generator (tests/gen/, build/tg-gen) and
# tracegate's reader and report checked against the generator's ground
# truth (--summary): determinism, gzip, per-category kernel times, known
# changes (--sdpa-scale, --split-attention, --extra-op), ranks and the
# straggler, host syncs, the between-run noise model, bad options.
# Usage: sh tests/cli_gen.sh TRACEGATE   (generator: $TG_GEN, default build/tg-gen)
set -u
TG=$1
. "$(dirname "$0")/tap.sh"
tap_tmp
tap_generator

# Small shapes keep every trace well under a megabyte.
SMALL="--layers 2 --batch 2 --seq 256 --hidden 256 --heads 4 --steps 3"

# gen NAME ARGS...: writes $tmp/NAME.json (or the -o given) and its ground
# truth $tmp/NAME.sum; fails the test on a non-zero exit.
gen() {
	n=$1; shift
	if "$GEN" --summary -o "$tmp/$n.json" "$@" 2>"$tmp/$n.sum"; then
		return 0
	fi
	not_ok "generate $n" "$(head -c 300 "$tmp/$n.sum")"
	return 1
}

# report NAME [ARGS...]: tracegate's CSV report of $tmp/NAME.json in $tmp/NAME.r
report() {
	n=$1; shift
	"$TG" report "$tmp/$n.json" --format csv -o "$tmp/$n.r" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne 0 ] || [ -s "$tmp/err" ]; then
		not_ok "report $n" "exit $rc: $(head -c 300 "$tmp/err")"
		return 1
	fi
}

# truth NAME ROW COLUMN: a value of the ground truth (ROW: a step or "all")
truth() {
	awk -F, -v row="$2" -v col="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$1 == row { print $(c[col]); exit }' "$tmp/$1.sum"
}

# category_ms NAME CATEGORY: total_direct_kernel_time_ms of an op category
category_ms() {
	awk -F, -v cat="$2" '$1 == cat { print $3; found = 1 } END { if (!found) print 0 }' \
		"$tmp/$1.r/ops_summary_by_category.csv"
}

# timeline_ms NAME TYPE: a row of gpu_timeline.csv
timeline_ms() {
	awk -F, -v t="$2" '$1 == t { print $2 }' "$tmp/$1.r/gpu_timeline.csv"
}

# kernels NAME [CATEGORY]: kernel count from kernel_summary.csv (the kernel
# name may hold commas; the count is the sixth field from the end)
kernels() {
	awk -F, -v cat="${2:-}" 'NR > 1 && (cat == "" || $1 == cat) { n += $(NF - 5) } END { print n + 0 }' \
		"$tmp/$1.r/kernel_summary.csv"
}

# near A B TOL: |A - B| <= TOL * max(|B|, 1e-12)
near() {
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b;
		if (m < 1e-12) m = 1e-12; exit !(d <= t * m) }'
}

# ---------------------------------------------------------------- basics

"$GEN" --help >"$tmp/help" 2>&1 && grep -q -- '--split-attention' "$tmp/help" \
	&& ok "--help" || not_ok "--help" "$(head -3 "$tmp/help")"

FULL="$SMALL --train --python --noise 4 --jitter 2 --host-sync 1"
gen det1 $FULL --seed 7 && gen det2 $FULL --seed 7 && gen det3 $FULL --seed 8
check "same seed, same bytes" "files differ" cmp -s "$tmp/det1.json" "$tmp/det2.json"
check "same seed, same ground truth" "summaries differ" cmp -s "$tmp/det1.sum" "$tmp/det2.sum"
check "another seed with noise differs" "identical" sh -c "! cmp -s '$tmp/det1.json' '$tmp/det3.json'"
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); e=d["traceEvents"]; assert d["schemaVersion"]==1; assert {x.get("cat") for x in e} >= {"cpu_op","cuda_runtime","cuda_driver","kernel","gpu_memcpy","python_function","user_annotation","ac2g","fwdbwd","cuda_sync","gpu_user_annotation"}' "$tmp/det1.json" \
		&& ok "valid JSON with every category" || not_ok "valid JSON" "python3 json.load failed"
fi
report det1 && ok "tracegate reads it"
"$TG" modules "$tmp/det1.json" >"$tmp/out" 2>&1 && grep -q ' TransformerLayer_1$' "$tmp/out" \
	&& ok "nn.Module frames become modules" || not_ok "modules" "$(head -5 "$tmp/out")"

gen gz $FULL --seed 7 -o "$tmp/gz.json.gz"
check "gz output is gzip" "gzip -t failed" gzip -t "$tmp/gz.json.gz"
check "gz holds the same JSON" "differs from the plain file" sh -c "gzip -dc '$tmp/gz.json.gz' | cmp -s - '$tmp/det1.json'"
if "$TG" report "$tmp/gz.json.gz" --format csv -o "$tmp/gz.r" >/dev/null 2>"$tmp/err" && [ ! -s "$tmp/err" ]; then
	check "gz report equals the plain one" "gpu_timeline differs" cmp -s "$tmp/gz.r/gpu_timeline.csv" "$tmp/det1.r/gpu_timeline.csv"
else
	not_ok "report of the gz trace" "$(head -c 300 "$tmp/err")"
fi
"$GEN" $SMALL --seed 7 >"$tmp/stdout.json" 2>"$tmp/err" && gen file $SMALL --seed 7 \
	&& check "-o - writes to stdout" "stdout differs from -o FILE" cmp -s "$tmp/stdout.json" "$tmp/file.json"

# ------------------------------------------------- report vs ground truth

# det1: training with noise, jitter, Python frames, a host sync
for c in "SDPA_fwd sdpa_fwd_us" "SDPA_bwd sdpa_bwd_us" "GEMM gemm_us"; do
	set -- $c
	ms=$(category_ms det1 "$1"); us=$(truth det1 all "$2")
	check "$1 time equals the ground truth ($us us)" "report $ms ms" near "$ms" "$(awk -v u="$us" 'BEGIN { print u / 1000 }')" 1e-6
done
busy=$(timeline_ms det1 busy_time); tbusy=$(truth det1 all busy_us)
check "busy time equals the ground truth ($tbusy us)" "report $busy ms" near "$busy" "$(awk -v u="$tbusy" 'BEGIN { print u / 1000 }')" 1e-9
n=$(kernels det1); tn=$(truth det1 all kernels)
check "kernel count equals the ground truth ($tn)" "report $n" [ "$n" = "$tn" ]
if report det1 --step 2; then
	busy=$(timeline_ms det1 busy_time); tbusy=$(truth det1 2 busy_us)
	check "step 2 busy time equals the ground truth ($tbusy us)" "report $busy ms" near "$busy" "$(awk -v u="$tbusy" 'BEGIN { print u / 1000 }')" 1e-9
fi
syncs=$(awk -F, '$1 == "cudaStreamSynchronize" { n += $4 } END { print n + 0 }' "$tmp/det1.r/host_syncs.csv" 2>/dev/null)
check "one host sync per step in step 2" "host_syncs.csv: $syncs" [ "$syncs" = 1 ]

# ------------------------------------------------------- known changes

gen base $SMALL && gen sdpa $SMALL --sdpa-scale 1.07 && report base && report sdpa
b=$(category_ms base SDPA_fwd); s=$(category_ms sdpa SDPA_fwd)
check "--sdpa-scale 1.07: SDPA_fwd x 1.07" "$b ms -> $s ms" near "$s" "$(awk -v b="$b" 'BEGIN { printf "%.17g", b * 1.07 }')" 1e-9
check "--sdpa-scale 1.07: GEMM unchanged" "$(category_ms base GEMM) -> $(category_ms sdpa GEMM)" \
	[ "$(category_ms base GEMM)" = "$(category_ms sdpa GEMM)" ]
check "--sdpa-scale 1.07: report equals the ground truth" "$s ms" near "$s" "$(awk -v u="$(truth sdpa all sdpa_fwd_us)" 'BEGIN { print u / 1000 }')" 1e-6

gen split $SMALL --split-attention 1.08 && report split
s=$(category_ms split SDPA_fwd)
check "--split-attention 1.08: SDPA_fwd x 1.08" "$b ms -> $s ms" near "$s" "$(awk -v b="$b" 'BEGIN { printf "%.17g", b * 1.08 }')" 1e-9
kb=$(kernels base SDPA_fwd); ks=$(kernels split SDPA_fwd)
check "--split-attention: one more kernel per attention" "$kb -> $ks kernels (2 layers x 3 steps)" [ "$ks" -eq $((kb + 6)) ]
check "--split-attention: ground truth counts them" "$(truth split all kernels)" [ "$(truth split all kernels)" -eq $(($(truth base all kernels) + 6)) ]
grep -q 'flash_fwd_splitkv_combine_kernel' "$tmp/split.r/kernel_summary.csv" \
	&& ok "--split-attention: the combine kernel is listed" || not_ok "combine kernel" "not in kernel_summary.csv"

gen extra $SMALL --extra-op aten::gelu && report extra
c=$(awk -F, '$1 == "aten::gelu" { print $6 }' "$tmp/extra.r/ops_summary.csv")
check "--extra-op aten::gelu: a new op, 2 layers x 3 steps" "Count '$c'" [ "$c" = 6 ]
check "--extra-op: absent from the base" "found" sh -c "! grep -q '^aten::gelu,' '$tmp/base.r/ops_summary.csv'"
check "--extra-op: elementwise time grows" "$(category_ms base elementwise) -> $(category_ms extra elementwise)" \
	awk -v a="$(category_ms base elementwise)" -v b="$(category_ms extra elementwise)" 'BEGIN { exit !(b > a) }'
grep -q 'triton_poi_fused_add|mul_0' "$tmp/base.r/kernel_summary.csv" \
	&& ok "a kernel name with '|' survives" || not_ok "'|' kernel name" "not in kernel_summary.csv"
"$TG" report "$tmp/base.json" --format md 2>/dev/null | grep -q 'triton\\_poi\\_fused\\_add\\|mul\\_0' \
	&& ok "md escapes the '|' in a kernel name" || not_ok "md escaping" "no triton\\_poi\\_fused\\_add\\|mul\\_0"

gen gemm $SMALL --gemm-scale 1.25 && report gemm
check "--gemm-scale 1.25: GEMM x 1.25" "$(category_ms base GEMM) -> $(category_ms gemm GEMM)" \
	near "$(category_ms gemm GEMM)" "$(awk -v b="$(category_ms base GEMM)" 'BEGIN { printf "%.17g", b * 1.25 }')" 1e-9

# distinct ops (issue 21's reversed names): 50 ops of 50 names a step, one
# kernel each; reversed, the same ops, names and times in the other order
gen distinct --steps 2 --distinct-ops 50 && report distinct
gen reversed --steps 2 --distinct-ops 50 --reverse-ops && report reversed
c=$(awk -F, 'NR > 1 && $1 ~ /^aten::op_/ { n++ } END { print n + 0 }' "$tmp/distinct.r/ops_summary.csv")
check "--distinct-ops 50: 50 op names" "$c" [ "$c" -eq 50 ]
check "--distinct-ops: one kernel per op and step" "$(kernels distinct)" [ "$(kernels distinct)" -eq 100 ]
first() { grep -o '"aten::op_[0-9]*"' "$tmp/$1.json" | head -1; }
check "--reverse-ops: the last op first" "$(first reversed)" [ "$(first reversed)" = '"aten::op_0000050"' ]
check "--reverse-ops: the same kernel time" "$(timeline_ms distinct computation) ms" \
	[ "$(truth distinct all kernel_us)" = "$(truth reversed all kernel_us)" ]

# ----------------------------------------------------------------- ranks

R2="$SMALL --train --ranks 2 --straggler 1 --skew-us 40 --link-gbps 50"
gen r0 $R2 --rank 0 && gen r1 $R2 --rank 1
if "$TG" report "$tmp/r0.json" "$tmp/r1.json" --format csv -o "$tmp/ranks" >/dev/null 2>"$tmp/err" && [ ! -s "$tmp/err" ]; then
	ok "two ranks report"
	for r in r0 r1; do
		comm=$(awk -F, '$1 == "total_comm_time" { print $2 }' "$tmp/ranks/$r/gpu_timeline.csv")
		tc=$(truth "$r" all comm_us)
		check "$r: total_comm_time equals the ground truth ($tc us)" "report $comm ms" \
			near "$comm" "$(awk -v u="$tc" 'BEGIN { print u / 1000 }')" 1e-9
	done
	grep -q 'ncclDevKernel_AllReduce_Sum_bf16_RING_LL' "$tmp/ranks/r0/kernel_summary.csv" \
		&& ok "NCCL kernels in the report" || not_ok "NCCL kernels" "not in kernel_summary.csv"
	# nccl_summary_implicit_sync: skew in start time_mean, bus bw (GB/s)_mean, count
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ s = $(c["skew in start time_mean"]); b = $(c["bus bw (GB/s)_mean"]); n = $(c["count"]) }
		END { d = b - 50; if (d < 0) d = -d; exit !(s == 40 && d < 50e-5 && n == 3) }' \
		"$tmp/ranks/nccl_summary_implicit_sync.csv" \
		&& ok "skew 40 us and bus bandwidth 50 GB/s recovered" \
		|| not_ok "skew and bandwidth" "$(cat "$tmp/ranks/nccl_summary_implicit_sync.csv")"
	awk -F, 'NR > 1 && $NF == 1 { r = $1 } END { exit !(r == 1) }' "$tmp/ranks/nccl_straggler_summary.csv" \
		&& ok "rank 1 is the straggler" || not_ok "straggler" "$(cat "$tmp/ranks/nccl_straggler_summary.csv")"
else
	not_ok "two ranks report" "$(head -c 300 "$tmp/err")"
fi
grep -q '"distributedInfo": {"backend": "nccl", "rank": 1, "world_size": 2' "$tmp/r1.json" \
	&& ok "distributedInfo names the rank" || not_ok "distributedInfo" "missing"

# ---------------------------------------------------------- other shapes

gen nosteps $SMALL --steps 0 && report nosteps
check "--steps 0: no ProfilerStep" "found one" sh -c "! grep -q 'ProfilerStep#' '$tmp/nosteps.json'"
check "--steps 0: ground truth has only the total" "$(wc -l <"$tmp/nosteps.sum") lines" [ "$(wc -l <"$tmp/nosteps.sum")" -eq 2 ]
gen target --layers 1 --batch 1 --seq 128 --hidden 128 --heads 2 --target-mb 1
size=$(wc -c <"$tmp/target.json")
check "--target-mb 1: about 1 MB" "$size bytes" [ "$size" -ge 1000000 -a "$size" -lt 1100000 ]
report target && ok "--target-mb trace reads"
gen gpu $SMALL --gpu "NVIDIA A100-SXM4-80GB" --cuda 12.1 --driver 12020
grep -q '"name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85198045184' "$tmp/gpu.json" \
	&& grep -q '"cuda_runtime_version": 12010,' "$tmp/gpu.json" && grep -q '"cuda_driver_version": 12020,' "$tmp/gpu.json" \
	&& ok "--gpu, --cuda, --driver" || not_ok "--gpu, --cuda, --driver" "$(head -c 600 "$tmp/gpu.json")"

# ------------------------------------------------------------ between-run noise

# --run-noise: one factor per run (per seed) on every compute kernel: two
# seeds differ, by the same ratio in GEMM and SDPA; --family-noise: one
# factor per family, so the ratios differ
last_row() { "$GEN" --train --steps 2 "$@" --summary -o "$tmp/rn.json" 2>&1 >/dev/null | tail -1; }
r1=$(last_row --seed 1 --run-noise 2); r2=$(last_row --seed 2 --run-noise 2)
f1=$(last_row --seed 1 --family-noise 2); f2=$(last_row --seed 2 --family-noise 2)
awk -v a="$r1" -v b="$r2" -v c="$f1" -v d="$f2" 'BEGIN {
	split(a, x, ","); split(b, y, ","); split(c, u, ","); split(d, v, ",")
	gr = y[4] / x[4]; sr = y[5] / x[5]; gf = v[4] / u[4]; sf = v[5] / u[5]
	ok = gr != 1 && (gr / sr - 1) ^ 2 < 1e-8 && (gf / sf - 1) ^ 2 > 1e-6
	exit ok ? 0 : 1 }' && ok "--run-noise moves every family alike, --family-noise each its own" \
	|| not_ok "--run-noise, --family-noise" "$r1 / $r2 / $f1 / $f2"
[ "$(last_row --seed 3 --run-noise 2)" = "$(last_row --seed 3 --run-noise 2)" ] && ok "--run-noise: the same seed, the same run" \
	|| not_ok "--run-noise determinism" "differs"

# ------------------------------------------------------------ bad options

expect_usage() { # name, expected stderr line, args...
	name=$1; want=$2; shift 2
	"$GEN" "$@" -o "$tmp/bad.json" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	lines=$(wc -l <"$tmp/err")
	if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && [ "$(cat "$tmp/err")" = "$want" ] && [ ! -s "$tmp/out" ] && [ ! -e "$tmp/bad.json" ]; then
		ok "$name"
	else
		not_ok "$name" "exit $rc, $lines lines: $(head -c 300 "$tmp/err")"
	fi
}
expect_usage "unknown option" "tg-gen: unknown option --frobnicate (see tg-gen --help)" --frobnicate
expect_usage "not a number" "tg-gen: --steps: 'x' is not an integer in [0, 10000000]" --steps x
expect_usage "heads must divide hidden" "tg-gen: --hidden 1000 is not a multiple of --heads 16" --hidden 1000
expect_usage "rank below ranks" "tg-gen: --rank 2 is not below --ranks 2" --ranks 2 --rank 2
expect_usage "skew needs a straggler" "tg-gen: --skew-us needs --straggler" --ranks 2 --skew-us 5
expect_usage "scale must be positive" "tg-gen: --sdpa-scale: '0' is not a number in (0, 1000]" --sdpa-scale 0
expect_usage "run noise range" "tg-gen: --run-noise: '60' is not a number in [0, 50]" --run-noise 60
expect_usage "reverse needs distinct ops" "tg-gen: --reverse-ops needs --distinct-ops" --reverse-ops
expect_usage "stray argument" "tg-gen: unexpected argument 'trace.json' (see tg-gen --help)" trace.json
"$GEN" --steps >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && [ "$(cat "$tmp/err")" = "tg-gen: --steps needs a value" ] \
	&& ok "missing value" || not_ok "missing value" "$(cat "$tmp/err")"

[ "$fails" -eq 0 ]
