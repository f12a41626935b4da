/*
 * replay_spec.c - how one invocation is rebuilt (replay_impl.h): which
 * family its op is in, each input as the script builds it (a tensor of a
 * dtype from a fixed table, shape and strides; a value parsed from Concrete
 * Inputs and printed here as a Python literal; None), which dims --scale may
 * reduce, and where attention's q, k, v, mask, dropout, causality and scale
 * are. Or why it cannot be rebuilt.
 *
 * Scaling keeps the relations between inputs: within a family the same rule
 * applies to every input (GEMM and pointwise ops: every dim; attention: batch
 * and sequence; convolution: batch; norms: the dims outside the normalized
 * shape; softmax: all but the softmax dim), and the script maps equal sizes
 * to equal sizes, so matching dims still match and a 1 still broadcasts. Ops
 * whose values repeat a size (native_group_norm's N) are not scaled.
 */
#include "replay_impl.h"
#include "../../util/tg.h"
#include "../models/perf_model.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tg_replay_family_name(tg_replay_family f)
{
	static const char *const names[TG_REPLAY_FAMILY_COUNT] = {
		"refused", "GEMM", "SDPA", "convolution", "normalization", "softmax", "elementwise", "ATen op"};
	return (unsigned)f < TG_REPLAY_FAMILY_COUNT ? names[f] : "refused";
}

/* ---- tables */

static const struct dtype_name {
	const char *trace, *torch;
} dtypes[] = {
	{"float", "float32"}, {"double", "float64"}, {"c10::Half", "float16"}, {"c10::BFloat16", "bfloat16"},
	{"long int", "int64"}, {"long long int", "int64"}, {"int", "int32"}, {"short int", "int16"},
	{"signed char", "int8"}, {"unsigned char", "uint8"}, {"bool", "bool"},
	{"c10::Float8_e4m3fn", "float8_e4m3fn"}, {"c10::Float8_e5m2", "float8_e5m2"},
	{"c10::Float8_e4m3fnuz", "float8_e4m3fnuz"}, {"c10::Float8_e5m2fnuz", "float8_e5m2fnuz"},
	{"c10::complex<float>", "complex64"}, {"c10::complex<double>", "complex128"},
	{"c10::complex<c10::Half>", "complex32"}, {"long unsigned int", "uint64"}, {"unsigned int", "uint32"},
	{"short unsigned int", "uint16"},
};

/* Norms: where the normalized shape is (ns), or how else to scale. */
enum { NORM_DIM0 = -1, NORM_FIXED = -2 };

