#!/bin/sh
# cli_findings.sh - the findings (docs/findings.md) from the command line:
# `tracegate report` (text, md, json findings[], csv findings.csv, html),
# its --rules thresholds, and `diff` listing what a pull request brings
# (new, worse, gone) with the fix, and a rule that blocks on a finding.
# First on traces of the generator (a host sync, the attention's math path,
# a straggler rank: known changes), then on the shared real traces, each
# number checked against the trace by a separate script first (the Kineto
# before/after pair, ResNet-50's DataLoader, h200-dev's misaligned GEMMs
# and dropout runs); those are skipped, saying so, without $TG_SHARED.
# Usage: sh tests/cli_findings.sh TRACEGATE
set -u
TG=$1
SHARED=${TG_SHARED:-../shared}
T=$SHARED/traces
. "$(dirname "$0")/tap.sh"
tap_tmp
tap_generator
if ! command -v python3 >/dev/null 2>&1; then
	not_ok "cli_findings" "python3 is needed to read the json"
	tap_exit
fi

# js FILE PYTHON-EXPR: the expression on the json in FILE (d), true or not
js() {
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def f(trace, id, status=None):
    v = [x for x in trace["findings"] if x["id"] == id and (status is None or x["status"] == status)]
    return v[0] if v else None
ok = eval("(" + sys.argv[2] + ")", {"d": d, "f": f})
if not ok:
    print("# failed: " + sys.argv[2])
    for t in d.get("traces", []):
        for x in t["findings"]:
            print("#   %s %s %s %s" % (x["id"], x["status"], x["cost_pct"], x["evidence"][:100]))
    for x in d.get("findings", []) if isinstance(d.get("findings"), list) else []:
        print("#   %s %s" % (x["change"], x["id"]))
sys.exit(0 if ok else 1)
PY
}

"$GEN" --steps 8 --seq 4096 -o "$tmp/base.json"
"$GEN" --steps 8 --seq 4096 --host-sync 2 -o "$tmp/sync.json"
"$GEN" --steps 8 --seq 4096 --sdpa-math 3 -o "$tmp/math.json"
for r in 0 1; do
	"$GEN" --steps 4 --train --ranks 2 --rank $r --straggler 1 --skew-us 800 -o "$tmp/strag$r.json"
done

# ---------------------------------------------------------------- report

"$TG" report "$tmp/sync.json" >"$tmp/out" 2>"$tmp/err"
check "report text: the findings open the report" "$(head -5 "$tmp/out")" \
	grep -q '^Findings: 1 fired, 4 not evaluated, 7 ok (over 8 steps of 5.43 ms)$' "$tmp/out"
check "report text: the host sync, its cost, its place and its fix" "$(grep -A4 host-sync "$tmp/out")" \
	sh -c "grep -q '^  host-sync aten::item: costs 115.6 us a step (2.1 % of the step)$' '$tmp/out' &&
	       grep -q 'fix: keep values on the GPU' '$tmp/out'"
check "report text: what cannot be evaluated says why" "$(grep -A2 'not evaluated' "$tmp/out")" \
	grep -q 'straggler (one rank)' "$tmp/out"

"$TG" report "$tmp/sync.json" --format json >"$tmp/j" 2>"$tmp/err"
check "report json: findings[] with the sync's numbers" "$(cat "$tmp/err")" \
	js "$tmp/j" 'f(d["traces"][0], "host-sync", "fired")["cost_per_step_us"] == 115.58775 and
	             f(d["traces"][0], "host-sync")["count_per_step"] == 2 and
	             f(d["traces"][0], "host-sync")["subject"] == "aten::item" and
	             len(d["traces"][0]["findings"]) == 12 and "tables" in d["traces"][0]'

"$TG" report "$tmp/sync.json" --format csv -o "$tmp/csv" >/dev/null 2>"$tmp/err"
check "report csv: findings.csv" "$(cat "$tmp/err")" \
	sh -c "head -1 '$tmp/csv/findings.csv' | grep -q '^finding,status,subject,rank,per_step,cost_per_step(us),cost_pct,' &&
	       grep -q '^host-sync,fired,aten::item,,2.0,115.58775,' '$tmp/csv/findings.csv'"

