/*
 * categorize.c - op categories by exact name (TraceLens's registry), then
 * name prefixes, then the first kernel's name.
 */
#include "categorize.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct entry {
	const char *name, *category;
};

/* Sorted by name in byte order for bsearch (test_categorize checks it). */
static const struct entry registry[] = {
	{"ConvBiasReLU_", "CONV_fwd"},
	{"ConvBiasReLU_Backward", "CONV_bwd"},
	{"ConvBias_", "CONV_fwd"},
	{"ConvBias_Backward", "CONV_bwd"},
	{"EvoformerAttention", "SDPA_fwd"},
	{"FlashAttnFunc", "SDPA_fwd"},
	{"FlashAttnFuncBackward", "SDPA_bwd"},
	{"FusedAttnFuncBackward", "SDPA_bwd"},
	{"LigerSiLUMulFunction", "elementwise"},
	{"_C_cache_ops::reshape_and_cache_flash", "InferenceAttention"},
	{"aiter::_flash_attn_backward", "SDPA_bwd"},
	{"aiter::_flash_attn_forward", "SDPA_fwd"},
	{"aiter::_gemm_a4w4_asm", "GEMM"},
	{"aiter::_groupnorm_run", "NORM_fwd"},
	{"aiter::add_rmsnorm", "RMSNorm"},
	{"aiter::fmha_v3_bwd", "SDPA_bwd"},
	{"aiter::fmha_v3_fwd", "SDPA_fwd"},
	{"aiter::gemm_a4w4", "GEMM"},
	{"aiter::mha_batch_prefill", "InferenceAttention"},
	{"aiter::mha_bwd", "SDPA_bwd"},
	{"aiter::mha_fwd", "SDPA_fwd"},
	{"aiter::rmsnorm", "RMSNorm"},
	{"aiter::wrapper_fmha_v3_bwd", "SDPA_bwd"},
	{"aiter::wrapper_fmha_v3_fwd", "SDPA_fwd"},
	{"aten::_efficient_attention_backward", "SDPA_bwd"},
	{"aten::_efficient_attention_forward", "SDPA_fwd"},
	{"aten::_fused_rms_norm", "NORM_fwd"},
	{"aten::_fused_rms_norm_backward", "NORM_bwd"},
	{"aten::_scaled_dot_product_cudnn_attention", "SDPA_fwd"},
	{"aten::_scaled_dot_product_cudnn_attention_backward", "SDPA_bwd"},
	{"aten::_scaled_dot_product_efficient_attention", "SDPA_fwd"},
	{"aten::_scaled_dot_product_efficient_attention_backward", "SDPA_bwd"},
	{"aten::_scaled_dot_product_flash_attention", "SDPA_fwd"},
	{"aten::_scaled_dot_product_flash_attention_backward", "SDPA_bwd"},
	{"aten::_scaled_mm", "GEMM"},
	{"aten::add", "elementwise"},
	{"aten::add_", "elementwise"},
	{"aten::addmm", "GEMM"},
	{"aten::amax", "reduce"},
	{"aten::amin", "reduce"},
	{"aten::baddbmm", "GEMM"},
	{"aten::batch_norm", "NORM_fwd"},
	{"aten::batch_norm_backward", "NORM_bwd"},
	{"aten::bmm", "GEMM"},
	{"aten::clamp_max", "elementwise"},
	{"aten::clamp_max_", "elementwise"},
	{"aten::clamp_min", "elementwise"},
	{"aten::clamp_min_", "elementwise"},
	{"aten::convolution", "CONV_fwd"},
	{"aten::convolution_backward", "CONV_bwd"},
	{"aten::copy", "elementwise"},
	{"aten::copy_", "elementwise"},
	{"aten::cudnn_batch_norm", "NORM_fwd"},
	{"aten::cudnn_batch_norm_backward", "NORM_bwd"},
	{"aten::cudnn_convolution", "CONV_fwd"},
	{"aten::cumprod", "reduce"},
	{"aten::cumsum", "reduce"},
	{"aten::div", "elementwise"},
	{"aten::div_", "elementwise"},
	{"aten::group_norm", "NORM_fwd"},
	{"aten::group_norm_backward", "NORM_bwd"},
	{"aten::instance_norm", "NORM_fwd"},
	{"aten::instance_norm_backward", "NORM_bwd"},
	{"aten::layer_norm", "NORM_fwd"},
	{"aten::layer_norm_backward", "NORM_bwd"},
	{"aten::linalg_norm", "reduce"},
	{"aten::logsumexp", "reduce"},
	{"aten::max", "reduce"},
	{"aten::mean", "reduce"},
	{"aten::min", "reduce"},
	{"aten::miopen_batch_norm", "NORM_fwd"},
	{"aten::miopen_batch_norm_backward", "NORM_bwd"},
	{"aten::miopen_convolution", "CONV_fwd"},
	{"aten::mm", "GEMM"},
	{"aten::mul", "elementwise"},
	{"aten::mul_", "elementwise"},
	{"aten::native_batch_norm", "NORM_fwd"},
	{"aten::native_batch_norm_backward", "NORM_bwd"},
	{"aten::native_group_norm", "NORM_fwd"},
	{"aten::native_group_norm_backward", "NORM_bwd"},
	{"aten::native_instance_norm", "NORM_fwd"},
	{"aten::native_instance_norm_backward", "NORM_bwd"},
	{"aten::native_layer_norm", "NORM_fwd"},
	{"aten::native_layer_norm_backward", "NORM_bwd"},
	{"aten::neg", "elementwise"},
	{"aten::norm", "reduce"},
	{"aten::pow", "elementwise"},
	{"aten::replication_pad1d", "elementwise"},
	{"aten::replication_pad2d", "elementwise"},
	{"aten::replication_pad3d", "elementwise"},
	{"aten::rsqrt", "elementwise"},
	{"aten::sigmoid", "elementwise"},
	{"aten::sigmoid_backward", "elementwise"},
	{"aten::silu", "elementwise"},
	{"aten::std", "reduce"},
	{"aten::sum", "reduce"},
	{"aten::threshold_backward", "elementwise"},
	{"aten::upsample_nearest1d", "elementwise"},
	{"aten::upsample_nearest2d", "elementwise"},
	{"aten::upsample_nearest3d", "elementwise"},
	{"aten::var", "reduce"},
	{"bitsandbytes::int8_linear_matmul", "GEMM"},
	{"flash_attn::_flash_attn_backward", "SDPA_bwd"},
	{"flash_attn::_flash_attn_forward", "SDPA_fwd"},
	{"flash_attn::_flash_attn_varlen_backward", "SDPA_bwd"},
	{"flash_attn::_flash_attn_varlen_forward", "SDPA_fwd"},
	{"flash_attn_3::fwd", "SDPA_fwd"},
	{"primus::fused_ln_modulate", "NORM_fwd"},
	{"primus::fused_ln_modulate_backward", "NORM_bwd"},
	{"sgl_kernel::rotary_embedding", "RoPE_fwd"},
	{"sgl_kernel::silu_and_mul", "elementwise"},
	{"sglang::store_cache", "InferenceAttention"},
	{"tex_ts::te_gemm_ts", "GEMM"},
	{"trtllm::cublas_scaled_mm", "GEMM"},
	{"vllm::gemm_with_dynamic_quant", "GEMM"},
	{"vllm::unified_attention_with_output", "InferenceAttention"},
};

