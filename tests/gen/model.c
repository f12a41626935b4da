/*
 * model.c - one step of a transformer training or inference loop, as the
 * PyTorch profiler would record it.
 *
 * The host side is simulated with two clocks (the main thread and the
 * autograd engine's thread); ops nest by construction. Each launch queues
 * its kernel on a stream whose clock says when the GPU is free: a kernel
 * starts at the later of "stream free + a small gap" and "launch + launch
 * latency". Blocking calls (pageable copies, .item()) wait for the stream.
 *
 * Randomness: host timing uses a small stateful generator seeded by --seed;
 * kernel factors (--noise, --jitter) come from a hash of (seed, step,
 * kernel slot), so that changing one op (--split-attention, --extra-op)
 * leaves every other kernel's duration as it was. Ranks share the seed:
 * their timelines are identical except for the straggler's late arrival at
 * the collective, so that the skew in the trace is exactly --skew-us.
 */
#include "gen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MAIN = 0, AUTOGRAD = 1 };
enum { TAG_NOISE = 1, TAG_JITTER = 2, TAG_RUN = 3, TAG_FAMILY = 4 };
enum { API_LAUNCH, API_DRIVER };

/* The ops of a layer that create autograd nodes (Sequence number slots). */
enum { S_LN1, S_QKV, S_SDPA, S_OUT, S_ADD1, S_LN2, S_UP, S_ACT, S_DOWN, S_ADD2,
       S_QK, S_SOFTMAX, S_PV, /* --sdpa-math: the math path's own autograd nodes */
       S_PER_LAYER };

/* Kernel slots within a layer, for the jitter hash. */
enum { K_LN1 = 0, K_QKV = 1, K_FLASH = 2, K_OUTP = 3, K_ADD1 = 4, K_LN2 = 5, K_UP = 6, K_ACT = 7,
       K_EXTRA = 8, K_DOWN = 9, K_ADD2 = 10, K_BWD = 16, K_SLOTS = 64 };

static const char CUDA_LAUNCH[] = "\"cudaLaunchKernel\"";
static const char CU_LAUNCH[] = "\"cuLaunchKernel\"";
static const char CUDA_LAUNCH_EXC[] = "\"cudaLaunchKernelExC\"";
static const char CUDA_MEMCPY[] = "\"cudaMemcpyAsync\"";
static const char CUDA_SYNC[] = "\"cudaStreamSynchronize\"";
static const char CUDA_EVENT_RECORD[] = "\"cudaEventRecord\"";
static const char CUDA_WAIT_EVENT[] = "\"cudaStreamWaitEvent\"";
static const char PY_STEP[] = "\"train.py(38): train_step\"";
static const char PY_MODEL[] = "\"nn.Module: Transformer_0\"";
static const char PY_BACKWARD[] = "\"torch/_tensor.py(626): backward\"";
static const char PY_AG_BACKWARD[] = "\"torch/autograd/__init__.py(347): backward\"";
static const char PY_OPT[] = "\"torch/optim/optimizer.py(487): wrapper\"";
static const char ANN_OPT_STEP[] = "\"Optimizer.step#AdamW.step\"";
static const char ANN_ZERO_GRAD[] = "\"Optimizer.zero_grad#AdamW.zero_grad\"";

/* ------------------------------------------------------------ host events */

static void busy(gen *g, int th, int64_t lo, int64_t hi)
{
	g->cpu[th] += rng_range(&g->rng, lo, hi);
}

static size_t h_new(gen *g, int cat, int th, const char *name)
{
	if (g->nh == g->caph) {
		g->caph = g->caph ? 2 * g->caph : 1024;
		g->h = xrealloc(g->h, g->caph * sizeof(hev));
	}
	hev *e = &g->h[g->nh];
	memset(e, 0, sizeof(*e));
	e->cat = cat;
	e->thread = th;
	e->name = name;
	e->ts = g->cpu[th];
	e->seq = e->py_id = e->py_parent = e->py_module = -1;
	e->fwd_tid = -1;
	return g->nh++;
}

static void push(gen *g, int th, size_t i)
{
	if (g->depth[th] >= (int)(sizeof(g->stack[0]) / sizeof(g->stack[0][0]))) {
		fputs("tg-gen: internal error: host stack overflow\n", stderr);
		return;
	}
	g->stack[th][g->depth[th]++] = i;
}

