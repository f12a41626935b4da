/* test_perf_model.c - shape parsing and the perf models, on hand-computed
 * cases: GEMM (bias, bmm, _scaled_mm fp8, no model for linear/matmul),
 * attention (every entry point, GQA, causal, backward, fp8, AMD AITER/CK
 * dense, varlen and paged batch prefill), convolution
 * (stride/padding/dilation/groups, transposed, backward), elementwise
 * broadcast, reductions with dim/keepdim, layer/batch/RMS norm, dtype sizes. */
#include "testutil.h"

#include "../core/models/perf_model.h"
#include "../core/models/shape.h"

#include <math.h>

static void near(double got, double want)
{
	if (!(fabs(got - want) <= 1e-12 * fmax(fabs(got), fabs(want))))
		fail_msg("got %.17g, want %.17g", got, want);
}

static tg_perf model(const char *name, const char *dims, const char *types, const char *concrete, int tracelens,
                     int want_rc)
{
	tg_perf p;
	tg_perf_args a = {name, dims, types, NULL, concrete};
	tg_perf_opts o = {.tracelens = tracelens};
	int rc = tg_perf_model(&p, &a, &o);
	if (rc != want_rc)
		fail_msg("%s %s: rc %d, want %d", name, dims ? dims : "", rc, want_rc);
	return p;
}

/* ------------------------------------------------------------ shapes */

static void test_shape_parse(void **state)
{
	(void)state;
	tg_shape_list l;
	assert_int_equal(tg_shape_parse(&l, "[[141, 512], [512, 512], []]"), 0);
	assert_int_equal(l.n, 3);
	assert_int_equal(l.v[0].kind, TG_SHAPE_DIMS);
	assert_int_equal(l.v[0].nd, 2);
	assert_int_equal(l.v[0].d[0], 141);
	assert_int_equal(l.v[2].nd, 0);
	assert_int_equal(tg_shape_numel(&l.v[0]), 141 * 512);
	assert_int_equal(tg_shape_numel(&l.v[2]), 1);
	char buf[64];
	tg_shape_tuple(buf, sizeof(buf), &l.v[0]);
	assert_string_equal(buf, "(141, 512)");
	tg_shape_tuple(buf, sizeof(buf), &l.v[2]);
	assert_string_equal(buf, "()");
	assert_int_equal(tg_shape_parse(&l, "[[128]]"), 0);
	tg_shape_tuple(buf, sizeof(buf), &l.v[0]);
	assert_string_equal(buf, "(128,)");

	/* strings, escapes, null, nested lists (TensorList), numbers */
	assert_int_equal(tg_shape_parse(&l, "[\"c10::BFloat16\", \"a\\\"b\", null, [[1, 2], [3]], 1.5, \"\"]"), 0);
	assert_int_equal(l.n, 6);
	assert_string_equal(l.v[0].s, "c10::BFloat16");
	assert_string_equal(l.v[1].s, "a\"b");
	assert_int_equal(l.v[2].kind, TG_SHAPE_NONE);
	assert_int_equal(l.v[3].kind, TG_SHAPE_OTHER);
	assert_int_equal(l.v[4].kind, TG_SHAPE_NUM);
	assert_true(l.v[4].num == 1.5);
	assert_int_equal(l.v[5].kind, TG_SHAPE_STR);
	assert_null(tg_shape_get(&l, 3, TG_SHAPE_DIMS));
	assert_null(tg_shape_get(&l, 99, TG_SHAPE_STR));

	/* garbage: an error, never a crash */
	static const char *const bad[] = {"", "[", "[[1, 2]", "{\"a\": 1}", "[1,,2]", "[\"abc", "[[1, x]]",
	                                  "[[1], [2]] tail", "[\"\\", "[[[[[[[[[[", "]", "[1 2]", "nul", NULL};
	for (int i = 0; bad[i]; i++) {
		int rc = tg_shape_parse(&l, bad[i]);
		if (!strcmp(bad[i], "[[1], [2]] tail"))
			continue; /* trailing text after a complete array is ignored */
		if (rc != TG_EFORMAT)
			fail_msg("'%s' parsed", bad[i]);
		assert_int_equal(l.n, 0);
	}
	assert_int_equal(tg_shape_parse(&l, NULL), 0);
	assert_int_equal(l.n, 0);

	/* limits: items and dims beyond the caps are cut and flagged */
	char big[4096];
	size_t o = (size_t)snprintf(big, sizeof(big), "[");
	for (int i = 0; i < 40; i++)
		o += (size_t)snprintf(big + o, sizeof(big) - o, "%s[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]", i ? ", " : "");
	snprintf(big + o, sizeof(big) - o, "]");
	assert_int_equal(tg_shape_parse(&l, big), 0);
	assert_int_equal(l.n, TG_SHAPE_MAX_ITEMS);
	assert_int_equal(l.cut, 1);
	assert_int_equal(l.v[0].nd, TG_SHAPE_MAX_DIMS);
	assert_int_equal(l.v[0].cut, 1);

	/* numel of negative or zero dims is 0; huge products saturate */
	assert_int_equal(tg_shape_parse(&l, "[[-1, 4], [0, 3], [4294967296, 4294967296, 4294967296]]"), 0);
	assert_int_equal(tg_shape_numel(&l.v[0]), 0);
	assert_int_equal(tg_shape_numel(&l.v[1]), 0);
	assert_true(tg_shape_numel(&l.v[2]) == INT64_MAX);

	int64_t v[4];
	assert_int_equal(tg_shape_ints(v, 4, "[1, -2]"), 2);
	assert_int_equal(v[1], -2);
	assert_int_equal(tg_shape_ints(v, 4, "(3,)"), 1);
	assert_int_equal(tg_shape_ints(v, 4, ""), 0);
	assert_int_equal(tg_shape_ints(v, 4, "True"), 0);
}

