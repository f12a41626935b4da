#!/bin/sh
# cli_h200.sh - `tracegate diff` with the default rules on the real H200
# training runs of known changes (../shared/traces/h200-dev,
# SOURCES-h200-dev.md): every kernel of the torch.compile runs is replayed by
# a CUDA graph, so their SDPA and GEMM categories come from the kernels'
# names (docs/categories.md). Checked:
#   compiled_r1 -> compiled+dropout2_r1   blocks on an SDPA rule
#   compiled_r1 -> compiled_r2            passes (two runs of the same code)
#   base_r1 -> dropout2_r1                blocks on an SDPA rule
#   base_r1 -> gemm_misaligned_r1         blocks on gemm, not on SDPA
# and that the json says where each judged category came from. Skipped,
# saying so, without $TG_SHARED/traces/h200-dev (default ../shared).
# Usage: sh tests/cli_h200.sh TRACEGATE
set -u
TG=$1
SHARED=${TG_SHARED:-../shared}
H=$SHARED/traces/h200-dev
. "$(dirname "$0")/tap.sh"
if [ ! -d "$H" ]; then
	skip "cli_h200" "$H is absent (set TG_SHARED)"
	tap_exit
fi
if ! command -v python3 >/dev/null 2>&1; then
	not_ok "cli_h200" "python3 is needed to read the json"
	tap_exit
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t() { echo "$H/$1/rank0.pt.trace.json.gz"; }

# pair BASE NEW EXIT PYTHON-CHECK NAME
pair() {
	"$TG" diff "$(t "$1")" "$(t "$2")" --format json >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne "$3" ]; then
		not_ok "$5" "exit $rc, want $3: $(head -c 300 "$tmp/err") $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"])' "$tmp/out" 2>/dev/null)"
		return
	fi
	if python3 - "$tmp/out" "$4" <<'PY'; then ok "$5"; else not_ok "$5" "see above"; fi
import json, sys
d = json.load(open(sys.argv[1]))
r = {x["rule"]: x for x in d["results"] if not x["item"]}
check = sys.argv[2]
ok = eval(check, {"r": r, "d": d})
if not ok:
    print("# failed: %s" % check)
    for k, v in r.items():
        print("#   %s: %s %s (%s) from %s" % (k, v["verdict"], v["pct"], v["note"], v["category_from"]))
sys.exit(0 if ok else 1)
PY
}

pair compiled_r1 "compiled+dropout2_r1" 1 \
	'r["sdpa-backward"]["verdict"] == "block" and r["sdpa-backward"]["category_from"] == "kernel name 100 %" and r["gemm"]["verdict"] == "pass"' \
	"compiled -> compiled+dropout2: SDPA backward blocks, its category from the kernels' names"
pair compiled_r1 "compiled+dropout2_r1" 1 \
	'r["sdpa-forward"]["verdict"] == "block" and not r["sdpa-forward"]["unmatched"]' \
	"compiled -> compiled+dropout2: SDPA forward blocks inside the CUDA graph"
pair compiled_r1 compiled_r2 0 \
	'd["verdict"] == "pass" and all(not x["unmatched"] for x in r.values())' \
	"compiled -> compiled (another run): passes, and every rule matched"
pair base_r1 dropout2_r1 1 \
	'r["sdpa-backward"]["verdict"] == "block" and r["gemm"]["verdict"] == "pass"' \
	"base -> dropout2: SDPA blocks"
pair base_r1 gemm_misaligned_r1 1 \
	'r["gemm"]["verdict"] == "block" and r["sdpa-forward"]["verdict"] != "block" and r["sdpa-backward"]["verdict"] != "block"' \
	"base -> gemm_misaligned: GEMM blocks, SDPA does not"

# the text format names the categories' sources under the rules
"$TG" diff "$(t compiled_r1)" "$(t "compiled+dropout2_r1")" >"$tmp/out" 2>&1
grep -qx "where the judged categories came from: SDPA_fwd kernel name 100 %; SDPA_bwd kernel name 100 %; GEMM kernel name 100 %" "$tmp/out" \
	&& ok "text: where the judged categories came from" || not_ok "text: categories' sources" "$(grep -i 'came from' "$tmp/out")"
# the report's table of categories and their evidence
"$TG" report "$(t compiled_r1)" --format csv -o "$tmp/rep" >/dev/null 2>"$tmp/err"
grep -q '^SDPA_bwd,kernel name,FlashAttention-2 backward,72,' "$tmp/rep/kernel_categories.csv" \
	&& ok "report: kernel_categories.csv files the graph-replayed flash backward by name" \
	|| not_ok "report: kernel_categories.csv" "$(head -5 "$tmp/rep/kernel_categories.csv" 2>&1)"
tap_exit