/* The External id of the innermost cpu_op open on thread th, 0 if none. */
static int64_t cur_ext(const gen *g, int th)
{
	for (int i = g->depth[th] - 1; i >= 0; i--)
		if (g->h[g->stack[th][i]].cat == H_CPU_OP)
			return g->h[g->stack[th][i]].ext;
	return 0;
}

/* Opens a cpu_op or user_annotation; returns its index. */
static size_t op_begin(gen *g, int th, int cat, const char *name, const char *args, int64_t seq, int fwd_tid)
{
	busy(g, th, 1000, 3000);
	size_t i = h_new(g, cat, th, name);
	hev *e = &g->h[i];
	e->args = args;
	e->ext = ++g->ext_id;
	e->seq = seq;
	e->fwd_tid = fwd_tid;
	e->ev_idx = g->ev_idx++;
	push(g, th, i);
	busy(g, th, 1500, 4000);
	return i;
}

static size_t op(gen *g, int th, const opdesc *d)
{
	return op_begin(g, th, H_CPU_OP, d->name, d->args, -1, -1);
}

/* Closes the innermost open event of thread th. */
static void end(gen *g, int th)
{
	if (!g->depth[th])
		return;
	size_t i = g->stack[th][--g->depth[th]];
	busy(g, th, 800, 2500);
	g->h[i].dur = g->cpu[th] - g->h[i].ts;
}

/* An op that records an autograd node: a Sequence number, and with --train
 * the start of a fwdbwd flow to its backward node. */
static void op_fwd(gen *g, const opdesc *d, int64_t l, int slot)
{
	int64_t s = ++g->seq;
	size_t i = op_begin(g, MAIN, H_CPU_OP, d->name, d->args, s, 0);
	g->seqs[l * S_PER_LAYER + slot] = s;
	if (g->o->train) {
		g->h[i].fb_out = ++g->fb_flow;
		g->flows[l * S_PER_LAYER + slot] = g->fb_flow;
	}
}

/* A Python frame on the main thread (--python only). */
static void py_begin(gen *g, const char *name, int64_t module)
{
	if (!g->o->python)
		return;
	busy(g, MAIN, 500, 1500);
	size_t i = h_new(g, H_PYTHON, MAIN, name);
	hev *e = &g->h[i];
	e->py_id = ++g->py_id;
	e->py_parent = g->py_root;
	for (int k = g->depth[MAIN] - 1; k >= 0; k--)
		if (g->h[g->stack[MAIN][k]].cat == H_PYTHON) {
			e->py_parent = g->h[g->stack[MAIN][k]].py_id;
			break;
		}
	e->py_module = module;
	e->ev_idx = g->ev_idx++;
	push(g, MAIN, i);
	busy(g, MAIN, 300, 1000);
}

static void py_end(gen *g)
{
	if (g->o->python)
		end(g, MAIN);
}

static void py_layer(gen *g, int64_t l, int frame)
{
	size_t k = (size_t)(l * PY_PER_LAYER + frame);
	py_begin(g, g->m->py[k], g->m->py_module[k]);
}

/* ------------------------------------------------------------ device work */

static dev *d_new(gen *g, int cat)
{
	if (g->nd == g->capd) {
		g->capd = g->capd ? 2 * g->capd : 1024;
		g->d = xrealloc(g->d, g->capd * sizeof(dev));
	}
	dev *d = &g->d[g->nd++];
	memset(d, 0, sizeof(*d));
	d->cat = cat;
	return d;
}

/* The duration of kernel k in slot of this step: base x scale x noise. */
static int64_t kdur(const gen *g, const kdesc *k, uint64_t slot)
{
	double f = k->scale;
	if (k->noisy) {
		f *= g->step_factor * g->run_factor * g->family_factor[k->cls];
		if (g->o->jitter > 0)
			f *= 1 + g->o->jitter * (2 * hash_unit(g->o->seed, TAG_JITTER, (uint64_t)g->pass, slot) - 1);
	}
	int64_t d = llround((double)k->base * f);
	return d < 1 ? 1 : d;
}