static void test_dtype_sizes(void **state)
{
	(void)state;
	assert_int_equal(tg_shape_dtype_bytes("c10::BFloat16"), 2);
	assert_int_equal(tg_shape_dtype_bytes("c10::Half"), 2);
	assert_int_equal(tg_shape_dtype_bytes("float"), 4);
	assert_int_equal(tg_shape_dtype_bytes("Scalar"), 4);
	assert_int_equal(tg_shape_dtype_bytes("int"), 4);
	assert_int_equal(tg_shape_dtype_bytes("double"), 8);
	assert_int_equal(tg_shape_dtype_bytes("long int"), 8);
	assert_int_equal(tg_shape_dtype_bytes("c10::Float8_e4m3fn"), 1);
	assert_int_equal(tg_shape_dtype_bytes("c10::Float8_e4m3fnuz"), 1);
	assert_int_equal(tg_shape_dtype_bytes("c10::Float8_e5m2"), 1);
	assert_int_equal(tg_shape_dtype_bytes("unsigned char"), 1);
	assert_int_equal(tg_shape_dtype_bytes("c10::Float4_e2m1fn_x2"), 1);
	assert_int_equal(tg_shape_dtype_bytes("bool"), 0);
	assert_int_equal(tg_shape_dtype_bytes(""), 0);
	assert_int_equal(tg_shape_dtype_bytes(NULL), 0);
	assert_string_equal(tg_shape_dtype_precision("c10::BFloat16"), "bf16");
	assert_string_equal(tg_shape_dtype_precision("c10::Half"), "fp16");
	assert_string_equal(tg_shape_dtype_precision("float"), "fp32");
	assert_string_equal(tg_shape_dtype_precision("double"), "fp64");
	assert_string_equal(tg_shape_dtype_precision("c10::Float8_e4m3fn"), "fp8");
	assert_string_equal(tg_shape_dtype_precision("c10::Float4_e2m1fn_x2"), "fp4");
	assert_null(tg_shape_dtype_precision("long int"));
}

static void test_kinds(void **state)
{
	(void)state;
	assert_int_equal(tg_perf_kind_of("aten::addmm"), TG_PERF_GEMM);
	assert_int_equal(tg_perf_kind_of("aten::linear"), TG_PERF_NONE);
	assert_int_equal(tg_perf_kind_of("aten::matmul"), TG_PERF_NONE);
	assert_int_equal(tg_perf_kind_of("flash_attn::_flash_attn_forward"), TG_PERF_SDPA_FWD);
	assert_int_equal(tg_perf_kind_of("aten::_efficient_attention_backward"), TG_PERF_SDPA_BWD);
	assert_int_equal(tg_perf_kind_of("aten::convolution_backward"), TG_PERF_CONV_BWD);
	assert_int_equal(tg_perf_kind_of("aten::mul"), TG_PERF_BINARY);
	assert_int_equal(tg_perf_kind_of("aten::silu"), TG_PERF_UNARY);
	assert_int_equal(tg_perf_kind_of("aten::native_layer_norm"), TG_PERF_NORM);
	assert_int_equal(tg_perf_kind_of("aten::sum"), TG_PERF_REDUCE);
	assert_int_equal(tg_perf_kind_of(NULL), TG_PERF_NONE);
	assert_string_equal(tg_perf_sheet_name(TG_PERF_GEMM), "GEMM");
	assert_string_equal(tg_perf_sheet_name(TG_PERF_REDUCE), "Reduce_fwd");
	assert_null(tg_perf_sheet_name(TG_PERF_NONE));
	model("aten::linear", "[[8, 16], [32, 16], [32]]", "[\"float\", \"float\", \"float\"]", NULL, 0, TG_ENOTFOUND);
	model("aten::matmul", "[[8, 16], [16, 32]]", "[\"float\", \"float\"]", NULL, 0, TG_ENOTFOUND);
}

/* ------------------------------------------------------------ GEMM */

static void test_gemm(void **state)
{
	(void)state;
	/* TraceLens's own checked example: addmm M=141 N=512 K=512 bf16 */
	tg_perf p = model("aten::addmm", "[[512], [141, 512], [512, 512], [], []]",
	                  "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"]", NULL, 1, 0);
	assert_int_equal(p.p.gemm.M, 141);
	assert_int_equal(p.p.gemm.N, 512);
	assert_int_equal(p.p.gemm.K, 512);
	assert_int_equal(p.p.gemm.bias, 1);
	near(p.flops, 2.0 * 141 * 512 * 512 + 141 * 512); /* 73996800 */
	near(p.bytes / (1 << 20), 0.7763671875);
	assert_string_equal(p.precision, "bf16");

	/* mm, no bias, fp32: 2*8*32*16; (8*16 + 16*32 + 8*32) * 4 */
	p = model("aten::mm", "[[8, 16], [16, 32]]", "[\"float\", \"float\"]", NULL, 0, 0);
	near(p.flops, 8192);
	near(p.bytes, 3584);

	/* bmm B=4: 4 * 2*8*32*16; 4 * (128 + 512 + 256) * 2 */
	p = model("aten::bmm", "[[4, 8, 16], [4, 16, 32]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]", NULL, 0, 0);
	assert_int_equal(p.p.gemm.B, 4);
	near(p.flops, 32768);
	near(p.bytes, 7168);
	/* baddbmm: bias M*N per batch; bias bytes N per batch */
	p = model("aten::baddbmm", "[[4, 8, 32], [4, 8, 16], [4, 16, 32], [], []]",
	          "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"]", NULL, 0, 0);
	near(p.flops, 4.0 * (2 * 8 * 32 * 16 + 8 * 32));
	near(p.bytes, 4.0 * (128 + 512 + 256 + 32) * 2);

	/* _scaled_mm fp8 e4m3: inputs 1 byte, output 2 bytes */
	p = model("aten::_scaled_mm", "[[64, 128], [128, 256], [], [], []]",
	          "[\"c10::Float8_e4m3fn\", \"c10::Float8_e4m3fn\", \"float\", \"float\", \"\"]", NULL, 0, 0);
	assert_int_equal(p.p.gemm.bias, 0);
	near(p.flops, 2.0 * 64 * 256 * 128);           /* 4194304 */
	near(p.bytes, 64 * 128 + 128 * 256 + 64 * 256 * 2); /* 73728 */
	assert_string_equal(p.precision, "fp8");
	/* with a bf16 bias of N */
	p = model("aten::_scaled_mm", "[[64, 128], [128, 256], [], [], [256]]",
	          "[\"c10::Float8_e4m3fn\", \"c10::Float8_e4m3fn\", \"float\", \"float\", \"c10::BFloat16\"]", NULL, 0, 0);
	assert_int_equal(p.p.gemm.bias, 1);
	near(p.flops, 2.0 * 64 * 256 * 128 + 64 * 256);
	near(p.bytes, 73728 + 256 * 2);

	/* unknown dtype: flops, bytes NaN */
	p = model("aten::mm", "[[8, 16], [16, 32]]", "[\"bool\", \"bool\"]", NULL, 0, 0);
	near(p.flops, 8192);
	assert_true(isnan(p.bytes));
	/* inconsistent or missing shapes */
	model("aten::mm", "[[8, 16], [17, 32]]", "[\"float\", \"float\"]", NULL, 0, TG_EFORMAT);
	model("aten::mm", "[[8, 16]]", "[\"float\"]", NULL, 0, TG_EFORMAT);
	model("aten::bmm", "[[2, 8, 16], [3, 16, 32]]", "[\"float\", \"float\"]", NULL, 0, TG_EFORMAT);
	model("aten::mm", "garbage", NULL, NULL, 0, TG_EFORMAT);
	model("aten::mm", NULL, NULL, NULL, 0, TG_EFORMAT);
}