"$TG" report "$tmp/sync.json" --format md >"$tmp/md" 2>"$tmp/err"
check "report md: a table of the fired ones" "$(grep -A4 '### Findings' "$tmp/md")" \
	grep -q '^| \*\*host-sync\*\* | <code>aten::item</code> | 115.6 us a step (2.1 % of the step) |' "$tmp/md"

"$TG" report "$tmp/sync.json" --format html -o "$tmp/report.html" >/dev/null 2>"$tmp/err"
check "report html: a findings section and table" "$(cat "$tmp/err")" \
	sh -c "grep -q '<h3>Findings <small>(1 fired' '$tmp/report.html' && grep -q '<code>findings</code>' '$tmp/report.html'"

# thresholds from --rules: host-sync off, the pageable copy at 2 %
cat >"$tmp/r.yaml" <<'EOF'
version: 1
findings:
  host-sync: off
  pageable-memcpy: {min_cost: 2%}
EOF
"$TG" report "$tmp/sync.json" --rules "$tmp/r.yaml" --format json >"$tmp/j" 2>"$tmp/err"
check "report --rules: a finding off is not listed, a threshold moves" "$(cat "$tmp/err")" \
	js "$tmp/j" 'f(d["traces"][0], "host-sync") is None and f(d["traces"][0], "pageable-memcpy")["status"] == "ok"
	             and f(d["traces"][0], "pageable-memcpy")["threshold_pct"] == 2'

"$TG" report "$tmp/math.json" --format json >"$tmp/j" 2>"$tmp/err"
check "report: the attention's math path" "$(cat "$tmp/err")" \
	js "$tmp/j" 'f(d["traces"][0], "attention-backend", "fired")["count_per_step"] == 4 and
	             "aten::_scaled_dot_product_attention_math" in f(d["traces"][0], "attention-backend")["evidence"]'

# two ranks: the straggler across them
"$TG" report "$tmp/strag0.json" "$tmp/strag1.json" --format json >"$tmp/j" 2>"$tmp/err"
check "report of two ranks: rank 1 the straggler, 800 us a step" "$(cat "$tmp/err")" \
	js "$tmp/j" '[x for x in d["across_ranks_findings"] if x["id"] == "straggler"][0]["rank"] == 1 and
	             [x for x in d["across_ranks_findings"] if x["id"] == "straggler"][0]["cost_per_step_us"] == 800 and
	             [x for x in d["across_ranks_findings"] if x["id"] == "straggler"][0]["status"] == "fired" and
	             f(d["traces"][0], "straggler") is None'
"$TG" report "$tmp/strag0.json" "$tmp/strag1.json" >"$tmp/out" 2>"$tmp/err"
check "report text of two ranks: the straggler names the rank, the collective, the time lost" "$(grep -A3 'straggler rank' "$tmp/out")" \
	sh -c "grep -q '^  straggler rank 1: costs 800.0 us a step (16.0 % of the step)$' '$tmp/out' &&
	       tr '\\n' ' ' <'$tmp/out' | grep -q 'rank 1 arrived last at 4 of 4 collectives matched across 2 ranks (100 %; the limit 50 %); the *earliest rank waited 800.0 us a step for it, 800.0 us at most (allreduce)'"

# ---------------------------------------------------------------- diff

"$TG" diff "$tmp/base.json" "$tmp/sync.json" >"$tmp/out" 2>"$tmp/err"
check "diff text: the new host sync with its fix" "$(grep -A4 '^Findings' "$tmp/out")" \
	grep -q '^  new: host sync in aten::item (2 a step) costs 115.6 us a step (2.1 % of the step); fix: keep$' "$tmp/out"
