/*
 * perf_model.c - dispatch from an op name to its perf model family.
 */
#include "perf_model.h"
#include "../../util/tg.h"

#include <math.h>
#include <string.h>

static const char *const gemm_ops[] = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::_scaled_mm",
                                       "aiter::gemm_a16w16", "vllm::rocm_unquantized_gemm", NULL};
static const char *const sdpa_fwd_ops[] = {
	"aten::_scaled_dot_product_flash_attention", "aten::_scaled_dot_product_efficient_attention",
	"aten::_scaled_dot_product_cudnn_attention", "aten::_flash_attention_forward",
	"aten::_efficient_attention_forward", "aten::_cudnn_attention_forward", "flash_attn::_flash_attn_forward",
	"aiter::_flash_attn_forward", "aiter::mha_fwd", "aiter::fmha_v3_fwd", "aiter::mha_varlen_fwd",
	"aiter::fmha_v3_varlen_fwd", "aiter::mha_batch_prefill", NULL};
static const char *const sdpa_bwd_ops[] = {
	"aten::_scaled_dot_product_flash_attention_backward", "aten::_scaled_dot_product_efficient_attention_backward",
	"aten::_scaled_dot_product_cudnn_attention_backward", "aten::_flash_attention_backward",
	"aten::_efficient_attention_backward", "aten::_cudnn_attention_backward", "flash_attn::_flash_attn_backward",
	"aiter::_flash_attn_backward", "aiter::mha_bwd", "aiter::fmha_v3_bwd", "aiter::mha_varlen_bwd", NULL};
static const char *const conv_fwd_ops[] = {"aten::convolution", NULL};
static const char *const conv_bwd_ops[] = {"aten::convolution_backward", NULL};
static const char *const unary_ops[] = {"aten::copy_", "aten::clamp_min_", "aten::clamp_min", "aten::neg",
                                        "aten::pow", "aten::rsqrt", "aten::sigmoid", "aten::silu", "aten::silu_",
                                        "aten::relu", "aten::relu_", "aten::gelu", "aten::tanh", "aten::exp",
                                        "aten::sqrt", "aten::abs", "aten::reciprocal", "aten::upsample_nearest1d",
                                        "aten::upsample_nearest2d", NULL};
static const char *const binary_ops[] = {"aten::add", "aten::add_", "aten::sub", "aten::sub_", "aten::mul",
                                         "aten::mul_", "aten::div", "aten::div_", "aten::threshold_backward",
                                         "aten::maximum", "aten::minimum", NULL};
static const char *const norm_ops[] = {"aten::layer_norm", "aten::native_layer_norm", "aten::native_layer_norm_backward",
                                       "aten::batch_norm", "aten::native_batch_norm", "aten::native_batch_norm_backward",
                                       "aten::miopen_batch_norm", "aten::miopen_batch_norm_backward",
                                       "aten::cudnn_batch_norm", "aten::cudnn_batch_norm_backward",
                                       "aten::rms_norm", "aten::_fused_rms_norm", "aten::_fused_rms_norm_backward",
                                       NULL};
static const char *const reduce_ops[] = {"aten::sum", "aten::mean", "aten::max", "aten::min", "aten::amax",
                                         "aten::amin", "aten::cumsum", "aten::cumprod", "aten::prod", NULL};

static int in_list(const char *const *l, const char *name)
{
	for (; *l; l++)
		if (!strcmp(*l, name))
			return 1;
	return 0;
}

tg_perf_kind tg_perf_kind_of(const char *name)
{
	if (!name)
		return TG_PERF_NONE;
	if (in_list(gemm_ops, name))
		return TG_PERF_GEMM;
	if (in_list(sdpa_fwd_ops, name))
		return TG_PERF_SDPA_FWD;
	if (in_list(sdpa_bwd_ops, name))
		return TG_PERF_SDPA_BWD;
	if (in_list(conv_fwd_ops, name))
		return TG_PERF_CONV_FWD;
	if (in_list(conv_bwd_ops, name))
		return TG_PERF_CONV_BWD;
	if (in_list(unary_ops, name))
		return TG_PERF_UNARY;
	if (in_list(binary_ops, name))
		return TG_PERF_BINARY;
	if (in_list(norm_ops, name))
		return TG_PERF_NORM;
	if (in_list(reduce_ops, name))
		return TG_PERF_REDUCE;
	return TG_PERF_NONE;
}

const char *tg_perf_sheet_name(tg_perf_kind kind)
{
	static const char *const names[TG_PERF_KIND_COUNT] = {
		NULL, "GEMM", "SDPA_fwd", "SDPA_bwd", "CONV_fwd", "CONV_bwd", "UnaryElementwise", "BinaryElementwise",
		"Normalization", "Reduce_fwd"};
	return (unsigned)kind < TG_PERF_KIND_COUNT ? names[kind] : NULL;
}

int tg_perf_model(tg_perf *out, const tg_perf_args *a, const tg_perf_opts *opts)
{
	static const tg_perf_opts defaults = {0};
	tg_shape_list dims, types, concrete;
	memset(out, 0, sizeof(*out));
	out->flops = out->bytes = NAN;
	if (!opts)
		opts = &defaults;
	tg_perf_kind kind = a ? tg_perf_kind_of(a->name) : TG_PERF_NONE;
	if (kind == TG_PERF_NONE || (opts->tracelens && !strcmp(a->name, "aten::rms_norm")))
		return TG_ENOTFOUND;
	out->kind = kind;
	if (tg_shape_parse(&dims, a->dims) || tg_shape_parse(&types, a->types) ||
	    tg_shape_parse(&concrete, a->concrete))
		return TG_EFORMAT;
	const tg_shape_item *t0 = tg_shape_get(&types, 0, TG_SHAPE_STR);
	out->bpe = t0 ? tg_shape_dtype_bytes(t0->s) : 0;
	out->precision = t0 ? tg_shape_dtype_precision(t0->s) : NULL;
	switch (kind) {
	case TG_PERF_GEMM: return tg_perf_gemm_model(out, a->name, &dims, &types);
	case TG_PERF_SDPA_FWD:
	case TG_PERF_SDPA_BWD: return tg_perf_sdpa_model(out, a->name, &dims, &types, &concrete, opts);
	case TG_PERF_CONV_FWD:
	case TG_PERF_CONV_BWD: return tg_perf_conv_model(out, a->name, &dims, &types, &concrete, opts);
	case TG_PERF_UNARY: return tg_perf_elementwise_model(out, a->name, 0, &dims, &types, &concrete);
	case TG_PERF_BINARY: return tg_perf_elementwise_model(out, a->name, 1, &dims, &types, &concrete);
	case TG_PERF_NORM: return tg_perf_norm_model(out, a->name, &dims, &types, &concrete, opts);
	case TG_PERF_REDUCE: return tg_perf_reduce_model(out, a->name, &dims, &types, &concrete, opts);
	default: return TG_ENOTFOUND;
	}
}