/* A runtime call on thread th; returns its index. */
static size_t runtime(gen *g, int th, const char *name, int cbid, int64_t lo, int64_t hi)
{
	busy(g, th, 500, 2000);
	size_t r = h_new(g, name == CU_LAUNCH ? H_DRIVER : H_RUNTIME, th, name);
	hev *e = &g->h[r];
	e->dur = rng_range(&g->rng, lo, hi);
	e->ext = cur_ext(g, th);
	e->corr = ++g->corr;
	e->cbid = cbid;
	g->cpu[th] = e->ts + e->dur;
	return r;
}

/* When a kernel launched at ts can start on the compute stream. */
static int64_t compute_start(gen *g, int64_t ts)
{
	int64_t a = g->gpu_compute + rng_range(&g->rng, 800, 2000);
	int64_t b = ts + rng_range(&g->rng, 4000, 8000);
	return a > b ? a : b;
}

/* Launches k (of duration dur) from thread th on the compute stream. */
static void launch(gen *g, int th, const kdesc *k, int64_t dur, int api)
{
	size_t r = api == API_DRIVER ? runtime(g, th, CU_LAUNCH, 307, 5000, 10000)
	                             : runtime(g, th, CUDA_LAUNCH, 211, 3000, 7000);
	hev *e = &g->h[r];
	e->flow = 1;
	dev *d = d_new(g, D_KERNEL);
	d->k = k;
	d->ts = compute_start(g, e->ts);
	d->dur = dur;
	d->corr = e->corr;
	d->ext = e->ext;
	d->stream = STREAM_COMPUTE;
	g->gpu_compute = d->ts + dur;
	truth_add_kernel(g, k, d->ts, dur);
}

/* An op with one kernel: op, launch, end. */
static void leaf(gen *g, int th, const opdesc *o, const kdesc *k, uint64_t slot)
{
	op(g, th, o);
	launch(g, th, k, kdur(g, k, slot), API_LAUNCH);
	end(g, th);
}

/* An op on the autograd thread launching one kernel of duration dur. */
static void leaf_dur(gen *g, const opdesc *o, const kdesc *k, int64_t dur)
{
	op(g, AUTOGRAD, o);
	launch(g, AUTOGRAD, k, dur, API_LAUNCH);
	end(g, AUTOGRAD);
}

/* A cudaMemcpyAsync that blocks the host until the copy is done (pageable
 * memory). */
static void memcpy_blocking(gen *g, int th, const mdesc *mc)
{
	size_t r = runtime(g, th, CUDA_MEMCPY, 41, 4000, 9000);
	hev *e = &g->h[r];
	e->flow = 1;
	dev *d = d_new(g, D_MEMCPY);
	d->mc = mc;
	d->ts = compute_start(g, e->ts);
	d->dur = mc->dur;
	d->corr = e->corr;
	d->ext = e->ext;
	d->stream = STREAM_COMPUTE;
	g->gpu_compute = d->ts + d->dur;
	int64_t done = d->ts + d->dur + rng_range(&g->rng, 1000, 3000);
	if (done > e->ts + e->dur)
		e->dur = done - e->ts;
	g->cpu[th] = e->ts + e->dur;
	truth_add_memcpy(g, d->ts, d->dur);
}

/* ------------------------------------------------------------ the layers */

static uint64_t slot(int64_t l, int k) { return (uint64_t)(l * K_SLOTS + k); }

static void layer_norm_fwd(gen *g, int64_t l, int s, int k)
{
	op(g, MAIN, &g->m->ln);
	op_fwd(g, &g->m->native_ln, l, s);
	launch(g, MAIN, &g->m->ln_fwd, kdur(g, &g->m->ln_fwd, slot(l, k)), API_LAUNCH);
	end(g, MAIN);
	end(g, MAIN);
}

static void linear_fwd(gen *g, const linear_desc *ld, int64_t l, int s, int k)
{
	op(g, MAIN, &ld->linear);
	op(g, MAIN, &ld->t);
	end(g, MAIN);
	op_fwd(g, &ld->addmm, l, s);
	launch(g, MAIN, &ld->gemm, kdur(g, &ld->gemm, slot(l, k)), API_LAUNCH);
	end(g, MAIN);
	end(g, MAIN);
}

