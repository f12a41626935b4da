#!/bin/sh
# cli_report.sh - `tracegate report` from the command line: formats, files,
# steps, several traces, errors. Usage: sh tests/cli_report.sh TRACEGATE
set -u
TG=$1
SAMPLE=tests/fixtures/sample.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"
run() { "$TG" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
expect_ok() { # name, args...
	name=$1; shift
	run "$@"
	if [ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ]; then ok "$name"; else not_ok "$name" "exit $rc: $(head -c 300 "$tmp/err")"; fi
}
expect_fail() { # name, expected stderr line, args...
	name=$1; want=$2; shift 2
	run "$@"
	lines=$(wc -l <"$tmp/err")
	if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && [ "$(cat "$tmp/err")" = "$want" ] && [ ! -s "$tmp/out" ]; then
		ok "$name"
	else
		not_ok "$name" "exit $rc, $lines lines: $(head -c 300 "$tmp/err")"
	fi
}

expect_ok "report text" report "$SAMPLE"
grep -q '^GPU timeline$' "$tmp/out" && grep -q '^busy_time  *0.265' "$tmp/out" && ok "text has the timeline" || not_ok "text has the timeline" "$(head -5 "$tmp/out")"
# the terminal report (issue 23): the summary first, every line within 120
# columns (but the heading naming the file), readable headings; --wide
# every column under TraceLens's names, as the text report was before
widest() { # FILE: the widest line in code points, the "== Perf report:" headings aside
	# (UTF-8 continuation bytes dropped: one character, one column)
	grep -v '^== Perf report: ' "$1" | LC_ALL=C sed 's/[\x80-\xbf]//g' | LC_ALL=C awk '{ n = length($0); if (n > m) m = n } END { print m + 0 }'
}
[ "$(sed -n 3p "$tmp/out")" = "Summary" ] && grep -q '^  GPU time   0.775 ms from the first kernel to the last: busy 0.265 ms (34.2 %), idle 0.510 ms (65.8 %)$' "$tmp/out" \
	&& ok "text: the summary first, busy and idle" || not_ok "text: summary" "$(head -8 "$tmp/out")"
grep -q '^    aten::addmm  .*  2 calls       0.105 ms   39.6 %$' "$tmp/out" && ok "text: the top op in the summary" \
	|| not_ok "text: top op" "$(grep -A3 'Top ops' "$tmp/out")"
w=$(widest "$tmp/out")
[ "$w" -le 120 ] && ok "text: fits 120 columns ($w)" || not_ok "text: 120 columns" "widest line: $w"
grep -q '^op  *category  *calls  *kernel ms  *subtree ms  *%  *cum %$' "$tmp/out" && ok "text: readable headings" \
	|| not_ok "text: headings" "$(grep -A1 '^Kernel time by op (' "$tmp/out")"
cp "$tmp/out" "$tmp/default.txt"
expect_ok "report --wide" report "$SAMPLE" --wide
grep -q 'total_direct_kernel_time_ms' "$tmp/out" && [ "$(widest "$tmp/out")" -gt 120 ] && [ "$(sed -n 3p "$tmp/out")" = "Summary" ] \
	&& ok "--wide: the summary, then every column under TraceLens's names" || not_ok "--wide" "$(widest "$tmp/out")"
expect_fail "--wide with another format" "tracegate: report: --wide goes with --format text" report "$SAMPLE" --wide --format md
if [ -d "${TG_SHARED:-../shared}/traces" ]; then
	n=0 wmax=0
	for f in $(find "${TG_SHARED:-../shared}/traces" -name '*.json.gz' | LC_ALL=C sort | head -40); do
		"$TG" report "$f" >"$tmp/shared.txt" 2>/dev/null || continue
		w=$(widest "$tmp/shared.txt")
		[ "$w" -gt "$wmax" ] && wmax=$w
		n=$((n + 1))
	done
	[ "$wmax" -le 120 ] && ok "text: $n shared traces, every line within 120 columns ($wmax)" \
		|| not_ok "text: shared traces within 120 columns" "widest: $wmax"
else
	skip "text: shared traces within 120 columns" "no ${TG_SHARED:-../shared}/traces"
fi
expect_ok "report md" report "$SAMPLE" --format md
grep -q '^| type | time ms | percent |$' "$tmp/out" && ok "md table" || not_ok "md table" "$(head -5 "$tmp/out")"
expect_ok "report json" report "$SAMPLE" --format json
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); t=d["traces"][0]["tables"]; assert d["tracegate_report"]==1; assert t["gpu_timeline"]["rows"][3][0]=="busy_time"; assert abs(t["gpu_timeline"]["rows"][3][1]-0.265)<1e-12' "$tmp/out" \
		&& ok "json parses, busy 0.265 ms" || not_ok "json parses" "$(head -c 200 "$tmp/out")"
