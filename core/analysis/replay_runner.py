# ---- tracegate replay runner (core/analysis/replay_runner.py, the same in every script) ----
#
# What it does with CALL (above): builds random inputs of the recorded shapes,
# dtypes and strides on the GPU when there is one (else the CPU), calls the op
# as the trace did, warms up, times it (CUDA events on a GPU, the wall clock on
# a CPU) and prints its time next to the time the trace recorded.
#
# It says plainly what it could not reproduce ("fallback: ..."): a torch
# without scaled_dot_product_attention (attention is then written out as matmul
# + softmax, the math backend's computation, not the trace's kernel), an
# attention backend this device lacks, a dtype this CPU has no kernel for
# (timed in float32), a cuDNN/MIOpen-only op on a CPU (timed as its portable
# twin), an op this torch does not have (RMS norm written out).
#
# Exit status: 0 timed (perhaps with a fallback, said so); 2 bad command line;
# 3 cannot replay here (one line says why).
import argparse
import json
import math
import sys
import time


class Cannot(Exception):
    """The op cannot be replayed with this torch on this device."""


NOTES = []


def note(text):
    if text not in NOTES:
        NOTES.append(text)


def first_line(e):
    """The first sentence of what an exception says."""
    s = str(e).strip().splitlines()
    s = s[0] if s else type(e).__name__
    cut = s.find('. ')
    return s[:cut if 0 < cut < 200 else 200]


# ---- inputs ----

def scaled_dim(d, scale):
    return d if d <= 1 or scale >= 1 else max(1, int(round(d * scale)))


def tensor_geometry(spec, scale):
    """The shape and strides to build: the recorded ones, or at --scale the
    scalable dims reduced, laid out in the recorded order of strides."""
    shape = list(spec['shape'])
    stride = list(spec['stride']) if spec['stride'] is not None else None
    if stride is None:
        stride = [0] * len(shape)
        acc = 1
        for i in reversed(range(len(shape))):
            stride[i] = acc
            acc *= max(shape[i], 1)
    if scale >= 1 or not spec['scale']:
        return shape, stride
    new = list(shape)
    for i in spec['scale']:
        new[i] = scaled_dim(shape[i], scale)
    if new == shape:
        return shape, stride
    order = sorted(range(len(shape)), key=lambda i: (-stride[i], i))
    out = [0] * len(shape)
    acc = 1
    for i in reversed(order):
        if stride[i] == 0 and shape[i] > 1:
            continue  # a broadcast dim stays broadcast
        out[i] = acc
        acc *= max(new[i], 1)
    return new, out


def storage_numel(shape, stride):
    if any(d == 0 for d in shape):
        return 0
    return 1 + sum((d - 1) * s for d, s in zip(shape, stride))


def make_tensor(torch, spec, dev, scale, requires_grad=False):
    dt = getattr(torch, spec['dtype'], None)
    if not isinstance(dt, torch.dtype):
        raise Cannot('this torch (%s) has no dtype torch.%s' % (torch.__version__, spec['dtype']))
    shape, stride = tensor_geometry(spec, scale)
    n = storage_numel(shape, stride)
    if dt.is_floating_point or dt.is_complex:
        base = torch.randn(n, device=dev).to(dt)
    elif dt == torch.bool:
        base = torch.randint(0, 2, (n,), device=dev).bool()
    else:
        # 1 or 2: valid indices into any dim of 3 or more, never a zero divisor
        base = torch.randint(1, 3, (n,), device=dev).to(dt)
    t = base.as_strided(shape, stride)
    if requires_grad:
        t.requires_grad_(True)
    return t


def describe(spec, scale):
    if spec['t'] == 'tensor':
        s = '%s %s' % (tuple(spec['shape']), spec['dtype'])
        if spec['stride'] is not None:
            s += ' stride %s' % (tuple(spec['stride']),)
        shape, stride = tensor_geometry(spec, scale)
        if shape != list(spec['shape']):
            s += ', built as %s stride %s' % (tuple(shape), tuple(stride))
        return s
    if spec['t'] == 'value':
        return repr(spec['v'])
    return 'None'


# ---- calling an aten op by its schema ----

def type_accepts(tstr, v):
    t = tstr
    if t.startswith('Optional[') and t.endswith(']'):
        if v is None:
            return True
        t = t[9:-1]
    if v is None:
        return False
    if isinstance(v, (list, tuple)):
        if not (t.startswith('List[') or t.endswith(']')):
            return False
        inner = t[5:-1] if t.startswith('List[') else t[:t.index('[')]
        return all(type_accepts(inner, x) for x in v)
    if isinstance(v, bool):
        return t in ('bool', 'number', 'Scalar')
    if isinstance(v, int):
        return t in ('int', 'SymInt', 'float', 'number', 'Scalar', 'ScalarType', 'Layout', 'MemoryFormat')
    if isinstance(v, float):
        return t in ('float', 'number', 'Scalar')
    return False


