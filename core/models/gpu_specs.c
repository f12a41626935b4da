/* gpu_specs.c - the built-in table of GPU peaks, the YAML override file
 * (libyaml's document loader, for the line:column of every node) and the
 * recognition of a trace's GPU from its deviceProperties. */
#include "gpu_specs.h"
#include "../../util/file.h"
#include "../../util/yaml_node.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

static const char *const cs_names[TG_CS_COUNT] = {
	[TG_CS_MATRIX_FP64] = "matrix_fp64", [TG_CS_MATRIX_FP32] = "matrix_fp32",
	[TG_CS_MATRIX_TF32] = "matrix_tf32", [TG_CS_MATRIX_BF16] = "matrix_bf16",
	[TG_CS_MATRIX_FP16] = "matrix_fp16", [TG_CS_MATRIX_FP8] = "matrix_fp8",
	[TG_CS_MATRIX_FP4] = "matrix_fp4",   [TG_CS_VECTOR_FP64] = "vector_fp64",
	[TG_CS_VECTOR_FP32] = "vector_fp32", [TG_CS_VECTOR_BF16] = "vector_bf16",
	[TG_CS_VECTOR_FP16] = "vector_fp16",
};

const char *tg_compute_spec_name(int cs)
{
	return cs >= 0 && cs < TG_CS_COUNT ? cs_names[cs] : NULL;
}

int tg_compute_spec_parse(const char *s)
{
	if (!s)
		return -1;
	for (int i = 0; i < TG_CS_COUNT; i++)
		if (!strcmp(s, cs_names[i]))
			return i;
	return -1;
}

/* ------------------------------------------------------------------------
 * The built-in table. Dense peaks (the sparse figures of the datasheets
 * halved away), TFLOPS; bandwidth GB/s.
 *
 * Conventions where a vendor gives no figure:
 * - matrix_fp32 is the FP32 rate a float GEMM runs at by default: the
 *   FP32 matrix-core rate on AMD CDNA, the plain FP32 (CUDA-core) rate on
 *   NVIDIA, where PyTorch does not use TF32 for matmul unless asked; TF32
 *   is matrix_tf32.
 * - vector_bf16 / vector_fp16, when the datasheet has no non-tensor half
 *   figure, are the vector FP32 rate, as TraceLens's own MI300X file does
 *   (vector_bf16 163 = the FP32 vector peak).
 * - MI300X, MI325X, MI355X and B200 use TraceLens's bundled arch values
 *   (its "max_achievable_tflops" and "mem_bw_gbps", notes/tracelens.md
 *   section 2.6) for the precisions TraceLens gives, so that our roofline
 *   columns equal TraceLens's; these are measured achievable peaks, lower
 *   than the datasheets. Precisions TraceLens does not give come from the
 *   vendor datasheets and are marked so.
 * ---------------------------------------------------------------------- */
#define M(p) [TG_CS_MATRIX_##p]
#define V(p) [TG_CS_VECTOR_##p]