static const struct op_rule {
	const char *name;
	tg_replay_family family;
	int arg; /* conv: the weight's index; norm: the normalized shape's index or NORM_*; softmax: the dim's index */
} rules[] = {
	{"aten::mm", TG_REPLAY_GEMM, 0}, {"aten::addmm", TG_REPLAY_GEMM, 0}, {"aten::bmm", TG_REPLAY_GEMM, 0},
	{"aten::baddbmm", TG_REPLAY_GEMM, 0}, {"aten::matmul", TG_REPLAY_GEMM, 0}, {"aten::linear", TG_REPLAY_GEMM, 0},
	{"aten::addbmm", TG_REPLAY_GEMM, 0}, {"aten::addmv", TG_REPLAY_GEMM, 0}, {"aten::mv", TG_REPLAY_GEMM, 0},
	{"aten::convolution", TG_REPLAY_CONV, 1}, {"aten::_convolution", TG_REPLAY_CONV, 1},
	{"aten::conv1d", TG_REPLAY_CONV, 1}, {"aten::conv2d", TG_REPLAY_CONV, 1}, {"aten::conv3d", TG_REPLAY_CONV, 1},
	{"aten::cudnn_convolution", TG_REPLAY_CONV, 1}, {"aten::miopen_convolution", TG_REPLAY_CONV, 1},
	{"aten::mkldnn_convolution", TG_REPLAY_CONV, 1}, {"aten::cudnn_convolution_transpose", TG_REPLAY_CONV, 1},
	{"aten::conv_transpose1d", TG_REPLAY_CONV, 1}, {"aten::conv_transpose2d", TG_REPLAY_CONV, 1},
	{"aten::conv_transpose3d", TG_REPLAY_CONV, 1}, {"aten::convolution_backward", TG_REPLAY_CONV, 2},
	{"aten::layer_norm", TG_REPLAY_NORM, 1}, {"aten::native_layer_norm", TG_REPLAY_NORM, 1},
	{"aten::native_layer_norm_backward", TG_REPLAY_NORM, 2}, {"aten::rms_norm", TG_REPLAY_NORM, 1},
	{"aten::_fused_rms_norm", TG_REPLAY_NORM, 1}, {"aten::_fused_rms_norm_backward", TG_REPLAY_NORM, 2},
	{"aten::batch_norm", TG_REPLAY_NORM, NORM_DIM0}, {"aten::native_batch_norm", TG_REPLAY_NORM, NORM_DIM0},
	{"aten::_batch_norm_impl_index", TG_REPLAY_NORM, NORM_DIM0},
	{"aten::native_batch_norm_backward", TG_REPLAY_NORM, NORM_DIM0},
	{"aten::_native_batch_norm_legit", TG_REPLAY_NORM, NORM_DIM0},
	{"aten::_native_batch_norm_legit_no_training", TG_REPLAY_NORM, NORM_DIM0},
	{"aten::cudnn_batch_norm", TG_REPLAY_NORM, NORM_DIM0},
	{"aten::cudnn_batch_norm_backward", TG_REPLAY_NORM, NORM_DIM0},
	{"aten::miopen_batch_norm", TG_REPLAY_NORM, NORM_DIM0},
	{"aten::miopen_batch_norm_backward", TG_REPLAY_NORM, NORM_DIM0},
	{"aten::instance_norm", TG_REPLAY_NORM, NORM_DIM0}, {"aten::group_norm", TG_REPLAY_NORM, NORM_DIM0},
	{"aten::native_group_norm", TG_REPLAY_NORM, NORM_FIXED},
	{"aten::native_group_norm_backward", TG_REPLAY_NORM, NORM_FIXED},
	{"aten::softmax", TG_REPLAY_SOFTMAX, 1}, {"aten::_softmax", TG_REPLAY_SOFTMAX, 1},
	{"aten::log_softmax", TG_REPLAY_SOFTMAX, 1}, {"aten::_log_softmax", TG_REPLAY_SOFTMAX, 1},
	{"aten::_softmax_backward_data", TG_REPLAY_SOFTMAX, 2},
	{"aten::_log_softmax_backward_data", TG_REPLAY_SOFTMAX, 2},
};

/* Pointwise ops beyond the perf models' unary and binary lists. */
static const char *const pointwise[] = {
	"aten::gelu_backward", "aten::silu_backward", "aten::sigmoid_backward", "aten::tanh_backward",
	"aten::where", "aten::clamp", "aten::clamp_", "aten::fill_", "aten::zero_", "aten::log", "aten::sin",
	"aten::cos", "aten::erf", "aten::exp_", "aten::hardtanh", "aten::hardtanh_", "aten::leaky_relu",
	"aten::rsub", "aten::masked_fill", "aten::masked_fill_", "aten::pow_", "aten::addcmul", "aten::addcmul_",
	"aten::addcdiv", "aten::addcdiv_", "aten::lerp", "aten::lerp_", "aten::eq", "aten::ne", "aten::lt",
	"aten::gt", "aten::le", "aten::ge", "aten::logical_not", "aten::sqrt_", "aten::rsqrt_", "aten::sigmoid_",
	"aten::tanh_", "aten::gelu_", "aten::dropout", "aten::native_dropout", NULL};

/* Attention: the backend, the pass and where each part is among the inputs
 * (-1: not an input of that entry). */