def is_tensor_type(tstr):
    return tstr in ('Tensor', 'Optional[Tensor]')


def bind(torch, op, inputs, values):
    """The overload of op whose schema takes the recorded inputs, and its
    positional and keyword arguments."""
    schemas = torch._C._jit_get_schemas_for_operator(op)
    if not schemas:
        raise Cannot('this torch (%s) has no %s' % (torch.__version__, op))
    cands = [s for s in schemas if not s.overload_name.endswith('out') and
             not any(a.name == 'out' for a in s.arguments)]
    cands.sort(key=lambda s: len(s.arguments) != len(inputs))
    why = []
    for s in cands:
        args = s.arguments
        if len(args) < len(inputs):
            continue
        pos, kw, ok = [], {}, True
        for i, a in enumerate(args):
            t = str(a.type)
            if i < len(inputs):
                spec, v = inputs[i], values[i]
                if spec['t'] == 'tensor':
                    if not is_tensor_type(t):
                        ok = False
                elif spec['t'] == 'value':
                    if not type_accepts(t, v):
                        ok = False
                elif t.startswith('Optional['):
                    v = None
                elif a.has_default_value():
                    v = a.default_value
                else:
                    ok = False
            elif a.has_default_value():
                v = a.default_value
            elif t.startswith('Optional['):
                v = None
            else:
                ok = False
            if not ok:
                why.append('%s(%s): argument %s is %s' % (op, s.overload_name or 'default', a.name, t))
                break
            if a.kwarg_only:
                kw[a.name] = v
            else:
                pos.append(v)
        if ok:
            packet = getattr(torch.ops.aten, op.split('::', 1)[1])
            return getattr(packet, s.overload_name or 'default'), pos, kw
    raise Cannot('no overload of %s in torch %s takes the recorded inputs (%s)' %
                 (op, torch.__version__, '; '.join(why[:3]) or 'different argument counts'))


# ---- what this torch or device lacks, written out ----

def rms_manual(torch, x, normalized_shape, weight, eps):
    dims = tuple(range(x.dim() - len(normalized_shape), x.dim()))
    if eps is None:
        eps = torch.finfo(x.dtype).eps
    y = x * torch.rsqrt(x.pow(2).mean(dims, keepdim=True) + eps)
    return y * weight if weight is not None else y


def portable_twin(torch, op, pos):
    """An op that computes what op computes on any device, and its arguments,
    or None."""
    aten = torch.ops.aten
    if op in ('aten::cudnn_convolution', 'aten::miopen_convolution'):
        # cudnn: self, weight, padding, stride, dilation, groups, ...
        # miopen: self, weight, bias, padding, stride, dilation, groups, ...
        x, w = pos[0], pos[1]
        bias, rest = (pos[2], pos[3:]) if op == 'aten::miopen_convolution' else (None, pos[2:])
        padding, stride, dilation, groups = rest[0], rest[1], rest[2], rest[3]
        nd = w.dim() - 2
        return 'aten::convolution', lambda: aten.convolution.default(
            x, w, bias, stride, padding, dilation, False, [0] * nd, groups)
    if op in ('aten::miopen_batch_norm', 'aten::cudnn_batch_norm'):
        return 'aten::native_batch_norm', lambda: aten.native_batch_norm.default(*pos[:8])
    if op in ('aten::rms_norm', 'aten::_fused_rms_norm'):
        return 'x * rsqrt(mean(x^2) + eps) * weight', lambda: rms_manual(torch, pos[0], pos[1], pos[2], pos[3])
    if op == 'aten::_fused_rms_norm_backward':
        # grad_out, input, normalized_shape, rstd, weight, output_mask
        g, x, w = pos[0], pos[1].detach().requires_grad_(True), pos[4]
        w = w.detach().requires_grad_(True) if w is not None else None
        wrt = [t for t in (x, w) if t is not None]
        return ('the autograd backward of x * rsqrt(mean(x^2) + eps) * weight, its forward included',
                lambda: torch.autograd.grad(rms_manual(torch, x, pos[2], w, None), wrt, g))
    return None


def generic_fn(torch, call, inputs, dev, scale):
    values = []
    for spec in inputs:
        if spec['t'] == 'tensor':
            values.append(make_tensor(torch, spec, dev, scale))
        elif spec['t'] == 'value':
            values.append(spec['v'])
        else:
            values.append(None)
    op = call['op']
    try:
        fn, pos, kw = bind(torch, op, inputs, values)
        direct = lambda: fn(*pos, **kw)
    except Cannot as e:
        direct, pos, missing = None, values, e
    if direct is not None:
        try:
            direct()
            return direct
        except Exception as e:  # the op exists but cannot run here
            missing = e
    twin = portable_twin(torch, op, pos)
    if twin is None:
        raise missing  # Cannot, or what the op raised (build retries a CPU in float32)
    note('%s cannot run here (%s): timing %s on the same inputs' % (op, first_line(missing), twin[0]))
    return twin[1]


