/*
 * desc.c - the model's ops and kernels, built once from the options: names
 * as JSON literals, shapes as prebuilt argument text, base durations from
 * the cost model. The step generator (model.c) only copies these.
 */
#include "gen.h"
#include "../../util/buf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NUM_SMS 132.0

/* One input of an op as Kineto records it. */
typedef struct input {
	const char *type;     /* "c10::BFloat16", "Scalar", "" ... */
	int nd;               /* dims; 0 for a scalar or None */
	int64_t dims[5];
	int64_t strides[5];   /* all zero: contiguous */
	const char *concrete; /* Concrete Inputs entry ("" for tensors) */
} input;

/* The string b built, handed over (the caller frees it); exits on ENOMEM
 * like xmalloc (setup only). */
static char *sb_take(tg_buf *b)
{
	char *s;
	if (tg_buf_take(&s, NULL, b)) {
		fputs("tg-gen: out of memory\n", stderr);
		exit(1);
	}
	return s;
}

static void sb_dims(tg_buf *b, int nd, const int64_t *v)
{
	tg_buf_putc(b, '[');
	for (int i = 0; i < nd; i++)
		tg_buf_appendf(b, "%s%lld", i ? ", " : "", (long long)v[i]);
	tg_buf_putc(b, ']');
}

static void contiguous(const input *in, int64_t *st)
{
	int64_t s = 1;
	for (int i = in->nd - 1; i >= 0; i--) {
		st[i] = in->strides[i] ? in->strides[i] : s;
		s *= in->dims[i];
	}
}

/* ', "Concrete Inputs": [...], "Input type": [...], "Input Strides": [...],
 * "Input Dims": [...]' in Kineto's order; extra (or NULL) is appended. */
static char *shape_args(const input *in, int n, const char *extra)
{
	tg_buf b = TG_BUF_INIT;
	tg_buf_puts(&b, ", \"Concrete Inputs\": [");
	for (int i = 0; i < n; i++) {
		char *q = json_quote(in[i].concrete);
		tg_buf_puts(&b, i ? ", " : "");
		tg_buf_puts(&b, q);
		free(q);
	}
	tg_buf_puts(&b, "], \"Input type\": [");
	for (int i = 0; i < n; i++) {
		char *q = json_quote(in[i].type);
		tg_buf_puts(&b, i ? ", " : "");
		tg_buf_puts(&b, q);
		free(q);
	}
	tg_buf_puts(&b, "], \"Input Strides\": [");
	for (int i = 0; i < n; i++) {
		int64_t st[5];
		contiguous(&in[i], st);
		tg_buf_puts(&b, i ? ", " : "");
		sb_dims(&b, in[i].nd, st);
	}
	tg_buf_puts(&b, "], \"Input Dims\": [");
	for (int i = 0; i < n; i++) {
		tg_buf_puts(&b, i ? ", " : "");
		sb_dims(&b, in[i].nd, in[i].dims);
	}
	tg_buf_puts(&b, "]");
	if (extra)
		tg_buf_puts(&b, extra);
	return sb_take(&b);
}

static void op(opdesc *d, const char *name, const input *in, int n, const char *extra)
{
	d->name = json_quote(name);
	d->args = n || extra ? shape_args(in, n, extra) : xprintf("%s", "");
}

static void op_free(opdesc *d)
{
	free(d->name);
	free(d->args);
}

/* Kernel geometry as CUPTI reports it. */
typedef struct geom {
	int64_t grid[3];
	int block[3];
	int regs, smem;
} geom;

static void kernel(kdesc *k, const char *name, int64_t base, int cls, double scale, geom g)
{
	double blocks = (double)(g.grid[0] * g.grid[1] * g.grid[2]);
	double threads = (double)g.block[0] * g.block[1] * g.block[2];
	double bps = blocks / NUM_SMS, wps = bps * ceil(threads / 32.0);
	int occ = (int)fmin(100.0, floor(fmin(wps, 64.0) / 64.0 * 100.0));
	k->name = json_quote(name);
	k->args = xprintf(",      \"registers per thread\": %d,      \"shared memory\": %d,      "
	                  "\"blocks per SM\": %.6f,      \"warps per SM\": %.6f,      \"grid\": [%lld, %lld, %lld],"
	                  "      \"block\": [%d, %d, %d],      \"est. achieved occupancy %%\": %d",
	                  g.regs, g.smem, bps, wps, (long long)g.grid[0], (long long)g.grid[1],
	                  (long long)g.grid[2], g.block[0], g.block[1], g.block[2], occ);
	k->base = base;
	k->cls = cls;
	k->scale = scale;
	k->noisy = cls != K_COMM;
}