/* ------------------------------------------------------------ attention */

#define BF3 "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\"]"

static void test_sdpa_forward(void **state)
{
	(void)state;
	/* TraceLens's checked example (bert): B=1 N=141 H=8 d=64, [B,H,N,d] */
	tg_perf p = model("aten::_scaled_dot_product_flash_attention", "[[1, 8, 141, 64], [1, 8, 141, 64], [1, 8, 141, 64], [], []]",
	                  BF3, "[\"\", \"\", \"\", \"0.\", \"False\"]", 1, 0);
	assert_int_equal(p.p.sdpa.N_Q, 141);
	assert_int_equal(p.p.sdpa.H_Q, 8);
	assert_int_equal(p.p.sdpa.causal, 0);
	near(p.flops, 4.0 * 8 * 141 * 141 * 64); /* 40716288 */
	near(p.bytes / (1 << 20), 0.55078125);

	/* causal halves: B=16 N=559 H=16 d=64 -> 10.239377408 GFLOPS */
	p = model("aten::_scaled_dot_product_flash_attention", "[[16, 16, 559, 64], [16, 16, 559, 64], [16, 16, 559, 64]]",
	          BF3, "[\"\", \"\", \"\", \"0.\", \"True\"]", 1, 0);
	near(p.flops / 1e9, 10.239377408);
	near(p.bytes / (1 << 20), 69.875);

	/* flash_attn, [B,N,H,d], GQA H_Q=32 H_KV=8, causal (Concrete[5]):
	 * 2*32*2*128*128*(64+64) / 2; bytes (q 524288 + k 131072 + v 131072 + o 524288) * 2 */
	const char *fa_dims = "[[2, 128, 32, 64], [2, 128, 8, 64], [2, 128, 8, 64]]";
	p = model("flash_attn::_flash_attn_forward", fa_dims, BF3,
	          "[\"\", \"\", \"\", \"0.0\", \"0.125\", \"True\", \"-1\", \"-1\"]", 0, 0);
	assert_int_equal(p.p.sdpa.H_Q, 32);
	assert_int_equal(p.p.sdpa.H_KV, 8);
	assert_int_equal(p.p.sdpa.N_KV, 128);
	assert_int_equal(p.p.sdpa.causal, 1);
	near(p.flops, 134217728);
	near(p.bytes, 2621440);

	/* aten::_flash_attention_forward: [B,N,H,d], dropout [7], causal [8] */
	p = model("aten::_flash_attention_forward", "[[1, 16, 4, 32], [1, 16, 4, 32], [1, 16, 4, 32]]", BF3,
	          "[\"\", \"\", \"\", \"\", \"\", \"16\", \"16\", \"0.1\", \"False\"]", 0, 0);
	assert_int_equal(p.p.sdpa.N_Q, 16);
	assert_int_equal(p.p.sdpa.H_Q, 4);
	assert_true(p.p.sdpa.dropout == 0.1);
	near(p.flops, 1.0 * 4 * 2 * 16 * 16 * (32 + 32)); /* 131072 */
	/* aten::_efficient_attention_forward: [B,N,H,d], custom_mask_type [9] = 1 is causal */
	p = model("aten::_efficient_attention_forward", "[[1, 16, 4, 32], [1, 16, 4, 32], [1, 16, 4, 32]]", BF3,
	          "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"0.0\", \"1\"]", 0, 0);
	assert_int_equal(p.p.sdpa.causal, 1);
	near(p.flops, 65536);
	/* SDPA efficient / cudnn: [B,H,N,d], causal [6] */
	p = model("aten::_scaled_dot_product_efficient_attention", "[[1, 4, 16, 32], [1, 4, 16, 32], [1, 4, 16, 32]]", BF3,
	          "[\"\", \"\", \"\", \"\", \"True\", \"0.0\", \"True\"]", 0, 0);
	assert_int_equal(p.p.sdpa.causal, 1);
	near(p.flops, 65536);
	p = model("aten::_scaled_dot_product_cudnn_attention", "[[1, 4, 16, 32], [1, 4, 16, 32], [1, 4, 16, 64]]", BF3,
	          "[\"\", \"\", \"\", \"\", \"True\", \"0.0\", \"False\"]", 0, 0);
	assert_int_equal(p.p.sdpa.d_v, 64);
	near(p.flops, 1.0 * 4 * 2 * 16 * 16 * (32 + 64));

	/* causal with N_Q < N_KV (decode with a prefix): bottom-right mask,
	 * 4*16 - 4*3/2 = 58 score pairs: 2 * 58 * (8 + 8); TraceLens refuses */
	const char *dec = "[[1, 1, 4, 8], [1, 1, 16, 8], [1, 1, 16, 8]]";
	p = model("aten::_scaled_dot_product_flash_attention", dec, BF3, "[\"\", \"\", \"\", \"0.\", \"True\"]", 0, 0);
	near(p.flops, 1856);
	model("aten::_scaled_dot_product_flash_attention", dec, BF3, "[\"\", \"\", \"\", \"0.\", \"True\"]", 1, TG_EFORMAT);

	/* fp8: 1 byte per element; TraceLens mode counts 2 */
	const char *f8 = "[\"c10::Float8_e4m3fn\", \"c10::Float8_e4m3fn\", \"c10::Float8_e4m3fn\"]";
	p = model("flash_attn::_flash_attn_forward", fa_dims, f8, "[\"\", \"\", \"\", \"0.0\", \"0.125\", \"True\"]", 0, 0);
	near(p.bytes, 1310720);
	assert_string_equal(p.precision, "fp8");
	p = model("flash_attn::_flash_attn_forward", fa_dims, f8, "[\"\", \"\", \"\", \"0.0\", \"0.125\", \"True\"]", 1, 0);
	near(p.bytes, 2621440);

	/* varlen [total, H, d]: B = 1 */
	p = model("aten::_flash_attention_forward", "[[100, 4, 32], [100, 2, 32], [100, 2, 32]]", BF3, NULL, 0, 0);
	assert_int_equal(p.p.sdpa.B, 1);
	assert_int_equal(p.p.sdpa.N_Q, 100);
	assert_int_equal(p.p.sdpa.H_KV, 2);

	/* invalid: H_Q not a multiple of H_KV, K/V heads differ, d differ */
	model("flash_attn::_flash_attn_forward", "[[1, 8, 6, 8], [1, 8, 4, 8], [1, 8, 4, 8]]", BF3, NULL, 0, TG_EFORMAT);
	model("flash_attn::_flash_attn_forward", "[[1, 8, 4, 8], [1, 8, 4, 8], [1, 8, 2, 8]]", BF3, NULL, 0, TG_EFORMAT);
	model("flash_attn::_flash_attn_forward", "[[1, 8, 4, 8], [1, 8, 4, 16], [1, 8, 4, 8]]", BF3, NULL, 0, TG_EFORMAT);
	model("flash_attn::_flash_attn_forward", "[[1, 8, 4, 8]]", BF3, NULL, 0, TG_EFORMAT);
}