static const tg_gpu_spec builtin[] = {
	/* NVIDIA H100 SXM5 80 GB: NVIDIA H100 Tensor Core GPU datasheet and
	 * the Hopper architecture whitepaper (table "H100 SXM5"): FP64 33.5,
	 * FP64 TC 66.9, FP32 66.9, TF32 TC 494.7, BF16/FP16 TC 989.4, FP8 TC
	 * 1978.9, non-tensor BF16/FP16 133.8; HBM3 3.35 TB/s. */
	{.name = "H100 SXM", .mem_bw_gbps = 3350,
	 .tflops = {M(FP64) = 66.9, M(FP32) = 66.9, M(TF32) = 494.7, M(BF16) = 989.4, M(FP16) = 989.4,
	            M(FP8) = 1978.9, V(FP64) = 33.5, V(FP32) = 66.9, V(BF16) = 133.8, V(FP16) = 133.8}},
	/* NVIDIA H100 PCIe 80 GB: same sources (column "H100 PCIe"): FP64 25.6,
	 * FP64 TC 51.2, FP32 51.2, TF32 378, BF16/FP16 756, FP8 1513, non-tensor
	 * BF16/FP16 102.4; HBM2e 2.0 TB/s (datasheet). */
	{.name = "H100 PCIe", .mem_bw_gbps = 2000,
	 .tflops = {M(FP64) = 51.2, M(FP32) = 51.2, M(TF32) = 378, M(BF16) = 756, M(FP16) = 756,
	            M(FP8) = 1513, V(FP64) = 25.6, V(FP32) = 51.2, V(BF16) = 102.4, V(FP16) = 102.4}},
	/* NVIDIA H100 NVL 94 GB: H100 datasheet, "H100 NVL" column: FP64 30,
	 * FP64 TC 60, FP32 60, TF32 417.5, BF16/FP16 835.5, FP8 1670.5 (half the
	 * sparse figures 835/1671/3341); HBM3 3.9 TB/s. Vector half = 2x FP32
	 * as on every Hopper part. */
	{.name = "H100 NVL", .mem_bw_gbps = 3900,
	 .tflops = {M(FP64) = 60, M(FP32) = 60, M(TF32) = 417.5, M(BF16) = 835.5, M(FP16) = 835.5,
	            M(FP8) = 1670.5, V(FP64) = 30, V(FP32) = 60, V(BF16) = 120, V(FP16) = 120}},
	/* NVIDIA H200 SXM 141 GB: H200 datasheet: FP64 34, FP64 TC 67, FP32 67,
	 * TF32 494.5, BF16/FP16 989.5, FP8 1979 (dense = sparse/2); HBM3e
	 * 4.8 TB/s. Same GH100 die and clocks as H100 SXM: non-tensor half
	 * from the H100 whitepaper, 133.8. */
	{.name = "H200", .mem_bw_gbps = 4800,
	 .tflops = {M(FP64) = 67, M(FP32) = 67, M(TF32) = 494.5, M(BF16) = 989.5, M(FP16) = 989.5,
	            M(FP8) = 1979, V(FP64) = 34, V(FP32) = 67, V(BF16) = 133.8, V(FP16) = 133.8}},
	/* NVIDIA A100 40 GB (SXM4; the PCIe 40 GB has the same peaks and
	 * bandwidth): A100 datasheet and Ampere whitepaper: FP64 9.7, FP64 TC
	 * 19.5, FP32 19.5, TF32 156, BF16/FP16 TC 312, non-tensor FP16 78, BF16
	 * 39; HBM2 1555 GB/s. No FP8. */
	{.name = "A100 40GB", .mem_bw_gbps = 1555,
	 .tflops = {M(FP64) = 19.5, M(FP32) = 19.5, M(TF32) = 156, M(BF16) = 312, M(FP16) = 312,
	            V(FP64) = 9.7, V(FP32) = 19.5, V(BF16) = 39, V(FP16) = 78}},
	/* NVIDIA A100 SXM4 80 GB: as above, HBM2e 2039 GB/s (datasheet). */
	{.name = "A100 SXM4 80GB", .mem_bw_gbps = 2039,
	 .tflops = {M(FP64) = 19.5, M(FP32) = 19.5, M(TF32) = 156, M(BF16) = 312, M(FP16) = 312,
	            V(FP64) = 9.7, V(FP32) = 19.5, V(BF16) = 39, V(FP16) = 78}},
	/* NVIDIA A100 PCIe 80 GB: as above, HBM2e 1935 GB/s (datasheet). */
	{.name = "A100 PCIe 80GB", .mem_bw_gbps = 1935,
	 .tflops = {M(FP64) = 19.5, M(FP32) = 19.5, M(TF32) = 156, M(BF16) = 312, M(FP16) = 312,
	            V(FP64) = 9.7, V(FP32) = 19.5, V(BF16) = 39, V(FP16) = 78}},
	/* NVIDIA B200: TraceLens's historical B200 arch file (bf16 1401, fp16
	 * 1347, fp32 66, fp8 2816, 7476 GB/s; measured achievable). Not in
	 * TraceLens, from the HGX B200 datasheet per GPU (8-GPU totals / 8,
	 * dense): TF32 1100, FP4 9000, FP64 37, FP32 vector 75; vector
	 * BF16/FP16 unpublished: the FP32 vector rate. */
	{.name = "B200", .mem_bw_gbps = 7476,
	 .tflops = {M(FP64) = 37, M(FP32) = 66, M(TF32) = 1100, M(BF16) = 1401, M(FP16) = 1347,
	            M(FP8) = 2816, M(FP4) = 9000, V(FP64) = 37, V(FP32) = 75, V(BF16) = 75,
	            V(FP16) = 75}},
	/* NVIDIA B300 (Blackwell Ultra): HGX B300 datasheet per GPU (8-GPU
	 * totals / 8, sparse halved): FP4 13125 (dense, 105 PF / 8), FP8 4500,
	 * BF16/FP16 2250, TF32 1125, FP32 75, FP64 1.25; HBM3e 8 TB/s. These
	 * are datasheet peaks, not TraceLens-style achievable ones: Pct Roofline
	 * on B300 is not comparable with B200's. matrix_fp32 = the FP32 rate. */
	{.name = "B300", .mem_bw_gbps = 8000,
	 .tflops = {M(FP64) = 1.25, M(FP32) = 75, M(TF32) = 1125, M(BF16) = 2250, M(FP16) = 2250,
	            M(FP8) = 4500, M(FP4) = 13125, V(FP64) = 1.25, V(FP32) = 75, V(BF16) = 75,
	            V(FP16) = 75}},
	/* NVIDIA V100 SXM2 (16/32 GB; also the DGX Station's V100-DGXS): V100
	 * datasheet: FP64 7.8, FP32 15.7, tensor (FP16) 125; HBM2 900 GB/s;
	 * non-tensor FP16 31.4 (Volta whitepaper, 2x FP32). No BF16 hardware:
	 * bf16 runs on the FP32 path. */
	{.name = "V100 SXM2", .mem_bw_gbps = 900,
	 .tflops = {M(FP64) = 7.8, M(FP32) = 15.7, M(FP16) = 125, M(BF16) = 15.7, V(FP64) = 7.8,
	            V(FP32) = 15.7, V(BF16) = 15.7, V(FP16) = 31.4}},
	/* NVIDIA V100 PCIe: V100 datasheet: FP64 7, FP32 14, tensor 112;
	 * 900 GB/s. */
	{.name = "V100 PCIe", .mem_bw_gbps = 900,
	 .tflops = {M(FP64) = 7, M(FP32) = 14, M(FP16) = 112, M(BF16) = 14, V(FP64) = 7,
	            V(FP32) = 14, V(BF16) = 14, V(FP16) = 28}},
	/* NVIDIA Quadro GP100 (Pascal, no tensor cores): Quadro GP100
	 * datasheet: FP64 5.2, FP32 10.3, FP16 20.7; HBM2 717 GB/s. GEMMs run on
	 * the same units: matrix = vector. */
	{.name = "Quadro GP100", .mem_bw_gbps = 717,
	 .tflops = {M(FP64) = 5.2, M(FP32) = 10.3, M(FP16) = 20.7, M(BF16) = 10.3, V(FP64) = 5.2,
	            V(FP32) = 10.3, V(BF16) = 10.3, V(FP16) = 20.7}},
	/* AMD Instinct MI300X: TraceLens's bundled arch values (matrix_bf16
	 * 708, fp16 654, fp32 163, fp8 1273, vector_bf16 163, 5300 GB/s).
	 * Datasheet (AMD Instinct MI300X data sheet) for the rest: FP64 matrix
	 * 163.4, FP64 vector 81.7, TF32 653.7 (dense), FP32 vector 163.4 (163,
	 * rounded as TraceLens rounds matrix_fp32). */
	{.name = "MI300X", .mem_bw_gbps = 5300,
	 .tflops = {M(FP64) = 163.4, M(FP32) = 163, M(TF32) = 653.7, M(BF16) = 708, M(FP16) = 654,
	            M(FP8) = 1273, V(FP64) = 81.7, V(FP32) = 163, V(BF16) = 163, V(FP16) = 163}},
	/* AMD Instinct MI325X: TraceLens's arch values (bf16 843, fp16 794,
	 * fp32 194, fp8 1519, 6000 GB/s); datasheet (same CDNA3 XCDs as MI300X)
	 * for FP64 matrix 163.4, vector 81.7, TF32 653.7, FP32 vector 163.4. */
	{.name = "MI325X", .mem_bw_gbps = 6000,
	 .tflops = {M(FP64) = 163.4, M(FP32) = 194, M(TF32) = 653.7, M(BF16) = 843, M(FP16) = 794,
	            M(FP8) = 1519, V(FP64) = 81.7, V(FP32) = 163.4, V(BF16) = 163.4,
	            V(FP16) = 163.4}},
	/* AMD Instinct MI355X: TraceLens's arch values (bf16 1686, fp16 1686,
	 * fp32 137, fp8 3567, 8000 GB/s); datasheet for FP64 matrix/vector
	 * 78.6, FP32 vector 157.3, MXFP4 10100 (dense; 20.1 PF with sparsity). */
	{.name = "MI355X", .mem_bw_gbps = 8000,
	 .tflops = {M(FP64) = 78.6, M(FP32) = 137, M(BF16) = 1686, M(FP16) = 1686, M(FP8) = 3567,
	            M(FP4) = 10100, V(FP64) = 78.6, V(FP32) = 157.3, V(BF16) = 157.3,
	            V(FP16) = 157.3}},
	/* AMD Instinct MI250X, one GCD (PyTorch sees each of the two GCDs of
	 * the OAM as a device): MI250X datasheet halved: FP64/FP32 vector 47.9
	 * -> 23.95, FP64/FP32 matrix 95.7 -> 47.85, FP16/BF16 383 -> 191.5;
	 * HBM2e 3.2768 TB/s -> 1638.4 GB/s. */
	{.name = "MI250X", .mem_bw_gbps = 1638.4,
	 .tflops = {M(FP64) = 47.85, M(FP32) = 47.85, M(BF16) = 191.5, M(FP16) = 191.5,
	            V(FP64) = 23.95, V(FP32) = 23.95, V(BF16) = 23.95, V(FP16) = 23.95}},
	/* AMD Instinct MI250, one GCD: MI250 datasheet halved: FP64/FP32 vector
	 * 45.3 -> 22.65, matrix 90.5 -> 45.25, FP16/BF16 362.1 -> 181.05; HBM2e
	 * 3.2768 TB/s -> 1638.4 GB/s. */
	{.name = "MI250", .mem_bw_gbps = 1638.4,
	 .tflops = {M(FP64) = 45.25, M(FP32) = 45.25, M(BF16) = 181.05, M(FP16) = 181.05,
	            V(FP64) = 22.65, V(FP32) = 22.65, V(BF16) = 22.65, V(FP16) = 22.65}},
	/* AMD Instinct MI210: datasheet: FP64/FP32 vector 22.6, matrix 45.3,
	 * FP16/BF16 181; HBM2e 1638.4 GB/s. */
	{.name = "MI210", .mem_bw_gbps = 1638.4,
	 .tflops = {M(FP64) = 45.3, M(FP32) = 45.3, M(BF16) = 181, M(FP16) = 181, V(FP64) = 22.6,
	            V(FP32) = 22.6, V(BF16) = 22.6, V(FP16) = 22.6}},
};