/* SDPA on the math path: bmm, softmax, bmm, together t x --sdpa-math. */
static void attention_math(gen *g, int64_t l, int64_t t)
{
	const model *m = g->m;
	int64_t total = llround((double)t * g->o->sdpa_math);
	int64_t qk = total * 2 / 5, sm = total / 5, pv = total - qk - sm;
	/* a composite op: the autograd nodes are its bmm's and softmax's, as
	 * in PyTorch (BmmBackward0, SoftmaxBackward0 in the backward) */
	op(g, MAIN, &m->sdpa_math);
	op(g, MAIN, &m->matmul);
	op_fwd(g, &m->bmm, l, S_QK);
	launch(g, MAIN, &m->bmm_k, qk, API_LAUNCH);
	end(g, MAIN);
	end(g, MAIN);
	op_fwd(g, &m->softmax, l, S_SOFTMAX);
	launch(g, MAIN, &m->softmax_k, sm, API_LAUNCH);
	end(g, MAIN);
	op(g, MAIN, &m->matmul);
	op_fwd(g, &m->bmm, l, S_PV);
	launch(g, MAIN, &m->bmm_k, pv, API_LAUNCH);
	end(g, MAIN);
	end(g, MAIN);
	end(g, MAIN);
}

/* SDPA -> flash attention; --split-attention makes it two kernels,
 * --sdpa-math dispatches it to the math path. */
static void attention_fwd(gen *g, int64_t l)
{
	const model *m = g->m;
	op(g, MAIN, &m->sdpa);
	if (g->o->sdpa_math > 0) {
		attention_math(g, l, kdur(g, &m->flash, slot(l, K_FLASH)));
		end(g, MAIN);
		return;
	}
	op_fwd(g, &m->sdpa_flash, l, S_SDPA);
	op(g, MAIN, &m->flash_fwd);
	int64_t t = kdur(g, &m->flash, slot(l, K_FLASH));
	if (g->o->split_attention > 0) {
		int64_t total = llround((double)t * g->o->split_attention);
		int64_t main_part = total * 7 / 8;
		launch(g, MAIN, &m->split_kv, main_part, API_LAUNCH);
		launch(g, MAIN, &m->split_combine, total - main_part, API_LAUNCH);
	} else {
		launch(g, MAIN, &m->flash, t, API_LAUNCH);
	}
	end(g, MAIN);
	end(g, MAIN);
	end(g, MAIN);
}

static void residual_add(gen *g, int64_t l, int s, int k)
{
	op_fwd(g, &g->m->add, l, s);
	launch(g, MAIN, &g->m->add_k, kdur(g, &g->m->add_k, slot(l, k)), API_LAUNCH);
	end(g, MAIN);
}

/* The MLP: up projection, the compiled activation, --extra-op, down. */
static void mlp_fwd(gen *g, int64_t l)
{
	const model *m = g->m;
	py_layer(g, l, PY_UP);
	linear_fwd(g, &m->up, l, S_UP, K_UP);
	py_end(g);
	op_fwd(g, &m->compiled, l, S_ACT);
	op(g, MAIN, &m->act);
	launch(g, MAIN, &m->act_k, kdur(g, &m->act_k, slot(l, K_ACT)), API_DRIVER);
	end(g, MAIN);
	end(g, MAIN);
	if (g->o->extra_op)
		leaf(g, MAIN, &m->extra, &m->extra_k, slot(l, K_EXTRA));
	py_layer(g, l, PY_DOWN);
	linear_fwd(g, &m->down, l, S_DOWN, K_DOWN);
	py_end(g);
}

/* .item(): a blocking device-to-host copy and a stream synchronize. */
static void host_sync(gen *g)
{
	op(g, MAIN, &g->m->item);
	op(g, MAIN, &g->m->local_scalar);
	memcpy_blocking(g, MAIN, &g->m->d2h);
	size_t r = runtime(g, MAIN, CUDA_SYNC, 131, 2000, 5000);
	hev *e = &g->h[r];
	e->flow = 1;
	int64_t done = g->gpu_compute + rng_range(&g->rng, 1000, 2000);
	if (done > e->ts + e->dur)
		e->dur = done - e->ts;
	g->cpu[MAIN] = e->ts + e->dur;
	dev *d = d_new(g, D_SYNC);
	d->ts = e->ts + 700;
	d->dur = e->dur > 1500 ? e->dur - 1200 : 300;
	d->corr = e->corr;
	d->ext = e->ext;
	d->stream = STREAM_COMPUTE;
	end(g, MAIN);
	end(g, MAIN);
}