# ---- attention ----

def attention_math(torch, q, k, v, mask, p, causal, scale):
    if k.size(-3) != q.size(-3) and q.dim() >= 3:
        rep = q.size(-3) // k.size(-3)
        k = k.repeat_interleave(rep, dim=-3)
        v = v.repeat_interleave(rep, dim=-3)
    if scale is None:
        scale = 1.0 / math.sqrt(q.size(-1))
    s = torch.matmul(q, k.transpose(-2, -1)) * scale
    if causal:
        L, S = s.size(-2), s.size(-1)
        keep = torch.ones(L, S, dtype=torch.bool, device=s.device).tril()
        s = s.masked_fill(~keep, float('-inf'))
    if mask is not None:
        s = s.masked_fill(~mask, float('-inf')) if mask.dtype == torch.bool else s + mask
    a = torch.softmax(s, dim=-1)
    if p:
        a = torch.nn.functional.dropout(a, p)
    return torch.matmul(a, v)


def backend_context(torch, backend):
    """A context manager that makes scaled_dot_product_attention use backend,
    or None when this torch cannot choose it."""
    try:
        from torch.nn.attention import sdpa_kernel, SDPBackend
        name = {'flash': 'FLASH_ATTENTION', 'efficient': 'EFFICIENT_ATTENTION',
                'cudnn': 'CUDNN_ATTENTION', 'math': 'MATH'}[backend]
        if hasattr(SDPBackend, name):
            return lambda: sdpa_kernel(getattr(SDPBackend, name))
    except ImportError:
        pass
    cuda = getattr(torch.backends, 'cuda', None)
    if cuda is not None and hasattr(cuda, 'sdp_kernel') and backend != 'cudnn':
        return lambda: cuda.sdp_kernel(enable_flash=backend == 'flash', enable_math=backend == 'math',
                                       enable_mem_efficient=backend == 'efficient')
    return None


def attention_fn(torch, call, inputs, dev, scale):
    a = call['sdpa']
    backward = a['pass'] == 'backward'
    q, k, v = (make_tensor(torch, inputs[a[n]], dev, scale, backward) for n in ('q', 'k', 'v'))
    mask = make_tensor(torch, inputs[a['mask']], dev, scale) if a['mask'] is not None else None
    p, causal, sc, backend = a['dropout_p'], a['is_causal'], a['scale'], a['backend']
    F = torch.nn.functional
    if not hasattr(F, 'scaled_dot_product_attention'):
        note('this torch (%s) has no scaled_dot_product_attention: attention written out as matmul + softmax '
             '(what the math backend computes), not the %s kernel the trace ran' % (torch.__version__, backend))
        fwd = lambda: attention_math(torch, q, k, v, mask, p, causal, sc)
    else:
        kw = {'attn_mask': mask, 'dropout_p': p, 'is_causal': causal}
        if sc is not None:
            kw['scale'] = sc
        if k.size(-3) != q.size(-3):
            kw['enable_gqa'] = True
        plain = lambda: F.scaled_dot_product_attention(q, k, v, **kw)
        ctx = backend_context(torch, backend)
        fwd = None
        if ctx is None:
            note('this torch (%s) cannot choose the %s backend: timing its default choice' %
                 (torch.__version__, backend))
        else:
            def fwd_ctx():
                with ctx():
                    return F.scaled_dot_product_attention(q, k, v, **kw)
            try:
                fwd_ctx()
                fwd = fwd_ctx
            except Exception as e:
                note('the %s backend cannot run here (%s): timing the default backend' % (backend, first_line(e)))
        if fwd is None:
            try:
                plain()
                fwd = plain
            except Exception as e:
                note('scaled_dot_product_attention fails here (%s): attention written out as matmul + softmax'
                     % first_line(e))
                fwd = lambda: attention_math(torch, q, k, v, mask, p, causal, sc)
    if not backward:
        return fwd
    out = fwd()
    grad = torch.randn_like(out)
    return lambda: torch.autograd.grad(out, (q, k, v), grad, retain_graph=True)


# ---- reduced precision on a CPU ----

def float32_inputs(call):
    out = []
    for spec in call['inputs']:
        if spec['t'] == 'tensor' and spec['dtype'] in ('bfloat16', 'float16'):
            spec = dict(spec, dtype='float32')
        out.append(spec)
    return out