/* The default classification's own category for ops TraceLens files
 * elsewhere (its registry above stays TraceLens's, for --tracelens):
 *   - the ops that run the attention kernels themselves, which TraceLens
 *     files under "other" because only their callers have a perf model;
 *   - the inference engines' ops that TraceLens files together under
 *     InferenceAttention: those that compute attention (prefill, decode)
 *     are SDPA_fwd, so that the default attention rules judge them, and
 *     those that write the KV cache are KV_cache, as the kernel names of
 *     the same writes are (kernel_names.tsv). No op is InferenceAttention
 *     in the default classification (tests/test_kernel_category.c).
 * Sorted by name in byte order (tg_categorize_self_check). */
static const struct entry attention_kernels_ops[] = {
	{"_C_cache_ops::reshape_and_cache_flash", "KV_cache"},
	{"aiter::mha_batch_prefill", "SDPA_fwd"},
	{"aten::_cudnn_attention_backward", "SDPA_bwd"},
	{"aten::_cudnn_attention_forward", "SDPA_fwd"},
	{"aten::_efficient_attention_backward", "SDPA_bwd"},
	{"aten::_efficient_attention_forward", "SDPA_fwd"},
	{"aten::_flash_attention_backward", "SDPA_bwd"},
	{"aten::_flash_attention_forward", "SDPA_fwd"},
	{"sglang::store_cache", "KV_cache"},
	{"vllm::unified_attention_with_output", "SDPA_fwd"},
};

