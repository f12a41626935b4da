#!/bin/sh
# cli_replay.sh - `tracegate replay`: the listing, the exit codes (0 all
# written, 1 some refused with one line each on stderr, 2 usage or input
# error), the scripts of every op family of tests/data/replay/ops.json and of
# the shared traces (h200-dev: bf16 GEMMs and flash attention; TraceLens's:
# convolutions, norms, softmax, bmm), each run under python3 with the torch
# it has (Debian's python3-torch 1.13 on a CPU: attention falls back to
# matmul + softmax, said so) and printing a time; hostile op and file names
# that must not become code.
# Usage: sh tests/cli_replay.sh TRACEGATE   ($TG_PYTHON: a python3 with torch)
set -u
TG=$1
. "$(dirname "$0")/tap.sh"
tap_tmp
OPS=tests/data/replay/ops.json
SHARED=${TG_SHARED:-../shared}/traces

# The python3 that has torch: $TG_PYTHON, Debian's, the one on the PATH.
PY=
for p in ${TG_PYTHON:-} /usr/bin/python3 python3; do
	if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import torch' >/dev/null 2>&1; then
		PY=$p
		break
	fi
done

# run DIR ARGS...: runs every script of DIR in one python (torch imported
# once) with ARGS and --json; prints "RC FILE REPLAY_MS TRACE_MS FALLBACKS" a
# line (FALLBACKS as JSON), or "RC FILE TEXT" when a script printed no JSON.
run() {
	dir=$1
	shift
	"$PY" - "$dir" "$@" <<'PY'
import contextlib, glob, io, json, os, runpy, sys
d, args = sys.argv[1], sys.argv[2:]
for f in sorted(glob.glob(os.path.join(d, '*.py'))):
    sys.argv = [f] + args + ['--json']
    out, rc = io.StringIO(), None
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(f, run_name='__main__')
    except SystemExit as e:
        rc = e.code
    s = out.getvalue().strip()
    try:
        j = json.loads(s)
        print(rc, os.path.basename(f), j['replay_ms'], j['trace_ms'], json.dumps(j['fallbacks']))
    except ValueError:
        print(rc, os.path.basename(f), s.replace('\n', ' | '))
PY
}

# timed FILE: every script exited 0 with a time above 0
timed() {
	awk '$1 != 0 || !($3 > 0) { bad = 1; print } END { exit bad }' "$1" >"$1.bad" && [ -s "$1" ]
}

# ---- the listing and the exit codes
# expect NAME DETAIL: ok when the conditions before it held (cond=1)
expect() { if [ "$cond" = 1 ]; then ok "$1"; else not_ok "$1" "$2"; fi; }

"$TG" replay "$OPS" --op aten::mm --list >"$tmp/list" 2>"$tmp/err"
rc=$?
cond=0
[ $rc = 0 ] && [ ! -s "$tmp/err" ] && grep -q '^3 distinct invocations of aten::mm' "$tmp/list" &&
	[ "$(grep -c '^    [0-9] ' "$tmp/list")" = 3 ] && grep -q "^    3       2     0.0110 GPU  GEMM$" "$tmp/list" &&
	grep -qF "      dims=((16, 32), (32, 8)) types=('float', 'float') strides=((32, 1), (1, 32)) concrete=('', '')" "$tmp/list" &&
	cond=1
expect "--list: exit 0, three distinct mm, largest device time first" "rc $rc: $(cat "$tmp/list" "$tmp/err")"

"$TG" replay "$OPS" --op aten::mm -o "$tmp/mm" >"$tmp/out" 2>"$tmp/err"
rc=$?
cond=0
[ $rc = 0 ] && [ ! -s "$tmp/err" ] && [ "$(ls "$tmp/mm" | tr '\n' ' ')" = "aten_mm_1.py aten_mm_2.py aten_mm_3.py " ] &&
	grep -qxF "wrote $tmp/mm/aten_mm_3.py: 2 calls, trace 0.0110 ms GPU per call, GEMM" "$tmp/out" && cond=1
expect "three scripts, exit 0, one line each" "rc $rc: $(cat "$tmp/out" "$tmp/err")"

"$TG" replay "$OPS" --op aten::mm --index 2 -o "$tmp/idx" >"$tmp/out" 2>&1
rc=$?
cond=0
[ $rc = 0 ] && [ "$(ls "$tmp/idx")" = aten_mm_2.py ] && cond=1
expect "--index 2: only the second" "rc $rc: $(cat "$tmp/out")"