static void kernel_free(kdesc *k)
{
	free(k->name);
	free(k->args);
}

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

static geom g_gemm(int64_t m, int64_t n)
{
	return (geom){{cdiv(n, 128), cdiv(m, 128), 1}, {384, 1, 1}, 168, 213000};
}

static geom g_elementwise(int64_t n)
{
	return (geom){{cdiv(n, 512), 1, 1}, {128, 1, 1}, 28, 0};
}

static geom g_rows(int64_t rows, int threads)
{
	return (geom){{rows, 1, 1}, {threads, 1, 1}, 32, 0};
}

/* ------------------------------------------------------------ kernel names */

#define SM90_TN "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas"
#define NVJET "nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NTN"
#define CUTLASS_RELU "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8>(cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8::Params)"
#define CUTLASS_WMMA "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>(cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8::Params)"
#define SM90_NN "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas"
#define SM90_NT "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas"
#define LN_FWD "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)"
#define LN_BWD_DX "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<c10::BFloat16, float>(c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, c10::BFloat16 const*, c10::BFloat16*, int)"
#define LN_BWD_GB "void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernelTemplate<c10::BFloat16, float, 32u, 32u, 256u, false, true>(long, long, c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, c10::BFloat16*, c10::BFloat16*)"
#define ADD_K "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)"
#define SUM_K "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<c10::BFloat16, at::native::func_wrapper_t<c10::BFloat16, at::native::sum_functor<c10::BFloat16, float, c10::BFloat16>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, c10::BFloat16, 4, 4> >(at::native::ReduceOp<c10::BFloat16, at::native::func_wrapper_t<c10::BFloat16, at::native::sum_functor<c10::BFloat16, float, c10::BFloat16>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, c10::BFloat16, 4, 4>)"
#define ADAM_K "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<c10::BFloat16, 4, (at::native::ADAM_MODE)1, false>, double*, double, double, double, double, double, bool, bool*, bool*>(at::native::(anonymous namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<c10::BFloat16, 4, (at::native::ADAM_MODE)1, false>, double*, double, double, double, double, double, bool, bool*, bool*)"
#define NCCL_K "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
#define ACT_K "triton_poi_fused_add|mul_0"
#define ACT_BWD_K "triton_poi_fused_gelu_backward_1"

static char *flash_name(const char *kind, const char *traits, int64_t d, const char *tail)
{
	return xprintf("void pytorch_flash::%s<%s<%lld, 128, 128, 4, false, false, cutlass::bfloat16_t, "
	               "Flash_kernel_traits<%lld, 128, 128, 4, cutlass::bfloat16_t> >%s",
	               kind, traits, (long long)d, (long long)d, tail);
}

/* ------------------------------------------------------------ the model */

static input tensor2(int64_t a, int64_t b) { return (input){"c10::BFloat16", 2, {a, b}, {0}, ""}; }
static input tensor3(int64_t a, int64_t b, int64_t c) { return (input){"c10::BFloat16", 3, {a, b, c}, {0}, ""}; }
static input vec(int64_t a) { return (input){"c10::BFloat16", 1, {a}, {0}, ""}; }
static input scalar(const char *v) { return (input){"Scalar", 0, {0}, {0}, v}; }
static input scalar_list(const char *v) { return (input){"ScalarList", 0, {0}, {0}, v}; }
static input none(void) { return (input){"", 0, {0}, {0}, ""}; }
static input list(void) { return (input){"GenericList", 0, {0}, {0}, ""}; }