static void test_sdpa_backward(void **state)
{
	(void)state;
	/* SDPA flash backward: grad_out, q, k, v [B,H,N,d] = [1,2,16,8], not causal.
	 * Each term 2*1*2*16*16*8 = 8192: recompute + dV + dP + dQ + dK = 40960.
	 * bytes (q + k + v + dO + dQ + dK + dV) = 7 * 256 elements * 2 */
	const char *d = "[[1, 2, 16, 8], [1, 2, 16, 8], [1, 2, 16, 8], [1, 2, 16, 8], [1, 2, 16, 8], [1, 2, 16]]";
	char conc[256];
	snprintf(conc, sizeof(conc), "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"0.0\", \"False\"]");
	tg_perf p = model("aten::_scaled_dot_product_flash_attention_backward", d, "[\"c10::BFloat16\", \"c10::BFloat16\"]",
	                  conc, 0, 0);
	assert_int_equal(p.kind, TG_PERF_SDPA_BWD);
	assert_int_equal(p.p.sdpa.flash, 1);
	near(p.flops, 40960);
	near(p.bytes, 3584);
	/* efficient backward: no recompute term */
	p = model("aten::_scaled_dot_product_efficient_attention_backward", d, NULL, NULL, 0, 0);
	near(p.flops, 32768);

	/* flash_attn backward, [B,N,H,d], GQA H_Q=4 H_KV=2, causal (Concrete[11]):
	 * 5 terms of 2*4*16*16*8 = 16384, plus 2 GQA sums of 16*8*(4/2-1) = 128,
	 * halved: (81920 + 256) / 2 */
	p = model("flash_attn::_flash_attn_backward",
	          "[[1, 16, 4, 8], [1, 16, 4, 8], [1, 16, 2, 8], [1, 16, 2, 8], [1, 16, 4, 8]]", NULL,
	          "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"0.0\", \"0.35\", \"True\"]", 0, 0);
	assert_int_equal(p.p.sdpa.H_Q, 4);
	assert_int_equal(p.p.sdpa.H_KV, 2);
	assert_int_equal(p.p.sdpa.causal, 1);
	near(p.flops, 41088);
	assert_true(isnan(p.bytes)); /* no dtype given */
}

/* AMD AITER / CK attention: [B,S,H,d] dense ops, varlen and paged batch
 * prefill, with is_causal found before window_size_left/right whatever the
 * aiter version's argument list. */
