#!/bin/sh
# cli_critical_path.sh - `tracegate critical-path` (text, json, html, -o,
# the window options, HTA's zero-weight launch edges) and how `diff`
# reports a moved critical path: two generated traces whose step goes from
# GPU-compute-bound to launch-bound (10 launches, each followed by a
# stream sync; the kernel starts 6 us after its launch and runs 40 us in
# the base, starts 40 us after and runs 5 us in the new), then HTA's
# critical-path test traces from $TG_SHARED (skipped, saying so, without
# them). Bad input: one line, exit 2, nothing on stdout.
# Usage: sh tests/cli_critical_path.sh TRACEGATE
set -u
TG=$1
SHARED=${TG_SHARED:-../shared}
. "$(dirname "$0")/tap.sh"
tap_tmp

# mk FILE KSTART KDUR: 10 iterations 100 us apart: a launch [t, t+5), a
# stream sync [t+5, t+50) (its Stream Sync event on the stream), the kernel
# [t+KSTART, t+KSTART+KDUR)
mk() {
	{
		printf '{"traceEvents":['
		i=0
		while [ $i -lt 10 ]; do
			t=$((i * 100)); c=$((i * 2 + 1)); s=$((c + 1))
			[ $i -gt 0 ] && printf ','
			printf '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":%d,"dur":5,"args":{"correlation":%d}},' $t $c
			printf '{"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":1,"tid":1,"ts":%d,"dur":45,"args":{"correlation":%d}},' $((t + 5)) $s
			printf '{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":%d,"dur":%d,"args":{"correlation":%d,"stream":7}},' $((t + $2)) "$3" $c
			printf '{"ph":"X","cat":"cuda_sync","name":"Stream Sync","pid":0,"tid":7,"ts":%d,"dur":2,"args":{"correlation":%d,"stream":7}}' $((t + 48)) $s
			i=$((i + 1))
		done
		printf ']}\n'
	} >"$1"
}
mk "$tmp/base.json" 6 40
mk "$tmp/new.json" 40 5

# text: per launch 6 us of launch delay and 40 us of gemm in the base
"$TG" critical-path "$tmp/base.json" >"$tmp/o" 2>"$tmp/e"
check "text: exit 0, nothing on stderr" "$(cat "$tmp/e")" test $? -eq 0 -a ! -s "$tmp/e"
check "text: length" "$(head -3 "$tmp/o")" grep -qx 'Length 0.460 ms' "$tmp/o"
check "text: gpu_compute_bound 400 us" "$(cat "$tmp/o")" \
	grep -q '^gpu_compute_bound  *0\.400  *86\.96%$' "$tmp/o"
check "text: launch delay 60 us" "$(cat "$tmp/o")" \
	grep -q '^gpu_kernel_launch_overhead  *0\.060  *13\.04%$' "$tmp/o"
check "text: the graph" "$(tail -1 "$tmp/o")" grep -q '80 nodes, 69 edges (operator 30, dependency 19, launch 10' "$tmp/o"

# json, to a file
if "$TG" critical-path "$tmp/new.json" --format json -o "$tmp/new.cp.json" >"$tmp/o" 2>"$tmp/e" && [ ! -s "$tmp/o" ]; then
	ok "json -o FILE: nothing on stdout"
else
	not_ok "json -o FILE" "$(cat "$tmp/e")"
fi
check "json: launch-bound" "$(head -c 600 "$tmp/new.cp.json")" \
	grep -q '{"bound_by":"gpu_kernel_launch_overhead","ms":0.400000,"percent":88.888889}' "$tmp/new.cp.json"
check "json: every edge of the path" "$(head -c 300 "$tmp/new.cp.json")" \
	test "$(grep -o '"type":"kernel_launch_delay"' "$tmp/new.cp.json" | wc -l)" -eq 10

check "json -o FILE: no temporary file left beside it" "$(ls "$tmp")" \
	test "$(ls "$tmp" | grep -c '\.tmp-')" -eq 0
# -o FILE is streamed into a temporary file, renamed when whole: a write
# that fails leaves nothing, says which file in one line, exits 2
"$TG" critical-path "$tmp/new.json" --format json -o "$tmp/none/cp.json" >"$tmp/o" 2>"$tmp/e"
rc=$?
check "-o in a missing folder: one line, exit 2" "rc=$rc $(cat "$tmp/e")" \
	test "$rc$(cat "$tmp/e")" = "2tracegate: $tmp/none/cp.json: cannot write: No such file or directory"