static void layer_fwd(gen *g, int64_t l)
{
	const model *m = g->m;
	py_layer(g, l, PY_LAYER);
	py_layer(g, l, PY_LN1);
	layer_norm_fwd(g, l, S_LN1, K_LN1);
	py_end(g);
	py_layer(g, l, PY_ATTN);
	py_layer(g, l, PY_QKV);
	linear_fwd(g, &m->qkv, l, S_QKV, K_QKV);
	py_end(g);
	op(g, MAIN, &m->view);
	end(g, MAIN);
	py_layer(g, l, PY_SDPA);
	attention_fwd(g, l);
	py_end(g);
	py_layer(g, l, PY_OUT);
	linear_fwd(g, &m->out, l, S_OUT, K_OUTP);
	py_end(g);
	py_end(g);
	residual_add(g, l, S_ADD1, K_ADD1);
	py_layer(g, l, PY_LN2);
	layer_norm_fwd(g, l, S_LN2, K_LN2);
	py_end(g);
	py_layer(g, l, PY_MLP);
	mlp_fwd(g, l);
	py_end(g);
	residual_add(g, l, S_ADD2, K_ADD2);
	py_end(g);
}

/* ------------------------------------------------------------ backward */

/* The engine's wrapper and the node, both with the forward op's Sequence
 * number; the node ends the fwdbwd flow. */
static void node_begin(gen *g, const opdesc *ev, const opdesc *nd, int64_t l, int s)
{
	int64_t seq = g->seqs[l * S_PER_LAYER + s];
	op_begin(g, AUTOGRAD, H_CPU_OP, ev->name, ev->args, seq, 1);
	size_t i = op_begin(g, AUTOGRAD, H_CPU_OP, nd->name, nd->args, seq, 1);
	g->h[i].fb_in = g->flows[l * S_PER_LAYER + s];
}

static void node_end(gen *g)
{
	end(g, AUTOGRAD);
	end(g, AUTOGRAD);
}

static void linear_bwd(gen *g, const linear_desc *ld, int64_t l, int s, int k)
{
	const model *m = g->m;
	uint64_t base = slot(l, K_BWD + 3 * k);
	node_begin(g, &m->ev_addmm_bwd, &m->addmm_bwd, l, s);
	op(g, AUTOGRAD, &ld->t);
	end(g, AUTOGRAD);
	leaf(g, AUTOGRAD, &ld->mm_dx, &ld->gemm_dx, base);
	op(g, AUTOGRAD, &ld->t_w);
	end(g, AUTOGRAD);
	leaf(g, AUTOGRAD, &ld->mm_dw, &ld->gemm_dw, base + 1);
	leaf(g, AUTOGRAD, &ld->sum, &ld->bias_sum, base + 2);
	node_end(g);
}

static void layer_norm_bwd(gen *g, int64_t l, int s, int k)
{
	const model *m = g->m;
	uint64_t base = slot(l, K_BWD + 3 * k);
	node_begin(g, &m->ev_ln_bwd, &m->ln_bwd_node, l, s);
	op(g, AUTOGRAD, &m->ln_bwd);
	launch(g, AUTOGRAD, &m->ln_bwd_dx, kdur(g, &m->ln_bwd_dx, base), API_LAUNCH);
	launch(g, AUTOGRAD, &m->ln_bwd_gb, kdur(g, &m->ln_bwd_gb, base + 1), API_LAUNCH);
	end(g, AUTOGRAD);
	node_end(g);
}

/* The math path's backward: BmmBackward0 of the second bmm (two bmm
 * kernels: the gradients of the probabilities and of V), SoftmaxBackward0,
 * BmmBackward0 of the first (the gradients of Q and K); together the flash
 * backward's time x --sdpa-math, as the forward. */