#undef M
#undef V

#define NBUILTIN (sizeof(builtin) / sizeof(builtin[0]))

struct tg_gpu_specs {
	tg_gpu_spec *items;
	size_t n, cap;
};

int tg_gpu_specs_new(tg_gpu_specs **out)
{
	*out = NULL;
	tg_gpu_specs *s = tg_calloc(1, sizeof(*s));
	if (!s)
		return TG_ENOMEM;
	s->items = tg_malloc(sizeof(builtin));
	if (!s->items) {
		free(s);
		return TG_ENOMEM;
	}
	memcpy(s->items, builtin, sizeof(builtin));
	s->n = s->cap = NBUILTIN;
	*out = s;
	return 0;
}

void tg_gpu_specs_free(tg_gpu_specs *s)
{
	if (!s)
		return;
	free(s->items);
	free(s);
}

size_t tg_gpu_specs_count(const tg_gpu_specs *s) { return s->n; }

const tg_gpu_spec *tg_gpu_specs_at(const tg_gpu_specs *s, size_t i)
{
	return i < s->n ? &s->items[i] : NULL;
}

static const tg_gpu_spec *find(const tg_gpu_spec *items, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcasecmp(items[i].name, name))
			return &items[i];
	return NULL;
}

int tg_gpu_specs_find(const tg_gpu_spec **out, const tg_gpu_specs *s, const char *name)
{
	*out = name ? find(s->items, s->n, name) : NULL;
	if (!*out)
		return tg_error_set(TG_ENOTFOUND, "no GPU spec named '%s'", name ? name : "(null)");
	return 0;
}