fi
expect_ok "report csv" report "$SAMPLE" --format csv -o "$tmp/csv"
for f in gpu_timeline gpu_timeline_by_device ops_summary_by_category ops_summary ops_unique_args kernel_summary short_kernel_histogram short_kernels_summary; do
	[ -s "$tmp/csv/$f.csv" ] && ok "csv $f.csv" || not_ok "csv $f.csv" "missing"
done
[ "$(head -1 "$tmp/csv/gpu_timeline.csv")" = "type,time ms,percent" ] && ok "gpu_timeline.csv header" || not_ok "gpu_timeline.csv header" "$(head -1 "$tmp/csv/gpu_timeline.csv")"
grep -q '^busy_time,0.265,' "$tmp/csv/gpu_timeline.csv" && ok "csv busy 0.265" || not_ok "csv busy" "$(cat "$tmp/csv/gpu_timeline.csv")"
# the csv files are written on two threads (cli/csv_files.c): every table
# there, and of two tables that cannot be written the first in the report's
# order is the one named, as one thread would name it
[ "$(ls "$tmp/csv" | grep -c '\.csv$')" -eq "$(ls "$tmp/csv" | wc -l)" ] && [ "$(ls "$tmp/csv" | wc -l)" -ge 8 ] \
	&& ok "csv: one file per table" || not_ok "csv: one file per table" "$(ls "$tmp/csv")"
mkdir -p "$tmp/csvbad/ops_summary.csv" "$tmp/csvbad/kernel_summary.csv"
expect_fail "csv: a table that cannot be written: the first in order named" \
	"tracegate: $tmp/csvbad/ops_summary.csv: cannot write: Is a directory" \
	report "$SAMPLE" --format csv -o "$tmp/csvbad"
[ -s "$tmp/csvbad/gpu_timeline.csv" ] && ok "csv: the tables before it written" || not_ok "csv: the tables before it" "$(ls "$tmp/csvbad")"
# a file there already is written over and cut at the new end, not
# truncated first (cli/csv_files.c): the bytes are a fresh folder's
mkdir -p "$tmp/over"
for f in "$tmp"/csv/*.csv; do head -c 5000 /dev/zero | tr '\0' 'x' > "$tmp/over/${f##*/}"; done
echo short > "$tmp/over/gpu_timeline.csv"
expect_ok "csv over longer and shorter files" report "$SAMPLE" --format csv -o "$tmp/over"
diff -r "$tmp/csv" "$tmp/over" >/dev/null && ok "csv over files: the bytes of a fresh folder" \
	|| not_ok "csv over files" "$(diff -r "$tmp/csv" "$tmp/over" | head -5)"
if [ -w /dev/full ]; then
	mkdir -p "$tmp/full" && ln -s /dev/full "$tmp/full/ops_summary.csv"
	expect_fail "csv: a full device named" "tracegate: $tmp/full/ops_summary.csv: cannot write: No space left on device" \
		report "$SAMPLE" --format csv -o "$tmp/full"
	mkdir -p "$tmp/null" && ln -s /dev/null "$tmp/null/ops_summary.csv"
	expect_ok "csv: a file that is /dev/null (not cut)" report "$SAMPLE" --format csv -o "$tmp/null"
else
	skip "csv to /dev/full" "no writable /dev/full here"
