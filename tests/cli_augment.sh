#!/bin/sh
# cli_augment.sh - `tracegate augment`: the counter tracks on a fixture and
# on real traces (valid JSON, gzip, read back by tracegate with the same
# report and the same diff verdict), the same bytes when nothing is added,
# --diff marking h200-dev's misaligned GEMM (the regressed ops in their
# args, the verdict and the rules as instant events), and the errors (exit
# 2, one line, nothing written).
# Usage: sh tests/cli_augment.sh TRACEGATE
set -u
TG=$1
. "$(dirname "$0")/tap.sh"
tap_tmp
SHARED=${TG_SHARED:-../shared}/traces
expect() { if [ "$cond" = 1 ]; then ok "$1"; else not_ok "$1" "$2"; fi; }
PY=
command -v python3 >/dev/null 2>&1 && PY=python3

# ---- the fixture
"$TG" augment tests/fixtures/tiny.json -o "$tmp/tiny.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
cond=0
[ $rc = 0 ] && [ ! -s "$tmp/err" ] &&
	[ "$(cat "$tmp/out")" = "wrote $tmp/tiny.json: 8 trace events copied (0 marked), 2 counter events in 1 tracks, 0 instant events" ] &&
	grep -qxF '{"ph":"C","cat":"tracegate","name":"Queue Length","pid":0,"ts":130.500,"id":7,"args":{"Queue Length":1}},' "$tmp/tiny.json" &&
	grep -qxF '{"ph":"C","cat":"tracegate","name":"Queue Length","pid":0,"ts":150.000,"id":7,"args":{"Queue Length":0}}' "$tmp/tiny.json" &&
	cond=1
expect "tiny.json: the queue of stream 7 goes to 1 at the launch (130.5 us) and back to 0 when the kernel starts (150 us)" \
	"rc $rc: $(cat "$tmp/out" "$tmp/err")"
"$TG" augment tests/fixtures/tiny.json -o "$tmp/same.json" --no-counters >/dev/null 2>&1
check "--no-counters and no --diff: the same bytes" "$(cmp tests/fixtures/tiny.json "$tmp/same.json" 2>&1)" \
	cmp -s tests/fixtures/tiny.json "$tmp/same.json"
"$TG" tree "$tmp/tiny.json" >"$tmp/t2" 2>&1
"$TG" tree tests/fixtures/tiny.json >"$tmp/t1" 2>&1
check "tiny.json: tracegate reads the augmented trace as the same tree" "$(diff "$tmp/t1" "$tmp/t2" | head -5)" \
	cmp -s "$tmp/t1" "$tmp/t2"

# ---- errors: exit 2, one line, nothing written
"$TG" augment tests/fixtures/tiny.json -o tests/fixtures/tiny.json >/dev/null 2>"$tmp/err"
rc=$?
cond=0
[ $rc = 2 ] && [ "$(cat "$tmp/err")" = "tracegate: augment: -o tests/fixtures/tiny.json is TRACE itself: write the augmented trace elsewhere" ] && cond=1
expect "-o TRACE itself: refused" "rc $rc: $(cat "$tmp/err")"
"$TG" augment tests/fixtures/tiny.json >/dev/null 2>"$tmp/err"
rc=$?
cond=0
[ $rc = 2 ] && [ "$(cat "$tmp/err")" = "tracegate: augment: -o FILE is required (see tracegate augment --help)" ] && cond=1
expect "no -o: exit 2, one line naming it" "rc $rc: $(head -2 "$tmp/err")"
"$TG" augment tests/data/bad/trace/truncated.json -o "$tmp/bad.json" >/dev/null 2>"$tmp/err"
rc=$?
cond=0
[ $rc = 2 ] && [ "$(cat "$tmp/err")" = "tracegate: tests/data/bad/trace/truncated.json: byte 200: unexpected end of data (truncated JSON)" ] &&
	[ ! -e "$tmp/bad.json" ] && cond=1
