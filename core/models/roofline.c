/* roofline.c - TraceLens's roofline of one op row and its compute-spec
 * naming (TraceLens/PerfModel: torch_dtype_map, compute_perf_metrics). */
#include "roofline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

const char *tg_roofline_bound_name(tg_roofline_bound b)
{
	switch (b) {
	case TG_BOUND_COMPUTE: return "COMPUTE_BOUND";
	case TG_BOUND_MEMORY: return "MEMORY_BOUND";
	default: return "";
	}
}

int tg_roofline_compute(tg_roofline *out, double flops, double bytes, const char *compute_spec,
                        double kernel_us, const tg_gpu_spec *spec)
{
	out->compute_us = out->memory_us = out->roofline_us = NAN;
	out->pct_roofline = out->tflops_s = out->tb_s = out->flops_per_byte = NAN;
	out->bound = TG_BOUND_UNKNOWN;
	if (!spec)
		return tg_error_set(TG_EINVAL, "roofline: no GPU spec");
	if (flops < 0 || bytes < 0)
		return tg_error_set(TG_EINVAL, "roofline: negative flops (%g) or bytes (%g)", flops, bytes);
	int cs = tg_compute_spec_parse(compute_spec);
	/* TraceLens's own names: "vector_fp8" and the like exist but no GPU
	 * has a peak for them; anything else is a caller's mistake */
	if (cs < 0 && (!compute_spec || (strncmp(compute_spec, "matrix_", 7) &&
	                                  strncmp(compute_spec, "vector_", 7))))
		return tg_error_set(TG_EINVAL, "roofline: unknown compute spec '%s'",
		                    compute_spec ? compute_spec : "(null)");

	if (kernel_us > 0) {
		double s = kernel_us / 1e6;
		out->tflops_s = flops / 1e12 / s;
		out->tb_s = bytes / 1e12 / s;
	}
	if (bytes > 0)
		out->flops_per_byte = flops / bytes;

	double peak = cs >= 0 ? spec->tflops[cs] : 0;
	if (peak > 0)
		out->compute_us = flops / (peak * 1e12) * 1e6;
	if (spec->mem_bw_gbps > 0)
		out->memory_us = bytes / (spec->mem_bw_gbps * 1e9) * 1e6;
	if (isnan(flops) || isnan(bytes))
		return tg_error_set(TG_ENOTFOUND, "roofline: unknown %s count",
		                    isnan(flops) ? "flop" : "byte");
	if (isnan(out->compute_us) || isnan(out->memory_us))
		return tg_error_set(TG_ENOTFOUND, "roofline: %s has no %s", spec->name,
		                    peak > 0 ? "memory bandwidth" : compute_spec);
	out->roofline_us = fmax(out->compute_us, out->memory_us);
	out->bound = out->compute_us >= out->memory_us ? TG_BOUND_COMPUTE : TG_BOUND_MEMORY;
	if (kernel_us > 0)
		out->pct_roofline = out->roofline_us / kernel_us * 100;
	return 0;
}

static const struct {
	const char *dtype, *prec;
} dtypes[] = {
	/* TraceLens's torch_dtype_map (lower-cased keys) */
	{"float", "fp32"},
	{"double", "fp64"},
	{"c10::half", "fp16"},
	{"c10::bfloat16", "bf16"},
	{"c10::float8_e4m3fnuz", "fp8"},
	{"c10::float8_e4m3fn", "fp8"},
	{"c10::float8_e5m2", "fp8"},
	{"c10::float8_e5m2fnuz", "fp8"},
	{"unsigned char", "fp8"},
	{"fp8", "fp8"},
	{"c10::float4_e2m1fn_x2", "fp4"},
	{"fp4", "fp4"},
	/* torch.* and short spellings, for dtypes given by hand or by other tools */
	{"float32", "fp32"},   {"torch.float32", "fp32"}, {"fp32", "fp32"},
	{"float64", "fp64"},   {"torch.float64", "fp64"}, {"fp64", "fp64"},
	{"half", "fp16"},      {"float16", "fp16"},       {"torch.float16", "fp16"},
	{"fp16", "fp16"},      {"bfloat16", "bf16"},      {"torch.bfloat16", "bf16"},
	{"bf16", "bf16"},      {"torch.float8_e4m3fn", "fp8"}, {"torch.float8_e4m3fnuz", "fp8"},
	{"torch.float8_e5m2", "fp8"}, {"torch.float8_e5m2fnuz", "fp8"},
	{"torch.float4_e2m1fn_x2", "fp4"},
};

const char *tg_roofline_precision(const char *dtype)
{
	if (!dtype)
		return NULL;
	for (size_t i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++)
		if (!strcasecmp(dtype, dtypes[i].dtype))
			return dtypes[i].prec;
	return NULL;
}

int tg_roofline_compute_spec(char *buf, size_t cap, int matrix, const char *dtype)
{
	if (!buf || cap == 0)
		return tg_error_set(TG_EINVAL, "roofline: no buffer for the compute spec");
	buf[0] = 0;
	const char *p = tg_roofline_precision(dtype);
	if (!p)
		return tg_error_set(TG_ENOTFOUND, "no compute precision for dtype '%s'",
		                    dtype ? dtype : "(null)");
	int n = snprintf(buf, cap, "%s_%s", matrix ? "matrix" : "vector", p);
	if (n < 0 || (size_t)n >= cap) {
		buf[0] = 0;
		return tg_error_set(TG_EINVAL, "roofline: compute spec buffer too small");
	}
	return 0;
}
