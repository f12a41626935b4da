#!/bin/sh
# cli_h200_noise.sh - the gate on real H200 training runs of known changes
# (../shared/traces/h200-dev, SOURCES-h200-dev.md: separate processes on
# one GPU), issue 13: three runs of the same code pass against each other
# in every order; attention dropout (dropout2) blocks against every base
# run, and so does the misaligned GEMM; several runs a side (BASE... --
# NEW...) are judged with runs as the samples; --noise-from a third base
# run widens the interval of every sampled rule and still blocks dropout2.
# Skipped, saying so, without $TG_SHARED/traces (default ../shared).
# Usage: sh tests/cli_h200_noise.sh TRACEGATE
set -u
TG=$1
SHARED=${TG_SHARED:-../shared}
DIR=$SHARED/traces/h200-dev
if [ ! -d "$DIR/base_r1" ] || [ ! -d "$DIR/dropout2_r1" ]; then
	echo "# SKIP cli_h200_noise: $DIR is absent (set TG_SHARED)"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"
t() { echo "$DIR/$1/rank0.pt.trace.json.gz"; }
run() { "$TG" diff "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }

for b in base_r1 base_r2 base_r3; do
	for n in base_r1 base_r2 base_r3; do
		[ $b = $n ] && continue
		run "$(t $b)" "$(t $n)"
		[ "$rc" -eq 0 ] && grep -q "^tracegate diff: pass" "$tmp/out" && ok "$b -> $n passes" \
			|| not_ok "$b -> $n" "exit $rc: $(head -1 "$tmp/out") $(head -c 200 "$tmp/err")"
	done
	for n in dropout2_r1 dropout2_r2; do
		run "$(t $b)" "$(t $n)"
		[ "$rc" -eq 1 ] && grep -q "^tracegate diff: block: sdpa-" "$tmp/out" && ok "$b -> $n blocks on SDPA" \
			|| not_ok "$b -> $n" "exit $rc: $(head -1 "$tmp/out")"
	done
	run "$(t $b)" "$(t gemm_misaligned_r1)"
	[ "$rc" -eq 1 ] && grep -q "^tracegate diff: block: gemm GEMM" "$tmp/out" && ok "$b -> gemm_misaligned_r1 blocks on GEMM" \
		|| not_ok "$b -> gemm_misaligned_r1" "exit $rc: $(head -1 "$tmp/out")"
done

run "$(t base_r1)" "$(t base_r2)" -- "$(t dropout2_r1)" "$(t dropout2_r2)"
[ "$rc" -eq 1 ] && grep -q "^tracegate diff: block: sdpa-" "$tmp/out" && ok "two runs a side: dropout2 blocks" \
	|| not_ok "two runs a side: dropout2" "exit $rc: $(head -1 "$tmp/out")"
grep -q "^Noise between runs (sd of one run): sdpa-forward +-" "$tmp/out" && ok "two runs a side: the noise is said" \
	|| not_ok "two runs a side: noise line" "$(grep -i noise "$tmp/out")"
run "$(t base_r1)" "$(t base_r2)" -- "$(t base_r3)"
[ "$rc" -eq 0 ] && ok "base_r1 base_r2 -- base_r3 passes" || not_ok "base_r1 base_r2 -- base_r3" "exit $rc: $(head -1 "$tmp/out")"

run "$(t base_r1)" "$(t dropout2_r1)" --noise-from "$(t base_r3)"
[ "$rc" -eq 1 ] && ok "base_r1 -> dropout2_r1 --noise-from base_r3 still blocks" \
	|| not_ok "--noise-from: dropout2" "exit $rc: $(head -1 "$tmp/out")"

if command -v python3 >/dev/null 2>&1; then
	"$TG" diff "$(t base_r1)" "$(t base_r2)" --format json >"$tmp/plain.json"
	"$TG" diff "$(t base_r1)" "$(t base_r2)" --noise-from "$(t base_r3)" --format json >"$tmp/noise.json"
	python3 - "$tmp/plain.json" "$tmp/noise.json" <<'PY' && ok "--noise-from widens every sampled interval" || not_ok "--noise-from widens" "see above"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["verdict"] == "pass" and b["verdict"] == "pass", (a["verdict"], b["verdict"])
ra = {r["rule"]: r for r in a["results"] if r["item"] == ""}
rb = {r["rule"]: r for r in b["results"] if r["item"] == ""}
for name in ("sdpa-forward", "sdpa-backward", "gemm", "gpu-busy"):
    x, y = ra[name], rb[name]
    wa, wb = x["pct_hi"] - x["pct_lo"], y["pct_hi"] - y["pct_lo"]
    print("# %-13s without %+.2f..%+.2f %%, with --noise-from %+.2f..%+.2f %% (noise +-%.2f %%)"
          % (name, x["pct_lo"], x["pct_hi"], y["pct_lo"], y["pct_hi"], y["noise_pct"]))
    assert x["noise_pct"] is None and x["runs_base"] == 1 and x["runs_new"] == 1, x
    assert y["noise_pct"] > 0 and y["noise_df"] == 1, y
    assert wb > wa and y["pct_lo"] < x["pct_lo"] and y["pct_hi"] > x["pct_hi"], (name, wa, wb)
    assert abs(x["pct"] - y["pct"]) < 1e-9
PY
fi

echo "cli_h200_noise: $fails failed"
[ "$fails" -eq 0 ]