/* A linear layer from k to n features over the model's tokens. */
static void linear_init(linear_desc *l, const model *m, const gen_opts *o, int64_t k, int64_t n,
                        const char *gemm_name)
{
	int64_t t = m->tokens;
	input lin[3] = {tensor3(o->batch, o->seq, k), tensor2(n, k), vec(n)};
	op(&l->linear, "aten::linear", lin, 3, NULL);
	input tw[1] = {tensor2(n, k)};
	op(&l->t, "aten::t", tw, 1, NULL);
	input am[5] = {vec(n), tensor2(t, k), tensor2(k, n), scalar("1"), scalar("1")};
	am[2].strides[0] = 1;
	am[2].strides[1] = k;
	op(&l->addmm, "aten::addmm", am, 5, NULL);
	input dx[2] = {tensor2(t, n), tensor2(n, k)};
	op(&l->mm_dx, "aten::mm", dx, 2, NULL);
	input dw[2] = {tensor2(n, t), tensor2(t, k)};
	dw[0].strides[0] = 1;
	dw[0].strides[1] = n;
	op(&l->mm_dw, "aten::mm", dw, 2, NULL);
	input tg[1] = {tensor2(t, n)};
	op(&l->t_w, "aten::t", tg, 1, NULL);
	input sm[4] = {tensor2(t, n), scalar_list("[0]"), scalar("True"), none()};
	op(&l->sum, "aten::sum", sm, 4, NULL);
	kernel(&l->gemm, gemm_name, cost_gemm(t, n, k), K_GEMM, o->gemm_scale, g_gemm(t, n));
	kernel(&l->gemm_dx, SM90_NN, cost_gemm(t, k, n), K_GEMM, o->gemm_scale, g_gemm(t, k));
	kernel(&l->gemm_dw, SM90_NT, cost_gemm(n, k, t), K_GEMM, o->gemm_scale, g_gemm(n, k));
	kernel(&l->bias_sum, SUM_K, cost_memory(2.0 * (double)(t * n), 3000), K_OTHER, 1,
	       (geom){{cdiv(n, 32), 16, 1}, {32, 16, 1}, 32, 4096});
	l->params = n * k + n;
}

static void linear_free(linear_desc *l)
{
	opdesc *ops[] = {&l->linear, &l->t, &l->addmm, &l->mm_dx, &l->mm_dw, &l->sum, &l->t_w};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		op_free(ops[i]);
	kernel_free(&l->gemm);
	kernel_free(&l->gemm_dx);
	kernel_free(&l->gemm_dw);
	kernel_free(&l->bias_sum);
}

static void norm_init(model *m, const gen_opts *o)
{
	int64_t h = o->hidden, n = m->tokens * h;
	char shape[32];
	snprintf(shape, sizeof(shape), "[%lld]", (long long)h);
	input ln[6] = {tensor3(o->batch, o->seq, h), scalar_list(shape), vec(h), vec(h), scalar("1e-05"),
	               scalar("True")};
	op(&m->ln, "aten::layer_norm", ln, 6, NULL);
	op(&m->native_ln, "aten::native_layer_norm", ln, 5, NULL);
	kernel(&m->ln_fwd, LN_FWD, cost_memory(4.0 * (double)n + 8.0 * (double)m->tokens, 2000), K_OTHER, 1,
	       g_rows(m->tokens, 256));
	input lb[8] = {tensor3(o->batch, o->seq, h), tensor3(o->batch, o->seq, h), scalar_list(shape),
	               (input){"float", 3, {o->batch, o->seq, 1}, {0}, ""},
	               (input){"float", 3, {o->batch, o->seq, 1}, {0}, ""}, vec(h), vec(h),
	               scalar_list("[True, True, True]")};
	op(&m->ln_bwd, "aten::native_layer_norm_backward", lb, 8, NULL);
	kernel(&m->ln_bwd_dx, LN_BWD_DX, cost_memory(6.0 * (double)n, 2500), K_OTHER, 1, g_rows(m->tokens, 256));
	kernel(&m->ln_bwd_gb, LN_BWD_GB, cost_memory(4.0 * (double)n, 3000), K_OTHER, 1,
	       (geom){{cdiv(h, 32), 1, 1}, {32, 32, 1}, 64, 8448});
}