"$TG" diff "$tmp/base.json" "$tmp/math.json" --format md >"$tmp/md" 2>"$tmp/err"
check "diff md (the comment): the math backend is new, with its fix" "$(grep -A3 '#### Findings' "$tmp/md")" \
	grep -q '^- \*\*new\*\*: attention on the math backend (4 a step) costs .*; fix: attention ran the math backend: check dropout / mask / dtype' "$tmp/md"
"$TG" diff "$tmp/base.json" "$tmp/sync.json" --format json >"$tmp/j" 2>"$tmp/err"
check "diff json: findings[] with change, fix, base and new" "$(cat "$tmp/err")" \
	js "$tmp/j" 'd["findings"][0]["change"] == "new" and d["findings"][0]["id"] == "host-sync" and
	             d["findings"][0]["base"] is None and d["findings"][0]["new"]["cost_per_step_us"] == 115.58775'
"$TG" diff "$tmp/base.json" "$tmp/base.json" >"$tmp/out" 2>"$tmp/err"
check "diff of a trace with itself: nothing new, worse or gone" "$(grep -A2 '^Findings' "$tmp/out")" \
	grep -q '^Findings: none new, worse or gone$' "$tmp/out"

# a rule blocks on a new finding
cat >"$tmp/block.yaml" <<'EOF'
version: 1
rules:
  - name: no-new-host-sync
    select: {finding: host-sync}
    block_above: 0%
    min_delta: 50us
EOF
"$TG" diff "$tmp/base.json" "$tmp/sync.json" --rules "$tmp/block.yaml" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "diff: select {finding: host-sync} blocks on the new sync (exit 1)" "exit $rc: $(head -3 "$tmp/out")" \
	sh -c "[ $rc -eq 1 ] && grep -q '^tracegate diff: block: no-new-host-sync finding_cost is new' '$tmp/out'"
"$TG" diff "$tmp/sync.json" "$tmp/sync.json" --rules "$tmp/block.yaml" >/dev/null 2>&1
check "diff: the same sync on both sides passes (exit 0)" "exit $?" [ $? -eq 0 ]

# the augmented trace (docs/augment.md): the new finding as an instant
# event at the first sync, its fix and numbers in args; read back, the
# trace has the same finding
"$TG" augment "$tmp/sync.json" --diff "$tmp/base.json" -o "$tmp/aug.json" >/dev/null 2>"$tmp/err"
check "augment --diff: the new host sync an instant event at its first sync, with its fix" "$(cat "$tmp/err")" \
	python3 - "$tmp/aug.json" "$tmp/sync.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
i = [e for e in d["traceEvents"] if e.get("ph") == "i" and e["name"].startswith("tracegate finding")]
assert len(i) == 1, [e["name"] for e in i]
e = i[0]
assert e["name"] == "tracegate finding new: host sync in aten::item (2 a step) costs 115.6 us a step (2.1 % of the step)", e["name"]
assert e["args"]["change"] == "new" and e["args"]["base"] is None
assert e["args"]["new"]["id"] == "host-sync" and e["args"]["new"]["cost_per_step_us"] == 115.58775
assert e["args"]["fix"].startswith("keep values on the GPU")
src = json.load(open(sys.argv[2]))
first = min(x["ts"] for x in src["traceEvents"] if x.get("ph") == "X" and x.get("cat") == "cuda_runtime" and x["name"] == "cudaMemcpyAsync"
            and any(y.get("name") == "aten::item" and y["ts"] <= x["ts"] < y["ts"] + y["dur"] for y in src["traceEvents"] if y.get("ph") == "X"))
assert abs(e["ts"] - first) < 1e-6, (e["ts"], first)
PY
"$TG" report "$tmp/aug.json" --format json >"$tmp/j" 2>"$tmp/err"
check "augment: read back, the same host sync" "$(cat "$tmp/err")" \
	js "$tmp/j" 'f(d["traces"][0], "host-sync", "fired")["cost_per_step_us"] == 115.58775'

# ---------------------------------------------------------------- shared traces

