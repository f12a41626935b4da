#!/bin/sh
# cli_diff.sh - `tracegate diff` from the command line on pairs of traces
# from the synthetic generator with known changes: exit codes (0 pass or
# warn, 1 block, 2 usage or input error, 3 inconclusive), the md comment
# (verdict line, marker, rules table, divergence drawing, <details>,
# escaping of hostile kernel names, the size limit), the json document (keys
# in the documented order), -o (atomic, nothing on error), --accept, several
# traces a side, --no-tree-diff, --help.
# Usage: sh tests/cli_diff.sh TRACEGATE   (generator: $TG_GEN, default build/tg-gen)
set -u
TG=$1
. "$(dirname "$0")/tap.sh"
tap_tmp
tap_generator

# Attention ~400 us a call: above the default rules' 20 us floor.
B="--steps 8 --seq 4096"
gen() { # NAME ARGS...: $tmp/NAME.json
	n=$1; shift
	"$GEN" -o "$tmp/$n.json" "$@" 2>"$tmp/gen.err" || not_ok "generate $n" "$(head -c 300 "$tmp/gen.err")"
}
gen base $B
gen same $B --seed 1
gen sdpa7 $B --sdpa-scale 1.07
gen sdpa3 $B --sdpa-scale 1.03
gen split $B --split-attention 1.08
gen math $B --sdpa-math 1.08
gen a100 $B --gpu "NVIDIA A100-SXM4-80GB"