fi
expect_ok "report -o FILE text" report "$SAMPLE" -o "$tmp/rep.txt"
[ -s "$tmp/rep.txt" ] && ok "-o FILE: the file written" || not_ok "-o FILE" "missing"
run report "$SAMPLE"
cmp -s "$tmp/out" "$tmp/rep.txt" && ok "-o FILE: what stdout gets" || not_ok "-o FILE: what stdout gets" "differs"
[ "$(ls -A "$tmp" | grep -c '^\.')" -eq 0 ] && ok "-o FILE: no temporary file left" || not_ok "-o FILE: temporary files" "$(ls -A "$tmp")"
mkdir -p "$tmp/adir"
expect_fail "-o a folder (not csv): refused, naming what -o means" \
	"tracegate: report: -o $tmp/adir: is a folder; -o names the file to write (a folder only with --format csv)" \
	report "$SAMPLE" --format html -o "$tmp/adir"
[ -z "$(ls -A "$tmp/adir")" ] && ok "-o a folder: nothing written in it" || not_ok "-o a folder" "$(ls -A "$tmp/adir")"
expect_ok "report --step 2" report "$SAMPLE" --step 2 --format csv -o "$tmp/step2"
grep -q '^busy_time,0.085,' "$tmp/step2/gpu_timeline.csv" && ok "step 2 busy 0.085 ms" || not_ok "step 2 busy" "$(cat "$tmp/step2/gpu_timeline.csv")"
expect_ok "report --tracelens" report "$SAMPLE" --tracelens
expect_ok "two traces" report "$SAMPLE" tests/fixtures/tiny.json --format csv -o "$tmp/two"
[ -s "$tmp/two/sample/gpu_timeline.csv" ] && [ -s "$tmp/two/tiny/gpu_timeline.csv" ] && [ -s "$tmp/two/kernel_rank_spread.csv" ] \
	&& ok "one folder per trace and the rank tables" || not_ok "two traces" "$(find "$tmp/two")"
expect_ok "report --help" report --help

expect_fail "csv needs -o" "tracegate: report: --format csv writes one file per table: give -o FOLDER" report "$SAMPLE" --format csv
expect_fail "bad format" "tracegate: report: --format: 'xml' is not one of text, md, csv, json, html" report "$SAMPLE" --format xml
expect_fail "no such step" "tracegate: $SAMPLE: no ProfilerStep#99 in this trace (2 steps)" report "$SAMPLE" --step 99
expect_fail "bad trace" "tracegate: tests/data/bad/trace/nan.json: byte 50: NaN and Infinity are not JSON numbers (\"dur\")" report tests/data/bad/trace/nan.json
expect_fail "unknown option" "tracegate: report: unknown option --frobnicate (see tracegate report --help)" report "$SAMPLE" --frobnicate
run report
[ "$rc" -eq 2 ] && ok "no trace: usage" || not_ok "no trace" "exit $rc"
mkdir -p "$tmp/partial"
expect_fail "no partial report file" "tracegate: tests/data/bad/trace/nan.json: byte 50: NaN and Infinity are not JSON numbers (\"dur\")" \
	report "$SAMPLE" tests/data/bad/trace/nan.json -o "$tmp/partial/rep.md" --format md
[ -z "$(ls -A "$tmp/partial")" ] && ok "failed report leaves no file" || not_ok "failed report leaves no file" "$(ls -A "$tmp/partial")"

# perf sheets and the roofline: sample.json has one aten::addmm (M 64, N 128,
# K 32, bias, fp32) of 50 us: 532,480 FLOPs, 57,856 bytes; on an H100 SXM
# (3,350 GB/s) memory bound, roofline 57856 / 3.35e9 s = 0.01727 us
expect_ok "report --gpu" report "$SAMPLE" --gpu "H100 SXM" --format csv -o "$tmp/gpu"
if command -v python3 >/dev/null 2>&1; then
	python3 - "$tmp/gpu/GEMM.csv" <<'PY' && ok "GEMM roofline by hand" || not_ok "GEMM roofline by hand" "$(cat "$tmp/gpu/GEMM.csv")"