if [ -w /dev/full ]; then
	"$TG" critical-path "$tmp/new.json" --format json -o /dev/full >"$tmp/o" 2>"$tmp/e"
	rc=$?
	check "-o /dev/full (a device, written as it is): one line, exit 2" "rc=$rc $(cat "$tmp/e")" \
		test "$rc$(cat "$tmp/e")" = "2tracegate: /dev/full: cannot write: No space left on device"
else
	skip "-o /dev/full" "no writable /dev/full here"
fi

# json -o FILE of a 20 MB generated trace (its path's json 9 MB) is not
# held in memory: its peak within half the document of text's, whose
# output is a few kB (held, it was text's peak plus twice the document)
GEN=${TG_GEN:-build/tg-gen}
if [ ! -x /usr/bin/time ] || [ ! -x "$GEN" ]; then
	skip "json -o FILE streamed" "no /usr/bin/time or no generator ($GEN)"
else
	"$GEN" --train --target-mb 20 --seed 1 -o "$tmp/g20.json" 2>"$tmp/e"
	tap_peak_rss "$tmp/rss.text" "$TG" critical-path "$tmp/g20.json" -o "$tmp/g20.txt"
	tap_peak_rss "$tmp/rss.json" "$TG" critical-path "$tmp/g20.json" --format json -o "$tmp/g20.cp.json"
	doc=$(($(wc -c <"$tmp/g20.cp.json") / 1024))
	check "json -o FILE streamed: peak $(cat "$tmp/rss.json") KB, text $(cat "$tmp/rss.text") KB, document $doc KB" \
		"$(cat "$tmp/peak.err")" test "$(cat "$tmp/rss.json")" -le $(($(cat "$tmp/rss.text") + doc / 2))
fi

# html: one page, no script
"$TG" critical-path "$tmp/new.json" --format html -o "$tmp/cp.html" 2>"$tmp/e"
check "html: a page with the timeline" "$(cat "$tmp/e")" grep -q '<svg width="1200"' "$tmp/cp.html"
check "html: no script" "" sh -c "! grep -qi '<script' '$tmp/cp.html'"

# the diff: the step became launch-bound
"$TG" diff "$tmp/base.json" "$tmp/new.json" >"$tmp/o" 2>"$tmp/e"
check "diff text: the sentence" "$(grep -A2 'Critical path' "$tmp/o")" grep -q \
	'^Critical path (HTA): the step became launch-bound: +0.340 ms of gpu_kernel_launch_overhead (critical path 0.460 ms -> 0.450 ms a step)$' "$tmp/o"
"$TG" diff "$tmp/base.json" "$tmp/new.json" --format md >"$tmp/o" 2>"$tmp/e"
check "diff md: the section" "$(grep -A3 'What bounds' "$tmp/o")" grep -q \
	'^The step became launch-bound: +0.340 ms of gpu_kernel_launch_overhead (critical path 0.460 ms → 0.450 ms a step)\.$' "$tmp/o"
check "diff md: the table" "$(grep -A9 'What bounds' "$tmp/o")" grep -q \
	'^| `gpu_kernel_launch_overhead` | 0.060 | 0.400 | +0.340 |$' "$tmp/o"
"$TG" diff "$tmp/base.json" "$tmp/new.json" --format json >"$tmp/o" 2>"$tmp/e"
check "diff json: became" "$(head -c 300 "$tmp/o")" grep -q '"became":"gpu_kernel_launch_overhead"' "$tmp/o"
"$TG" diff "$tmp/base.json" "$tmp/new.json" --no-critical-path >"$tmp/o" 2>"$tmp/e"
check "diff --no-critical-path" "" sh -c "! grep -q 'Critical path' '$tmp/o'"

# bad input: one line on stderr, exit 2, nothing on stdout
bad() { # name, expected stderr line, args...
	name=$1; want=$2; shift 2
	"$TG" critical-path "$@" >"$tmp/o" 2>"$tmp/e"
	rc=$?
	if [ $rc -eq 2 ] && [ ! -s "$tmp/o" ] && [ "$(cat "$tmp/e")" = "$want" ]; then
		ok "$name"
	else
		not_ok "$name" "exit $rc, stderr: $(cat "$tmp/e")"
	fi
}
bad "missing file" "tracegate: $tmp/none.json: cannot open: No such file or directory" "$tmp/none.json"
bad "bad --format" "tracegate: critical-path: --format: 'md' is not one of text, json, html" "$tmp/base.json" --format md
bad "bad --instance" "tracegate: critical-path: --instance: '3:1' is not N or N:M (0-based, M >= N)" "$tmp/base.json" --instance 3:1
bad "no such annotation" \
	"tracegate: $tmp/base.json: critical path: no event whose name contains 'ProfilerStep' in the trace" \
	"$tmp/base.json" --annotation ProfilerStep