static void attention_math_bwd(gen *g, int64_t l, uint64_t base)
{
	const model *m = g->m;
	int64_t t = kdur(g, &m->flash_bwd_dot, base) + kdur(g, &m->flash_bwd_main, base + 1) +
	            kdur(g, &m->flash_bwd_convert, base + 2);
	int64_t total = llround((double)t * g->o->sdpa_math);
	int64_t gemm = total / 5, sm = total - 4 * gemm;
	node_begin(g, &m->ev_bmm_bwd, &m->bmm_bwd_node, l, S_PV);
	leaf_dur(g, &m->bmm, &m->bmm_bwd_k, gemm);
	leaf_dur(g, &m->bmm, &m->bmm_bwd_k, gemm);
	node_end(g);
	node_begin(g, &m->ev_softmax_bwd, &m->softmax_bwd_node, l, S_SOFTMAX);
	leaf_dur(g, &m->softmax_bwd, &m->softmax_bwd_k, sm);
	node_end(g);
	node_begin(g, &m->ev_bmm_bwd, &m->bmm_bwd_node, l, S_QK);
	leaf_dur(g, &m->bmm, &m->bmm_bwd_k, gemm);
	leaf_dur(g, &m->bmm, &m->bmm_bwd_k, gemm);
	node_end(g);
}

static void attention_bwd(gen *g, int64_t l)
{
	const model *m = g->m;
	uint64_t base = slot(l, K_BWD + 3 * K_FLASH);
	if (g->o->sdpa_math > 0) {
		attention_math_bwd(g, l, base);
		return;
	}
	node_begin(g, &m->ev_sdpa_bwd, &m->sdpa_bwd_node, l, S_SDPA);
	op(g, AUTOGRAD, &m->sdpa_bwd);
	op(g, AUTOGRAD, &m->flash_bwd);
	launch(g, AUTOGRAD, &m->flash_bwd_dot, kdur(g, &m->flash_bwd_dot, base), API_LAUNCH);
	launch(g, AUTOGRAD, &m->flash_bwd_main, kdur(g, &m->flash_bwd_main, base + 1), API_LAUNCH);
	launch(g, AUTOGRAD, &m->flash_bwd_convert, kdur(g, &m->flash_bwd_convert, base + 2), API_LAUNCH);
	end(g, AUTOGRAD);
	end(g, AUTOGRAD);
	node_end(g);
}

static void layer_bwd(gen *g, int64_t l)
{
	const model *m = g->m;
	node_begin(g, &m->ev_add_bwd, &m->add_bwd, l, S_ADD2);
	node_end(g);
	linear_bwd(g, &m->down, l, S_DOWN, K_DOWN);
	node_begin(g, &m->ev_act_bwd, &m->act_bwd_node, l, S_ACT);
	op(g, AUTOGRAD, &m->act_bwd);
	launch(g, AUTOGRAD, &m->act_bwd_k, kdur(g, &m->act_bwd_k, slot(l, K_BWD + 3 * K_ACT)), API_DRIVER);
	end(g, AUTOGRAD);
	node_end(g);
	linear_bwd(g, &m->up, l, S_UP, K_UP);
	layer_norm_bwd(g, l, S_LN2, K_LN2);
	node_begin(g, &m->ev_add_bwd, &m->add_bwd, l, S_ADD1);
	node_end(g);
	linear_bwd(g, &m->out, l, S_OUT, K_OUTP);
	attention_bwd(g, l);
	linear_bwd(g, &m->qkv, l, S_QKV, K_QKV);
	layer_norm_bwd(g, l, S_LN1, K_LN1);
}

/* ------------------------------------------------------------ collective */

/* The allreduce on its own stream. It starts when the compute stream's
 * work so far is done (an event wait) and the launch has reached the GPU;
 * the straggler starts --skew-us later; every rank ends together, after
 * the transfer. The compute stream waits for the end. */