"$TG" replay "$OPS" --op aten::mm --match 'c10::BFloat16.*\(\(48, 1\), \(32, 1\)\)' --index 1 -o "$tmp/m" >/dev/null 2>&1
cond=0
grep -q "'shape': (64, 48)" "$tmp/m/aten_mm_1.py" 2>/dev/null && cond=1
expect "--match then --index: the mm under AddmmBackward0" "$(ls "$tmp/m" 2>&1)"

"$TG" replay "$OPS" --op AddmmBackward0 -o "$tmp/none" >"$tmp/out" 2>"$tmp/err"
rc=$?
cond=0
[ $rc = 1 ] && [ ! -s "$tmp/out" ] && [ ! -e "$tmp/none" ] &&
	[ "$(cat "$tmp/err")" = "tracegate: replay: cannot replay AddmmBackward0 (invocation 1): an autograd node, not an op: replay the op under it (aten::mm)" ] &&
	cond=1
expect "an autograd node: exit 1, one line naming the op under it, no folder made" "rc $rc: $(cat "$tmp/out" "$tmp/err")"

"$TG" replay "$OPS" --op aten::gelu -o "$tmp/gelu" >"$tmp/out" 2>"$tmp/err"
rc=$?
cond=0
[ $rc = 1 ] && [ "$(ls "$tmp/gelu")" = aten_gelu_2.py ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
	grep -qF "cannot replay aten::gelu (invocation 1): input 0 has type 'float', 'x': __import__('os')} #?import os', which a script cannot rebuild" "$tmp/err" &&
	cond=1
expect "one refused (a hostile type, shown without its newline), the other written: exit 1" "rc $rc: $(cat "$tmp/out" "$tmp/err")"

"$TG" replay "$OPS" --op aten::nope >"$tmp/out" 2>"$tmp/err"
rc=$?
cond=0
[ $rc = 2 ] && [ "$(cat "$tmp/err")" = "tracegate: $OPS: no cpu_op named 'aten::nope'" ] && cond=1
expect "an op the trace lacks: exit 2, one line" "rc $rc: $(cat "$tmp/err")"

"$TG" replay "$OPS" --op softmax >/dev/null 2>"$tmp/err"
rc=$?
cond=0
[ $rc = 2 ] &&
	grep -qxF "tracegate: $OPS: no cpu_op named 'softmax' (ops named like it: aten::_softmax, aten::_softmax_backward_data)" "$tmp/err" &&
	cond=1
expect "a near name: the ops named like it" "rc $rc: $(cat "$tmp/err")"

"$TG" replay "$OPS" --op aten::mm --index 4 >/dev/null 2>"$tmp/err"
rc=$?
cond=0
[ $rc = 2 ] && grep -qxF "tracegate: replay: --index 4: aten::mm has 3 distinct invocations" "$tmp/err" && cond=1
expect "--index past the end: exit 2" "rc $rc: $(cat "$tmp/err")"

"$TG" replay "$OPS" --op aten::mm --index 0 >/dev/null 2>"$tmp/err"
rc=$?
cond=0
[ $rc = 2 ] && grep -qxF "tracegate: replay: --index: '0' is not a number >= 1" "$tmp/err" && cond=1
expect "--index 0: exit 2" "rc $rc: $(cat "$tmp/err")"

"$TG" replay "$OPS" --op aten::mm --match '(' >/dev/null 2>"$tmp/err"
rc=$?
cond=0
[ $rc = 2 ] && grep -q -- "--match: not a regular expression" "$tmp/err" && cond=1
expect "a bad --match: exit 2" "rc $rc: $(cat "$tmp/err")"

"$TG" replay "$OPS" --op aten::mm --match 'Half' >/dev/null 2>"$tmp/err"
rc=$?
cond=0
[ $rc = 2 ] && grep -qxF "tracegate: replay: no invocation of aten::mm matches --match (3 distinct: see --list)" "$tmp/err" &&
	cond=1
expect "--match that selects nothing: exit 2" "rc $rc: $(cat "$tmp/err")"

"$TG" replay "$OPS" >/dev/null 2>"$tmp/err"
rc=$?
cond=0
[ $rc = 2 ] && [ "$(cat "$tmp/err")" = "tracegate: replay: --op NAME is required (see tracegate replay --help)" ] && cond=1
expect "no --op: exit 2, one line naming it" "rc $rc: $(head -3 "$tmp/err")"

"$TG" replay tests/data/bad/trace/truncated.json --op aten::mm >/dev/null 2>"$tmp/err"
rc=$?
cond=0
[ $rc = 2 ] && grep -q 'truncated.json: byte 200' "$tmp/err" && cond=1
expect "a malformed trace: exit 2, the byte offset" "rc $rc: $(cat "$tmp/err")"

"$TG" replay "$OPS" --op "aten::mm'); __import__('os').system('touch pwned') #" -o "$tmp/evil" >/dev/null 2>"$tmp/err"
rc=$?
cond=0
[ $rc = 1 ] && [ ! -e "$tmp/evil" ] && grep -qF "not an op tracegate can call (a script calls aten::NAME)" "$tmp/err" && cond=1
expect "an op name that is Python: refused, nothing written" "rc $rc: $(cat "$tmp/err")"

# ---- every family of ops.json
for op in aten::mm aten::addmm aten::bmm aten::matmul aten::linear aten::scaled_dot_product_attention \
	aten::_scaled_dot_product_flash_attention aten::_scaled_dot_product_efficient_attention \
	aten::_scaled_dot_product_cudnn_attention aten::_scaled_dot_product_attention_math \
	aten::_scaled_dot_product_flash_attention_backward aten::_scaled_dot_product_efficient_attention_backward \
	aten::conv2d aten::cudnn_convolution aten::convolution_backward aten::layer_norm aten::rms_norm \
	aten::native_batch_norm aten::_softmax aten::_softmax_backward_data aten::add aten::mul; do
	"$TG" replay "$OPS" --op "$op" -o "$tmp/ops" >/dev/null 2>>"$tmp/ops.err" || not_ok "replay $op" "$(cat "$tmp/ops.err")"
done
check "ops.json: 25 scripts, every family" "$(ls "$tmp/ops" | wc -l)" [ "$(ls "$tmp/ops" | wc -l)" = 25 ]

# a file name with quotes and a command substitution stays a string
evil="$tmp/it's \$(touch pwned) \"x\".json"
cp "$OPS" "$evil"
"$TG" replay "$evil" --op aten::mm --index 1 -o "$tmp/evilname" >/dev/null 2>&1
if [ -n "$PY" ] || command -v python3 >/dev/null 2>&1; then
	P=${PY:-python3}
	"$P" - "$tmp/evilname/aten_mm_1.py" "it's \$(touch pwned) \"x\".json" <<'PY' >"$tmp/ast" 2>&1
import ast, sys
tree = ast.parse(open(sys.argv[1]).read())
kinds = [type(n).__name__ for n in tree.body]
call = next(n for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == 'CALL')
c = ast.literal_eval(call.value)
assert c['trace']['file'] == sys.argv[2], c['trace']['file']
assert c['op'] == 'aten::mm'
# the script is CALL, then the runner's imports, classes, functions and the one call
assert kinds[0] == 'Assign' and kinds[-1] == 'Expr', kinds
assert set(kinds) <= {'Assign', 'Import', 'ClassDef', 'FunctionDef', 'Expr'}, kinds
print('ok')
PY
	check "a hostile trace file name: a Python string in CALL, the script parses" "$(cat "$tmp/ast")" grep -qx ok "$tmp/ast"
else
	skip "hostile trace file name" "no python3 to parse the script"
fi

if [ -z "$PY" ]; then
	skip "the scripts under torch" "no python3 with torch (contrib/install-deps.sh installs python3-torch; or set TG_PYTHON)"
	tap_exit
fi
torch_version=$("$PY" -c 'import torch; print(torch.__version__)')
has_sdpa=$("$PY" -c 'import torch.nn.functional as F; print(int(hasattr(F, "scaled_dot_product_attention")))')

(cd "$tmp" && run ops --device cpu --budget 0.5 --warmup 1 --iters 3) >"$tmp/ops.run" 2>&1
check "ops.json: each of the 25 scripts prints a time (torch $torch_version, CPU)" "$(cat "$tmp/ops.run")" timed "$tmp/ops.run"
check "ops.json: the trace's time beside it (aten::mm 3: 0.011 ms)" "$(grep aten_mm_3 "$tmp/ops.run")" \
	grep -q '^0 aten_mm_3.py [0-9.e-]* 0.011 ' "$tmp/ops.run"
if [ "$has_sdpa" = 0 ]; then
	n=$(grep -c "attention.*has no scaled_dot_product_attention: attention written out as matmul + softmax" "$tmp/ops.run")
	check "torch without scaled_dot_product_attention: the 7 attention scripts say they wrote out matmul + softmax" \
		"$n: $(grep attention "$tmp/ops.run")" [ "$n" = 7 ]
else
	ok "torch with scaled_dot_product_attention: no fallback to check"
fi
check "a CPU: cudnn_convolution timed as aten::convolution, said so" "$(grep cudnn_conv "$tmp/ops.run")" \
	grep -q "aten_cudnn_convolution_1.py.*aten::cudnn_convolution cannot run here.*timing aten::convolution" "$tmp/ops.run"

# --scale reduces the sizes and says so; a script refuses a bad --scale
"$PY" "$tmp/ops/aten_conv2d_1.py" --device cpu --scale 0.5 --budget 0.5 >"$tmp/scale.out" 2>&1
cond=0
grep -qF "input 0: (2, 3, 16, 16) bfloat16 stride (768, 256, 16, 1), built as (1, 3, 16, 16) stride (768, 256, 16, 1)" "$tmp/scale.out" &&
	grep -qxF "scale: 0.5 (reduced sizes: not comparable with the trace)" "$tmp/scale.out" &&
	grep -q "^replay: [0-9.]* ms per call on cpu, torch " "$tmp/scale.out" &&
	grep -q "^trace:  0.0[0-9]* ms per call (GPU time of the kernels it launched, mean of 1 calls)$" "$tmp/scale.out" &&
	cond=1
expect "--scale 0.5: the batch halved, said not comparable" "$(cat "$tmp/scale.out")"
"$PY" "$tmp/ops/aten_conv2d_1.py" --scale 2 >/dev/null 2>"$tmp/err"
rc=$?
cond=0
[ $rc = 2 ] && grep -q -- "--scale must be in (0, 1]" "$tmp/err" && cond=1
expect "a script's bad --scale: exit 2" "rc $rc: $(cat "$tmp/err")"

# ---- the shared traces
if [ ! -d "$SHARED" ]; then
	skip "shared traces" "$SHARED is absent (set TG_SHARED)"
	tap_exit
fi
H=$SHARED/h200-dev/base_r1/rank0.pt.trace.json.gz
for op in aten::mm aten::scaled_dot_product_attention aten::_scaled_dot_product_flash_attention_backward \
	aten::layer_norm aten::native_layer_norm_backward aten::gelu aten::addmm; do
	"$TG" replay "$H" --op "$op" --index 1 -o "$tmp/h200" >/dev/null 2>>"$tmp/h200.err" ||
		not_ok "h200-dev: replay $op" "$(cat "$tmp/h200.err")"
done
(cd "$tmp" && run h200 --device cpu --scale 0.05 --budget 1 --warmup 1 --iters 3) >"$tmp/h200.run" 2>&1
check "h200-dev (bf16 GEMMs, flash attention fwd and bwd, norms): 7 scripts print a time at --scale 0.05" \
	"$(cat "$tmp/h200.run")" timed "$tmp/h200.run"
[ "$(wc -l <"$tmp/h200.run")" = 7 ] || not_ok "h200-dev: 7 scripts" "$(cat "$tmp/h200.run")"
check "h200-dev: mm 1's trace time, 0.0305 ms" "$(grep aten_mm_1 "$tmp/h200.run")" \
grep -q '^0 aten_mm_1.py [0-9.e-]* 0.0304' "$tmp/h200.run"

# the exact shapes by default: the smallest GEMM of the trace at full size
"$TG" replay "$H" --op aten::mm --index 8 -o "$tmp/full" >/dev/null 2>&1
"$PY" "$tmp/full/aten_mm_8.py" --device cpu --budget 2 --warmup 1 --iters 2 >"$tmp/full.out" 2>&1
cond=0
grep -qxF "  input 0: (4096, 768) bfloat16 stride (768, 1)" "$tmp/full.out" && ! grep -q "built as" "$tmp/full.out" &&
	grep -q "^replay: [0-9.]* ms per call on cpu" "$tmp/full.out" && grep -q "^trace:  0.00999[0-9]* ms per call" "$tmp/full.out" &&
	cond=1
expect "the recorded shapes by default: (4096, 768) x (768, 768) bf16 timed, trace 0.00999 ms" "$(cat "$tmp/full.out")"

# the comment's replay command: the misaligned GEMM's own shape, and it works as written
M=$SHARED/h200-dev/gemm_misaligned_r1/rank0.pt.trace.json.gz
"$TG" diff "$H" "$M" --format md -o "$tmp/comment.md" >/dev/null 2>&1
line=$(grep '^Replay ' "$tmp/comment.md")
cond=0
[ "$line" = "Replay \`aten::mm\` alone, a PyTorch script with the shapes of the new trace (docs/replay.md): \`tracegate replay rank0.pt.trace.json.gz --op aten::mm --match '^dims=\\(\\(4096, 768\\), \\(768, 3076\\)\\) ' -o replay\`" ] &&
	cond=1
expect "the comment: the replay command of the top regressed op and shape" "$line"
Mabs=$(cd "$(dirname "$M")" && pwd)/rank0.pt.trace.json.gz
case $TG in /*) TGA=$TG ;; *) TGA=$PWD/$TG ;; esac
(cd "$tmp" && mkdir cmd && ln -s "$Mabs" cmd/rank0.pt.trace.json.gz && cd cmd &&
	"$TGA" replay rank0.pt.trace.json.gz --op aten::mm --match '^dims=\(\(4096, 768\), \(768, 3076\)\) ' -o replay) \
	>"$tmp/cmd.out" 2>&1
cond=0
[ "$(ls "$tmp/cmd/replay" 2>/dev/null)" = aten_mm_1.py ] && grep -q "'shape': (768, 3076)" "$tmp/cmd/replay/aten_mm_1.py" && cond=1
expect "the comment's command writes the one script of the misaligned shape" "$(cat "$tmp/cmd.out")"
D=$SHARED/h200-dev/dropout2_r1/rank0.pt.trace.json.gz
"$TG" diff "$H" "$D" --format md -o "$tmp/comment2.md" >/dev/null 2>&1
line=$(grep '^Replay ' "$tmp/comment2.md")
cond=0
case $line in *"--op aten::_scaled_dot_product_flash_attention_backward -o replay\`") cond=1 ;; esac
expect "the comment: flash attention's kernel-level op replayed as the entry above it" "$line"

TL=$SHARED/tracelens/tests/traces
N=$TL/perf_model/normalization/normalization_layer_test.json.gz
for op in aten::rms_norm aten::_fused_rms_norm aten::_fused_rms_norm_backward aten::native_batch_norm \
	aten::native_group_norm aten::native_layer_norm_backward aten::layer_norm; do
	"$TG" replay "$N" --op "$op" --index 1 -o "$tmp/norm" >/dev/null 2>>"$tmp/norm.err" ||
		not_ok "norms: replay $op" "$(cat "$tmp/norm.err")"
done
F=$TL/h100/Falconsai_nsfw_image_detection__1016002.json.gz
"$TG" replay "$F" --op aten::conv2d -o "$tmp/tl" >/dev/null 2>&1 || not_ok "Falconsai conv2d" ""
"$TG" replay "$F" --op aten::cudnn_convolution -o "$tmp/tl" >/dev/null 2>&1 || not_ok "Falconsai cudnn_convolution" ""
TS=$TL/h100/facebook_timesformer-base-finetuned-k400__1016002.json.gz
"$TG" replay "$TS" --op aten::_softmax --index 2 -o "$tmp/tl" >/dev/null 2>&1 || not_ok "timesformer _softmax" ""
"$TG" replay "$TS" --op aten::bmm --index 3 -o "$tmp/tl" >/dev/null 2>&1 || not_ok "timesformer bmm" ""
R=$TL/mi300/resnet_act_checkpoint.json.gz
"$TG" replay "$R" --op aten::miopen_convolution --index 1 -o "$tmp/tl" >/dev/null 2>&1 || not_ok "resnet miopen_convolution" ""
"$TG" replay "$R" --op aten::convolution_backward --index 1 -o "$tmp/tl" >/dev/null 2>&1 || not_ok "resnet convolution_backward" ""
(cd "$tmp" && run norm --device cpu --scale 0.25 --budget 1 --warmup 1 --iters 3) >"$tmp/norm.run" 2>&1
check "TraceLens norms (layer, RMS and its backward, batch, group): 7 scripts print a time" "$(cat "$tmp/norm.run")" \
timed "$tmp/norm.run"
(cd "$tmp" && run tl --device cpu --scale 0.25 --budget 1 --warmup 1 --iters 3) >"$tmp/tl.run" 2>&1
check "TraceLens convolutions (cuDNN, MIOpen, backward), softmax, bmm: 6 scripts print a time" "$(cat "$tmp/tl.run")" \
timed "$tmp/tl.run"
check "an MIOpen convolution on a CPU: timed as aten::convolution, said so" "$(grep miopen "$tmp/tl.run")" \
grep -q "aten_miopen_convolution_1.py.*aten::miopen_convolution cannot run here.*timing aten::convolution" "$tmp/tl.run"
tap_exit
