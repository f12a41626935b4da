#!/usr/bin/env python3
"""make_ops.py - writes ops.json beside it: a small Kineto trace with one or
more invocations of every op family `tracegate replay` covers (GEMM,
attention with each backend, convolution, norms, softmax, pointwise), the
ops it must refuse (an autograd node, a TensorList, a collective, an op of
another library, a kernel-level attention entry, a Scalar without its value,
a trace without shapes) and hostile names. tests/test_replay.c and
tests/cli_replay.sh read it; ops.json is committed, this script says how it
was made.

Each invocation is a cpu_op with a cudaLaunchKernel under it and one kernel
on stream 7 whose duration is given, so that device times are known: the
k-th kernel (from 0) lasts 10 + k us unless said otherwise.
"""
import json
import os

ev = []
ts = [1000]
corr = [100]
kidx = [0]


def C(*x):
    return list(x)


def op(name, dims, types, strides, concrete, children=(), kernel_us=None, dur=50, launch=True):
    """An op at the current time with optional nested children (callables)."""
    start = ts[0]
    ts[0] += 2
    args = {}
    if dims is not None:
        args = {"Input Dims": dims, "Input type": types, "Input Strides": strides, "Concrete Inputs": concrete}
    e = {"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": start, "args": args}
    ev.append(e)
    for ch in children:
        ch()
    if launch:
        c = corr[0]
        corr[0] += 1
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": ts[0], "dur": 4, "args": {"correlation": c}})
        k = kernel_us if kernel_us is not None else 10 + kidx[0]
        kidx[0] += 1
        ev.append({"ph": "X", "cat": "kernel", "name": "kernel_%d" % c, "pid": 0, "tid": 7,
                   "ts": ts[0] + 5, "dur": k, "args": {"correlation": c, "stream": 7, "device": 0}})
        ts[0] += 6
    ts[0] += 2
    e["dur"] = max(dur, ts[0] - start)
    ts[0] += 100  # the kernel ends before the next op


bf, f32, h = "c10::BFloat16", "float", "c10::Half"
# GEMM: two invocations of the same mm, one other
op("aten::mm", [[64, 32], [32, 48]], [bf, bf], [[32, 1], [48, 1]], ["", ""], kernel_us=10)
op("aten::mm", [[64, 32], [32, 48]], [bf, bf], [[32, 1], [48, 1]], ["", ""], kernel_us=12)
op("aten::mm", [[16, 32], [32, 8]], [f32, f32], [[32, 1], [1, 32]], ["", ""], kernel_us=40)
op("aten::addmm", [[48], [64, 32], [32, 48], [], []], [bf, bf, bf, "Scalar", "Scalar"],
   [[1], [32, 1], [1, 32], [], []], ["", "", "", "1", "1"])
op("aten::bmm", [[4, 16, 32], [4, 32, 8]], [h, h], [[512, 32, 1], [256, 8, 1]], ["", ""])
op("aten::matmul", [[2, 4, 16, 32], [2, 4, 32, 16]], [f32, f32], [[2048, 512, 32, 1], [2048, 512, 16, 1]], ["", ""])
op("aten::linear", [[2, 8, 32], [16, 32], [16]], [bf, bf, bf], [[256, 32, 1], [32, 1], [1]], ["", "", ""],
   launch=False, children=[
       lambda: op("aten::addmm", [[16], [16, 32], [32, 16], [], []], [bf, bf, bf, "Scalar", "Scalar"],
                  [[1], [32, 1], [1, 32], [], []], ["", "", "", "1", "1"])])
# attention: the entry point (efficient under it), each backend, backward
q = [2, 4, 64, 32]
qs = [24576, 32, 384, 1]  # a slice of a packed qkv
op("aten::scaled_dot_product_attention", [q, q, q, [], [], [], [], []], [bf, bf, bf, "", "Scalar", "Scalar", "", "Scalar"],
   [qs, qs, qs, [], [], [], [], []], ["", "", "", "", "0.", "True", "", "False"], launch=False, children=[
       lambda: op("aten::_scaled_dot_product_efficient_attention", [q, q, q, [], [], [], [], []],
                  [bf, bf, bf, "", "Scalar", "Scalar", "Scalar", ""], [qs, qs, qs, [], [], [], [], []],
                  ["", "", "", "", "False", "0.", "True", ""])])
