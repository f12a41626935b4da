#!/bin/sh
# cli_comment.sh - what the pull-request comment (tracegate diff --format md)
# says, and in which order (docs/comment.md): what was compared (runtime
# readable), what changed in sentences (each divergence, the module subtree,
# the kernels no op launched, the kernels outside every step), the rules,
# the significant ops first and the noise folded (no "-0.0 %" improvement),
# the drawing collapsed with base / new and the launcher-less tail in one
# line, long names shortened with the whole name in an escaped tooltip,
# per-step counts that agree with the rules. On the shared h200-dev pair
# (skipped when ../shared/traces is absent): the flash tile sentence, the
# Block_0/Block_1 sentence, and the comment rendered by cmark-gfm keeps the
# drawing and the tables collapsed.
# Usage: sh tests/cli_comment.sh TRACEGATE   (generator: $TG_GEN, default build/tg-gen)
set -u
TG=$1
. "$(dirname "$0")/tap.sh"
tap_tmp
tap_generator
if ! command -v python3 >/dev/null 2>&1; then
	skip "comment" "no python3 to edit the traces"
	tap_exit
fi

B="--steps 8 --seq 4096 --python"
"$GEN" -o "$tmp/base.json" $B
"$GEN" -o "$tmp/split.json" $B --split-attention 1.08
"$GEN" -o "$tmp/same.json" $B --seed 2 --noise 1

# ------------------------------------------------------------ order and header
"$TG" diff "$tmp/base.json" "$tmp/split.json" --format md >"$tmp/split.md"
md=$tmp/split.md
# the headings, in this order
heads=$(grep '^#### \|^<details><summary>' "$md" | cut -c1-60 | tr '\n' '/')
want="#### What changed/#### Findings/#### What bounds the step (critical path)/#### Rules/#### Ops whose kernel time changed significantly (per step)/#### Where the time went (lowest points of divergence of the/<details><summary>The call trees where they diverge (base: o/#### Kernel time per step/<details><summary>Kernel time per step by category (4 rows)</<details><summary>Kernel time per step by op (6 rows)</summa/<details><summary>Kernel time per step by op_shape (9 rows)</<details><summary>Kernel time per step by kernel (11 rows)<//<details><summary>Kernel time per step by module (37 rows)<//"
[ "$heads" = "$want" ] && ok "order: what changed, findings, what bounds the step, rules, significant ops, where, the drawing folded, the tables" \
	|| not_ok "order" "$heads"
grep -qx '| runtime | CUDA 12.4 | CUDA 12.4 |' "$md" && grep -qx '| steps (runs) | 8 (1 run) | 8 (1 run) |' "$md" \
	&& ok "header: runtime as 12.4, steps and runs a side" || not_ok "header" "$(sed -n 1,9p "$md")"
"$GEN" -o "$tmp/cuda13.json" $B --cuda 13000 --sdpa-scale 1.07
"$TG" diff "$tmp/cuda13.json" "$tmp/cuda13.json" --format md | grep -qx '| runtime | CUDA 13.0 | CUDA 13.0 |' \
	&& ok "header: CUDA 13000 reads 13.0" || not_ok "CUDA 13.0" "$("$TG" diff "$tmp/cuda13.json" "$tmp/cuda13.json" --format md | grep runtime)"

# divergence sentence: the split forward, with tooltips
line=$(grep '^- <code>aten::\\_flash\\_attention\\_forward</code>: ' "$md")
echo "$line" | grep -q '<code>flash\\_fwd\\_kernel</code></span> became <span title="void pytorch_flash::flash_fwd_splitkv_kernel' \
	&& echo "$line" | grep -q ', +8.0 % (1.583 ms → 1.709 ms per step, in 32 places).$' \
	&& ok "a sentence per divergence (flash_fwd_kernel became the split kernels, +8.0 %)" || not_ok "divergence sentence" "$line"
# the drawing: collapsed, base / new, no TraceLens labels
awk '/^<details><summary>The call trees/{d=1} d&&/^<pre>$/{p=1} d&&/^<\/details>$/{exit} END{exit !p}' "$md" \
	&& ! grep -q 'trace1\|trace2' "$md" && grep -q '^|           |-- base: cudaLaunchKernel$' "$md" \
	&& ok "the drawing inside <details>, base / new" || not_ok "drawing" "$(grep -B2 -A4 '<pre>' "$md")"