static const struct sdpa_rule {
	const char *name, *backend;
	int backward, q, k, v, mask, dropout, causal, scale;
} sdpa_rules[] = {
	{"aten::scaled_dot_product_attention", NULL, 0, 0, 1, 2, 3, 4, 5, 6},
	{"aten::_scaled_dot_product_flash_attention", "flash", 0, 0, 1, 2, -1, 3, 4, 6},
	{"aten::_scaled_dot_product_flash_attention_for_cpu", "flash", 0, 0, 1, 2, 5, 3, 4, 6},
	{"aten::_scaled_dot_product_efficient_attention", "efficient", 0, 0, 1, 2, 3, 5, 6, 7},
	{"aten::_scaled_dot_product_cudnn_attention", "cudnn", 0, 0, 1, 2, 3, 5, 6, 8},
	{"aten::_scaled_dot_product_attention_math", "math", 0, 0, 1, 2, 3, 4, 5, 7},
	{"aten::_scaled_dot_product_flash_attention_backward", "flash", 1, 1, 2, 3, -1, 10, 11, 14},
	{"aten::_scaled_dot_product_flash_attention_for_cpu_backward", "flash", 1, 1, 2, 3, 8, 6, 7, 9},
	{"aten::_scaled_dot_product_efficient_attention_backward", "efficient", 1, 1, 2, 3, 4, 9, 11, 12},
	{"aten::_scaled_dot_product_cudnn_attention_backward", "cudnn", 1, 1, 2, 3, 8, 13, 14, 15},
};
#define NSDPA (sizeof(sdpa_rules) / sizeof(sdpa_rules[0]))

/* ---- text */

void tg_replay_plain(char *buf, size_t cap, const char *s)
{
	size_t o = 0;
	for (size_t i = 0; s[i] && o + 4 < cap; i++) {
		if (i == 60) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		unsigned char c = (unsigned char)s[i];
		buf[o++] = c >= 0x20 && c < 0x7f && c != '\\' ? (char)c : '?';
	}
	buf[o] = 0;
}

static int refuse(char *reason, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse(char *reason, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, cap, fmt, ap);
	va_end(ap);
	return -1;
}

/* A Scalar's concrete text ("1", "0.", "1.0000000000000001e-05", "True",
 * "-inf") as a Python literal printed here. Returns 0, or -1 for anything
 * else. */
static int scalar_literal(char *buf, size_t cap, const char *s)
{
	if (!strcmp(s, "True") || !strcmp(s, "False"))
		return snprintf(buf, cap, "%s", s) < (int)cap ? 0 : -1;
	if (!strcmp(s, "inf") || !strcmp(s, "-inf") || !strcmp(s, "nan"))
		return snprintf(buf, cap, "float('%s')", s) < (int)cap ? 0 : -1;
	size_t n = strlen(s);
	if (!n || n > 40 || strspn(s, "0123456789.eE+-") != n ||
	    !(isdigit((unsigned char)s[0]) || s[0] == '-' || s[0] == '.'))
		return -1;
	char *end;
	errno = 0;
	long long i = strtoll(s, &end, 10);
	if (!*end && !errno)
		return snprintf(buf, cap, "%lld", i) < (int)cap ? 0 : -1;
	errno = 0;
	double d = strtod(s, &end);
	if (*end || errno || !isfinite(d))
		return -1;
	int k = snprintf(buf, cap, "%.17g", d);
	if (k < 0 || (size_t)k + 3 > cap)
		return -1;
	if (!strpbrk(buf, ".e"))
		strcat(buf, ".0");
	return 0;
}

/* A ScalarList's concrete text ("[768]", "[True, False]", "(2,)", "[]")
 * as a Python list literal. Returns 0 or -1. */
static int list_literal(char *buf, size_t cap, const char *s)
{
	size_t n = strlen(s);
	if (n < 2 || !((s[0] == '[' && s[n - 1] == ']') || (s[0] == '(' && s[n - 1] == ')')) || cap < 3)
		return -1;
	size_t o = 0;
	buf[o++] = '[';
	const char *p = s + 1, *end = s + n - 1;
	int items = 0;
	while (p < end) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		const char *e = c ? c : end;
		while (p < e && *p == ' ')
			p++;
		size_t len = (size_t)(e - p);
		while (len && p[len - 1] == ' ')
			len--;
		if (len) {
			char item[48], lit[48];
			if (len >= sizeof(item))
				return -1;
			memcpy(item, p, len);
			item[len] = 0;
			if (scalar_literal(lit, sizeof(lit), item))
				return -1;
			size_t l = strlen(lit);
			if (o + l + 3 >= cap)
				return -1;
			if (items++)
				buf[o++] = ',', buf[o++] = ' ';
			memcpy(buf + o, lit, l);
			o += l;
		} else if (c) {
			return -1; /* "[,1]": an empty item before a comma */
		}
		p = c ? c + 1 : end;
	}
	buf[o++] = ']';
	buf[o] = 0;
	return 0;
}