static void test_sdpa_aiter(void **state)
{
	(void)state;
	assert_int_equal(tg_perf_kind_of("aiter::_flash_attn_forward"), TG_PERF_SDPA_FWD);
	assert_int_equal(tg_perf_kind_of("aiter::mha_batch_prefill"), TG_PERF_SDPA_FWD);
	assert_int_equal(tg_perf_kind_of("aiter::mha_varlen_fwd"), TG_PERF_SDPA_FWD);
	assert_int_equal(tg_perf_kind_of("aiter::fmha_v3_bwd"), TG_PERF_SDPA_BWD);
	assert_int_equal(tg_perf_kind_of("aiter::wrapper_fmha_v3_fwd"), TG_PERF_NONE); /* signature unknown */

	/* _flash_attn_forward, GQA 32/8, causal at [5] (q, k, v, dropout_p,
	 * softmax_scale, causal, window_size_left, window_size_right, sink_size...):
	 * 2*32*2*128*128*(64+64)/2 = 134217728; (524288 + 2*131072 + 524288) * 2 bytes */
	const char *fa = "[[2, 128, 32, 64], [2, 128, 8, 64], [2, 128, 8, 64]]";
	tg_perf p = model("aiter::_flash_attn_forward", fa, BF3,
	                  "[\"\", \"\", \"\", \"0.\", \"0.125\", \"True\", \"-1\", \"-1\", \"0\", \"\", \"\", \"False\"]", 0,
	                  0);
	assert_int_equal(p.kind, TG_PERF_SDPA_FWD);
	assert_int_equal(p.p.sdpa.B, 2);
	assert_int_equal(p.p.sdpa.N_Q, 128);
	assert_int_equal(p.p.sdpa.H_Q, 32);
	assert_int_equal(p.p.sdpa.H_KV, 8);
	assert_int_equal(p.p.sdpa.causal, 1);
	near(p.flops, 134217728);
	near(p.bytes, 2621440);
	/* older aiter (no sink_size): same numbers */
	p = model("aiter::mha_fwd", fa, BF3, "[\"\", \"\", \"\", \"0.0\", \"0.125\", \"True\", \"-1\", \"-1\", \"False\"]",
	          0, 0);
	near(p.flops, 134217728);
	/* the shared synthetic trace's op: [8,512,16,64], no Concrete Inputs:
	 * not causal, 8*16*2*512*512*128 = 8589934592; 4 * 4194304 * 2 bytes */
	p = model("aiter::_flash_attn_forward", "[[8, 512, 16, 64], [8, 512, 16, 64], [8, 512, 16, 64]]",
	          "[\"c10::bfloat16\", \"c10::bfloat16\", \"c10::bfloat16\"]", NULL, 0, 0);
	assert_int_equal(p.p.sdpa.causal, 0);
	near(p.flops, 8589934592.0);
	near(p.bytes, 33554432);
	assert_string_equal(p.precision, "bf16");
	/* fmha_v3_fwd, d_v 64 != d_qk 32, not causal: 4*2*16*16*(32+64) */
	p = model("aiter::fmha_v3_fwd", "[[1, 16, 4, 32], [1, 16, 4, 32], [1, 16, 4, 64]]", BF3,
	          "[\"\", \"\", \"\", \"0.\", \"0.17\", \"False\", \"-1\", \"-1\", \"False\", \"False\", \"1\"]", 0, 0);
	near(p.flops, 196608);

	/* _flash_attn_backward: dout, q, k, v, out, lse, dq, dk, dv, dbias,
	 * dropout_p [10], softmax_scale, causal [12]; GQA 4/2, [1,16,H,8]: as
	 * flash_attn's (81920 + 256) / 2 = 41088; bytes (2*(512+256+256)+512)*2 */
	const char *bd = "[[1, 16, 4, 8], [1, 16, 4, 8], [1, 16, 2, 8], [1, 16, 2, 8], [1, 16, 4, 8], [1, 4, 16]]";
	const char *bt = "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\"]";
	p = model("aiter::_flash_attn_backward", bd, bt,
	          "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"0.\", \"0.35\", \"True\", \"-1\", \"-1\", "
	          "\"\", \"\", \"False\", \"\", \"True\", \"1\"]",
	          0, 0);
	assert_int_equal(p.kind, TG_PERF_SDPA_BWD);
	assert_int_equal(p.p.sdpa.causal, 1);
	assert_int_equal(p.p.sdpa.flash, 1);
	near(p.flops, 41088);
	near(p.bytes, 5120);
	/* mha_bwd (no dbias before dropout_p: causal at [8]) */
	p = model("aiter::mha_bwd", bd, bt,
	          "[\"\", \"\", \"\", \"\", \"\", \"\", \"0.\", \"0.35\", \"True\", \"-1\", \"-1\", \"False\"]", 0, 0);
	near(p.flops, 41088);

	/* mha_varlen_fwd: q [300, 8, 64], k/v [600, 2, 64], cu_seqlens_q [4]:
	 * b = 3 sequences of 100 queries and 200 keys; causal bottom-right
	 * (100*200 - 100*99/2) / (100*200) = 0.7525 of 3*8*2*100*200*128;
	 * bytes (153600 + 76800 + 76800 + 153600) * 2 */
	const char *vl = "[[300, 8, 64], [600, 2, 64], [600, 2, 64], [4], [4], [], [], [], [], [], [], [], [], [], []]";
	p = model("aiter::mha_varlen_fwd", vl, BF3,
	          "[\"\", \"\", \"\", \"\", \"\", \"100\", \"200\", \"0\", \"0.\", \"0.125\", \"0.\", \"False\", \"True\", "
	          "\"-1\", \"-1\", \"0\", \"False\", \"False\"]",
	          0, 0);
	assert_int_equal(p.p.sdpa.B, 3);
	assert_int_equal(p.p.sdpa.N_Q, 100);
	assert_int_equal(p.p.sdpa.N_KV, 200);
	assert_int_equal(p.p.sdpa.causal, 1);
	near(p.flops, 92467200);
	near(p.bytes, 921600);
	/* K/V in a block_table cache ([blocks, block, H, d]): lengths unknown */
	model("aiter::mha_varlen_fwd", "[[300, 8, 64], [64, 16, 2, 64], [64, 16, 2, 64], [4], [4]]", BF3,
	      "[\"\", \"\", \"\", \"\", \"\", \"100\", \"200\", \"0\", \"0.\", \"0.125\", \"0.\", \"False\", \"True\", "
	      "\"-1\", \"-1\"]",
	      0, TG_EFORMAT);

	/* mha_batch_prefill as in the sglang Qwen3-8B trace: q [15360, 32, 128],
	 * the whole KV pool [835874, 8, 128], cu_seqlens_q [16] (b = 15),
	 * kv_page_indices [15616] (padded past the 15 * 1024 tokens), max
	 * seqlens 1024, causal: 15 sequences of 1024, N_KV clamped to
	 * max_seqlen_k. 15*32*2*1024*1024*256 / 2 = 128849018880 FLOPs;
	 * (2 * 15*1024*32*128 + 2 * 15*1024*8*128) * 2 = 314572800 bytes */
	const char *bp = "[[15360, 32, 128], [835874, 8, 128], [835874, 8, 128], [16], [16], [15616], [], [], [], [], "
	                 "[], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], []]";
	const char *bpc = "[\"\", \"\", \"\", \"\", \"\", \"\", \"1024\", \"1024\", \"0.\", \"0.088388347648318447\", "
	                  "\"0.\", \"False\", \"True\", \"-1\", \"-1\", \"0\", \"False\", \"False\", \"\", \"\", \"\", "
	                  "\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\"]";
	const char *bpt = "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"int\", \"int\", \"int\"]";
	p = model("aiter::mha_batch_prefill", bp, bpt, bpc, 0, 0);
	assert_int_equal(p.p.sdpa.B, 15);
	assert_int_equal(p.p.sdpa.N_Q, 1024);
	assert_int_equal(p.p.sdpa.N_KV, 1024);
	assert_int_equal(p.p.sdpa.H_KV, 8);
	assert_int_equal(p.p.sdpa.causal, 1);
	near(p.flops, 128849018880.0);
	near(p.bytes, 314572800);
	/* TraceLens models it only from sglang/vLLM annotations: none here */
	model("aiter::mha_batch_prefill", bp, bpt, bpc, 1, TG_EFORMAT);
	/* with a cached prefix: b = 4, 400 queries, 1200 KV slots (page 1),
	 * max_seqlen_k 500: N_Q 100, N_KV 300; causal bottom-right 25050/30000
	 * of 4*4*2*100*300*128 = 102604800; (102400 + 2*76800 + 102400) * 2 */
	p = model("aiter::mha_batch_prefill",
	          "[[400, 4, 64], [100000, 1, 64], [100000, 1, 64], [5], [5], [1200]]", BF3,
	          "[\"\", \"\", \"\", \"\", \"\", \"\", \"100\", \"500\", \"0.\", \"0.125\", \"0.\", \"False\", \"True\", "
	          "\"-1\", \"-1\"]",
	          0, 0);
	assert_int_equal(p.p.sdpa.N_KV, 300);
	near(p.flops, 102604800);
	near(p.bytes, 716800);
	/* paged [pages, page_size 16, H_KV, d]: 75 pages = 1200 tokens, same */
	p = model("aiter::mha_batch_prefill",
	          "[[400, 4, 64], [9000, 16, 1, 64], [9000, 16, 1, 64], [5], [5], [75]]", BF3,
	          "[\"\", \"\", \"\", \"\", \"\", \"\", \"100\", \"500\", \"0.\", \"0.125\", \"0.\", \"False\", \"True\", "
	          "\"-1\", \"-1\"]",
	          0, 0);
	near(p.flops, 102604800);

	/* not modelled: a sliding window, a mask flag that cannot be found,
	 * too few inputs, mismatched heads */
	model("aiter::_flash_attn_forward", fa, BF3, "[\"\", \"\", \"\", \"0.\", \"0.125\", \"False\", \"128\", \"0\"]", 0,
	      TG_EFORMAT);
	model("aiter::_flash_attn_forward", fa, BF3, "[\"\", \"\", \"\", \"0.\", \"0.125\"]", 0, TG_EFORMAT);
	model("aiter::_flash_attn_forward", "[[2, 128, 32, 64]]", BF3, NULL, 0, TG_EFORMAT);
	model("aiter::mha_fwd", "[[1, 8, 6, 8], [1, 8, 4, 8], [1, 8, 4, 8]]", BF3, NULL, 0, TG_EFORMAT);
	model("aiter::mha_batch_prefill", "[[400, 4, 64], [100000, 1, 64], [100000, 1, 64], [5]]", BF3, NULL, 0,
	      TG_EFORMAT);
}