bad "instance out of range" \
	"tracegate: $tmp/base.json: critical path: 'gemm': 10 instances in the trace, asked for 10 to 10" \
	"$tmp/base.json" --annotation gemm --instance 10
bad "--step and --annotation" "tracegate: critical-path: --step and --annotation name the window twice: give one" \
	"$tmp/base.json" --step 1 --annotation x

T=$SHARED/traces/hta
if [ ! -d "$T" ]; then
	skip "HTA's critical-path traces" "$T is absent (set TG_SHARED)"
	tap_exit
fi
A='[param|pytorch.model.alex_net|0|0|0|measure|forward]'
"$TG" critical-path "$T/hta_critical_path_simple_add_A100_cuda_sync_rank0.json.gz" --annotation "$A" --instance 1 \
	--format json >"$tmp/o" 2>"$tmp/e"
# HTA's notebook: 99.779087 / 0.210157 / 0.003723 / 0.007033 %
for want in '"bound_by":"cpu_bound","ms":241.190000,"percent":99.779087' \
	'"bound_by":"gpu_compute_bound","ms":0.508000,"percent":0.210157' \
	'"bound_by":"gpu_kernel_kernel_overhead","ms":0.009000,"percent":0.003723' \
	'"bound_by":"gpu_kernel_launch_overhead","ms":0.017000,"percent":0.007033' '"path_nodes":315,"path_events":159'; do
	check "simple_add forward: $want" "$(head -c 400 "$tmp/o")" grep -qF "$want" "$tmp/o"
done
# HTA's end-to-end test: 624 critical events, 1572 us of launch delay; 625
# with the zero-weight launch edges
"$TG" critical-path "$T/hta_critical_path_simple_add_A100_cuda_sync_rank0.json.gz" --annotation "" --data-load data_load \
	--format json >"$tmp/o" 2>"$tmp/e"
check "simple_add whole trace: HTA's 624 critical events" "$(tail -c 300 "$tmp/o")" grep -q '"path_events":624' "$tmp/o"
check "simple_add whole trace: 1572 us of launch delay" "" \
	grep -qF '"bound_by":"gpu_kernel_launch_overhead","ms":1.572000' "$tmp/o"
"$TG" critical-path "$T/hta_critical_path_simple_add_A100_cuda_sync_rank0.json.gz" --annotation "" \
	--zero-weight-launch-edges --format json >"$tmp/o" 2>"$tmp/e"
check "simple_add whole trace, zero-weight launch edges" "$(head -c 400 "$tmp/o")" \
	grep -qF '"length_ms":41435.045000' "$tmp/o"
# one step only: HTA keeps it (its test takes ProfilerStep instance 0)
"$TG" critical-path "$T/hta_critical_path_cuda_event_sync_A100_rank0.json.gz" --step 100 >"$tmp/o" 2>"$tmp/e"
check "--step 100: the only step" "$(cat "$tmp/e")" grep -qx 'Length 2.411 ms' "$tmp/o"
"$TG" critical-path "$T/hta_critical_path_cuda_event_sync_A100_rank0.json.gz" --step 1 >"$tmp/o" 2>"$tmp/e"
check "--step 1: no such step" "$(cat "$tmp/e")" grep -q "no event named 'ProfilerStep#1' in the trace$" "$tmp/e"
# several steps, each also a gpu_user_annotation: HTA's last-step filter
# cuts at the last ProfilerStep#N event of any kind, the GPU one of step 3,
# so it keeps step 3's CPU side (and counts GPU annotations as instances)
"${TG_GEN:-build/tg-gen}" --steps 3 -o "$tmp/gen.json.gz" 2>/dev/null
"$TG" critical-path "$tmp/gen.json.gz" >"$tmp/o" 2>"$tmp/e"
check "steps: 5 instances, per step over 3 steps" "$(head -3 "$tmp/o")" \
	sh -c "grep -q \"'ProfilerStep', 5 instances\" '$tmp/o' && grep -q 'a step over 3 steps)\$' '$tmp/o'"
"$TG" critical-path "$tmp/gen.json.gz" --step 3 >"$tmp/o" 2>"$tmp/e"
check "--step 3: one step" "$(cat "$tmp/e")" grep -q "^Critical path of .*: 'ProfilerStep#3', 1 instance" "$tmp/o"
"$TG" critical-path "$T/hta_critical_path_cuda_event_sync_multistream_A100_rank0.json.gz" >"$tmp/o" 2>"$tmp/e"
check "multistream: length" "$(head -3 "$tmp/o")" grep -qx 'Length 1.178 ms' "$tmp/o"
tap_exit