/* Ops that launch nothing of their own but decide what their children's
 * kernels are (the math SDPA path runs bmm, softmax, bmm under them). Only
 * the default classification reads them (tg_op_family). */
static const struct entry composite_ops[] = {
	{"aten::_scaled_dot_product_attention_math", "SDPA_fwd"},
	{"aten::_scaled_dot_product_attention_math_for_mps", "SDPA_fwd"},
	{"aten::scaled_dot_product_attention", "SDPA_fwd"},
};

static int cmp_entry(const void *k, const void *e)
{
	return strcmp(k, ((const struct entry *)e)->name);
}

static const char *lookup(const struct entry *t, size_t n, const char *name)
{
	const struct entry *e = bsearch(name, t, n, sizeof(*t), cmp_entry);
	return e ? e->category : NULL;
}

const char *tg_op_category(const char *name, const char *first_kernel, int tracelens_compat)
{
	const char *c;
	if (!tracelens_compat) {
		c = lookup(attention_kernels_ops, sizeof(attention_kernels_ops) / sizeof(attention_kernels_ops[0]), name);
		if (c)
			return c;
	}
	c = lookup(registry, sizeof(registry) / sizeof(registry[0]), name);
	if (c)
		return c;
	if (!strncmp(name, "triton", 6))
		return "triton";
	if (!strncmp(name, "record_param_comms", 18))
		return "record_param_comms";
	if (first_kernel && !strncmp(first_kernel, "void at::native", 15)) {
		if (strstr(first_kernel, "elementwise"))
			return "elementwise";
		if (strstr(first_kernel, "reduce"))
			return "reduce";
		if (strstr(first_kernel, "multi_tensor_apply"))
			return "multi_tensor_apply";
	}
	return "other";
}

const char *tg_op_family(const char *name)
{
	const char *c = lookup(composite_ops, sizeof(composite_ops) / sizeof(composite_ops[0]), name);
	return c ? c : tg_op_category(name, NULL, 0);
}

const char *tg_op_registry_name(size_t i)
{
	return i < sizeof(registry) / sizeof(registry[0]) ? registry[i].name : NULL;
}

int tg_op_category_informative(const char *category)
{
	return category && strcmp(category, "other") && strcmp(category, "triton");
}

int tg_categorize_self_check(void)
{
	for (size_t i = 1; i < sizeof(composite_ops) / sizeof(composite_ops[0]); i++)
		if (strcmp(composite_ops[i - 1].name, composite_ops[i].name) >= 0)
			return -1;
	for (size_t i = 1; i < sizeof(registry) / sizeof(registry[0]); i++)
		if (strcmp(registry[i - 1].name, registry[i].name) >= 0)
			return -1;
	for (size_t i = 1; i < sizeof(attention_kernels_ops) / sizeof(attention_kernels_ops[0]); i++)
		if (strcmp(attention_kernels_ops[i - 1].name, attention_kernels_ops[i].name) >= 0)
			return -1;
	return 0;
}

int tg_kernel_is_comm(const char *name)
{
	return strcasestr(name, "nccl") || strcasestr(name, "rccl") ||
	       strcasestr(name, "cross_device_reduce");
}

int tg_kernel_is_copy(const char *name)
{
	static const char *const prefixes[] = {"MEMORY_COPY_HOST_TO_DEVICE", "MEMORY_COPY_DEVICE_TO_HOST",
	                                       "MEMORY_COPY_DEVICE_TO_DEVICE", "__amd_rocclr_copyBuffer"};
	for (size_t i = 0; i < 4; i++) {
		size_t n = strlen(prefixes[i]);
		if (strncmp(name, prefixes[i], n))
			continue;
		const char *rest = name + n;
		if (i == 3) {
			if (!strncmp(rest, "Rect", 4))
				rest += 4;
			if (!strncmp(rest, "Aligned", 7))
				rest += 7;
		}
		return !*rest || !strcmp(rest, ".kd");
	}
	return 0;
}