static const char *torch_dtype(const char *type)
{
	for (size_t i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++)
		if (!strcmp(dtypes[i].trace, type))
			return dtypes[i].torch;
	return NULL;
}

/* ---- inputs */

struct args {
	tg_shape_list dims, types, strides, concrete;
	int has_strides, has_concrete;
};

/* Input i, a tensor of dtype, into *in. Returns 0 or -1 with the reason. */
static int tensor_input(tg_replay_input *in, const struct args *a, size_t i, const char *dtype, char *reason,
                        size_t cap)
{
	const tg_shape_item *d = tg_shape_get(&a->dims, i, TG_SHAPE_DIMS);
	if (!d)
		return refuse(reason, cap, "input %zu is a tensor without Input Dims", i);
	if (d->cut)
		return refuse(reason, cap, "input %zu has more than %d dims", i, TG_SHAPE_MAX_DIMS);
	in->kind = TG_REPLAY_IN_TENSOR;
	in->dtype = dtype;
	in->nd = d->nd;
	in->used = 1;
	const tg_shape_item *s = a->has_strides ? tg_shape_get(&a->strides, i, TG_SHAPE_DIMS) : NULL;
	if (a->has_strides && (!s || s->nd != d->nd || s->cut))
		return refuse(reason, cap, "input %zu: Input Strides do not match its Input Dims", i);
	in->has_stride = s != NULL;
	double span = 1; /* elements of storage the strides reach */
	for (int k = 0; k < d->nd; k++) {
		if (d->d[k] < 0 || (s && s->d[k] < 0))
			return refuse(reason, cap, "input %zu has a negative size or stride", i);
		in->shape[k] = d->d[k];
		in->stride[k] = s ? s->d[k] : 0;
		span += (double)(d->d[k] > 0 ? d->d[k] - 1 : 0) * (double)(s ? s->d[k] : d->d[k]);
	}
	if (span > 1e13)
		return refuse(reason, cap, "input %zu would need more than 10^13 elements of storage", i);
	return 0;
}

/* Input i of type (a string of "Input type") into *in. Returns 0 or -1. */
static int one_input(tg_replay_input *in, const struct args *a, size_t i, const char *type, char *reason, size_t cap)
{
	const char *dtype = torch_dtype(type);
	if (dtype)
		return tensor_input(in, a, i, dtype, reason, cap);
	const tg_shape_item *c = a->has_concrete ? tg_shape_get(&a->concrete, i, TG_SHAPE_STR) : NULL;
	char shown[80];
	if (!strcmp(type, "Scalar") || !strcmp(type, "ScalarList")) {
		int list = type[6] == 'L';
		if (!c || !c->s[0])
			return refuse(reason, cap, "input %zu is a %s without its value (Concrete Inputs)", i, type);
		tg_replay_plain(shown, sizeof(shown), c->s);
		if (c->cut || (list ? list_literal(in->value, sizeof(in->value), c->s)
		                    : scalar_literal(in->value, sizeof(in->value), c->s)))
			return refuse(reason, cap, "input %zu: '%s' is not a %s of numbers or booleans", i, shown,
			              list ? "list" : "Scalar");
		in->kind = TG_REPLAY_IN_VALUE;
		return 0;
	}
	if (!type[0]) {
		in->kind = TG_REPLAY_IN_NONE;
		return 0;
	}
	if (!strcmp(type, "TensorList"))
		return refuse(reason, cap,
		              "input %zu is a list of tensors (TensorList): the profiler records no shapes for "
		              "them",
		              i);
	tg_replay_plain(shown, sizeof(shown), type);
	return refuse(reason, cap, "input %zu has type '%s', which a script cannot rebuild", i, shown);
}

