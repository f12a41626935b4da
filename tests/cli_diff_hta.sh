#!/bin/sh
# cli_diff_hta.sh - `tracegate diff` on Holistic Trace Analysis's trace-diff
# pair (../shared/traces/hta: "control", rank 3 of 8 on A100, against
# "test", rank 1 of 2 on V100; SOURCES-hta-kineto.md): the default verdict
# is inconclusive, exit 3, and the reasons name the GPU model and the world
# size that changed, in the text, json and md formats; with the hardware
# change allowed the pair is judged. Skipped, saying so, without
# $TG_SHARED/traces (default ../shared).
# Usage: sh tests/cli_diff_hta.sh TRACEGATE
set -u
TG=$1
SHARED=${TG_SHARED:-../shared}
DIR=$SHARED/traces/hta
BASE=$DIR/hta_trace_diff_control_A100_rank3_of8.json.gz
NEW=$DIR/hta_trace_diff_test_V100_rank1_of2.json.gz
if [ ! -f "$BASE" ] || [ ! -f "$NEW" ]; then
	echo "# SKIP cli_diff_hta: $DIR is absent (set TG_SHARED)"
	exit 77 # a skip (tests/run.sh)
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"
run() { "$TG" diff "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
WHY='GPU NVIDIA A100-PG509-200 -> Tesla V100-SXM2-16GB; world size 8 -> 2'

run "$BASE" "$NEW"
[ "$rc" -eq 3 ] && [ ! -s "$tmp/err" ] && ok "text: exit 3 (inconclusive)" || not_ok "text: exit" "$rc: $(head -c 300 "$tmp/err")"
[ "$(head -1 "$tmp/out")" = "tracegate diff: inconclusive: not comparable ($WHY)" ] \
	&& ok "text: the verdict names the GPU and world size change" || not_ok "text: verdict" "$(head -1 "$tmp/out")"
grep -qx "not comparable: $WHY" "$tmp/out" && ok "text: the not comparable line" \
	|| not_ok "text: not comparable line" "$(grep 'comparable' "$tmp/out")"

run "$BASE" "$NEW" --format json
if [ "$rc" -eq 3 ] && command -v python3 >/dev/null 2>&1; then
	python3 - "$tmp/out" "$WHY" <<'PY' && ok "json: inconclusive, not comparable, every rule inconclusive" || not_ok "json" "see above"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "inconclusive" and d["comparable"] is False, (d["verdict"], d["comparable"])
assert d["hardware_change"] == sys.argv[2], d["hardware_change"]
assert d["base"]["fingerprint"]["gpu"] == "NVIDIA A100-PG509-200" and d["base"]["fingerprint"]["world_size"] == 8
assert d["new"]["fingerprint"]["gpu"] == "Tesla V100-SXM2-16GB" and d["new"]["fingerprint"]["world_size"] == 2
assert d["base"]["steps"] == 6 and d["new"]["steps"] == 6, (d["base"]["steps"], d["new"]["steps"])
assert d["results"] and all(r["verdict"] == "inconclusive" and r["note"] == "not comparable" for r in d["results"])
PY
else
	not_ok "json: exit 3" "exit $rc"
fi

run "$BASE" "$NEW" --format md
[ "$rc" -eq 3 ] && grep -q "^\*\*Not comparable\*\*: GPU NVIDIA A100-PG509-200 -&gt; Tesla V100-SXM2-16GB; world size 8 -&gt; 2\. " "$tmp/out" \
	&& ok "md: the comment says what changed" || not_ok "md: not comparable" "exit $rc: $(grep -i comparable "$tmp/out" | head -2)"

# allowed: judged (not inconclusive for the hardware), the change still said
run "$BASE" "$NEW" --allow-hardware-change --format json
if [ "$rc" -ne 2 ] && [ "$rc" -ne 3 ] && command -v python3 >/dev/null 2>&1; then
	python3 - "$tmp/out" "$WHY" <<'PY' && ok "allowed: judged, the change still named" || not_ok "allowed" "see above"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["comparable"] is True and d["hardware_change"] == sys.argv[2], (d["comparable"], d["hardware_change"])
assert d["verdict"] in ("pass", "warn", "block"), d["verdict"]
assert not any(r["note"] == "not comparable" for r in d["results"])
PY
else
	not_ok "allowed: exit" "$rc: $(head -c 300 "$tmp/err")"
fi

echo "cli_diff_hta: $fails failed"
[ "$fails" -eq 0 ]