# run ARGS...: tracegate diff into $tmp/out and $tmp/err, exit status in $rc
run() { "$TG" diff "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
# expect NAME RC FIRST-LINE ARGS...: exit status, first line of stdout, no stderr
expect() {
	name=$1; want_rc=$2; want=$3; shift 3
	run "$@"
	first=$(head -1 "$tmp/out")
	if [ "$rc" -eq "$want_rc" ] && [ "$first" = "$want" ] && [ ! -s "$tmp/err" ]; then
		ok "$name"
	else
		not_ok "$name" "exit $rc (want $want_rc), first line '$first', stderr '$(head -c 300 "$tmp/err")'"
	fi
}
# expect_fail NAME STDERR-LINE ARGS...: exit 2, one line on stderr, nothing on stdout
expect_fail() {
	name=$1; want=$2; shift 2
	run "$@"
	lines=$(wc -l <"$tmp/err")
	if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && [ "$(cat "$tmp/err")" = "$want" ] && [ ! -s "$tmp/out" ]; then
		ok "$name"
	else
		not_ok "$name" "exit $rc, $lines lines: $(head -c 300 "$tmp/err")"
	fi
}

# ------------------------------------------------------------ exit codes

expect "identical: pass, 0" 0 "tracegate diff: pass: 6 checks, no regression above the thresholds; not judged: elementwise 13 %" \
	"$tmp/base.json" "$tmp/same.json"
expect "SDPA +7 %: block, 1" 1 \
	"tracegate diff: block: sdpa-forward SDPA_fwd kernel_time +7.0 % (95 % CI +7.0..+7.0 %, 8 steps a side) > 5 %; not judged: elementwise 13 %" \
	"$tmp/base.json" "$tmp/sdpa7.json"
grep -q '^sdpa-forward  *(total)  *kernel_time  *1\.583 ms  *1\.694 ms  *+7\.0 %  *+7\.0\.\.+7\.0 %  *8/8  block$' "$tmp/out" \
	&& ok "text: the rule's row" || not_ok "text: the rule's row" "$(grep '^sdpa-forward' "$tmp/out")"
grep -q '^warning: rule sdpa-backward matches nothing in either trace$' "$tmp/out" \
	&& ok "text: a rule that matches nothing is a warning" || not_ok "unmatched warning" "not in the output"
expect "SDPA +3 %: warn, 0" 0 \
	"tracegate diff: warn: sdpa-forward SDPA_fwd kernel_time +3.0 % (95 % CI +3.0..+3.0 %, 8 steps a side) > 2 %; not judged: elementwise 13 %" \
	"$tmp/base.json" "$tmp/sdpa3.json"
expect "another GPU: inconclusive, 3" 3 \
	"tracegate diff: inconclusive: not comparable (GPU NVIDIA H100 80GB HBM3 -> NVIDIA A100-SXM4-80GB)" \
	"$tmp/base.json" "$tmp/a100.json"
expect "another GPU, allowed: pass, 0" 0 "tracegate diff: pass: 6 checks, no regression above the thresholds; not judged: elementwise 13 %" \
	"$tmp/base.json" "$tmp/a100.json" --allow-hardware-change
grep -q '^hardware changed (allowed): GPU NVIDIA H100 80GB HBM3 -> NVIDIA A100-SXM4-80GB$' "$tmp/out" \
	&& ok "the allowed change is said" || not_ok "allowed change" "$(sed -n 2,5p "$tmp/out")"
expect "math path: attributed to SDPA, block" 1 \
	"tracegate diff: block: sdpa-forward SDPA_fwd kernel_time +8.0 % (95 % CI +8.0..+8.0 %, 8 steps a side) > 5 %; not judged: elementwise 13 %" \
	"$tmp/base.json" "$tmp/math.json"
expect "math path, --no-tree-diff: still SDPA (the enclosing op says so)" 1 \
	"tracegate diff: block: sdpa-forward SDPA_fwd kernel_time +8.0 % (95 % CI +8.0..+8.0 %, 8 steps a side) > 5 %; not judged: elementwise 13 %" \
	"$tmp/base.json" "$tmp/math.json" --no-tree-diff
grep -q 'Where the call trees diverge' "$tmp/out" && not_ok "--no-tree-diff draws nothing" "a drawing" \
	|| ok "--no-tree-diff draws nothing"

expect_fail "no such trace" "tracegate: $tmp/nope.json: cannot open: No such file or directory" \
	"$tmp/nope.json" "$tmp/base.json"
printf 'version: 1\nrules:\n  - name: a\n    metric: kernel_time\n    treshold: 5%%\n' >"$tmp/bad.yaml"
expect_fail "bad rules: file:line:column" \
	"tracegate: $tmp/bad.yaml:5:5: unknown key 'treshold' in a rule (expected name, select, metric, aggregate, by, block_above, warn_above, min_delta, improvement_below, decide)" \
	"$tmp/base.json" "$tmp/sdpa7.json" --rules "$tmp/bad.yaml"
printf 'version: 1\nrules:\n  - name: a\n   metric: x\n' >"$tmp/bad2.yaml"
expect_fail "bad YAML: file:line:column" \
	"tracegate: $tmp/bad2.yaml:4:4: bad YAML: did not find expected '-' indicator while parsing a block collection" \
	"$tmp/base.json" "$tmp/sdpa7.json" --rules "$tmp/bad2.yaml"
expect_fail "no rules file" "tracegate: $tmp/none.yaml: cannot open: No such file or directory" \
	"$tmp/base.json" "$tmp/sdpa7.json" --rules "$tmp/none.yaml"
# nothing to judge: an error naming the side and what is missing, never a pass
printf '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1, "dur": 5}]}' >"$tmp/empty.json"
expect_fail "an empty profile against itself: nothing to judge, exit 2" \
	"tracegate: diff: nothing to judge: the base trace $tmp/empty.json has no GPU activity (no kernel, memcpy or memset)" \
	"$tmp/empty.json" "$tmp/empty.json"
expect_fail "an empty new side: nothing to judge, the side named, no hardware blamed" \
	"tracegate: diff: nothing to judge: the new trace $tmp/empty.json has no GPU activity (no kernel, memcpy or memset)" \
	"$tmp/base.json" "$tmp/empty.json"
expect_fail "an empty --noise-from run: nothing to judge" \
	"tracegate: diff: nothing to judge: the --noise-from trace $tmp/empty.json has no GPU activity (no kernel, memcpy or memset)" \
	"$tmp/base.json" "$tmp/same.json" --noise-from "$tmp/empty.json"
expect_fail "one trace" "tracegate: diff: give BASE NEW, or BASE... -- NEW... (1 traces given)" "$tmp/base.json"
expect_fail "empty side" "tracegate: diff: both sides need at least one trace" "$tmp/base.json" --
expect_fail "bad format" "tracegate: diff: --format: 'xml' is not one of text, md, json" \
	"$tmp/base.json" "$tmp/same.json" --format xml
expect_fail "unknown option" "tracegate: diff: unknown option --frobnicate (see tracegate diff --help)" \
	"$tmp/base.json" "$tmp/same.json" --frobnicate

# ------------------------------------------------------------ rules file

cat >"$tmp/rules.yaml" <<'EOF'
version: 1
rules:
  - name: attention
    select: {category: SDPA_fwd}
    metric: kernel_time
    block_above: 10%
    warn_above: 5%
    min_delta: 20us
  - name: nothing
    select: {op: "aten::nonexistent"}
    metric: kernel_time
    block_above: 5%
EOF
expect "--rules: +7 % warns at 5 %" 0 \
	"tracegate diff: warn: attention SDPA_fwd kernel_time +7.0 % (95 % CI +7.0..+7.0 %, 8 steps a side) > 5 %; not judged: GEMM 53 %, elementwise 13 %" \
	"$tmp/base.json" "$tmp/sdpa7.json" --rules "$tmp/rules.yaml"
grep -q '^warning: rule nothing matches nothing in either trace$' "$tmp/out" \
	&& ok "--rules: the rule that matches nothing" || not_ok "unmatched rule" "$(tail -3 "$tmp/out")"

# ------------------------------------------------------------ accept

expect "--accept: the block accepted, the busy time still warns" 0 \
	"tracegate diff: warn: gpu-busy gpu_busy +2.1 % (95 % CI +2.1..+2.1 %, 8 steps a side) > 2 %; not judged: elementwise 13 %" \
	"$tmp/base.json" "$tmp/sdpa7.json" --accept "sdpa-forward:intended, see #12"
grep -q '^sdpa-forward .* accepted$' "$tmp/out" && ok "--accept: the row says accepted" \
	|| not_ok "accepted row" "$(grep '^sdpa-forward' "$tmp/out")"
run "$tmp/base.json" "$tmp/sdpa7.json" --accept "sdpa-forward:intended, see #12" --accept gpu-busy:follows --format md
[ "$rc" -eq 0 ] && head -1 "$tmp/out" | grep -q '^### .* tracegate: pass: ' && ok "--accept twice: pass" \
	|| not_ok "--accept twice" "exit $rc: $(head -1 "$tmp/out")"
# the reason is anyone's text: "#12" must not link an issue (a zero-width space after '#')
grep -qx "$(printf 'Accepted: sdpa-forward: intended, see #\342\200\21312')" "$tmp/out" && grep -qx 'Accepted: gpu-busy: follows' "$tmp/out" \
	&& ok "md: Accepted lines" || not_ok "md: Accepted" "$(grep -i accepted "$tmp/out" | head -3)"
grep -q '^| sdpa-forward | (total) | kernel_time | .* | .* accepted |$' "$tmp/out" && ok "md: the row says accepted" \
	|| not_ok "md: accepted row" "$(grep '^| sdpa-forward' "$tmp/out")"
expect_fail "--accept of no rule" "tracegate: --accept: no rule named 'nosuchrule' in <default>" \
	"$tmp/base.json" "$tmp/sdpa7.json" --accept nosuchrule:x
expect_fail "--accept without a reason" "tracegate: diff: --accept: 'sdpa-forward' is not RULE:REASON" \
	"$tmp/base.json" "$tmp/sdpa7.json" --accept sdpa-forward

# ------------------------------------------------------------ md

run "$tmp/base.json" "$tmp/split.json" --format md --marker "tracegate:ci/llama-8b"
[ "$rc" -eq 1 ] && ok "md: exit 1" || not_ok "md: exit" "$rc"
md=$tmp/out
[ "$(sed -n 1p "$md")" = "<!-- tracegate:ci/llama-8b -->" ] && ok "md: the marker first" \
	|| not_ok "md: marker" "$(sed -n 1p "$md")"
[ "$(sed -n 2p "$md")" = "### ❌ tracegate: block: sdpa-forward SDPA\_fwd kernel\_time +8.0 % (95 % CI +8.0..+8.0 %, 8 steps a side) &gt; 5 %; not judged: elementwise 13 %" ] \
	&& ok "md: the verdict line" || not_ok "md: verdict line" "$(sed -n 2p "$md")"
grep -qx '| rule | item | metric | base | new | change | CI | samples | verdict |' "$md" \
	&& grep -qx '| sdpa-forward | (total) | kernel_time | 1.583 ms | 1.709 ms | +8.0 % | +8.0..+8.0 % | 8 / 8 steps | ❌ block |' "$md" \
	&& ok "md: the rules table" || not_ok "md: rules table" "$(grep '^| sdpa' "$md")"
grep -qx '#### Ops whose kernel time changed significantly (per step)' "$md" \
	&& grep -qx '| op | category | base | new | delta | change | CI | samples |' "$md" \
	&& grep -qx '| <code>aten::\\_flash\\_attention\\_forward</code> | SDPA\\_fwd | 1.583 ms | 1.709 ms | +126.6 us | +8.0 % | +8.0..+8.0 % | 8 / 8 |' "$md" \
	&& ok "md: significant ops" || not_ok "md: significant ops" "$(grep -A3 'Ops whose' "$md")"
grep -qx '<details><summary>The call trees where they diverge (base: only in the base, new: only in the new trace)</summary>' "$md" \
	&& grep -qx '<pre>' "$md" && grep -qx '</pre>' "$md" \
	&& grep -q '^|       `-- aten::_flash_attention_forward  \[LCA: base 1 kernel 395.700 us busy, new 2 kernels 427.356 us busy\]$' "$md" \
	&& grep -q '^|           |-- base: cudaLaunchKernel$' "$md" && ! grep -q 'trace1\|trace2' "$md" \
	&& ok "md: the divergence drawing collapsed, in <pre>, base / new" || not_ok "md: divergence" "$(grep -A6 '<pre>' "$md")"
grep -q '^| <code>aten::\\_flash\\_attention\\_forward</code> (SDPA\\_fwd) | .* | 32 | 1.583 ms → 1.709 ms | +8.0 % |$' "$md" \
	&& ok "md: where the time went" || not_ok "md: divergences table" "$(grep -A3 'Where the time went' "$md")"
nd=$(grep -c '^<details><summary>' "$md"); nc=$(grep -c '^</details>$' "$md")
[ "$nd" -eq 6 ] && [ "$nc" -eq 6 ] && grep -qx '<details><summary>Kernel time per step by kernel (11 rows)</summary>' "$md" \
	&& ok "md: the drawing and five tables in <details>" || not_ok "md: details" "$nd open, $nc closed"

# the traces row tells the sides apart when their base names are the same
mkdir -p "$tmp/runA" "$tmp/runB"
cp "$tmp/base.json" "$tmp/runA/rank0.json"
cp "$tmp/sdpa7.json" "$tmp/runB/rank0.json"
run "$tmp/runA/rank0.json" "$tmp/runB/rank0.json" --format md
grep -qx '| traces | <code>runA/rank0.json</code> | <code>runB/rank0.json</code> |' "$tmp/out" \
	&& ok "md: the traces row shows the distinguishing paths" || not_ok "md: traces row" "$(grep '^| traces' "$tmp/out")"
# names are escaped plain text (inside a code span an escape shows as is)
cp "$tmp/base.json" "$tmp/base_run.json"
run "$tmp/base_run.json" "$tmp/sdpa7.json" --format md
[ "$(sed -n 3,8p "$tmp/out")" = "| compared | base | new |
| --- | --- | --- |
| traces | <code>base\_run.json</code> | <code>sdpa7.json</code> |
| GPU | NVIDIA H100 80GB HBM3 | NVIDIA H100 80GB HBM3 |
| runtime | CUDA 12.4 | CUDA 12.4 |
| steps (runs) | 8 (1 run) | 8 (1 run) |" ] && ok "md: what was compared (CUDA 12040 reads 12.4)" || not_ok "md: sides" "$(sed -n 3,8p "$tmp/out")"
grep -qx 'Warning: rule sdpa-backward matches nothing in either trace.' "$tmp/out" \
	&& ok "md: the rule that matches nothing" || not_ok "md: unmatched" "$(grep Warning "$tmp/out")"

# A kernel named to break out of Markdown and HTML: | < > ` and a script tag.
EVIL='nvjet<script>alert(1)</script>|x`y`\&z' # (\& is a literal & for sed)
sed "s#nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NTN#$EVIL#g" "$tmp/sdpa7.json" >"$tmp/evil.json"
grep -q 'nvjet<script>' "$tmp/evil.json" || not_ok "rename a kernel" "sed failed"
run "$tmp/base.json" "$tmp/evil.json" --format md
[ "$rc" -eq 1 ] && ok "md of a hostile kernel name: exit 1" || not_ok "hostile md" "exit $rc: $(head -c 300 "$tmp/err")"
grep -qF '| <code>nvjet&lt;script&gt;alert(1)&lt;/script&gt;\|x\`y\`&amp;z</code> | 0 | 4 | 0.000 | 237.200 | 237.200 |  | new |' "$tmp/out" \
	&& grep -qF '<span title="nvjet&lt;script&gt;alert(1)&lt;/script&gt;&#x7c;x`y`&amp;z"><code>nvjet</code></span>' "$tmp/out" \
	&& ok "md: the name escaped in the tables" || not_ok "md: escaped name" "$(grep -F 'nvjet' "$tmp/out" | head -3)"
grep -qF 'nvjet&lt;script&gt;alert(1)&lt;/script&gt;|x`y`&amp;z' "$tmp/out" \
	&& ok "md: the name escaped in the drawing" || not_ok "md: drawing escape" "$(grep -A12 '<pre>' "$tmp/out" | head -14)"
grep -qi '<script' "$tmp/out" && not_ok "md: no raw tag" "$(grep -i '<script' "$tmp/out" | head -2)" || ok "md: no raw <script"
# every '<' starts one of the comment's own tags
tags=$(grep -o '<[^ >]*' "$tmp/out" | sort -u | tr '\n' ' ')
[ "$tags" = "</code </details </pre </span </sub </summary <code <details <pre <span <sub <summary " ] \
	&& ok "md: only the comment's own tags" || not_ok "md: tags" "$tags"
sz=$(wc -c <"$tmp/out")
[ "$sz" -le 65000 ] && ok "md: under 65,000 bytes ($sz)" || not_ok "md: size" "$sz bytes"

# the size limit
run "$tmp/base.json" "$tmp/split.json" --format md --marker m --max-comment-bytes 2000
sz=$(wc -c <"$tmp/out")
[ "$rc" -eq 1 ] && [ "$sz" -le 2000 ] && [ "$(head -1 "$tmp/out")" = "<!-- m -->" ] \
	&& tail -1 "$tmp/out" | grep -qx "\*This comment was trimmed to fit the forge's size limit; run \`tracegate diff\` for the full tables.\*" \
	&& ok "md: --max-comment-bytes 2000 trims, with the note ($sz bytes)" || not_ok "--max-comment-bytes" "exit $rc, $sz bytes: $(tail -2 "$tmp/out")"
[ "$(tail -2 "$tmp/out" | head -1)" = "" ] && ok "md: a blank line before the note" \
	|| not_ok "blank before note" "$(tail -2 "$tmp/out" | head -1)"
grep -q '^<details>' "$tmp/out" && not_ok "trimmed: no details" "details left" || ok "trimmed: the details go first"
expect_fail "--noise-from a missing file" "tracegate: $tmp/none.json: cannot open: No such file or directory" \
	"$tmp/base.json" "$tmp/split.json" --noise-from "$tmp/none.json"
expect_fail "--noise-from without a value" "tracegate: diff: --noise-from needs a value" "$tmp/base.json" "$tmp/split.json" \
	--noise-from
expect_fail "--max-comment-bytes too small" "tracegate: diff: --max-comment-bytes: '10' is not a number of bytes >= 1000" \
	"$tmp/base.json" "$tmp/split.json" --format md --max-comment-bytes 10
# --max-bytes means in diff what it means in every command: the reading limit
expect_fail "--max-bytes is the reading limit, as in report and tree" \
	"tracegate: $tmp/base.json: more than 1000 bytes of JSON (limit; raise it with --max-bytes)" \
	"$tmp/base.json" "$tmp/split.json" --format md --max-bytes 1000
# the footer links to comment.md in tracegate's docs: --docs-url, or the
# build's (DOCS_URL, this clone's origin); "" says the path in words
run "$tmp/base.json" "$tmp/split.json" --format md --docs-url https://git.example/acme/tracegate/blob/HEAD/docs/
[ "$(tail -1 "$tmp/out")" = "<sub>tracegate $("$TG" --version | cut -d' ' -f2) · [how to read this comment](https://git.example/acme/tracegate/blob/HEAD/docs/comment.md)</sub>" ] \
	&& ok "md: the footer's link to comment.md" || not_ok "md: footer link" "$(tail -1 "$tmp/out")"
run "$tmp/base.json" "$tmp/split.json" --format md --docs-url ""
[ "$(tail -1 "$tmp/out")" = "<sub>tracegate $("$TG" --version | cut -d' ' -f2) · how to read this comment: docs/comment.md in tracegate's sources</sub>" ] \
	&& ok "md: --docs-url \"\": the path in words" || not_ok "md: footer without link" "$(tail -1 "$tmp/out")"
expect_fail "--docs-url that would end the link" \
	"tracegate: diff: --docs-url: 'https://x/a) [b](https://evil' is not an http(s) URL of letters, digits and . _ ~ : / % + -" \
	"$tmp/base.json" "$tmp/split.json" --format md --docs-url 'https://x/a) [b](https://evil'
# the md comment's options with another format: refused by name
expect_fail "--marker with --format text" "tracegate: diff: --marker goes with --format md" \
	"$tmp/base.json" "$tmp/split.json" --marker m
expect_fail "--max-comment-bytes with --format json" "tracegate: diff: --max-comment-bytes goes with --format md" \
	"$tmp/base.json" "$tmp/split.json" --format json --max-comment-bytes 5000

# ------------------------------------------------------------ json

if command -v python3 >/dev/null 2>&1; then
	run "$tmp/base.json" "$tmp/sdpa7.json" --format json
	[ "$rc" -eq 1 ] && ok "json: exit 1" || not_ok "json exit" "$rc"
	python3 - "$tmp/out" <<'EOF' && ok "json: documented keys, in order; verdict and numbers" || not_ok "json" "see above"
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d) == ["tracegate_diff", "verdict", "summary", "comparable", "hardware_change", "base", "new",
                   "results", "ranks", "not_judged", "unmatched_rules", "accepted", "findings", "top_regressions",
                   "top_improvements", "no_launcher", "critical_path", "divergence", "tables"], list(d)
assert d["ranks"] is None
assert d["not_judged"] == [{"category": "elementwise", "pct": d["not_judged"][0]["pct"]}], d["not_judged"]
assert 13 < d["not_judged"][0]["pct"] < 14
assert d["tracegate_diff"] == 1 and d["verdict"] == "block" and d["comparable"] is True and d["hardware_change"] == ""
assert d["summary"] == "block: sdpa-forward SDPA_fwd kernel_time +7.0 % (95 % CI +7.0..+7.0 %, 8 steps a side) > 5 %; not judged: elementwise 13 %", d["summary"]
for side, f in (("base", "base.json"), ("new", "sdpa7.json")):
    s = d[side]
    assert list(s) == ["files", "steps", "fingerprint"], list(s)
    assert s["files"][0].endswith(f) and s["steps"] == 8
    assert list(s["fingerprint"]) == ["gpu", "driver", "runtime", "world_size"]
    assert s["fingerprint"] == {"gpu": "NVIDIA H100 80GB HBM3", "driver": "12090", "runtime": "CUDA 12040", "world_size": 1}
keys = ["rule", "item", "category", "metric", "verdict", "accepted", "improved", "new", "gone", "base", "next", "delta",
        "pct", "pct_lo", "pct_hi", "p_value", "samples_base", "samples_new", "sampling", "no_data", "unmatched", "note",
        "decide", "runs_base", "runs_new", "noise_pct", "noise_df", "runs_needed", "pairs", "call_noise_pct", "rank",
        "category_from"]
assert [r["rule"] for r in d["results"]] == ["sdpa-forward", "sdpa-backward", "gemm", "gpu-busy", "exposed-comm", "host-syncs"]
for r in d["results"]:
    assert list(r) == keys, list(r)
s = d["results"][0]
assert s["item"] == "" and s["verdict"] == "block" and s["sampling"] == "steps" and s["rank"] is None
assert s["pairs"] == 0 and s["call_noise_pct"] is None
assert s["samples_base"] == 8 and s["samples_new"] == 8
assert abs(s["pct"] - 7.0) < 1e-9 and abs(s["pct_lo"] - 7.0) < 1e-9 and abs(s["pct_hi"] - 7.0) < 1e-9
assert s["base"] == 1582800 and abs(s["delta"] - 110796) < 1e-6
assert s["decide"] == "likely" and s["runs_base"] == 1 and s["runs_new"] == 1 and s["noise_pct"] is None
assert s["noise_df"] == 0 and s["runs_needed"] == 0
u = d["results"][1]
assert u["pct"] is None and u["note"] == "matches nothing in either trace" and u["no_data"] is False
assert u["verdict"] == "inconclusive" and u["unmatched"] is True, u
c = d["results"][4]  # exposed-comm on one rank: no collectives
assert c["verdict"] == "inconclusive" and c["no_data"] is True, c
assert c["note"] == "no data: the traces have no collectives", c["note"]
# total rules: the category they select, and where its kernel time came from
assert [r["category"] for r in d["results"]] == ["SDPA_fwd", "SDPA_bwd", "GEMM", "", "", ""], d["results"]
assert s["category_from"] == "op 100 %", s["category_from"]
assert u["category_from"] == "", u["category_from"]  # no SDPA_bwd kernel on either side
top = d["top_regressions"]
assert len(top) == 1 and list(top[0]) == ["op", "category", "base", "next", "delta", "pct", "pct_lo", "pct_hi",
                                          "samples_base", "samples_new", "significant"], top
assert top[0]["op"] == "aten::_flash_attention_forward" and top[0]["category"] == "SDPA_fwd", top[0]
assert top[0]["base"] == 1582800 and abs(top[0]["delta"] - 110796) < 1e-6 and abs(top[0]["pct"] - 7.0) < 1e-9
assert top[0]["samples_base"] == 8 and top[0]["significant"] is True and d["top_improvements"] == []
assert d["no_launcher"] is None, d["no_launcher"]  # every kernel has its launch
assert d["unmatched_rules"] == ["sdpa-backward"] and d["accepted"] == []
assert d["divergence"] == ""
t = d["tables"]
assert list(t)[:5] == ["diff_by_category", "diff_by_op", "diff_by_op_shape", "diff_by_kernel", "diff_by_module"], list(t)
c = t["diff_by_category"]
assert list(c) == ["name", "title", "columns", "rows"]
assert c["columns"] == ["category", "base count", "new count", "base (us)", "new (us)", "delta (us)", "delta (%)", "status",
                        "from"]
assert c["rows"][0][0] == "SDPA_fwd" and abs(c["rows"][0][6] - 7.0) < 1e-9 and c["rows"][0][8] == "op 100 %", c["rows"][0]
EOF
	run "$tmp/base.json" "$tmp/split.json" --format json --accept sdpa-forward:intended
	python3 - "$tmp/out" <<'EOF' && ok "json: accepted and the divergence" || not_ok "json: accepted" "see above"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["accepted"] == [{"rule": "sdpa-forward", "reason": "intended", "by": None}], d["accepted"]
assert d["results"][0]["accepted"] is True and d["results"][0]["verdict"] == "block"
assert d["verdict"] == "warn"
assert "aten::_flash_attention_forward  [LCA: base 1 kernel" in d["divergence"]
v = d["tables"]["diff_by_divergence"]
assert v["columns"] == ["where", "category", "base kernels", "new kernels", "count", "base (us)", "new (us)",
                        "delta (us)", "delta (%)"]
assert len(v["rows"]) == 1 and v["rows"][0][0] == "aten::_flash_attention_forward" and v["rows"][0][4] == 32
EOF
	run "$tmp/base.json" "$tmp/a100.json" --format json
	[ "$rc" -eq 3 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["verdict"]=="inconclusive" and d["comparable"] is False and d["hardware_change"]=="GPU NVIDIA H100 80GB HBM3 -> NVIDIA A100-SXM4-80GB"' "$tmp/out" \
		&& ok "json: not comparable" || not_ok "json: not comparable" "exit $rc"
	run "$tmp/base.json" "$tmp/same.json" -- "$tmp/sdpa7.json" "$tmp/sdpa7.json" --format json
	[ "$rc" -eq 1 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["base"]["files"])==2 and d["base"]["steps"]==16 and len(d["new"]["files"])==2 and d["new"]["steps"]==16; r=d["results"][0]; assert r["samples_base"]==16 and abs(r["pct"]-7)<1e-9' "$tmp/out" \
		&& ok "two traces a side with --: 16 steps each, +7 %" || not_ok "two traces a side" "exit $rc: $(head -c 300 "$tmp/err")"
	run "$tmp/base.json" "$tmp/split.json" --format json --no-tree-diff
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["divergence"]=="" and "diff_by_divergence" not in d["tables"]' "$tmp/out" \
		&& ok "json --no-tree-diff: no divergence" || not_ok "json --no-tree-diff" "$(head -c 200 "$tmp/out")"
fi
run "$tmp/base.json" "$tmp/same.json" "$tmp/split.json"
[ "$rc" -eq 2 ] && ok "three traces without --: usage error" || not_ok "three traces" "exit $rc"

# ------------------------------------------------------------ -o

mkdir "$tmp/o"
run "$tmp/base.json" "$tmp/split.json" --format md -o "$tmp/o/comment.md"
"$TG" diff "$tmp/base.json" "$tmp/split.json" --format md >"$tmp/stdout.md" 2>/dev/null
[ "$rc" -eq 1 ] && cmp -s "$tmp/o/comment.md" "$tmp/stdout.md" \
	&& ok "-o writes the document, exit 1" || not_ok "-o" "exit $rc"
verdict=$("$TG" diff "$tmp/base.json" "$tmp/split.json" 2>/dev/null | head -1)
[ "$(cat "$tmp/out")" = "$verdict (md written to $tmp/o/comment.md)" ] && [ ! -s "$tmp/err" ] \
	&& ok "-o: one line on stdout, the verdict and where it went" || not_ok "-o: the line" "$(cat "$tmp/out" "$tmp/err")"
[ "$(ls -A "$tmp/o")" = "comment.md" ] && ok "-o leaves no temporary file" || not_ok "-o temp files" "$(ls -A "$tmp/o")"
echo old >"$tmp/o/comment.md"
run "$tmp/base.json" "$tmp/split.json" --format md -o "$tmp/o/comment.md" --rules "$tmp/bad.yaml"
[ "$rc" -eq 2 ] && [ "$(cat "$tmp/o/comment.md")" = old ] && [ "$(ls -A "$tmp/o")" = "comment.md" ] \
	&& ok "-o on an error: the file untouched" || not_ok "-o on error" "exit $rc: $(cat "$tmp/o/comment.md" | head -2)"
run "$tmp/base.json" "$tmp/split.json" -o "$tmp/o/new.json" --format json --rules "$tmp/bad.yaml"
[ "$rc" -eq 2 ] && [ ! -e "$tmp/o/new.json" ] && [ "$(ls -A "$tmp/o")" = "comment.md" ] \
	&& ok "-o on an error: no file" || not_ok "-o on error" "exit $rc: $(ls -A "$tmp/o")"
run "$tmp/base.json" "$tmp/split.json" -o "$tmp/nodir/x.md"
[ "$rc" -eq 2 ] && [ -s "$tmp/err" ] && ok "-o into a missing folder: exit 2" || not_ok "-o missing folder" "exit $rc"

# ------------------------------------------------------------ help

run --help
[ "$rc" -eq 0 ] && grep -q '^usage: tracegate diff BASE NEW \[options\]$' "$tmp/out" \
	&& grep -A1 -- "--max-comment-bytes N" "$tmp/out" | grep -q "md: the comment's size limit" \
	&& grep -q -- '--max-bytes SIZE  *most bytes of JSON' "$tmp/out" \
	&& ok "--help" || not_ok "--help" "exit $rc"

echo "cli_diff: $fails failed"
[ "$fails" -eq 0 ]