static const char *arg_text(const tg_trace *t, const tg_event *e, const char *key)
{
	const tg_arg *a = tg_event_arg(t, e, tg_trace_key(t, key));
	return a && (a->type == TG_ARG_RAW || a->type == TG_ARG_STR) ? tg_trace_str(t, a->v.atom) : NULL;
}

/* The shape arguments of e parsed into *a. Returns 0 or -1 with the
 * reason. */
static int read_args(struct args *a, const tg_trace *t, const tg_event *e, char *reason, size_t cap)
{
	const char *dims = arg_text(t, e, "Input Dims"), *types = arg_text(t, e, "Input type");
	const char *strides = arg_text(t, e, "Input Strides"), *concrete = arg_text(t, e, "Concrete Inputs");
	if (!dims || !types)
		return refuse(reason, cap, "no Input Dims and Input type: record the trace with record_shapes=True");
	if (tg_shape_parse(&a->dims, dims) || tg_shape_parse(&a->types, types) ||
	    tg_shape_parse(&a->strides, strides) || tg_shape_parse(&a->concrete, concrete))
		return refuse(reason, cap,
		              "its Input Dims, Input type, Input Strides or Concrete Inputs is not a JSON list");
	if (a->dims.cut || a->types.cut || a->types.n != a->dims.n)
		return refuse(reason, cap, "%s",
		              a->types.n != a->dims.n ? "Input Dims and Input type differ in length"
		                                      : "more than 32 inputs");
	a->has_strides = strides != NULL;
	a->has_concrete = concrete != NULL;
	if ((a->has_strides && a->strides.n != a->dims.n) || (a->has_concrete && a->concrete.n != a->dims.n))
		return refuse(reason, cap, "Input Strides or Concrete Inputs differ in length from Input Dims");
	return 0;
}

/* ---- families */

static const struct op_rule *rule_of(const char *name)
{
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (!strcmp(rules[i].name, name))
			return &rules[i];
	return NULL;
}

static int is_pointwise(const char *name)
{
	tg_perf_kind k = tg_perf_kind_of(name);
	if ((k == TG_PERF_UNARY || k == TG_PERF_BINARY) && strncmp(name, "aten::upsample", 14))
		return 1;
	for (const char *const *p = pointwise; *p; p++)
		if (!strcmp(*p, name))
			return 1;
	return 0;
}

static const struct sdpa_rule *sdpa_of(const char *name)
{
	for (size_t i = 0; i < NSDPA; i++)
		if (!strcmp(sdpa_rules[i].name, name))
			return &sdpa_rules[i];
	return NULL;
}

/* Bits of the dims [from, to) of a tensor input. */
static uint16_t dims_mask(int from, int to)
{
	uint16_t m = 0;
	for (int i = from < 0 ? 0 : from; i < to && i < 16; i++)
		m |= (uint16_t)(1u << i);
	return m;
}

/* The value of input i as an integer (a literal written here), or def. */
static long long value_int(const tg_replay_spec *sp, size_t i, long long def)
{
	if (i >= sp->n || sp->in[i].kind != TG_REPLAY_IN_VALUE || sp->in[i].value[0] == '[')
		return def;
	return atoll(sp->in[i].value);
}

/* Items of the list literal of input i (a normalized shape): 0 when it is
 * not a list. */
static int list_items(const tg_replay_spec *sp, size_t i)
{
	if (i >= sp->n || sp->in[i].kind != TG_REPLAY_IN_VALUE || sp->in[i].value[0] != '[')
		return 0;
	const char *v = sp->in[i].value;
	int n = v[1] != ']';
	for (; *v; v++)
		n += *v == ',';
	return n;
}