/* ------------------------------------------------------------ convolution */

static void test_conv(void **state)
{
	(void)state;
	/* patch embedding (Falconsai): x [4,3,224,224], w [768,3,16,16], stride 16:
	 * out [4,768,14,14] = 602112; flops 602112 * 2 * 768 */
	const char *dims = "[[4, 3, 224, 224], [768, 3, 16, 16], [768], [], [], [], [], [], []]";
	const char *types = "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\"]";
	const char *conc = "[\"\", \"\", \"\", \"[16, 16]\", \"[0, 0]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]";
	tg_perf p = model("aten::convolution", dims, types, conc, 1, 0);
	assert_int_equal(p.p.conv.out[2], 14);
	assert_int_equal(p.p.conv.out[1], 768);
	near(p.flops / 1e9, 0.924844032); /* TraceLens counts no bias */
	near(p.bytes / (1 << 20), 3.421875);
	p = model("aten::convolution", dims, types, conc, 0, 0);
	assert_int_equal(p.p.conv.bias, 1);
	near(p.flops, 924844032.0 + 602112);
	near(p.bytes, (602112.0 + 589824 + 602112 + 768) * 2);

	/* stride 2, padding 2, dilation 2, groups 4: out = (10 + 4 - 4 - 1) / 2 + 1 = 5;
	 * flops 2*8*5*5 * 2 * (2*3*3); bytes (1600 + 144 + 400) * 4 */
	p = model("aten::convolution", "[[2, 8, 10, 10], [8, 2, 3, 3], [], [], [], [], [], [], []]", "[\"float\", \"float\"]",
	          "[\"\", \"\", \"\", \"[2, 2]\", \"[2, 2]\", \"[2, 2]\", \"False\", \"[0, 0]\", \"4\"]", 0, 0);
	assert_int_equal(p.p.conv.groups, 4);
	assert_int_equal(p.p.conv.out[2], 5);
	near(p.flops, 14400);
	near(p.bytes, 8576);
	/* length-1 tuples broadcast: "[2]" for both dims */
	p = model("aten::convolution", "[[2, 8, 10, 10], [8, 2, 3, 3]]", "[\"float\", \"float\"]",
	          "[\"\", \"\", \"\", \"[2]\", \"[2]\", \"[2]\", \"False\", \"[0]\", \"4\"]", 0, 0);
	near(p.flops, 14400);

	/* transposed: x [1,4,5,5], w [4,2,3,3], stride 2, padding 1, output_padding 1:
	 * out = (5-1)*2 - 2 + 2 + 1 + 1 = 10; flops prod(x) * 2 * prod(w[1:]) = 100 * 2 * 18 */
	p = model("aten::convolution", "[[1, 4, 5, 5], [4, 2, 3, 3]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]",
	          "[\"\", \"\", \"\", \"[2, 2]\", \"[1, 1]\", \"[1, 1]\", \"True\", \"[1, 1]\", \"1\"]", 0, 0);
	assert_int_equal(p.p.conv.transposed, 1);
	assert_int_equal(p.p.conv.out[1], 2);
	assert_int_equal(p.p.conv.out[2], 10);
	near(p.flops, 3600);
	near(p.bytes, (100.0 + 72 + 200) * 2);

	/* conv1d and conv3d */
	p = model("aten::convolution", "[[1, 2, 8], [4, 2, 3]]", "[\"float\", \"float\"]",
	          "[\"\", \"\", \"\", \"[1]\", \"[0]\", \"[1]\", \"False\", \"[0]\", \"1\"]", 0, 0);
	assert_int_equal(p.p.conv.nd, 1);
	near(p.flops, 1.0 * 4 * 6 * 2 * 6);
	p = model("aten::convolution", "[[1, 1, 4, 4, 4], [1, 1, 2, 2, 2]]", "[\"float\", \"float\"]",
	          "[\"\", \"\", \"\", \"[2, 2, 2]\", \"[0, 0, 0]\", \"[1, 1, 1]\", \"False\", \"[0, 0, 0]\", \"1\"]", 0, 0);
	near(p.flops, 8.0 * 2 * 8);

	/* backward: grad_out [2,4,3,3], x [2,3,5,5], w [4,3,3,3]:
	 * grad_input (torch: batch 2 * grad_out spatial 9 * prod(w) 108 * 2) = 3888,
	 * grad_weight (batch C_in 3 * kernel 9 * prod(grad_out) 72 * 2) = 3888,
	 * each equal to the forward count;
	 * bytes (72 + 108 + 150) * 2 * 4 */
	p = model("aten::convolution_backward", "[[2, 4, 3, 3], [2, 3, 5, 5], [4, 3, 3, 3], [], [], [], [], [], [], [], []]",
	          "[\"float\", \"float\", \"float\"]",
	          "[\"\", \"\", \"\", \"[0]\", \"[1, 1]\", \"[0, 0]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", \"[True, True, False]\"]",
	          0, 0);
	assert_int_equal(p.kind, TG_PERF_CONV_BWD);
	assert_int_equal(p.p.conv.bias, 0);
	near(p.flops, 7776);
	near(p.bytes, 2640);
	/* bias_sizes [4]: + prod(grad_out) flops, + (prod(out) + C_out) elements */
	p = model("aten::convolution_backward", "[[2, 4, 3, 3], [2, 3, 5, 5], [4, 3, 3, 3], [], [], [], [], [], [], [], []]",
	          "[\"float\", \"float\", \"float\"]",
	          "[\"\", \"\", \"\", \"[4]\", \"[1, 1]\", \"[0, 0]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", \"[True, True, True]\"]",
	          0, 0);
	assert_int_equal(p.p.conv.bias, 1);
	near(p.flops, 7776 + 72);
	near(p.bytes, 2640 + (72 + 4) * 4);

	/* invalid */
	model("aten::convolution", "[[1, 2, 8], [4, 2, 3, 3]]", "[\"float\", \"float\"]", NULL, 0, TG_EFORMAT);
	model("aten::convolution", "[[1, 2, 2, 2], [4, 2, 3, 3]]", "[\"float\", \"float\"]", NULL, 0, TG_EFORMAT);
	model("aten::convolution", "[[1, 2, 8, 8], [4, 2, 3, 3]]", "[\"float\", \"float\"]",
	      "[\"\", \"\", \"\", \"[0, 0]\"]", 0, TG_EFORMAT);
}