static void attention_init(model *m, const gen_opts *o)
{
	int64_t b = o->batch, s = o->seq, h = o->hidden, nh = o->heads, d = h / nh;
	char sz[96];
	/* q, k, v are views of the qkv GEMM's output [b, s, 3, nh, d] */
	snprintf(sz, sizeof(sz), "[%lld, %lld, 3, %lld, %lld]", (long long)b, (long long)s, (long long)nh,
	         (long long)d);
	input vw[2] = {tensor3(b, s, 3 * h), scalar_list(sz)};
	op(&m->view, "aten::view", vw, 2, NULL);
	input q = {"c10::BFloat16", 4, {b, nh, s, d}, {s * 3 * h, d, 3 * h, 1}, ""};
	input sd[8] = {q, q, q, none(), scalar("0."), scalar("True"), none(), scalar("False")};
	op(&m->sdpa, "aten::scaled_dot_product_attention", sd, 8, NULL);
	input sf[7] = {q, q, q, scalar("0."), scalar("True"), scalar("False"), none()};
	op(&m->sdpa_flash, "aten::_scaled_dot_product_flash_attention", sf, 7, NULL);
	input qt = {"c10::BFloat16", 4, {b, s, nh, d}, {s * 3 * h, 3 * h, d, 1}, ""};
	char ss[24];
	snprintf(ss, sizeof(ss), "%lld", (long long)s);
	input ff[11] = {qt, qt, qt, none(), none(), scalar(ss), scalar(ss), scalar("0."), scalar("True"),
	                scalar("False"), none()};
	op(&m->flash_fwd, "aten::_flash_attention_forward", ff, 11, NULL);
	input o4 = {"c10::BFloat16", 4, {b, nh, s, d}, {0}, ""};
	input lse = {"float", 3, {b, nh, s}, {0}, ""};
	input sb[12] = {o4, q, q, q, o4, lse, none(), none(), scalar(ss), scalar(ss), scalar("0."), scalar("True")};
	op(&m->sdpa_bwd, "aten::_scaled_dot_product_flash_attention_backward", sb, 12, NULL);
	op(&m->flash_bwd, "aten::_flash_attention_backward", sb, 12, NULL);

	int64_t fwd = cost_flash_fwd(b, nh, s, d);
	geom gf = {{cdiv(s, 128), b, nh}, {128, 1, 1}, 255, 49152};
	char *n = flash_name("flash_fwd_kernel", "Flash_fwd_kernel_traits", d,
	                     ", false, true, false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)");
	kernel(&m->flash, n, fwd, K_SDPA_FWD, o->sdpa_scale, gf);
	free(n);
	n = flash_name("flash_fwd_splitkv_kernel", "Flash_fwd_kernel_traits", d,
	               ", true, false, false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)");
	kernel(&m->split_kv, n, fwd, K_SDPA_FWD, o->sdpa_scale, (geom){{cdiv(s, 64), b * nh, 4}, {128, 1, 1}, 255, 49152});
	free(n);
	n = flash_name("flash_fwd_splitkv_combine_kernel", "Flash_fwd_kernel_traits", d,
	               ", 4, 3, true>(pytorch_flash::Flash_fwd_params)");
	kernel(&m->split_combine, n, fwd, K_SDPA_FWD, o->sdpa_scale, (geom){{cdiv(b * nh * s, 16), 1, 1}, {128, 1, 1}, 64, 16384});
	free(n);

	/* --sdpa-math: the same attention on the math path */
	op(&m->sdpa_math, "aten::_scaled_dot_product_attention_math", sd, 8, NULL);
	input mq = {"c10::BFloat16", 4, {b, nh, s, d}, {0}, ""}, mk = {"c10::BFloat16", 4, {b, nh, d, s}, {0}, ""};
	input mm2[2] = {mq, mk};
	op(&m->matmul, "aten::matmul", mm2, 2, NULL);
	input bq = {"c10::BFloat16", 3, {b * nh, s, d}, {0}, ""}, bk = {"c10::BFloat16", 3, {b * nh, d, s}, {0}, ""};
	input bm[2] = {bq, bk};
	op(&m->bmm, "aten::bmm", bm, 2, NULL);
	input sm[3] = {{"c10::BFloat16", 4, {b, nh, s, s}, {0}, ""}, scalar("-1"), scalar("False")};
	op(&m->softmax, "aten::_softmax", sm, 3, NULL);
	kernel(&m->bmm_k, "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_tn", fwd, K_SDPA_FWD, o->sdpa_scale,
	       g_gemm(s, s));
	kernel(&m->softmax_k,
	       "void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, c10::BFloat16, float, c10::BFloat16, "
	       "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(c10::BFloat16*, c10::BFloat16 const*, int)",
	       fwd, K_SDPA_FWD, o->sdpa_scale, g_rows(b * nh * s, 256));

	/* its backward (--train): BmmBackward0 (two bmm each), SoftmaxBackward0 */
	input sbw[4] = {{"c10::BFloat16", 4, {b, nh, s, s}, {0}, ""}, {"c10::BFloat16", 4, {b, nh, s, s}, {0}, ""},
	               scalar("-1"), scalar("15")};
	op(&m->softmax_bwd, "aten::_softmax_backward_data", sbw, 4, NULL);
	kernel(&m->bmm_bwd_k, "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_nn", fwd, K_SDPA_BWD,
	       o->sdpa_scale, g_gemm(s, s));
	kernel(&m->softmax_bwd_k,
	       "void at::native::(anonymous namespace)::cunn_SoftMaxBackward<8, c10::BFloat16, float, c10::BFloat16, "
	       "at::native::(anonymous namespace)::SoftMaxBackwardEpilogue>(c10::BFloat16*, c10::BFloat16 const*, "
	       "c10::BFloat16 const*, int)",
	       fwd, K_SDPA_BWD, o->sdpa_scale, g_rows(b * nh * s, 256));

	double qkv_bytes = 2.0 * (double)(b * s * h);
	n = flash_name("flash_bwd_dot_do_o_kernel", "Flash_bwd_kernel_traits", d,
	               " >(pytorch_flash::Flash_bwd_params)");
	kernel(&m->flash_bwd_dot, n, cost_memory(2.0 * qkv_bytes + 4.0 * (double)(b * nh * s), 1500), K_SDPA_BWD,
	       o->sdpa_scale, (geom){{cdiv(s, 128), b, nh}, {256, 1, 1}, 40, 0});
	free(n);
	n = flash_name("flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel", "Flash_bwd_kernel_traits", d,
	               ", true, true, false, false, false, false, false>(pytorch_flash::Flash_bwd_params)");
	kernel(&m->flash_bwd_main, n, cost_flash_bwd(b, nh, s, d), K_SDPA_BWD, o->sdpa_scale,
	       (geom){{cdiv(s, 128), b, nh}, {256, 1, 1}, 255, 98304});
	free(n);
	n = flash_name("flash_bwd_convert_dq_kernel", "Flash_bwd_kernel_traits", d,
	               " >(pytorch_flash::Flash_bwd_params, int)");
	kernel(&m->flash_bwd_convert, n, cost_memory(3.0 * qkv_bytes, 1500), K_SDPA_BWD, o->sdpa_scale,
	       (geom){{cdiv(s, 128), b, nh}, {256, 1, 1}, 32, 0});
	free(n);
}

