#!/bin/sh
# cli_plant.sh - tg-plant (tests/plant/, build/tg-plant), the tool that plants
# a known change into a real trace: no change keeps every byte; the jitter
# is seeded (same seed, same bytes; another seed, other bytes) and within
# its range; --scale multiplies one category by its factor and no other,
# measured by tracegate's own report; --kernel by name; bad options exit 2
# with one line. On a generated trace (no ../shared needed), and on a real
# CUDA-graph trace when $TG_SHARED/traces is there.
# Usage: sh tests/cli_plant.sh TRACEGATE   (tools: $TG_PLANT, $TG_GEN)
set -u
TG=$1
PLANT=${TG_PLANT:-build/tg-plant}
SHARED=${TG_SHARED:-../shared}
. "$(dirname "$0")/tap.sh"
tap_tmp
tap_generator
if [ ! -x "$PLANT" ]; then
	not_ok "tg-plant" "$PLANT is missing (make build/tg-plant)"
	tap_exit
fi
if ! command -v python3 >/dev/null 2>&1; then
	not_ok "cli_plant" "python3 is needed to read the reports"
	tap_exit
fi
"$GEN" --train --layers 2 --batch 2 --seq 256 --hidden 256 --heads 4 --steps 2 -o "$tmp/g.json" 2>/dev/null \
	|| { not_ok "generate" "tg-gen failed"; tap_exit; }

# category time (us) of a trace from tracegate's own report
cat_us() { # TRACE CATEGORY
	"$TG" report "$1" --format json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(r[4] * 1000 for r in d["traces"][0]["tables"]["kernel_categories"]["rows"] if r[0] == sys.argv[1]))' "$2"
}
# ratio A B: A / B with 6 decimals
ratio() { python3 -c 'import sys; print("%.6f" % (float(sys.argv[1]) / float(sys.argv[2])))' "$1" "$2"; }
within() { python3 -c 'import sys; v, lo, hi = map(float, sys.argv[1:]); sys.exit(0 if lo <= v <= hi else 1)' "$@"; }

"$PLANT" "$tmp/g.json" "$tmp/same.json" 2>"$tmp/err"
check "no change: every byte kept" "$(cat "$tmp/err")" cmp -s "$tmp/g.json" "$tmp/same.json"

"$PLANT" --seed 7 --jitter 2 "$tmp/g.json" "$tmp/j1.json" && "$PLANT" --seed 7 --jitter 2 "$tmp/g.json" "$tmp/j2.json" \
	&& "$PLANT" --seed 8 --jitter 2 "$tmp/g.json" "$tmp/j3.json"
check "jitter: the same seed gives the same bytes" "j1 and j2 differ" cmp -s "$tmp/j1.json" "$tmp/j2.json"
if cmp -s "$tmp/j1.json" "$tmp/j3.json"; then not_ok "jitter: another seed, other bytes" "j1 = j3"; else ok "jitter: another seed, other bytes"; fi
# every kernel moves by at most 2 %, and some move
python3 - "$tmp/g.json" "$tmp/j1.json" <<'PY' && ok "jitter: every kernel within +-2 %, most moved" || not_ok "jitter range" "see above"
import json, sys
a, b = (json.load(open(p))["traceEvents"] for p in sys.argv[1:])
k = [(x["dur"], y["dur"]) for x, y in zip(a, b) if x.get("cat") == "kernel"]
moved = sum(1 for x, y in k if x != y)
bad = [(x, y) for x, y in k if abs(y / x - 1) > 0.0201 and x > 1]
print("# %d kernels, %d moved, %d out of range" % (len(k), moved, len(bad)))
sys.exit(0 if not bad and moved > len(k) / 2 else 1)
PY

"$PLANT" --scale 'GEMM=1.5' "$tmp/g.json" "$tmp/gemm.json" 2>"$tmp/err"
g0=$(cat_us "$tmp/g.json" GEMM) g1=$(cat_us "$tmp/gemm.json" GEMM)
s0=$(cat_us "$tmp/g.json" SDPA_fwd) s1=$(cat_us "$tmp/gemm.json" SDPA_fwd)
r=$(ratio "$g1" "$g0")
check "--scale GEMM=1.5: GEMM x $r (tracegate's report)" "GEMM $g0 -> $g1 us" within "$r" 1.4999 1.5001
check "--scale GEMM=1.5: SDPA_fwd unchanged" "SDPA_fwd $s0 -> $s1 us" within "$(ratio "$s1" "$s0")" 1 1
"$PLANT" --kernel '*flash_fwd*=1.25' --summary "$tmp/g.json" "$tmp/k.json" 2>"$tmp/sum"
r=$(ratio "$(cat_us "$tmp/k.json" SDPA_fwd)" "$s0")
check "--kernel GLOB=1.25: the flash forward kernels x $r" "$(cat "$tmp/sum")" within "$r" 1.2499 1.2501
grep -q '^SDPA_fwd,[0-9]*,[0-9.]*,[0-9.]*,1.2500$' "$tmp/sum" \
	&& ok "--summary: a category's factor" || not_ok "--summary" "$(cat "$tmp/sum")"
# the first matching --scale wins: factors never compound
"$PLANT" --scale 'SDPA_*=1.1' --kernel '*flash*=3' "$tmp/g.json" "$tmp/first.json"
r=$(ratio "$(cat_us "$tmp/first.json" SDPA_fwd)" "$s0")
check "the first matching factor wins (x $r, not x 3.3)" "" within "$r" 1.0999 1.1001

for bad in "--jitter 200" "--scale GEMM" "--scale GEMM=x" "--seed x" "--nope"; do
	# shellcheck disable=SC2086
	"$PLANT" $bad "$tmp/g.json" "$tmp/bad.json" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^tg-plant: ' "$tmp/err"; then
		ok "bad option '$bad': exit 2, one line"
	else
		not_ok "bad option '$bad'" "exit $rc: $(cat "$tmp/err")"
	fi
done
printf '{"traceEvents": [' >"$tmp/trunc.json"
"$PLANT" "$tmp/trunc.json" "$tmp/o.json" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && grep -q "trunc.json" "$tmp/err" && ok "a truncated trace: exit 1, the file named" \
	|| not_ok "truncated trace" "exit $rc: $(cat "$tmp/err")"

# a real CUDA-graph replay: the attention kernels inside the graph are scaled
V=$SHARED/traces/tracelens/tests/traces/inference/vllm_decode_full/graph_execution.json.gz
if [ -f "$V" ]; then
	"$PLANT" --scale 'SDPA_*=1.08' "$V" "$tmp/v.json.gz" 2>"$tmp/err"
	r=$(ratio "$(cat_us "$tmp/v.json.gz" SDPA_fwd)" "$(cat_us "$V" SDPA_fwd)")
	check "vllm_decode_full: the graph-replayed attention x $r" "$(cat "$tmp/err")" within "$r" 1.0799 1.0801
	r=$(ratio "$(cat_us "$tmp/v.json.gz" MoE)" "$(cat_us "$V" MoE)")
	check "vllm_decode_full: MoE unchanged" "x $r" within "$r" 1 1
else
	skip "vllm_decode_full" "$V is absent (set TG_SHARED)"
fi
tap_exit