double tg_gpu_spec_tflops(const tg_gpu_spec *spec, int cs)
{
	return spec && cs >= 0 && cs < TG_CS_COUNT ? spec->tflops[cs] : 0;
}

/* ------------------------------------------------------------ recognition */

static int has(const char *s, const char *sub) { return strcasestr(s, sub) != NULL; }

#define GIB ((int64_t)1 << 30)

/* The built-in entry named by a device name, or NULL. */
static const char *by_name(const char *name, int64_t mem)
{
	if (has(name, "MI355X"))
		return "MI355X";
	if (has(name, "MI325X"))
		return "MI325X";
	if (has(name, "MI300X")) /* also "AMD Instinct MI300X VF" (SR-IOV) */
		return "MI300X";
	if (has(name, "MI250X"))
		return "MI250X";
	if (has(name, "MI250"))
		return "MI250";
	if (has(name, "MI210"))
		return "MI210";
	if (has(name, "B300")) /* "NVIDIA B300 SXM6 AC" */
		return "B300";
	if (has(name, "B200")) /* also GB200 */
		return "B200";
	if (has(name, "H200")) /* also GH200 144 GB (HBM3e, H100-class die) */
		return "H200";
	if (has(name, "H100")) {
		if (has(name, "PCIe"))
			return "H100 PCIe";
		if (has(name, "NVL"))
			return "H100 NVL";
		/* "NVIDIA H100 80GB HBM3", and plain "NVIDIA H100" (132 SMs: the
		 * SXM5 board, e.g. its 96 GB variant) */
		return "H100 SXM";
	}
	if (has(name, "A100")) {
		/* "NVIDIA A100-SXM4-80GB", "NVIDIA A100-PG509-200" (the SXM4 40 GB
		 * board), "NVIDIA A100-PCIE-40GB", "NVIDIA A100 80GB PCIe" */
		int big = mem > 60 * GIB || (mem <= 0 && has(name, "80GB"));
		if (!big)
			return "A100 40GB";
		return has(name, "PCIe") ? "A100 PCIe 80GB" : "A100 SXM4 80GB";
	}
	if (has(name, "V100")) /* Tesla V100-SXM2-16GB, -32GB, V100-DGXS-32GB */
		return has(name, "PCIe") ? "V100 PCIe" : "V100 SXM2";
	if (has(name, "GP100"))
		return "Quadro GP100";
	return NULL;
}