static void mlp_init(model *m, const gen_opts *o)
{
	int64_t t = m->tokens, h4 = 4 * o->hidden, n = t * h4;
	char xnumel[32];
	snprintf(xnumel, sizeof(xnumel), "%lld", (long long)n);
	input act[3] = {tensor2(t, h4), vec(h4), scalar(xnumel)};
	op(&m->act, ACT_K, act, 3, ", \"kernel_backend\": \"triton\", \"num_warps\": 4, \"stream\": 0");
	op(&m->act_bwd, ACT_BWD_K, act, 3, ", \"kernel_backend\": \"triton\", \"num_warps\": 4, \"stream\": 0");
	op(&m->compiled, "CompiledFunction", NULL, 0, NULL);
	kernel(&m->act_k, ACT_K, cost_memory(4.0 * (double)n, 1500), K_OTHER, 1, g_elementwise(n));
	kernel(&m->act_bwd_k, ACT_BWD_K, cost_memory(6.0 * (double)n, 1500), K_OTHER, 1, g_elementwise(n));
	int64_t e = t * o->hidden;
	input add[3] = {tensor3(o->batch, o->seq, o->hidden), tensor3(o->batch, o->seq, o->hidden), scalar("1")};
	op(&m->add, "aten::add", add, 3, NULL);
	kernel(&m->add_k, ADD_K, cost_memory(6.0 * (double)e, 1500), K_OTHER, 1, g_elementwise(e));
	if (o->extra_op) {
		const char *base = strrchr(o->extra_op, ':');
		base = base ? base + 1 : o->extra_op;
		input x[1] = {tensor3(o->batch, o->seq, o->hidden)};
		op(&m->extra, o->extra_op, x, 1, NULL);
		char *kn = xprintf("void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::"
		                   "%s_kernel_cuda(at::TensorIteratorBase&)::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >"
		                   "(int, at::native::(anonymous namespace)::%s_kernel_cuda(at::TensorIteratorBase&)::"
		                   "{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)", base, base);
		kernel(&m->extra_k, kn, cost_memory(4.0 * (double)e, 1500), K_OTHER, 1, g_elementwise(e));
		free(kn);
	}
}