static void allreduce(gen *g, int th)
{
	const gen_opts *o = g->o;
	const model *m = g->m;
	op(g, th, &m->allreduce);
	op(g, th, &m->record_param_comms);
	runtime(g, th, CUDA_EVENT_RECORD, 135, 700, 2500);
	int64_t ready = g->gpu_compute;
	runtime(g, th, CUDA_WAIT_EVENT, 147, 800, 1700);
	op_begin(g, th, H_ANNOTATION, m->allreduce_ann.name, m->allreduce_ann.args, -1, -1);
	size_t r = runtime(g, th, CUDA_LAUNCH_EXC, 430, 8000, 14000);
	hev *e = &g->h[r];
	e->flow = 1;
	int64_t base = g->gpu_comm + 2000;
	if (ready > base)
		base = ready;
	if (e->ts + 6000 > base)
		base = e->ts + 6000;
	int64_t late = o->straggler >= 0 ? llround(o->skew_us * 1000) : 0;
	int64_t start = base + (o->rank == o->straggler ? late : 0);
	int64_t finish = base + late + m->comm_base;
	dev *d = d_new(g, D_KERNEL);
	d->k = &m->nccl;
	d->extra = m->comm_args;
	d->ts = start;
	d->dur = finish - start;
	d->corr = e->corr;
	d->ext = e->ext;
	d->stream = STREAM_COMM;
	g->gpu_comm = finish;
	if (g->gpu_compute < finish)
		g->gpu_compute = finish;
	truth_add_kernel(g, &m->nccl, d->ts, d->dur);
	end(g, th);
	runtime(g, th, CUDA_EVENT_RECORD, 135, 600, 1500);
	end(g, th);
	end(g, th);
}

/* ------------------------------------------------------------ the step */

static void load_batch(gen *g)
{
	const model *m = g->m;
	op(g, MAIN, &m->to);
	op(g, MAIN, &m->to_copy);
	op(g, MAIN, &m->empty_strided);
	end(g, MAIN);
	op(g, MAIN, &m->copy);
	memcpy_blocking(g, MAIN, &m->h2d);
	end(g, MAIN);
	end(g, MAIN);
	end(g, MAIN);
}

/* loss.backward(): the main thread waits while the engine's thread runs
 * the nodes in reverse; the gradients' allreduce ends the backward. */
static void backward(gen *g)
{
	py_begin(g, PY_BACKWARD, -1);
	py_begin(g, PY_AG_BACKWARD, -1);
	int64_t start = g->cpu[MAIN] + rng_range(&g->rng, 5000, 15000);
	if (g->cpu[AUTOGRAD] < start)
		g->cpu[AUTOGRAD] = start;
	for (int64_t l = g->o->layers - 1; l >= 0; l--)
		layer_bwd(g, l);
	if (g->o->ranks > 1)
		allreduce(g, AUTOGRAD);
	g->cpu[MAIN] = g->cpu[AUTOGRAD] + rng_range(&g->rng, 3000, 8000);
	py_end(g);
	py_end(g);
}

static void optimizer(gen *g)
{
	const model *m = g->m;
	py_begin(g, PY_OPT, -1);
	op_begin(g, MAIN, H_ANNOTATION, ANN_OPT_STEP, NULL, -1, -1);
	op(g, MAIN, &m->fused_adamw);
	for (int64_t i = 0; i < m->adam_kernels; i++)
		launch(g, MAIN, &m->adam, kdur(g, &m->adam, (uint64_t)(g->o->layers * K_SLOTS + i)), API_LAUNCH);
	end(g, MAIN);
	end(g, MAIN);
	py_end(g);
	op_begin(g, MAIN, H_ANNOTATION, ANN_ZERO_GRAD, NULL, -1, -1);
	end(g, MAIN);
}

/* The GPU-side ProfilerStep: the span of the step's compute-stream work. */
static void gpu_step_annotation(gen *g, int64_t ext)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (size_t i = 0; i < g->nd; i++)
		if (g->d[i].stream == STREAM_COMPUTE && g->d[i].cat != D_SYNC) {
			if (g->d[i].ts < lo)
				lo = g->d[i].ts;
			if (g->d[i].ts + g->d[i].dur > hi)
				hi = g->d[i].ts + g->d[i].dur;
		}
	if (lo > hi)
		return;
	dev *d = d_new(g, D_STEP);
	d->ts = lo;
	d->dur = hi - lo;
	d->ext = ext;
	d->stream = STREAM_COMPUTE;
	d->step = g->step;
}