if [ ! -d "$T" ]; then
	skip "shared traces" "$T is absent (set TG_SHARED)"
	tap_exit
fi
K=$T/kineto

# the Kineto unit-test pair: the same Event Sync on both sides
for s in before after; do
	"$TG" report "$K/kineto_MOCK_unittest_H100_cuda_sync_${s}_fix.json.gz" --format json >"$tmp/j" 2>"$tmp/err"
	check "kineto $s: the host sync in op_evt_sync, 20 ns of 130" "$(cat "$tmp/err")" \
		js "$tmp/j" 'f(d["traces"][0], "host-sync", "fired")["subject"] == "op_evt_sync" and
		             f(d["traces"][0], "host-sync")["cost_per_step_us"] == 0.02 and f(d["traces"][0], "host-sync")["step_us"] == 0.13'
done
"$TG" diff "$K/kineto_MOCK_unittest_H100_cuda_sync_before_fix.json.gz" "$K/kineto_MOCK_unittest_H100_cuda_sync_after_fix.json.gz" \
	--format json >"$tmp/j" 2>"$tmp/err"
check "kineto before -> after: the host sync the same on both" "$(cat "$tmp/err")" \
	js "$tmp/j" '[x["change"] for x in d["findings"]] == ["same"]'

# ResNet-50: the DataLoader without workers, not with 4
"$TG" report "$K/kineto_tbplugin_resnet50_V100_num_workers_0_worker0.1623143089861.pt.trace.json.gz" --format json >"$tmp/j" 2>"$tmp/err"
check "resnet50 num_workers_0: DataLoader stall, 59.26 ms of 174.83 ms a step" "$(cat "$tmp/err")" \
	js "$tmp/j" 'abs(f(d["traces"][0], "dataloader-stall", "fired")["cost_per_step_us"] - 59261.833) < 0.001'
"$TG" report "$K/kineto_tbplugin_resnet50_V100_num_workers_4_worker0.1623212756351.pt.trace.json.gz" --format json >"$tmp/j" 2>"$tmp/err"
check "resnet50 num_workers_4: no DataLoader stall (0.85 %)" "$(cat "$tmp/err")" \
	js "$tmp/j" 'f(d["traces"][0], "dataloader-stall", "ok") is not None and abs(f(d["traces"][0], "dataloader-stall")["cost_pct"] - 0.849) < 0.001'

# h200-dev: the misaligned GEMM is new; the dropout runs stay on flash
H=$T/h200-dev
"$TG" diff "$H/base_r1/rank0.pt.trace.json.gz" "$H/gemm_misaligned_r1/rank0.pt.trace.json.gz" --format md >"$tmp/md" 2>"$tmp/err"
check "h200 base -> gemm_misaligned: the misaligned GEMM is new, pad to a multiple" "$(grep -A3 '#### Findings' "$tmp/md")" \
	grep -q '^- \*\*new\*\*: misaligned GEMM (24 a step) costs 1.69 ms a step (12.3 % of the step); fix: pad M, N and K to a multiple of 16 bytes' "$tmp/md"
"$TG" diff "$H/base_r1/rank0.pt.trace.json.gz" "$H/dropout2_r1/rank0.pt.trace.json.gz" --format json >"$tmp/j" 2>"$tmp/err"
check "h200 base -> dropout2: no attention-backend finding (flash ran, SOURCES-h200-dev.md)" "$(cat "$tmp/err")" \
	js "$tmp/j" 'not [x for x in d["findings"] if x["id"] in ("attention-backend", "gemm-alignment", "host-sync")]'
"$TG" diff "$H/base_r1/rank0.pt.trace.json.gz" "$H/base_r2/rank0.pt.trace.json.gz" --format json >"$tmp/j" 2>"$tmp/err"
check "h200 base_r1 -> base_r2: nothing new, worse or gone" "$(cat "$tmp/err")" \
	js "$tmp/j" 'all(x["change"] in ("same", "better") for x in d["findings"])'
tap_exit