/* The built-in entry for an anonymous or generic device (empty name, "AMD
 * Radeon Graphics" for a CDNA2 GCD under some ROCm versions), by compute
 * capability (gfx major.minor on ROCm), SM/CU count and memory; or NULL. */
static const char *by_props(int64_t mem, int major, int minor, int sms)
{
	if (major == 9 && minor == 4 && sms == 304) /* gfx942: MI300X 192 GB, MI325X 256 GB */
		return mem > 224 * GIB ? "MI325X" : "MI300X";
	if (major == 9 && minor == 5 && sms == 256) /* gfx950 */
		return "MI355X";
	if (major == 9 && minor == 0 && sms == 110) /* gfx90a, MI250X GCD */
		return "MI250X";
	if (major == 9 && minor == 0 && sms == 104 && mem > 0 && mem <= 64 * GIB)
		return "MI250"; /* gfx90a, 104 CUs, 64 GB: an MI250 GCD (an MI210 names itself) */
	if (major == 9 && minor == 0 && sms == 132)
		return "H100 SXM";
	if (major == 9 && minor == 0 && sms == 114)
		return "H100 PCIe";
	if (major == 10 && minor == 0 && sms == 148)
		return "B200";
	if (major == 10 && minor == 3)
		return "B300";
	if (major == 8 && minor == 0 && sms == 108)
		return mem > 60 * GIB ? "A100 SXM4 80GB" : "A100 40GB";
	if (major == 7 && minor == 0 && sms == 80)
		return "V100 SXM2";
	return NULL;
}