void gen_step(gen *g)
{
	const gen_opts *o = g->o;
	g->nh = g->nd = 0;
	g->step_factor = o->noise > 0 ? 1 + o->noise * (2 * hash_unit(o->seed, TAG_NOISE, (uint64_t)g->pass, 0) - 1) : 1;
	size_t step_ev = 0;
	if (o->steps) {
		snprintf(g->step_name, sizeof(g->step_name), "\"ProfilerStep#%lld\"", (long long)g->step);
		step_ev = op_begin(g, MAIN, H_ANNOTATION, g->step_name, NULL, -1, -1);
	}
	py_begin(g, PY_STEP, -1);
	if (o->distinct_ops) {
		/* the loop body is the N distinct ops, in order or reversed */
		for (int64_t i = 0; i < o->distinct_ops; i++) {
			int64_t k = o->reverse_ops ? o->distinct_ops - 1 - i : i;
			leaf(g, MAIN, &g->m->dops[k], &g->m->dkern[k], (uint64_t)k);
		}
		goto body_done;
	}
	load_batch(g);
	py_begin(g, PY_MODEL, 0);
	for (int64_t l = 0; l < o->layers; l++) {
		layer_fwd(g, l);
		/* spread the syncs: after layer l, floor((l+1)N/L) - floor(lN/L) */
		int64_t n = (l + 1) * o->host_sync / o->layers - l * o->host_sync / o->layers;
		for (int64_t i = 0; i < n; i++)
			host_sync(g);
	}
	py_end(g);
	if (o->train) {
		backward(g);
		optimizer(g);
	} else if (o->ranks > 1) {
		allreduce(g, MAIN);
	}
body_done:
	py_end(g);
	if (o->steps) {
		end(g, MAIN);
		gpu_step_annotation(g, g->h[step_ev].ext);
	}
	int64_t last = g->cpu[MAIN] > g->cpu[AUTOGRAD] ? g->cpu[MAIN] : g->cpu[AUTOGRAD];
	if (g->gpu_compute > last)
		last = g->gpu_compute;
	if (g->gpu_comm > last)
		last = g->gpu_comm;
	g->t_end = last;
	emit_step(g);
}

/* The first timestamp: about 14 days into the profiler's clock, like the
 * values real traces carry. */
#define T0_NS 1234567890123456LL

/* A standard normal number from the hashes of (seed, tag, a). */
static double normal_of(uint64_t seed, uint64_t tag, uint64_t a)
{
	double u1 = hash_unit(seed, tag, a, 1), u2 = hash_unit(seed, tag, a, 2);
	return sqrt(-2 * log(1 - u1)) * cos(2 * 3.14159265358979323846 * u2);
}

void gen_init(gen *g, const gen_opts *o, const model *m, wbuf *w)
{
	memset(g, 0, sizeof(*g));
	g->o = o;
	g->m = m;
	g->w = w;
	g->pid = 73100 + 41 * o->rank;
	g->tid[MAIN] = g->pid;
	g->tid[AUTOGRAD] = g->pid + 97;
	g->device = o->ranks > 1 ? o->rank % 8 : 0;
	g->rng = rng_seed(o->seed);
	/* the between-run noise: one log-normal factor of the run, one of each
	 * kernel family (Box-Muller on the seed's hashes) */
	g->run_factor = exp(o->run_noise * normal_of(o->seed, TAG_RUN, 0));
	for (int c = 0; c < 5; c++)
		g->family_factor[c] = exp(o->family_noise * normal_of(o->seed, TAG_FAMILY, (uint64_t)c));
	g->t0 = g->t_end = T0_NS;
	g->cpu[MAIN] = g->cpu[AUTOGRAD] = g->gpu_compute = g->gpu_comm = T0_NS;
	g->py_root = o->python ? 1 : -1;
	g->py_id = 1;
	g->seqs = xmalloc((size_t)(o->layers * S_PER_LAYER) * sizeof(int64_t));
	g->flows = xmalloc((size_t)(o->layers * S_PER_LAYER) * sizeof(int64_t));
	memset(g->seqs, 0, (size_t)(o->layers * S_PER_LAYER) * sizeof(int64_t));
	memset(g->flows, 0, (size_t)(o->layers * S_PER_LAYER) * sizeof(int64_t));
}

void gen_free(gen *g)
{
	free(g->h);
	free(g->d);
	free(g->spans);
	free(g->seqs);
	free(g->flows);
}