def build(torch, call, dev, scale):
    make = attention_fn if call['family'] == 'sdpa' else generic_fn
    try:
        fn = make(torch, call, call['inputs'], dev, scale)
        fn()
        return fn
    except Cannot:
        raise
    except Exception as e:
        low = float32_inputs(call)
        if dev != 'cpu' or low == call['inputs']:
            raise Cannot('%s fails here: %s' % (call['op'], first_line(e)))
        note('%s has no %s kernel on this CPU (%s): timed in float32' %
             (call['op'], '/'.join(sorted({s['dtype'] for s in call['inputs'] if s['t'] == 'tensor'})),
              first_line(e)))
        fn = make(torch, call, low, dev, scale)
        fn()
        return fn


# ---- timing ----

def timed(torch, fn, dev, warmup, iters, budget):
    sync = torch.cuda.synchronize if dev == 'cuda' else (lambda: None)
    sync()
    t0 = time.perf_counter()
    fn()
    sync()
    one = max(time.perf_counter() - t0, 1e-9)
    warm = max(0, min(warmup - 1, int(budget * 0.25 / one)))
    n = max(1, min(iters, int(budget * 0.75 / one)))
    for _ in range(warm):
        fn()
    sync()
    if dev == 'cuda':
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        for _ in range(n):
            fn()
        e1.record()
        sync()
        ms = e0.elapsed_time(e1) / n
    else:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        ms = (time.perf_counter() - t0) * 1e3 / n
    return ms, warm + 1, n


def main(call):
    ap = argparse.ArgumentParser(
        description='Replays %s as the trace recorded it (inputs below) and prints its time next to the '
                    "trace's. Exit status: 0 timed, 2 bad command line, 3 cannot replay here." % call['op'])
    ap.add_argument('--scale', type=float, default=1.0,
                    help='reduce the sizes that can be reduced (batch, sequence, GEMM dims) to this fraction, '
                         'e.g. 0.1 for a quick run on a CPU; the time is then not comparable with the trace')
    ap.add_argument('--device', choices=('auto', 'cuda', 'cpu'), default='auto')
    ap.add_argument('--warmup', type=int, default=3, help='calls before timing (default 3)')
    ap.add_argument('--iters', type=int, default=10, help='timed calls (default 10)')
    ap.add_argument('--budget', type=float, default=30.0,
                    help='seconds of calls at most: fewer calls when one is slow (default 30)')
    ap.add_argument('--json', action='store_true', help='print one JSON object instead of text')
    args = ap.parse_args()
    if not 0 < args.scale <= 1:
        ap.error('--scale must be in (0, 1]')
    if args.warmup < 1 or args.iters < 1 or not args.budget > 0:
        ap.error('--warmup and --iters must be at least 1, --budget positive')
    try:
        import torch
    except ImportError as e:
        print('cannot replay %s here: no torch (%s)' % (call['op'], e))
        return 3
    dev = args.device
    if dev == 'auto':
        dev = 'cuda' if torch.cuda.is_available() else 'cpu'
    elif dev == 'cuda' and not torch.cuda.is_available():
        print('cannot replay %s here: --device cuda but torch sees no GPU' % call['op'])
        return 3
    torch.manual_seed(0)
    where = dev + (' (%s)' % torch.cuda.get_device_name(0) if dev == 'cuda' else '')
    try:
        fn = build(torch, call, dev, args.scale)
        ms, warm, n = timed(torch, fn, dev, args.warmup, args.iters, args.budget)
    except Cannot as e:
        print('cannot replay %s here: %s' % (call['op'], e))
        return 3
    tr = call['trace']
    if args.json:
        print(json.dumps({'op': call['op'], 'replay_ms': ms, 'trace_ms': tr['ms'], 'trace_time': tr['what'],
                          'trace_calls': tr['calls'], 'device': where, 'torch': torch.__version__,
                          'scale': args.scale, 'warmup': warm, 'iters': n, 'fallbacks': NOTES}))
        return 0
    shown = ''.join(c if c.isprintable() else '?' for c in tr['file'])  # the trace's name: any text
    print('replay of %s (%s), from %s' % (call['op'], call['family_label'], shown))
    for i, spec in enumerate(call['inputs']):
        print('  input %d: %s' % (i, describe(spec, args.scale)))
    for text in NOTES:
        print('fallback: ' + text)
    if args.scale < 1:
        scaled = any(s['t'] == 'tensor' and s['scale'] for s in call['inputs'])
        print('scale: %g (%s)' % (args.scale, 'reduced sizes: not comparable with the trace' if scaled else
                                  'nothing of this op is reduced: the sizes are as recorded'))
    print('replay: %.6f ms per call on %s, torch %s, %d timed after %d warm-up' %
          (ms, where, torch.__version__, n, warm))
    print('trace:  %.6f ms per call (%s, mean of %d calls)' % (tr['ms'], tr['what'], tr['calls']))
    return 0


sys.exit(main(CALL))