int tg_gpu_specs_match(const tg_gpu_spec **out, const tg_gpu_specs *s, const char *device_name,
                       int64_t total_memory, int compute_major, int compute_minor, int num_sms)
{
	const char *name = device_name ? device_name : "";
	*out = NULL;
	/* overrides: the last one added first */
	if (*name)
		for (size_t i = s->n; i-- > 0;)
			if (s->items[i].match[0] && has(name, s->items[i].match)) {
				*out = &s->items[i];
				return 0;
			}
	const char *b = by_name(name, total_memory);
	if (!b)
		b = by_props(total_memory, compute_major, compute_minor, num_sms);
	if (b)
		*out = find(s->items, s->n, b);
	if (!*out)
		return tg_error_set(TG_ENOTFOUND,
		                    "unknown GPU '%s' (compute %d.%d, %d SMs, %lld bytes): add it to a "
		                    "GPU spec file",
		                    name, compute_major, compute_minor, num_sms, (long long)total_memory);
	return 0;
}

int tg_gpu_specs_match_device(const tg_gpu_spec **out, const tg_gpu_specs *s, const tg_trace *t,
                              const tg_device *d)
{
	const char *name = d->name == TG_NONE ? "" : tg_trace_str(t, d->name);
	return tg_gpu_specs_match(out, s, name, d->total_memory, d->compute_major, d->compute_minor,
	                          d->num_sms);
}

/* ------------------------------------------------------------ YAML overrides */

struct loader {
	tg_yaml_in in;            /* the file's name and document (util/yaml_node.h) */
	const tg_gpu_specs *base; /* the specs the file overrides */
	tg_gpu_spec *items;       /* the working copy */
	size_t n, cap;
};

/* A finite, non-negative decimal number. */
static int number(const struct loader *L, const yaml_node_t *n, const char *key, double *out)
{
	const char *s = tg_yaml_scalar(n);
	if (!s)
		return tg_yaml_error(&L->in, n, "%s: expected a number", key);
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	int ok = *s && *end == 0 && errno == 0 && isfinite(v) && v >= 0;
	for (const char *p = s; ok && *p; p++)
		if (!isdigit((unsigned char)*p) && !strchr(".eE+-", *p))
			ok = 0;
	if (!ok)
		return tg_yaml_error(&L->in, n, "%s: '%s' is not a non-negative number", key, s);
	*out = v;
	return 0;
}

/* A string value that fits in cap bytes. */
static int string(const struct loader *L, const yaml_node_t *n, const char *key, char *dst, size_t cap)
{
	const char *s = tg_yaml_scalar(n);
	if (!s || !*s)
		return tg_yaml_error(&L->in, n, "%s: expected a non-empty string", key);
	if (strlen(s) >= cap)
		return tg_yaml_error(&L->in, n, "%s: '%s' is too long", key, s);
	memcpy(dst, s, strlen(s) + 1);
	return 0;
}

/* The key of the pair p of map into *out: a scalar, not seen before in map. */
static int key_of(const struct loader *L, const yaml_node_t *map, const yaml_node_pair_t *p, const char **out)
{
	yaml_node_t *k = tg_yaml_node(&L->in, p->key);
	if (!(*out = tg_yaml_scalar(k)))
		return tg_yaml_error(&L->in, k, "expected a string key");
	if (tg_yaml_earlier_key(&L->in, map, p))
		return tg_yaml_error(&L->in, k, "duplicate key '%s'", *out);
	return 0;
}

static int load_tflops(const struct loader *L, const yaml_node_t *map, double *tflops, int *set)
{
	if (map->type != YAML_MAPPING_NODE)
		return tg_yaml_error(&L->in, map, "tflops: expected a mapping of compute spec to TFLOPS");
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const char *k;
		int rc;
		if ((rc = key_of(L, map, p, &k)))
			return rc;
		int cs = tg_compute_spec_parse(k);
		if (cs < 0)
			return tg_yaml_error(&L->in, tg_yaml_node(&L->in, p->key),
			                     "unknown compute spec '%s' (expected matrix_ or vector_ + fp64, fp32, "
			                     "tf32, bf16, fp16, fp8, fp4)",
			                     k);
		if ((rc = number(L, tg_yaml_node(&L->in, p->value), k, &tflops[cs])))
			return rc;
		set[cs] = 1;
	}
	return 0;
}