/* Which dims of each tensor --scale may reduce, by family. */
static void scale_rules(tg_replay_spec *sp, const struct op_rule *r)
{
	int ns = r && r->family == TG_REPLAY_NORM && r->arg >= 0 ? list_items(sp, (size_t)r->arg) : 0;
	long long dim;
	for (size_t i = 0; i < sp->n; i++) {
		tg_replay_input *in = &sp->in[i];
		if (in->kind != TG_REPLAY_IN_TENSOR)
			continue;
		switch (sp->family) {
		case TG_REPLAY_GEMM:
		case TG_REPLAY_ELEMENTWISE: in->scale_mask = dims_mask(0, in->nd); break;
		case TG_REPLAY_CONV: in->scale_mask = (int)i != r->arg && in->nd >= 3 ? 1 : 0; break;
		case TG_REPLAY_NORM:
			if (r->arg == NORM_DIM0)
				in->scale_mask = in->nd >= 2 ? 1 : 0;
			else if (r->arg >= 0)
				in->scale_mask = dims_mask(0, in->nd - ns);
			break;
		case TG_REPLAY_SOFTMAX:
			dim = value_int(sp, (size_t)r->arg, -1);
			dim = dim < 0 ? dim + in->nd : dim;
			in->scale_mask = (uint16_t)(dims_mask(0, in->nd) & ~(1u << (dim >= 0 && dim < 16 ? dim : 15)));
			break;
		default: break;
		}
	}
}

/* ---- attention */

const char *tg_replay_sdpa_backend(const tg_tree *tree, uint32_t ev)
{
	const tg_trace *t = tg_tree_trace(tree);
	const tg_event *evs = tg_trace_events(t, &(size_t){0});
	if (strcmp(tg_trace_str(t, evs[ev].name), "aten::scaled_dot_product_attention"))
		return NULL;
	uint32_t q[64]; /* breadth first, a few levels: autocast nests the op in itself */
	size_t head = 0, tail = 0;
	q[tail++] = ev;
	while (head < tail) {
		tg_tree_child_iter it;
		uint32_t c;
		for (tg_tree_child_iter_init(&it, tree, q[head++]); tg_tree_child_next(&it, &c);) {
			if (evs[c].kind != TG_KIND_CPU_OP)
				continue;
			const struct sdpa_rule *r = sdpa_of(tg_trace_str(t, evs[c].name));
			if (r && r->backend)
				return r->backend;
			if (tail < 64)
				q[tail++] = c;
		}
	}
	return "default";
}

/* Input i of sp as a Python literal for an attention parameter, or def. */
static void sdpa_value(char *buf, size_t cap, const tg_replay_spec *sp, int i, const char *def)
{
	if (i >= 0 && (size_t)i < sp->n && sp->in[i].kind == TG_REPLAY_IN_VALUE)
		snprintf(buf, cap, "%s", sp->in[i].value);
	else
		snprintf(buf, cap, "%s", def);
}

static int sdpa_spec(tg_replay_spec *sp, const struct sdpa_rule *r, const tg_tree *tree, uint32_t ev, char *reason,
                     size_t cap)
{
	int idx[3] = {r->q, r->k, r->v};
	for (int j = 0; j < 3; j++) {
		const tg_replay_input *in = (size_t)idx[j] < sp->n ? &sp->in[idx[j]] : NULL;
		if (!in || in->kind != TG_REPLAY_IN_TENSOR || in->nd < 3 || in->nd != sp->in[r->q].nd)
			return refuse(reason, cap, "input %d (attention's %c) is not a tensor of 3 or more dims",
			              idx[j], "qkv"[j]);
	}
	sp->backend = r->backend ? r->backend : tg_replay_sdpa_backend(tree, ev);
	sp->backward = r->backward;
	sp->q = r->q, sp->k = r->k, sp->v = r->v;
	sp->mask =
		r->mask >= 0 && (size_t)r->mask < sp->n && sp->in[r->mask].kind == TG_REPLAY_IN_TENSOR ? r->mask : -1;
	sdpa_value(sp->dropout, sizeof(sp->dropout), sp, r->dropout, "0.0");
	sdpa_value(sp->causal, sizeof(sp->causal), sp, r->causal, "False");
	sdpa_value(sp->scale, sizeof(sp->scale), sp, r->scale, "None");
	if (strcmp(sp->causal, "True") && strcmp(sp->causal, "False"))
		return refuse(reason, cap, "is_causal (input %d) is not a boolean", r->causal);
	for (size_t i = 0; i < sp->n; i++) {
		tg_replay_input *in = &sp->in[i];
		int part = (int)i == sp->q || (int)i == sp->k || (int)i == sp->v;
		in->used = part || (int)i == sp->mask;
		if (part)
			in->scale_mask = (uint16_t)(1u | (1u << (in->nd - 2)));
		else if ((int)i == sp->mask)
			in->scale_mask = (uint16_t)(in->nd >= 2 ? 1u | (3u << (in->nd - 2)) : 0);
	}
	return 0;
}