/* ------------------------------------------------------------ elementwise, reduce, norm */

static void test_elementwise(void **state)
{
	(void)state;
	/* broadcast [8,1,4] x [3,1] -> [8,3,4]: bytes 32*2 + 3*2 + 96*2 */
	tg_perf p = model("aten::mul", "[[8, 1, 4], [3, 1]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]", NULL, 0, 0);
	assert_int_equal(p.p.ew.out_nd, 3);
	assert_int_equal(p.p.ew.out[1], 3);
	near(p.flops, 96);
	near(p.bytes, 262);
	model("aten::mul", "[[3], [4]]", "[\"float\", \"float\"]", NULL, 0, TG_EFORMAT);
	/* scalar operand (shape []): one element at its size, output at the tensor's */
	p = model("aten::mul", "[[10], []]", "[\"c10::BFloat16\", \"double\"]", NULL, 0, 0);
	near(p.flops, 10);
	near(p.bytes, 10 * 2 + 8 + 10 * 2);
	/* two tensors: output at the larger size */
	p = model("aten::add", "[[4], [4], []]", "[\"float\", \"c10::BFloat16\", \"Scalar\"]", NULL, 0, 0);
	near(p.bytes, 16 + 8 + 16);
	/* unary copy_ with a destination of another dtype */
	p = model("aten::copy_", "[[128], [128], []]", "[\"float\", \"c10::BFloat16\", \"Scalar\"]", NULL, 0, 0);
	near(p.flops, 128);
	near(p.bytes, 128 * 4 + 128 * 2);
	p = model("aten::silu", "[[16, 559, 2816]]", "[\"c10::BFloat16\"]", NULL, 1, 0);
	near(p.flops / 1e9, 0.025186304);
	near(p.bytes / (1 << 20), 96.078125);
	model("aten::silu", "[\"x\"]", NULL, NULL, 0, TG_EFORMAT);
	/* upsample: output_size from Concrete Inputs[1]; flops per output element */
	p = model("aten::upsample_nearest2d", "[[1, 256, 512, 512], [], [], []]", "[\"c10::BFloat16\", \"ScalarList\"]",
	          "[\"\", \"[1024, 1024]\", \"\", \"\"]", 1, 0);
	assert_int_equal(p.p.ew.out[3], 1024);
	near(p.flops / 1e9, 0.268435456);
	near(p.bytes / (1 << 20), 640.0);
	model("aten::upsample_nearest2d", "[[1, 256, 512, 512], [], [], []]", NULL, "[\"\", \"\"]", 0, TG_EFORMAT);
}