expect "a truncated trace: the byte offset, nothing written" "rc $rc: $(cat "$tmp/err")"
"$TG" augment tests/fixtures/tiny.json -o "$tmp/no/such/dir/out.json" >/dev/null 2>"$tmp/err"
rc=$?
cond=0
[ $rc = 2 ] && grep -qF "out.json: cannot create: No such file or directory" "$tmp/err" && cond=1
expect "an unwritable place: exit 2, one line" "rc $rc: $(cat "$tmp/err")"
"$TG" augment tests/fixtures/tiny.json -o "$tmp/x.json" --diff tests/data/bad/trace/truncated.json >/dev/null 2>"$tmp/err"
rc=$?
cond=0
[ $rc = 2 ] && grep -qF "truncated.json: byte 200" "$tmp/err" && [ ! -e "$tmp/x.json" ] && cond=1
expect "--diff with a bad BASE: exit 2, nothing written" "rc $rc: $(cat "$tmp/err")"
"$TG" augment tests/fixtures/tiny.json -o /dev/null >/dev/null 2>"$tmp/err"
check "-o /dev/null: written as it is" "$(cat "$tmp/err")" [ $? = 0 ]
"$TG" augment tests/fixtures/tiny.json --diff tests/fixtures/tiny.json -o "$tmp/self.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
cond=0
[ $rc = 0 ] && [ ! -s "$tmp/err" ] && grep -qF "0 regressed ops marked" "$tmp/out" && cond=1
expect "--diff with nothing regressed (the trace against itself): exit 0, nothing marked" \
	"rc $rc: $(cat "$tmp/out" "$tmp/err")"
ls "$tmp" | grep -q 'tmp-' && not_ok "no temporary file left" "$(ls "$tmp")"