import csv, sys
r = list(csv.DictReader(open(sys.argv[1], encoding="utf-8")))
assert len(r) == 1 and r[0]["name"] == "aten::addmm", r
x = r[0]
assert abs(float(x["GFLOPS_first"]) - 532480e-9) < 1e-15
assert abs(float(x["Data Moved (MB)_first"]) * 2**20 - 57856) < 1e-6
assert x["Compute Spec"] == "matrix_fp32"
assert x["Roofline Bound_first"] == "MEMORY_BOUND"
assert abs(float(x["Roofline Time (\u00b5s)_first"]) - 57856 / 3350e9 * 1e6) < 1e-12
assert abs(float(x["Pct Roofline_mean"]) - 57856 / 3350e9 * 1e6 / 50 * 100) < 1e-9
PY
fi
printf 'gpus:\n  - name: H100 SXM\n    mem_bw_gbps: 1000\n' >"$tmp/specs.yaml"
expect_ok "report --gpu-specs" report "$SAMPLE" --gpu "H100 SXM" --gpu-specs "$tmp/specs.yaml" --format csv -o "$tmp/gpu2"
grep -q ',MEMORY_BOUND,' "$tmp/gpu2/GEMM.csv" && grep -q ',0.057856,' "$tmp/gpu2/GEMM.csv" \
	&& ok "overridden bandwidth gives 0.057856 us" || not_ok "overridden bandwidth" "$(cat "$tmp/gpu2/GEMM.csv")"
printf 'gpus:\n  - name: X\n    bogus: 1\n' >"$tmp/bad.yaml"
run report "$SAMPLE" --gpu-specs "$tmp/bad.yaml"
[ "$rc" -eq 2 ] && grep -q "^tracegate: $tmp/bad.yaml:3:5: " "$tmp/err" && [ ! -s "$tmp/out" ] \
	&& ok "bad gpu specs: file:line:col" || not_ok "bad gpu specs" "exit $rc: $(cat "$tmp/err")"
expect_fail "unknown gpu" "tracegate: --gpu: no GPU named 'Z80' (see docs/roofline.md, or add it with --gpu-specs)" \
	report "$SAMPLE" --gpu Z80

# an untrusted trace nesting 8,000 launchers (op-naming annotations, each
# launching one kernel: every kernel under every launcher above it): the
# subtree times are merged bottom-up, in memory linear in the kernels
# (tagging each kernel once per launcher above it took 507 MB here, 11 MB
# now); a correctness bound, not a speed target
# nested N CAT NAME: N ops of category CAT nested in one chain, each
# launching one kernel (kernel i at 1 s + 5i us for 10 us); NAME may hold
# a %d for the level (op i of N)
nested() {
	awk -v n="$1" -v cat="$2" -v name="$3" 'BEGIN { printf "{\"traceEvents\":["
	for (i = 0; i < n; i++) {
		printf "%s{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",", i ? "," : "", cat, sprintf(name, i)
		printf "\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d},", 10 * i, 10 * (2 * n - 2 * i)
		printf "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
		printf "\"ts\":%d,\"dur\":2,\"args\":{\"correlation\":%d}},", 10 * i + 1, i + 1
		printf "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,\"tid\":7,", i
		printf "\"ts\":%d,\"dur\":10,", 1000000 + 5 * i
		printf "\"args\":{\"device\":0,\"stream\":7,\"correlation\":%d}}", i + 1
	}
	print "]}" }'
}
nested 8000 user_annotation vllm::unified_attention_with_output >"$tmp/deep.json"
if [ -x /usr/bin/time ]; then
	/usr/bin/time -f '%M' -o "$tmp/rss" "$TG" report "$tmp/deep.json" >"$tmp/out" 2>"$tmp/err"
	rc=$? rss=$(tail -1 "$tmp/rss")
	[ "$rc" -eq 0 ] && [ "$rss" -lt 102400 ] && ok "8,000 nested launchers: report in $rss KB (< 100 MB)" \
		|| not_ok "8,000 nested launchers: memory" "exit $rc, $rss KB: $(head -c 300 "$tmp/err")"
else
	skip "8,000 nested launchers: memory" "no GNU time at /usr/bin/time (contrib/install-deps.sh --bench)"
	run report "$tmp/deep.json"
fi
# launcher i's subtree: kernels i..7999, [1 s + 5i us, 1 s + 39,995 + 10 us]; summed over the 8,000:
# 5 x 8000 x 7999 / 2 + 10 x 8000 us = 160,060 ms
grep -q '^vllm::unified_attention_with_output  SDPA_fwd   8000     80.000  160060.000  100.000  100.000$' "$tmp/out" \
	&& ok "8,000 nested launchers: subtree times summed" \
	|| not_ok "nested launchers: subtree" "$(grep -A2 '^Kernel time by op (' "$tmp/out")"