static void test_reduce(void **state)
{
	(void)state;
	/* sum over dim 0 of [10, 1000], keepdim: 1000 outputs; TraceLens counts 1 */
	const char *conc = "[\"\", \"[0]\", \"True\", \"\"]";
	tg_perf p = model("aten::sum", "[[10, 1000], [], [], []]", "[\"c10::BFloat16\"]", conc, 0, 0);
	assert_int_equal(p.p.red.n_out, 1000);
	near(p.flops, 10000);
	near(p.bytes, 10000 * 2 + 1000 * 2);
	p = model("aten::sum", "[[10, 1000], [], [], []]", "[\"c10::BFloat16\"]", conc, 1, 0);
	near(p.bytes / (1 << 20), 0.019075393676757812);
	/* mean over [-1, -2] without keepdim: same count as with it */
	p = model("aten::mean", "[[10, 512, 7, 7]]", "[\"float\"]", "[\"\", \"[-1, -2]\", \"False\", \"\"]", 0, 0);
	assert_int_equal(p.p.red.n_out, 5120);
	p = model("aten::mean", "[[10, 512, 7, 7]]", "[\"float\"]", "[\"\", \"[-1, -2]\", \"True\", \"\"]", 0, 0);
	assert_int_equal(p.p.red.n_out, 5120);
	near(p.bytes, (250880.0 + 5120) * 4);
	/* max(dim=1) of [4, 6]; max() of all; cumsum keeps the size */
	p = model("aten::max", "[[4, 6], []]", "[\"float\"]", "[\"\", \"1\", \"False\"]", 0, 0);
	assert_int_equal(p.p.red.n_out, 4);
	p = model("aten::max", "[[16]]", "[\"int\"]", "[\"\"]", 1, 0);
	near(p.bytes, 16 * 4 + 4);
	p = model("aten::cumsum", "[[15], [], []]", "[\"int\"]", "[\"\", \"0\", \"\"]", 1, 0);
	assert_int_equal(p.p.red.n_out, 15);
	near(p.bytes, 120);
	model("aten::sum", "[[4, 6]]", "[\"float\"]", "[\"\", \"[2]\"]", 0, TG_EFORMAT);
}

static void test_norm(void **state)
{
	(void)state;
	/* layer norm [1,141,512], C 512, affine + bias: 6C + 5n; (2n + 6C) * 2 */
	tg_perf p = model("aten::layer_norm", "[[1, 141, 512], [], [512], [512], [], []]",
	                  "[\"c10::BFloat16\", \"ScalarList\", \"c10::BFloat16\", \"c10::BFloat16\"]",
	                  "[\"\", \"[512]\", \"\", \"\", \"1e-12\", \"True\"]", 1, 0);
	assert_int_equal(p.p.norm.C, 512);
	near(p.flops, 364032);
	near(p.bytes / (1 << 20), 0.28125);
	/* batch norm in training [10,128,28,28] bf16 */
	p = model("aten::batch_norm", "[[10, 128, 28, 28], [128], [128], [128], [128], [], [], [], []]",
	          "[\"c10::BFloat16\"]", "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\", \"True\"]", 1, 0);
	near(p.flops / 1e9, 0.005018368);
	near(p.bytes / (1 << 20), 3.82958984375);
	/* batch norm backward: 9n; (3n + 4C) * bpe */
	p = model("aten::native_batch_norm_backward", "[[10, 128, 28, 28], [10, 128, 28, 28]]", "[\"c10::BFloat16\"]",
	          NULL, 1, 0);
	near(p.flops, 9.0 * 1003520);
	near(p.bytes, (3.0 * 1003520 + 512) * 2);
	/* RMS norm [8,16,32,32] over [32,32] with weight: (n/C)(2C+2) + 2n; (2n + C) * 4 */
	p = model("aten::_fused_rms_norm", "[[8, 16, 32, 32], [], [32, 32], []]", "[\"float\"]",
	          "[\"\", \"[32, 32]\", \"\", \"\"]", 1, 0);
	assert_int_equal(p.p.norm.rms, 1);
	near(p.flops, 524544);
	near(p.bytes, 1052672);
	/* without weight: (n/C)(2C+2) + n; 2n * 4 */
	p = model("aten::rms_norm", "[[8, 16, 32, 32], [], [], []]", "[\"float\"]", "[\"\", \"[32, 32]\", \"\", \"\"]", 0, 0);
	near(p.flops, 393472);
	near(p.bytes, 1048576);
	/* no normalized shape: no model */
	model("aten::layer_norm", "[[1, 141, 512]]", "[\"float\"]", "[\"\", \"\"]", 0, TG_EFORMAT);
}

/* Every model on garbage texts: errors, no crash (run under ASan). */
static void test_garbage(void **state)
{
	(void)state;
	static const char *const names[] = {"aten::mm", "aten::addmm", "aten::bmm", "aten::_scaled_mm",
	                                    "aten::_scaled_dot_product_flash_attention", "flash_attn::_flash_attn_backward",
	                                    "aten::convolution", "aten::convolution_backward", "aten::add", "aten::copy_",
	                                    "aten::sum", "aten::layer_norm", "aten::_fused_rms_norm_backward",
	                                    "aten::native_batch_norm", NULL};
	static const char *const texts[] = {NULL, "", "[]", "[[]]", "[[], [], [], [], [], []]", "[[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]",
	                                    "[[-1, -1, -1, -1], [-1, -1, -1, -1], [-1, -1, -1, -1]]", "[1, 2, 3]", "[\"a\", \"b\"]",
	                                    "[[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]]", "{", "[[9223372036854775807, 2], [2, 9223372036854775807]]",
	                                    "[[1,2,3,4],[1,2,3,4],[1,2,3,4],[1,2,3,4],[1,2,3,4]]", NULL};
	int n = 0;
	for (int i = 0; names[i]; i++)
		for (int a = 0; a < 13; a++)
			for (int b = 0; b < 13; b++) {
				tg_perf p;
				tg_perf_args args = {names[i], texts[a], texts[b], texts[b], texts[(a + b) % 13]};
				int rc = tg_perf_model(&p, &args, NULL);
				assert_true(rc == 0 || rc == TG_EFORMAT);
				n++;
			}
	assert_int_equal(n, 14 * 169);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shape_parse),   cmocka_unit_test(test_dtype_sizes),  cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_gemm),          cmocka_unit_test(test_sdpa_forward), cmocka_unit_test(test_sdpa_backward),
		cmocka_unit_test(test_sdpa_aiter),
		cmocka_unit_test(test_conv),          cmocka_unit_test(test_elementwise),  cmocka_unit_test(test_reduce),
		cmocka_unit_test(test_norm),          cmocka_unit_test(test_garbage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