# every refused trace of tests/data/bad/trace: augment and replay print the
# reader's line (docs/testing.md), exit 2, write nothing
n=0
bad=
for e in tests/data/bad/trace/*.expect; do
	f=${e%.expect}
	want=$(sed -n 's/^error: //p' "$e")
	[ -n "$want" ] || continue # error-glob: a count that depends on zlib
	want="tracegate: $(printf '%s' "$want" | sed "s|{file}|$f|g")"
	"$TG" augment "$f" -o "$tmp/badout.json" >"$tmp/o1" 2>"$tmp/e1"
	r1=$?
	"$TG" replay "$f" --op aten::mm -o "$tmp/badreplay" >"$tmp/o2" 2>"$tmp/e2"
	r2=$?
	if [ "$r1 $r2" != "2 2" ] || [ -s "$tmp/o1" ] || [ -s "$tmp/o2" ] || [ "$(cat "$tmp/e1")" != "$want" ] ||
		[ "$(cat "$tmp/e2")" != "$want" ] || [ -e "$tmp/badout.json" ] || [ -e "$tmp/badreplay" ]; then
		bad="$bad $(basename "$f") ($r1/$r2: $(head -c 200 "$tmp/e1"))"
	fi
	n=$((n + 1))
done
cond=0
[ -z "$bad" ] && [ "$n" -ge 50 ] && cond=1
expect "the $n refused traces of tests/data/bad/trace: augment and replay say the reader's line, exit 2, write nothing" \
	"$bad"

# ---- the shared traces
if [ ! -d "$SHARED" ]; then
	skip "shared traces" "$SHARED is absent (set TG_SHARED)"
	tap_exit
fi
B=$SHARED/h200-dev/base_r1/rank0.pt.trace.json.gz
M=$SHARED/h200-dev/gemm_misaligned_r1/rank0.pt.trace.json.gz
"$TG" augment "$M" --diff "$B" -o "$tmp/aug.json.gz" >"$tmp/out" 2>"$tmp/err"
rc=$?
cond=0
[ $rc = 0 ] && [ ! -s "$tmp/err" ] &&
	[ "$(sed -n 1p "$tmp/out")" = "diff against $B: block; 3 regressed ops marked: aten::mm, aten::addmm, aten::sum" ] &&
	[ "$(sed -n 2p "$tmp/out")" = "wrote $tmp/aug.json.gz: 37129 trace events copied (912 marked), 3552 counter events in 2 tracks, 22 instant events" ] &&
	cond=1
expect "--diff: the misaligned GEMM's ops marked, the verdict, rules, the new finding and regressions as instants" "rc $rc: $(cat "$tmp/out" "$tmp/err")"
check "the output is gzip" "$(od -An -tx1 -N2 "$tmp/aug.json.gz")" [ "$(od -An -tx1 -N2 "$tmp/aug.json.gz" | tr -d ' ')" = 1f8b ]

"$TG" report "$M" >"$tmp/r1" 2>&1
"$TG" report "$tmp/aug.json.gz" >"$tmp/r2" 2>&1
check "tracegate's report of the augmented trace is the trace's (but the file name)" \
	"$(diff "$tmp/r1" "$tmp/r2" | head -6)" [ "$(diff "$tmp/r1" "$tmp/r2" | grep -c '^[<>]')" = 2 ]
"$TG" diff "$B" "$tmp/aug.json.gz" --format json >"$tmp/d2" 2>/dev/null
rc2=$?
"$TG" diff "$B" "$M" --format json >"$tmp/d1" 2>/dev/null
rc1=$?
check "the diff of the augmented trace gives the same verdict (exit 1, block)" "$rc1 / $rc2" [ "$rc1 $rc2" = "1 1" ]

if [ -n "$PY" ]; then
	"$PY" - "$tmp/aug.json.gz" "$M" <<'PY' >"$tmp/py" 2>&1
import gzip, json, sys, collections
a = json.load(gzip.open(sys.argv[1]))
b = json.load(gzip.open(sys.argv[2]))
ea, eb = a['traceEvents'], b['traceEvents']
added = [e for e in ea if e.get('cat') == 'tracegate']
orig = [e for e in ea if e.get('cat') != 'tracegate']
assert len(orig) == len(eb), (len(orig), len(eb))
mm = [e['args']['tracegate'] for e in orig if e.get('name') == 'aten::mm' and 'tracegate' in e.get('args', {})]
assert len(mm) == 192 and all(t['new_us_per_step'] > t['base_us_per_step'] for t in mm), len(mm)
marked = 0
for x, y in zip(orig, eb):
    if 'tracegate' in x.get('args', {}):
        marked += 1
        t = x['args'].pop('tracegate')
        assert t['regressed_op'] in ('aten::mm', 'aten::addmm', 'aten::sum'), t
        assert t['verdict'] in ('warn', 'block') and t['change_pct'] > 0 and len(t['ci_pct']) == 2, t
    assert x == y, (x, y)
assert marked == 912, marked
c = collections.Counter(e['ph'] for e in added)
assert c == {'C': 3552, 'i': 22}, c
i = [e for e in added if e['ph'] == 'i']
assert i[0]['name'].startswith('tracegate: block: gemm GEMM kernel_time +161.3 %'), i[0]['name']
# the new finding (docs/findings.md): the misaligned GEMM, its fix in args
f = [e for e in i if e['name'].startswith('tracegate finding ')]
assert [e['name'] for e in f] == ['tracegate finding new: misaligned GEMM (24 a step) costs 1.69 ms a step (12.3 % of the step)'], f
assert f[0]['args']['new']['id'] == 'gemm-alignment' and f[0]['args']['fix'].startswith('pad M, N and K'), f[0]['args']
assert sum(1 for e in i if e['name'].startswith('regressed: aten::mm +157.6 %')) == 6  # one a step
q = [e for e in added if e['name'] == 'Queue Length']
assert all(e['args']['Queue Length'] >= 0 and e['id'] == 7 for e in q)
assert {k: v for k, v in a.items() if k != 'traceEvents'} == {k: v for k, v in b.items() if k != 'traceEvents'}
print('ok')
PY
	check "the JSON: every event as it was but args.tracegate on the 912 marked, 3552 counters, 22 instants" \
		"$(cat "$tmp/py")" grep -qx ok "$tmp/py"
else
	skip "the JSON checked event by event" "no python3"
fi

# every schema of the shared traces reads back as the same tree
for t in kineto/kineto_tbplugin_resnet50_V100_num_workers_0_worker0.1623143089861.pt.trace.json.gz \
	hta/hta_amd_mi250_rocm6.2_minitoy_train.json.gz hta/hta_mtia_inference_no_profilerstep_rank0.json.gz \
	h200-dev/compiled_r1/rank0.pt.trace.json.gz; do
	"$TG" augment "$SHARED/$t" -o "$tmp/rt.json.gz" >/dev/null 2>"$tmp/err" || not_ok "augment $t" "$(cat "$tmp/err")"
	"$TG" tree "$SHARED/$t" --depth 2 >"$tmp/t1" 2>&1
	"$TG" tree "$tmp/rt.json.gz" --depth 2 >"$tmp/t2" 2>&1
	check "$t: the same tree read back" "$(diff "$tmp/t1" "$tmp/t2" | head -4)" cmp -s "$tmp/t1" "$tmp/t2"
done
tap_exit