op("aten::_scaled_dot_product_flash_attention", [q, q, q, [], [], [], []], [bf, bf, bf, "Scalar", "Scalar", "Scalar", "Scalar"],
   [qs, qs, qs, [], [], [], []], ["", "", "", "0.", "True", "False", "0.17677669529663687"], launch=False, children=[
       lambda: op("aten::_flash_attention_forward", [[2, 64, 4, 32]] * 3 + [[]] * 12, [bf] * 3 + [""] * 12,
                  [[24576, 384, 32, 1]] * 3 + [[]] * 12, [""] * 15)])
op("aten::_scaled_dot_product_cudnn_attention", [q, q, q, [2, 1, 64, 64], [], [], [], [], []],
   [bf, bf, bf, bf, "Scalar", "Scalar", "Scalar", "Scalar", ""],
   [qs, qs, qs, [4096, 4096, 64, 1], [], [], [], [], []], ["", "", "", "", "True", "0.", "False", "False", ""])
op("aten::_scaled_dot_product_attention_math", [q, q, q, [], [], [], [], [], []],
   [f32, f32, f32, "", "Scalar", "Scalar", "", "", "Scalar"], [qs, qs, qs, [], [], [], [], [], []],
   ["", "", "", "", "0.", "False", "", "", "False"])
c = [2, 4, 64, 32]
cs = [8192, 2048, 32, 1]
op("aten::_scaled_dot_product_flash_attention_backward",
   [c, q, q, q, c, [2, 4, 64], [], [], [], [], [], [], [2], [], []],
   [bf, bf, bf, bf, bf, f32, "", "", "Scalar", "Scalar", "Scalar", "Scalar", "long unsigned int", "long unsigned int", "Scalar"],
   [cs, qs, qs, qs, cs, [256, 64, 1], [], [], [], [], [], [], [1], [], []],
   ["", "", "", "", "", "", "", "", "64", "64", "0.", "True", "", "", "0.17677669529663687"])
op("aten::_scaled_dot_product_efficient_attention_backward",
   [c, q, q, q, [], c, [2, 4, 64], [], [], [], [], [], []],
   [bf, bf, bf, bf, "", bf, f32, "long unsigned int", "long unsigned int", "Scalar", "ScalarList", "Scalar", ""],
   [cs, qs, qs, qs, [], cs, [256, 64, 1], [], [], [], [], [], []],
   ["", "", "", "", "", "", "", "", "", "0.", "[True, True, True, False]", "False", ""])
# convolution: conv2d over its cuDNN entry, and the backward
op("aten::conv2d", [[2, 3, 16, 16], [8, 3, 3, 3], [8], [], [], [], []], [bf, bf, bf, "ScalarList", "ScalarList", "ScalarList", "Scalar"],
   [[768, 256, 16, 1], [27, 9, 3, 1], [1], [], [], [], []], ["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "1"], launch=False, children=[
       lambda: op("aten::cudnn_convolution", [[2, 3, 16, 16], [8, 3, 3, 3], [], [], [], [], [], [], []],
                  [bf, bf, "ScalarList", "ScalarList", "ScalarList", "Scalar", "Scalar", "Scalar", "Scalar"],
                  [[768, 256, 16, 1], [27, 9, 3, 1], [], [], [], [], [], [], []],
                  ["", "", "[1, 1]", "[1, 1]", "[1, 1]", "1", "False", "False", "True"])])