# the same chain of cpu_ops (each a distinct op): frequent_kernel_sequences
# gives each op every kernel under it as its sequence, 32 million names over
# the 8,000 rows (the text report took 572 MB); the column is held to 4 MiB,
# a row past that ending with the count of the kernels left out
nested 8000 cpu_op "aten::op%d" >"$tmp/deepops.json"
if [ -x /usr/bin/time ]; then
	tap_peak_rss "$tmp/rss" "$TG" report "$tmp/deepops.json"
	rss=$(cat "$tmp/rss"); cp "$tmp/peak.out" "$tmp/out"; cp "$tmp/peak.err" "$tmp/err"
	# 28 MB (ASan's quarantine off: tap_peak_rss)
	[ "$rc" -eq 0 ] && [ "$rss" -lt 204800 ] && ok "8,000 nested cpu_ops: report in $rss KB (< 200 MB)" \
		|| not_ok "8,000 nested cpu_ops: memory" "exit $rc, $rss KB: $(head -c 300 "$tmp/err")"
else
	skip "8,000 nested cpu_ops: memory" "no GNU time at /usr/bin/time (contrib/install-deps.sh --bench)"
fi
rm -rf "$tmp/deepops"
expect_ok "report csv, 8,000 nested cpu_ops" report "$tmp/deepops.json" --format csv -o "$tmp/deepops"
seq_csv=$tmp/deepops/frequent_kernel_sequences.csv
# op i has kernels i..7999; the rows go by op name (aten::op0, aten::op1, aten::op10, ...), each
# whole while the 4 MiB last (op0's 8,000 names, op1000's 7,000), then counted
grep -q '^aten::op0,1,1,1,8000,.*,k0 | k1 | k2 | .* | k7999$' "$seq_csv" \
	&& grep -q '^aten::op1000,1,1,1,7000,.*,k1000 | k1001 | .* | k7999$' "$seq_csv" \
	&& grep -q '^aten::op7999,1,1,1,1,10.0,10.0,20.0,\.\.\. (1 more kernel)$' "$seq_csv" \
	&& grep -q '^aten::op999,1,1,1,7001,70010.0,70010.0,140020.0,\.\.\. (7001 more kernels)$' "$seq_csv" \
	&& [ "$(wc -c <"$seq_csv")" -lt 5000000 ] \
	&& ok "8,000 nested cpu_ops: kernel sequences whole up to 4 MiB, then counted" \
	|| not_ok "nested cpu_ops: kernel sequences" "$(wc -c <"$seq_csv") bytes: $(cut -c1-120 "$seq_csv" | head -5)"

# AMD AITER attention on a real trace (when ../shared is there): sglang's
# aiter::mha_batch_prefill, 36 calls of 15 sequences x 1024 tokens, causal,
# H 32/8, d 128, bf16: 15*32*2*1024*1024*256/2 FLOPs, 300 MiB (docs/roofline.md)
SGL=${TG_SHARED:-../shared}/traces/tracelens/tests/traces/inference/sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz
if [ -f "$SGL" ] && command -v python3 >/dev/null 2>&1; then
	expect_ok "report csv, aiter trace" report "$SGL" --format csv -o "$tmp/aiter"
	python3 - "$tmp/aiter/SDPA_fwd.csv" <<'PY' && ok "SDPA_fwd has aiter::mha_batch_prefill" || not_ok "SDPA_fwd aiter" "$(head -c 600 "$tmp/aiter/SDPA_fwd.csv")"
import csv, sys
r = [x for x in csv.DictReader(open(sys.argv[1], encoding="utf-8")) if x["name"] == "aiter::mha_batch_prefill"]
assert len(r) == 1, r
x = r[0]
assert (x["param: B"], x["param: N_Q"], x["param: H_Q"], x["param: N_KV"], x["param: H_KV"]) == ("15", "1024", "32", "1024", "8"), x
assert x["param: causal"] == "True" and x["name_count"] == "36", x
assert abs(float(x["GFLOPS_first"]) - 128.84901888) < 1e-9, x["GFLOPS_first"]
assert abs(float(x["Data Moved (MB)_first"]) - 300.0) < 1e-9, x["Data Moved (MB)_first"]
PY
else
	skip "aiter trace" "$SGL is absent (set TG_SHARED)"
fi

tap_exit