# ------------------------------------------------------------ noise is not claimed
"$TG" diff "$tmp/base.json" "$tmp/same.json" --format md >"$tmp/same.md"
grep -qx "None: no op's change is both significant after the false-discovery control and beyond 1 %." "$tmp/same.md" \
	&& ok "noise: no significant op claimed" || not_ok "noise: significant" "$(grep -A4 'Ops whose' "$tmp/same.md")"
grep -q '^<details><summary>[0-9]* other ops changed within the noise (not significant; largest 10)</summary>$' "$tmp/same.md" \
	&& ok "noise: the other ops folded" || not_ok "noise: folded" "$(grep 'other op' "$tmp/same.md")"
grep -q 'improvement\|Top improvements' "$tmp/same.md" && not_ok "noise: no improvement claimed" "$(grep -i improvement "$tmp/same.md")" \
	|| ok "noise: no improvement claimed"

# ------------------------------------------------------------ no launcher, outside steps, counts
# The new trace loses the launches of its layer-norm kernels (as when the
# profiler's window cuts them off) and gets a 500 us kernel after the last
# step (outside every step).
python3 - "$tmp/base.json" "$tmp/orphan.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); ev = d["traceEvents"]
gone = set()
for e in ev:
    if e.get("cat") == "kernel" and "layer_norm" in e["name"]:
        gone.add(e["args"]["correlation"]); e["args"]["correlation"] = 10**7 + len(gone); e["args"].pop("External id", None)
ev = [e for e in ev if not (e.get("cat") == "ac2g" and e.get("id") in gone)
      and not (e.get("cat") in ("cuda_runtime", "cuda_driver") and e.get("args", {}).get("correlation") in gone)]
end = max(e["ts"] + e.get("dur", 0) for e in ev if "ts" in e)
ev.append({"ph": "X", "cat": "kernel", "name": "warmup_kernel", "pid": 0, "tid": 7, "ts": end + 1000, "dur": 500,
           "args": {"stream": 7, "correlation": 9 * 10**7, "device": 0}})
d["traceEvents"] = ev
json.dump(d, open(sys.argv[2], "w"))
PY
"$TG" diff "$tmp/base.json" "$tmp/orphan.json" --format md >"$tmp/orphan.md"
o=$tmp/orphan.md
grep -q '^- Kernels no op launched, `(no launcher)` (0.0 % of the base.s kernel time): 0.0 us → .* per step, new (CI -). Their launch is not in the trace' "$o" \
	&& ok "no launcher: explained in a sentence" || not_ok "no launcher sentence" "$(grep 'no launcher' "$o" | head -2)"
sed -n '/^#### Ops whose/,/^#### Where/p' "$o" | grep -q 'no launcher' \
	&& not_ok "no launcher: out of the ops table" "$(sed -n '/^#### Ops whose/,/^#### Where/p' "$o" | grep 'no launcher')" \
	|| ok "no launcher: out of the significant and other ops tables"
grep -qx -- '- Outside every `ProfilerStep` (warm-up before the first step, work after the last): base 0 kernels (0.0 us), new 1 (500.0 us). They are in no per-step value, of the rules or of the tables.' "$o" \
	&& ok "outside steps: said, with counts" || not_ok "outside sentence" "$(grep Outside "$o")"
sed -n '/^#### Kernel time per step/,$p' "$o" | grep -q 'warmup' && not_ok "outside steps: in no table" "$(grep warmup "$o" | head -2)" \
	|| ok "outside steps: in no kernel time table"
grep -q '^- <code>(top level)</code>' "$o" && not_ok "no sentence for the top level" "$(grep '(top level)' "$o" | head -1)" \
	|| ok "no divergence sentence for the launcher-less top level"
# the json as the md: out of the top lists, on its own with its share and why
"$TG" diff "$tmp/base.json" "$tmp/orphan.json" --format json >"$tmp/orphan.json.out"
python3 - "$tmp/orphan.json.out" <<'PY' && ok "no launcher (json): out of the top lists, reported apart with its numbers and why" \
	|| not_ok "no launcher (json)" "see above"
import json, sys
d = json.load(open(sys.argv[1]))
tops = d["top_regressions"] + d["top_improvements"]
assert all(t["op"] != "(no launcher)" for t in tops), tops
n = d["no_launcher"]
assert list(n) == ["op", "category", "base", "next", "delta", "pct", "pct_lo", "pct_hi", "samples_base", "samples_new",
                   "significant", "share_of_base_pct", "why_apart"], list(n)