/* Data loading, .item(), the optimizer. */
static void misc_init(model *m, const gen_opts *o)
{
	char sz[64], st[32];
	snprintf(sz, sizeof(sz), "[%lld, %lld]", (long long)o->batch, (long long)o->seq);
	snprintf(st, sizeof(st), "[%lld, 1]", (long long)o->seq);
	input ids = {"long int", 2, {o->batch, o->seq}, {0}, ""};
	input to[6] = {ids, none(), scalar("4"), scalar("False"), scalar("False"), none()};
	to[1].concrete = "cuda:0";
	op(&m->to, "aten::to", to, 6, NULL);
	input tc[6] = {ids, scalar("4"), none(), none(), scalar("False"), none()};
	op(&m->to_copy, "aten::_to_copy", tc, 6, NULL);
	input es[6] = {scalar_list(sz), scalar_list(st), scalar("4"), none(), none(), none()};
	op(&m->empty_strided, "aten::empty_strided", es, 6, NULL);
	input cp[3] = {ids, ids, scalar("False")};
	op(&m->copy, "aten::copy_", cp, 3, NULL);
	int64_t idbytes = 8 * m->tokens;
	m->h2d = (mdesc){json_quote("Memcpy HtoD (Pageable -> Device)"), idbytes, cost_pageable_copy(idbytes)};
	m->d2h = (mdesc){json_quote("Memcpy DtoH (Device -> Pageable)"), 2, 1500};
	input sc[1] = {{"c10::BFloat16", 0, {0}, {0}, ""}};
	op(&m->item, "aten::item", sc, 1, NULL);
	op(&m->local_scalar, "aten::_local_scalar_dense", sc, 1, NULL);

	input ad[13] = {list(), list(), list(), list(), list(), list(), scalar("0.001"), scalar("0.9"),
	                scalar("0.999"), scalar("0.01"), scalar("1e-08"), scalar("False"), scalar("False")};
	op(&m->fused_adamw, "aten::_fused_adamw_", ad, 13, NULL);
	/* one launch per 4 layers' tensors, each moving 22 bytes a parameter */
	m->adam_kernels = (o->layers + 3) / 4;
	double per = (double)m->params / (double)m->adam_kernels;
	kernel(&m->adam, ADAM_K, cost_memory(22.0 * per, 4000), K_OTHER, 1,
	       (geom){{cdiv((int64_t)per, 65536 * 4), 1, 1}, {512, 1, 1}, 46, 0});
}