static int load_gpu(struct loader *L, const yaml_node_t *item)
{
	if (item->type != YAML_MAPPING_NODE)
		return tg_yaml_error(&L->in, item, "gpus: each entry must be a mapping");
	char name[64] = "", match[64] = "";
	double bw = 0, tflops[TG_CS_COUNT] = {0};
	int have_bw = 0, set[TG_CS_COUNT] = {0};
	int rc;
	for (yaml_node_pair_t *p = item->data.mapping.pairs.start; p < item->data.mapping.pairs.top; p++) {
		const char *k;
		if ((rc = key_of(L, item, p, &k)))
			return rc;
		yaml_node_t *v = tg_yaml_node(&L->in, p->value);
		if (!strcmp(k, "name"))
			rc = string(L, v, k, name, sizeof(name));
		else if (!strcmp(k, "match"))
			rc = string(L, v, k, match, sizeof(match));
		else if (!strcmp(k, "mem_bw_gbps"))
			rc = number(L, v, k, &bw), have_bw = 1;
		else if (!strcmp(k, "tflops"))
			rc = load_tflops(L, v, tflops, set);
		else
			rc = tg_yaml_error(&L->in, tg_yaml_node(&L->in, p->key),
			                   "unknown key '%s' (expected match, name, mem_bw_gbps, tflops)", k);
		if (rc)
			return rc;
	}
	if (!name[0])
		return tg_yaml_error(&L->in, item, "gpu entry without a name");
	tg_gpu_spec *g = (tg_gpu_spec *)find(L->items, L->n, name);
	if (!g) {
		if (tg_grow((void **)&L->items, &L->cap, L->n + 1, sizeof(*L->items)))
			return TG_ENOMEM;
		g = &L->items[L->n++];
		memset(g, 0, sizeof(*g));
		memcpy(g->name, name, sizeof(name));
	}
	if (match[0])
		memcpy(g->match, match, sizeof(match));
	if (have_bw)
		g->mem_bw_gbps = bw;
	for (int i = 0; i < TG_CS_COUNT; i++)
		if (set[i])
			g->tflops[i] = tflops[i];
	return 0;
}

static int load_doc(struct loader *L)
{
	yaml_node_t *root = yaml_document_get_root_node(L->in.doc);
	if (!root) /* an empty file changes nothing */
		return 0;
	if (root->type != YAML_MAPPING_NODE)
		return tg_yaml_error(&L->in, root, "expected a mapping with the key 'gpus'");
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		const char *k;
		int rc;
		if ((rc = key_of(L, root, p, &k)))
			return rc;
		if (strcmp(k, "gpus"))
			return tg_yaml_error(&L->in, tg_yaml_node(&L->in, p->key), "unknown key '%s' (expected gpus)",
			                     k);
		yaml_node_t *seq = tg_yaml_node(&L->in, p->value);
		if (seq->type != YAML_SEQUENCE_NODE)
			return tg_yaml_error(&L->in, seq, "gpus: expected a list");
		for (size_t i = 0; i < tg_yaml_len(seq); i++)
			if ((rc = load_gpu(L, tg_yaml_item(&L->in, seq, i))))
				return rc;
	}
	return 0;
}

/* The document read by tg_yaml_read into a copy of L->base's items (a
 * tg_yaml_loader_fn; L a struct loader). */
static int load_in(const tg_yaml_in *in, void *loader)
{
	struct loader *L = loader;
	L->in = *in;
	if (!(L->items = tg_malloc(L->base->n * sizeof(*L->items))))
		return TG_ENOMEM;
	memcpy(L->items, L->base->items, L->base->n * sizeof(*L->items));
	L->n = L->cap = L->base->n;
	return load_doc(L);
}

int tg_gpu_specs_load_mem(tg_gpu_specs *s, const char *yaml, size_t len, const char *name)
{
	if (!s || (!yaml && len))
		return tg_error_set(TG_EINVAL, "tg_gpu_specs_load_mem: bad argument");
	if (!name)
		name = "(gpu specs)";
	struct loader L = {.base = s};
	int rc = tg_yaml_read(yaml, len, name, 32, 0, load_in, &L); /* the format needs 4 */
	if (rc) {
		free(L.items);
		return rc;
	}
	free(s->items);
	s->items = L.items;
	s->n = L.n;
	s->cap = L.cap;
	return 0;
}

int tg_gpu_specs_load_file(tg_gpu_specs *s, const char *path)
{
	char *buf;
	size_t len;
	int err = tg_file_read_all(&buf, &len, path, 0);
	if (err)
		return err;
	int rc = tg_gpu_specs_load_mem(s, buf, len, path);
	free(buf);
	return rc;
}