assert n["op"] == "(no launcher)" and n["base"] == 0 and n["next"] > 0 and n["delta"] == n["next"], n
assert n["share_of_base_pct"] == 0 and n["pct"] is None, n
assert n["why_apart"].startswith("Their launch is not in the trace") and "top_regressions" in n["why_apart"], n
rows = {r[0]: r for r in d["tables"]["diff_by_op"]["rows"]}
assert abs(rows["(no launcher)"][4] * 1000 - n["next"]) < 1e-6 * n["next"], (rows["(no launcher)"], n["next"])  # the table keeps it
PY
# counts per step are whole: the kernels of the steps over the steps
frac=$(sed -n '/^<details><summary>Kernel time per step by category/,/^<\/details>/p' "$o" | awk -F' \\| ' 'NR>3 && NF>3 {print $2, $3}' | grep '\.' | head -3)
[ -z "$frac" ] && ok "counts: whole per step (no 33.333)" || not_ok "counts" "$frac"
grep -q '^Counts and times are per `ProfilerStep`' "$o" && ok "counts: how they are counted is said" || not_ok "counts note" "missing"

# ------------------------------------------------------------ the module subtree
grep -q 'nn.Module subtree' "$md" && not_ok "module: nothing said when every layer moves" "$(grep 'nn.Module' "$md")" \
	|| ok "module: nothing said when every layer moves alike (the whole model is no finding)"

# ------------------------------------------------------------ the shared pair
H=${TG_TRACES:-../shared/traces}/h200-dev
if [ -f "$H/base_r1/rank0.pt.trace.json.gz" ] && [ -f "$H/dropout2_r1/rank0.pt.trace.json.gz" ]; then
	"$TG" diff "$H/base_r1/rank0.pt.trace.json.gz" "$H/dropout2_r1/rank0.pt.trace.json.gz" --format md >"$tmp/h200.md"
	h=$tmp/h200.md
	grep -q '^- <code>aten::\\_flash\\_attention\\_forward</code>: <span title="void pytorch_flash::flash_fwd_kernel&lt;Flash_fwd_kernel_traits&lt;64, 128, 128, 4, .*"><code>flash\\_fwd\\_kernel&lt;…128…128…false…&gt;</code></span> became <span title=".*"><code>&lt;…64…64…true…&gt;</code></span>, +23.7 % (87.2 us → 107.9 us per step, in 12 places).$' "$h" \
		&& ok "h200: the flash forward tile sentence (128 became 64, +23.7 %)" || not_ok "h200 sentence" "$(grep '_forward</code>:' "$h" | cut -c1-300)"
	grep -q '^- These nn.Module subtrees explain it: <code>GPT\\_0/Block\\_1</code> +10.0 us (+4.2 %) and <code>GPT\\_0/Block\\_0</code> +9.8 us (+4.1 %) per step: 99 % of the +20.0 us change' "$h" \
		&& ok "h200: Block_0 and Block_1 explain it, near the top" || not_ok "h200 module" "$(grep 'nn.Module' "$h" | cut -c1-300)"
	[ "$(grep -n '^#### ' "$h" | head -1 | cut -d: -f2)" = "#### What changed" ] && ok "h200: what changed comes first" \
		|| not_ok "h200 first heading" "$(grep '^#### ' "$h" | head -1)"
	sz=$(wc -c <"$h")
	[ "$sz" -le 65000 ] && ok "h200: under 65,000 bytes ($sz)" || not_ok "h200 size" "$sz"
	if command -v cmark-gfm >/dev/null 2>&1; then
		cmark-gfm --unsafe -e table -e autolink -e strikethrough -e tagfilter "$h" >"$tmp/h200.html"
		# GitHub's renderer keeps the details closed: no "open" attribute, the drawing inside one
		grep -q '<details open' "$tmp/h200.html" && not_ok "cmark: collapsed" "an open details" || ok "cmark-gfm: every <details> closed"
		python3 - "$tmp/h200.html" <<'PY' && ok "cmark-gfm: the <pre> drawing is inside a <details>, tooltips are attributes" || not_ok "cmark structure" "see above"
import re, sys
h = open(sys.argv[1]).read()
pre = h.index("<pre>")
assert h.rfind("<details>", 0, pre) > h.rfind("</details>", 0, pre), "pre outside details"
assert re.search(r'<span title="void pytorch_flash::flash_fwd_kernel&lt;Flash_fwd_kernel_traits&lt;64, 128, 64, 4', h)
assert "<script" not in h
PY
	else
		skip "cmark-gfm rendering" "cmark-gfm is not installed (contrib/install-deps.sh --html)"
	fi
else
	skip "h200-dev pair" "../shared/traces/h200-dev is absent"
fi
echo "cli_comment: $fails failed, $skips skipped"
tap_exit