/* The allreduce: gradients when training, activations otherwise. */
static void comm_init(model *m, const gen_opts *o)
{
	int64_t n = o->ranks;
	m->comm_nelems = o->train ? m->params : m->tokens * o->hidden;
	double bytes = 2.0 * (double)m->comm_nelems;
	double bus = 2.0 * (double)(n - 1) / (double)n; /* ring allreduce */
	m->comm_base = n > 1 ? llround(bytes * bus / (o->link_gbps * 1073741824.0) * 1e9) : 0;
	tg_buf rb = TG_BUF_INIT;
	tg_buf_puts(&rb, "\"[");
	for (int64_t i = 0; i < n; i++)
		tg_buf_appendf(&rb, "%s%lld", i ? ", " : "", (long long)i);
	tg_buf_puts(&rb, "]\"");
	char *r = sb_take(&rb);
	m->comm_args = xprintf(", \"Collective name\": \"allreduce\", \"In msg nelems\": %lld, \"Out msg nelems\": %lld, "
	                       "\"Group size\": %lld, \"dtype\": \"BFloat16\", \"In split size\": \"[]\", "
	                       "\"Out split size\": \"[]\", \"Process Group Name\": \"0\", "
	                       "\"Process Group Description\": \"default_pg\", \"Process Group Ranks\": %s",
	                       (long long)m->comm_nelems, (long long)m->comm_nelems, (long long)n, r);
	kernel(&m->nccl, NCCL_K, m->comm_base, K_COMM, 1, (geom){{8, 1, 1}, {512, 1, 1}, 96, 103808});
	input ar[5] = {list(), none(), none(), none(), scalar("-1")};
	op(&m->allreduce, "c10d::allreduce_", ar, 5, NULL);
	char *rp = xprintf("%s, \"Global rank start\": 0, \"Global rank stride\": 1, \"Rank\": %lld", m->comm_args,
	                   (long long)o->rank);
	input rin[1] = {vec(m->comm_nelems)};
	op(&m->record_param_comms, "record_param_comms", rin, 1, rp);
	free(rp);
	free(r);
	op(&m->allreduce_ann, "nccl:all_reduce", NULL, 0, NULL);
}

/* Backward node names: the engine's wrapper and the node itself. */
static void node(opdesc *ev, opdesc *nd, const char *name)
{
	char *e = xprintf("autograd::engine::evaluate_function: %s", name);
	op(ev, e, NULL, 0, NULL);
	op(nd, name, NULL, 0, NULL);
	free(e);
}

/* Frame names; nn.Module names end in the instance number. */
static const char *const py_names[PY_PER_LAYER] = {
	"nn.Module: TransformerLayer_", "nn.Module: LayerNorm_", "nn.Module: Attention_", "nn.Module: Linear_",
	"<built-in function scaled_dot_product_attention>", "nn.Module: Linear_", "nn.Module: LayerNorm_",
	"nn.Module: MLP_", "nn.Module: Linear_", "nn.Module: Linear_"};

/* Per-class instance numbers, which nn.Module names carry as suffix. */
static int64_t py_instance(int i, int64_t l)
{
	switch (i) {
	case PY_LN1: return 2 * l;
	case PY_LN2: return 2 * l + 1;
	case PY_QKV: return 4 * l;
	case PY_OUT: return 4 * l + 1;
	case PY_UP: return 4 * l + 2;
	case PY_DOWN: return 4 * l + 3;
	default: return l;
	}
}

static void python_init(model *m, const gen_opts *o)
{
	m->py = xmalloc((size_t)(o->layers * PY_PER_LAYER) * sizeof(char *));
	m->py_module = xmalloc((size_t)(o->layers * PY_PER_LAYER) * sizeof(int64_t));
	for (int64_t l = 0; l < o->layers; l++)
		for (int i = 0; i < PY_PER_LAYER; i++) {
			char *s = i == PY_SDPA ? xprintf("%s", py_names[i])
			                       : xprintf("%s%lld", py_names[i], (long long)py_instance(i, l));
			m->py[l * PY_PER_LAYER + i] = json_quote(s);
			free(s);
			m->py_module[l * PY_PER_LAYER + i] = i == PY_SDPA ? -1 : py_instance(i, l);
		}
}

/* --distinct-ops: N ops of distinct names (aten::op_0000001 ...), each with
 * one input shape and one kernel of its own name (kernel_op_0000001 ...),
 * 2 to 2.6 us: every name of a list differs from every other, the input
 * that makes an alignment by name work hardest. */
static void distinct_init(model *m, const gen_opts *o)
{
	int64_t n = o->distinct_ops;
	m->dops = xmalloc((size_t)n * sizeof(opdesc));
	m->dkern = xmalloc((size_t)n * sizeof(kdesc));
	input in = tensor2(m->tokens, o->hidden);
	for (int64_t i = 0; i < n; i++) {
		char name[64];
		snprintf(name, sizeof(name), "aten::op_%07lld", (long long)(i + 1));
		op(&m->dops[i], name, &in, 1, NULL);
		snprintf(name, sizeof(name), "kernel_op_%07lld", (long long)(i + 1));
		kernel(&m->dkern[i], name, 2000 + (i % 7) * 100, K_OTHER, 1.0, g_elementwise(m->tokens * o->hidden));
	}
}