/* ---- names */

/* 1 when name is ns::op with identifiers on both sides. */
static int op_name_ok(const char *name, const char **op)
{
	const char *sep = strstr(name, "::");
	if (!sep || sep == name || strstr(sep + 2, "::"))
		return 0;
	for (const char *p = name; *p; p++) {
		if (p == sep) {
			p++;
			continue;
		}
		if (!(isalnum((unsigned char)*p) || *p == '_'))
			return 0;
	}
	if (isdigit((unsigned char)name[0]) || !sep[2] || isdigit((unsigned char)sep[2]))
		return 0;
	*op = sep + 2;
	return 1;
}

/* Device time under ev. */
static int64_t device_ns(const tg_tree *tree, const tg_event *evs, uint32_t ev)
{
	int64_t ns = 0;
	uint32_t stack[128];
	size_t sp = 0;
	stack[sp++] = ev;
	while (sp) {
		tg_tree_child_iter it;
		uint32_t c;
		for (tg_tree_child_iter_init(&it, tree, stack[--sp]); tg_tree_child_next(&it, &c);)
			if (tg_kind_is_gpu(evs[c].kind))
				ns += tg_event_dur(tg_tree_trace(tree), &evs[c]);
			else if (sp < 128)
				stack[sp++] = c;
	}
	return ns;
}

/* The aten:: op under ev (breadth first, a few levels) with the most
 * device time under it, or NULL. */
static const char *aten_below(const tg_tree *tree, uint32_t ev)
{
	const tg_trace *t = tg_tree_trace(tree);
	const tg_event *evs = tg_trace_events(t, &(size_t){0});
	uint32_t q[64];
	size_t head = 0, tail = 0;
	const char *best = NULL;
	int64_t best_ns = -1;
	q[tail++] = ev;
	while (head < tail) {
		tg_tree_child_iter it;
		uint32_t c;
		for (tg_tree_child_iter_init(&it, tree, q[head++]); tg_tree_child_next(&it, &c);) {
			const char *nm = tg_trace_str(t, evs[c].name);
			if (evs[c].kind != TG_KIND_CPU_OP)
				continue;
			if (!strncmp(nm, "aten::", 6)) {
				int64_t ns = device_ns(tree, evs, c);
				if (ns > best_ns)
					best = nm, best_ns = ns;
			}
			if (tail < 64)
				q[tail++] = c;
		}
	}
	return best;
}

/* Why name (not an aten:: op) cannot be replayed. */
static int refuse_name(const char *name, const tg_tree *tree, uint32_t ev, char *reason, size_t cap)
{
	char shown[80], below[80];
	const char *op;
	size_t n = strlen(name);
	int node = !strncmp(name, "autograd::", 10) || !strncmp(name, "torch::autograd::", 17) ||
	           (n > 9 && strstr(name, "Backward") && isdigit((unsigned char)name[n - 1]));
	if (node) {
		const char *a = aten_below(tree, ev);
		tg_replay_plain(below, sizeof(below), a ? a : "");
		return a ? refuse(reason, cap, "an autograd node, not an op: replay the op under it (%s)", below)
		         : refuse(reason, cap, "an autograd node, not an op, with no aten:: op under it");
	}
	if (!op_name_ok(name, &op))
		return refuse(reason, cap, "not an op tracegate can call (a script calls aten::NAME)");
	tg_replay_plain(shown, sizeof(shown), name);
	if (!strncmp(name, "c10d::", 6))
		return refuse(reason, cap, "a collective (%s): replaying it needs the job's process group", shown);
	return refuse(reason, cap, "not an ATen op: a script calls torch.ops.aten, and %s is another library's", shown);
}