op("aten::convolution_backward", [[2, 8, 16, 16], [2, 3, 16, 16], [8, 3, 3, 3], [], [], [], [], [], [], [], []],
   [bf, bf, bf, "ScalarList", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar", "ScalarList"],
   [[2048, 256, 16, 1], [768, 256, 16, 1], [27, 9, 3, 1], [], [], [], [], [], [], [], []],
   ["", "", "", "[8]", "[1, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1", "[True, True, True]"])
# norms
op("aten::layer_norm", [[2, 8, 32], [], [32], [32], [], []], [f32, "ScalarList", f32, f32, "Scalar", "Scalar"],
   [[256, 32, 1], [], [1], [1], [], []], ["", "[32]", "", "", "1.0000000000000001e-05", "True"])
op("aten::rms_norm", [[2, 8, 32], [], [32], []], [f32, "ScalarList", f32, ""], [[256, 32, 1], [], [1], []],
   ["", "[32]", "", ""])
op("aten::native_batch_norm", [[2, 8, 4, 4], [8], [8], [8], [8], [], [], []],
   [f32, f32, f32, f32, f32, "Scalar", "Scalar", "Scalar"], [[128, 16, 4, 1], [1], [1], [1], [1], [], [], []],
   ["", "", "", "", "", "True", "0.10000000000000001", "1.0000000000000001e-05"])
# softmax
op("aten::_softmax", [[2, 4, 64, 64], [], []], [bf, "Scalar", "Scalar"], [[16384, 4096, 64, 1], [], []], ["", "-1", "False"])
op("aten::_softmax_backward_data", [[2, 4, 64, 64], [2, 4, 64, 64], [], []], [bf, bf, "Scalar", "Scalar"],
   [[16384, 4096, 64, 1], [16384, 4096, 64, 1], [], []], ["", "", "-1", "15"])
# pointwise
op("aten::add", [[2, 8, 32], [32], []], [f32, f32, "Scalar"], [[256, 32, 1], [1], []], ["", "", "1"])
op("aten::gelu", [[2, 8, 64], []], [bf, ""], [[512, 64, 1], []], ["", ""])
op("aten::mul", [[2, 8, 32], []], [bf, "double"], [[256, 32, 1], []], ["", ""])
# refused
op("AddmmBackward0", [[64, 48]], [bf], [[48, 1]], [""], launch=False, children=[
    lambda: op("aten::mm", [[64, 48], [48, 32]], [bf, bf], [[48, 1], [32, 1]], ["", ""], kernel_us=30)])
op("aten::_foreach_add_", [[], []], ["TensorList", "Scalar"], [[], []], ["", "1e-08"])
op("c10d::allreduce_", [[], []], ["TensorList", ""], [[], []], ["", ""])
op("vllm::unified_attention", [q, q, q], [bf, bf, bf], [qs, qs, qs], ["", "", ""])
op("aten::addcmul_", [[8], [8], [8], []], [f32, f32, f32, "Scalar"], [[1], [1], [1], []], ["", "", "", ""])
op("aten::relu", None, None, None, None)
op("aten::pow", [[8], []], [f32, "Scalar"], [[1], []], ["", "__import__('os').system('touch pwned')"])
# hostile names: an op name that is Python, a type that is Python
op("aten::mm'); __import__('os').system('touch pwned') #", [[2, 2], [2, 2]], [f32, f32], [[2, 1], [2, 1]], ["", ""])
op("aten::gelu", [[2, 2], []], ["float', 'x': __import__('os')} #\nimport os", ""], [[2, 1], []], ["", ""])

doc = {"schemaVersion": 1,
       "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85018279936,
                             "computeMajor": 9, "computeMinor": 0, "numSms": 132}],
       "traceEvents": [{"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "python3"}}] + ev}
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ops.json")
with open(out, "w") as f:
    f.write('{"schemaVersion": 1,\n "deviceProperties": %s,\n "traceEvents": [\n' % json.dumps(doc["deviceProperties"]))
    f.write(",\n".join(json.dumps(e) for e in doc["traceEvents"]))
    f.write("\n]}\n")
