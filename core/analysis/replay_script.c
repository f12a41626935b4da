/*
 * replay_script.c - the script of one invocation (replay.h): a short
 * header, the invocation as one Python literal (CALL) and the runner
 * (core/analysis/replay_runner.py) that builds, calls and times it.
 *
 * No text from the trace reaches the script but through py_str, which
 * writes a Python string literal of ASCII only (quotes, backslashes,
 * control and non-ASCII characters escaped; invalid UTF-8 as U+FFFD): the
 * op name (also validated as aten::identifier before a script is made),
 * the trace's file name and the signature. Shapes, strides and values are
 * numbers and literals tracegate printed itself (replay_spec.c); dtypes come
 * from its table.
 */
#include "replay_impl.h"
#include "../../util/tg.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The code point of the UTF-8 sequence at s (*len bytes), or -1 (one
 * byte) when it is not valid UTF-8. */
static long utf8_at(const unsigned char *s, size_t *len)
{
	unsigned c = s[0];
	int n = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
	*len = 1;
	if (!n || c >= 0xf5)
		return -1;
	long cp = (long)(c & (0x7f >> n));
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp < 0xe000))
		return -1;
	*len = (size_t)n;
	return cp;
}

/* s as a Python string literal in single quotes, ASCII only. */
static void py_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	fputc('\'', f);
	while (*p) {
		unsigned c = *p;
		size_t len = 1;
		if (c == '\'' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c == '\r')
			fputs("\\r", f);
		else if (c >= 0x20 && c < 0x7f)
			fputc((int)c, f);
		else if (c < 0x80)
			fprintf(f, "\\x%02x", c);
		else {
			long cp = utf8_at(p, &len);
			fprintf(f, cp < 0 ? "\\ufffd" : cp < 0x10000 ? "\\u%04lx" : "\\U%08lx", cp);
		}
		p += len;
	}
	fputc('\'', f);
}

static void py_tuple(FILE *f, const int64_t *v, int n)
{
	fputc('(', f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%lld", i ? ", " : "", (long long)v[i]);
	fputs(n == 1 ? ",)" : ")", f);
}

static void py_input(FILE *f, const tg_replay_input *in)
{
	if (in->kind == TG_REPLAY_IN_VALUE) {
		fprintf(f, "{'t': 'value', 'v': %s}", in->value);
		return;
	}
	if (in->kind != TG_REPLAY_IN_TENSOR) {
		fputs("{'t': 'none'}", f);
		return;
	}
	fprintf(f, "{'t': 'tensor', 'dtype': '%s', 'shape': ", in->dtype);
	py_tuple(f, in->shape, in->nd);
	fputs(", 'stride': ", f);
	if (in->has_stride)
		py_tuple(f, in->stride, in->nd);
	else
		fputs("None", f);
	int64_t dims[16];
	int nd = 0;
	for (int i = 0; i < in->nd && i < 16; i++)
		if (in->scale_mask & (1u << i))
			dims[nd++] = i;
	fputs(", 'scale': ", f);
	py_tuple(f, dims, nd);
	fputc('}', f);
}

static const char *family_key(tg_replay_family f)
{
	static const char *const keys[TG_REPLAY_FAMILY_COUNT] = {"refused", "gemm",    "sdpa",        "conv",
	                                                         "norm",    "softmax", "elementwise", "aten"};
	return (unsigned)f < TG_REPLAY_FAMILY_COUNT ? keys[f] : "aten";
}

/* The header and CALL of the script. */
static void write_call(FILE *f, const tg_replay_spec *sp, const char *op, const tg_replay_call *c,
                       const char *trace_name, size_t index, size_t count)
{
	fprintf(f,
	        "#!/usr/bin/env python3\n"
	        "# Replays one op of a PyTorch profiler trace: %s, distinct invocation %zu of %zu.\n"
	        "# Made by tracegate %s (`tracegate replay`, docs/replay.md). Needs only PyTorch:\n"
	        "#   python3 THIS.py            the recorded shapes, on the GPU when torch sees one\n"
	        "#   python3 THIS.py --scale 0.1 --device cpu   reduced sizes, for a quick run\n"
	        "#   python3 THIS.py --help\n"
	        "CALL = {\n    'op': ",
	        op, index, count, TG_VERSION);
	py_str(f, op);
	fprintf(f, ",\n    'family': '%s',\n    'family_label': '%s',\n    'trace': {'file': ", family_key(sp->family),
	        tg_replay_family_name(sp->family));
	py_str(f, trace_name);
	int gpu = c->gpu_calls > 0;
	double ms = (double)(gpu ? c->gpu_ns : c->cpu_ns) / 1e6 / (double)(c->calls ? c->calls : 1);
	fprintf(f, ", 'calls': %llu, 'ms': %.9g, 'what': '%s'},\n    'signature': ", (unsigned long long)c->calls, ms,
	        gpu ? "GPU time of the kernels it launched" : "host time: no device work recorded under it");
	py_str(f, c->signature);
	fputs(",\n    'inputs': [\n", f);
	for (size_t i = 0; i < sp->n; i++) {
		fputs("        ", f);
		py_input(f, &sp->in[i]);
		fputs(",\n", f);
	}
	fputs("    ],\n    'sdpa': ", f);
	if (sp->family == TG_REPLAY_SDPA) {
		fprintf(f, "{'backend': '%s', 'pass': '%s', 'q': %d, 'k': %d, 'v': %d, 'mask': ", sp->backend,
		        sp->backward ? "backward" : "forward", sp->q, sp->k, sp->v);
		if (sp->mask >= 0)
			fprintf(f, "%d", sp->mask);
		else
			fputs("None", f);
		fprintf(f, ", 'dropout_p': %s, 'is_causal': %s, 'scale': %s},\n", sp->dropout, sp->causal, sp->scale);
	} else {
		fputs("None,\n", f);
	}
	fputs("}\n\n", f);
}

int tg_replay_script(char **out, size_t *len, const tg_tree *tree, const tg_replay_call *call, const char *trace_name,
                     size_t index, size_t count)
{
	*out = NULL;
	*len = 0;
	const tg_trace *t = tg_tree_trace(tree);
	const char *op = tg_trace_str(t, tg_trace_events(t, &(size_t){0})[call->first].name);
	tg_replay_spec *sp = tg_malloc(sizeof(*sp));
	if (!sp)
		return TG_ENOMEM;
	char reason[256];
	if (call->family == TG_REPLAY_REFUSED || tg_replay_spec_build(sp, reason, sizeof(reason), tree, call->first)) {
		free(sp);
		return tg_error_set(TG_EINVAL, "cannot replay this invocation: %s",
		                    call->reason[0] ? call->reason : reason);
	}
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	if (!f) {
		free(sp);
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	write_call(f, sp, op, call, trace_name, index, count);
	fputs(tg_replay_runner_py, f);
	free(sp);
	if (fclose(f)) {
		free(buf);
		return tg_error_set(TG_ENOMEM, "out of memory writing the script");
	}
	*out = buf;
	*len = n;
	return 0;
}

void tg_replay_file_name(char *buf, size_t cap, const char *op, size_t index)
{
	char stem[81];
	size_t o = 0;
	for (const char *p = op; *p && o < 80; p++) {
		int ok = isalnum((unsigned char)*p) && !((unsigned char)*p & 0x80);
		if (ok)
			stem[o++] = *p;
		else if (o && stem[o - 1] != '_')
			stem[o++] = '_';
	}
	while (o && stem[o - 1] == '_')
		o--;
	stem[o] = 0;
	snprintf(buf, cap, "%s_%zu.py", o ? stem : "op", index);
}