/* The kernel-level attention entries and the op above each. */
static const char *const kernel_entries[][2] = {
	{"aten::_flash_attention_forward", "aten::_scaled_dot_product_flash_attention"},
	{"aten::_flash_attention_backward", "aten::_scaled_dot_product_flash_attention_backward"},
	{"aten::_efficient_attention_forward", "aten::_scaled_dot_product_efficient_attention"},
	{"aten::_efficient_attention_backward", "aten::_scaled_dot_product_efficient_attention_backward"},
	{"aten::_cudnn_attention_forward", "aten::_scaled_dot_product_cudnn_attention"},
	{"aten::_cudnn_attention_backward", "aten::_scaled_dot_product_cudnn_attention_backward"},
};

const char *tg_replay_entry_of(const char *op)
{
	for (size_t i = 0; i < sizeof(kernel_entries) / sizeof(kernel_entries[0]); i++)
		if (!strcmp(kernel_entries[i][0], op))
			return kernel_entries[i][1];
	return op;
}

/* Refuses a kernel-level attention entry, naming the op above it (the one
 * the trace shows, else the usual one). Returns -1, or 0 for another op. */
static int refuse_kernel_entry(const char *name, const tg_tree *tree, uint32_t ev, char *reason, size_t cap)
{
	const char *above = tg_replay_entry_of(name);
	if (above == name)
		return 0;
	uint32_t p = tg_tree_parent(tree, ev);
	const tg_trace *t = tg_tree_trace(tree);
	const char *pn = p != TG_NONE ? tg_trace_str(t, tg_trace_events(t, &(size_t){0})[p].name) : "";
	char shown[80];
	tg_replay_plain(shown, sizeof(shown), sdpa_of(pn) ? pn : above);
	return refuse(reason, cap, "the kernel-level entry of attention: replay the op above it (%s)", shown);
}

int tg_replay_spec_build(tg_replay_spec *out, char *reason, size_t cap, const tg_tree *tree, uint32_t ev)
{
	const tg_trace *t = tg_tree_trace(tree);
	const tg_event *e = &tg_trace_events(t, &(size_t){0})[ev];
	const char *name = tg_trace_str(t, e->name);
	memset(out, 0, sizeof(*out));
	out->mask = -1;
	reason[0] = 0;
	if (strncmp(name, "aten::", 6) || !op_name_ok(name, &(const char *){NULL}))
		return refuse_name(name, tree, ev, reason, cap);
	if (refuse_kernel_entry(name, tree, ev, reason, cap))
		return -1;
	struct args *a = tg_malloc(sizeof(*a));
	if (!a)
		return refuse(reason, cap, "out of memory");
	int rc = read_args(a, t, e, reason, cap);
	for (size_t i = 0; !rc && i < a->types.n; i++) {
		const tg_shape_item *ty = tg_shape_get(&a->types, i, TG_SHAPE_STR);
		rc = !ty || ty->cut ? refuse(reason, cap, "Input type %zu is not a known type name", i)
		                    : one_input(&out->in[i], a, i, ty->s, reason, cap);
	}
	out->n = rc ? 0 : a->types.n;
	free(a);
	if (rc)
		return -1;
	const struct sdpa_rule *sr = sdpa_of(name);
	const struct op_rule *r = rule_of(name);
	out->family = sr ? TG_REPLAY_SDPA : r ? r->family : is_pointwise(name) ? TG_REPLAY_ELEMENTWISE : TG_REPLAY_ATEN;
	if (sr)
		return sdpa_spec(out, sr, tree, ev, reason, cap);
	size_t tensors = 0;
	for (size_t i = 0; i < out->n; i++)
		tensors += out->in[i].kind == TG_REPLAY_IN_TENSOR;
	if ((out->family == TG_REPLAY_GEMM && tensors < 2) || (out->family != TG_REPLAY_ATEN && !tensors))
		return refuse(reason, cap, "a %s op with %zu tensor inputs recorded",
		              tg_replay_family_name(out->family), tensors);
	scale_rules(out, r);
	return 0;
}