void model_init(model *m, const gen_opts *o)
{
	memset(m, 0, sizeof(*m));
	int64_t h = o->hidden;
	m->tokens = o->batch * o->seq;
	norm_init(m, o);
	linear_init(&m->qkv, m, o, h, 3 * h, SM90_TN);
	linear_init(&m->out, m, o, h, h, NVJET);
	linear_init(&m->up, m, o, h, 4 * h, CUTLASS_RELU);
	linear_init(&m->down, m, o, 4 * h, h, CUTLASS_WMMA);
	m->params = o->layers * (m->qkv.params + m->out.params + m->up.params + m->down.params + 4 * h);
	attention_init(m, o);
	mlp_init(m, o);
	misc_init(m, o);
	comm_init(m, o);
	node(&m->ev_add_bwd, &m->add_bwd, "AddBackward0");
	node(&m->ev_addmm_bwd, &m->addmm_bwd, "AddmmBackward0");
	node(&m->ev_ln_bwd, &m->ln_bwd_node, "NativeLayerNormBackward0");
	node(&m->ev_sdpa_bwd, &m->sdpa_bwd_node, "ScaledDotProductFlashAttentionBackward0");
	node(&m->ev_act_bwd, &m->act_bwd_node, "CompiledFunctionBackward");
	node(&m->ev_bmm_bwd, &m->bmm_bwd_node, "BmmBackward0");
	node(&m->ev_softmax_bwd, &m->softmax_bwd_node, "SoftmaxBackward0");
	python_init(m, o);
	m->gpu_name = json_quote(o->gpu);
	if (o->distinct_ops)
		distinct_init(m, o);
}

void model_free(model *m, const gen_opts *o)
{
	opdesc *ops[] = {&m->ln, &m->native_ln, &m->ln_bwd, &m->view, &m->sdpa, &m->sdpa_flash, &m->flash_fwd,
	                 &m->sdpa_bwd, &m->flash_bwd, &m->act, &m->act_bwd, &m->compiled, &m->add, &m->to,
	                 &m->to_copy, &m->empty_strided, &m->copy, &m->item, &m->local_scalar, &m->fused_adamw,
	                 &m->allreduce, &m->record_param_comms, &m->allreduce_ann, &m->ev_add_bwd, &m->add_bwd,
	                 &m->ev_addmm_bwd, &m->addmm_bwd, &m->ev_ln_bwd, &m->ln_bwd_node, &m->ev_sdpa_bwd,
	                 &m->sdpa_bwd_node, &m->ev_act_bwd, &m->act_bwd_node, &m->sdpa_math, &m->matmul, &m->bmm, &m->softmax,
	                 &m->ev_bmm_bwd, &m->bmm_bwd_node, &m->ev_softmax_bwd, &m->softmax_bwd_node, &m->softmax_bwd};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		op_free(ops[i]);
	kdesc *ks[] = {&m->ln_fwd, &m->ln_bwd_dx, &m->ln_bwd_gb, &m->flash, &m->split_kv, &m->split_combine,
	               &m->add_k, &m->act_k, &m->act_bwd_k, &m->flash_bwd_dot, &m->flash_bwd_main,
	               &m->flash_bwd_convert, &m->adam, &m->nccl, &m->bmm_k, &m->softmax_k, &m->bmm_bwd_k,
	               &m->softmax_bwd_k};
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++)
		kernel_free(ks[i]);
	if (o->extra_op) {
		op_free(&m->extra);
		kernel_free(&m->extra_k);
	}
	linear_free(&m->qkv);
	linear_free(&m->out);
	linear_free(&m->up);
	linear_free(&m->down);
	for (int64_t i = 0; i < o->layers * PY_PER_LAYER; i++)
		free(m->py[i]);
	free(m->py);
	free(m->py_module);
	free(m->h2d.name);
	free(m->d2h.name);
	free(m->comm_args);
	free(m->gpu_name);
	for (int64_t i = 0; i < o->distinct_ops; i++) {
		op_free(&m->dops[i]);
		kernel_free(&m->dkern[i]);
	}
	free(m->dops);
	free(m->dkern);
}
