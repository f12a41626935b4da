/*
 * findings_ops.c - the findings of the ops (findings.h): pageable-memcpy,
 * attention-backend, gemm-alignment, low-efficiency.
 *
 *   pageable-memcpy    host-to-device copies whose name says the host memory
 *                      is pageable (Kineto: "Memcpy HtoD (Pageable ->
 *                      Device)"); such a copy is staged by the host and
 *                      blocks it. Cost: the copy's time plus the GPU's idle
 *                      time while its runtime call ran. (A copy to pageable
 *                      memory, DtoH, is a host sync: findings_host.c.)
 *   attention-backend  aten::scaled_dot_product_attention calls that ran
 *                      aten::_scaled_dot_product_attention_math (the math
 *                      path: bmm, softmax, bmm) instead of a fused kernel
 *                      (flash, efficient, cuDNN). Cost: the math path's
 *                      forward kernel time less the same FLOPs (its perf
 *                      model) at the rate this trace's fused attention, else
 *                      its GEMMs, reach.
 *   gemm-alignment     GEMMs (the perf sheet GEMM.csv) with M, N or K of 64
 *                      or more that is not a multiple of 16 bytes of its
 *                      dtype (8 elements in bf16). Cost: their kernel time
 *                      less their FLOPs at the TFLOPS/s the trace's aligned
 *                      GEMMs of the same element size reach.
 *   low-efficiency     ops of the perf sheets (other than misaligned GEMMs)
 *                      whose kernels average at least 20 us and reach less
 *                      than `param` % of their roofline (roofline.h); needs
 *                      the GPU's peaks. Cost: their kernel time above the
 *                      roofline time.
 * The sheets are the report's (opts->sheets) or computed here.
 */
#include "findings_impl.h"
#include "../models/perf_model.h"
#include "perf_sheets.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ tables */

/* A cell as a number: the perf sheets' "param:" columns hold TraceLens's
 * strings ("4096"); NAN when empty or not a number. */
static double cell_num(const tg_table *t, size_t r, const char *col)
{
	int c = tg_table_find_column(t, col);
	if (c < 0)
		return NAN;
	const tg_cell *x = tg_table_cell(t, r, (size_t)c);
	if (x->type == TG_CELL_STR) {
		char *end;
		double v = strtod(x->v.s, &end);
		return end != x->v.s && !*end ? v : NAN;
	}
	return x->type == TG_CELL_NUM ? x->v.d : x->type == TG_CELL_INT ? (double)x->v.i : NAN;
}

static const char *cell_str(const tg_table *t, size_t r, const char *col)
{
	int c = tg_table_find_column(t, col);
	const tg_cell *x = c < 0 ? NULL : tg_table_cell(t, r, (size_t)c);
	return x && x->type == TG_CELL_STR ? x->v.s : "";
}

static const tg_table *sheet(const tg_table *const *s, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(tg_table_name(s[i]), name))
			return s[i];
	return NULL;
}

/* ------------------------------------------------------------ pageable copies */

int tg_findings_check_pageable(tg_fctx *c)
{
	if (!tg_fctx_limits(c, TG_FINDING_PAGEABLE_MEMCPY)->enabled)
		return 0;
	size_t host_copies = 0, named = 0, n = 0;
	double time = 0, idle = 0, bytes = 0, call = 0;
	uint32_t kb = tg_trace_key(c->t, "bytes"), first = TG_NONE, op = TG_NONE;
	int64_t last = 0;
	for (size_t i = 0; i < c->ne; i++) {
		const tg_event *e = &c->ev[i];
		if (e->kind != TG_KIND_MEMCPY || !tg_fctx_selected(c, (uint32_t)i))
			continue;
		const char *name = tg_trace_str(c->t, e->name);
		if (!strstr(name, "HtoD"))
			continue;
		host_copies++;
		named += strstr(name, "Pageable") || strstr(name, "Pinned");
		if (!strstr(name, "Pageable"))
			continue;
		n++;
		time += (double)tg_event_dur(c->t, e);
		const tg_arg *a = kb == TG_NONE ? NULL : tg_event_arg(c->t, e, kb);
		int64_t b;
		if (a && !tg_arg_int(c->t, a, &b))
			bytes += (double)b;
		uint32_t la = tg_tree_launch(c->tree, (uint32_t)i);
		if (la != TG_NONE) {
			int64_t end = tg_event_end(c->t, &c->ev[la]), stop = end < e->ts ? end : e->ts;
			call += (double)tg_event_dur(c->t, &c->ev[la]);
			idle += (double)tg_fctx_idle_in(c, c->ev[la].ts,
			                                stop); /* the copy's own time is counted apart */
			if (op == TG_NONE) {
				uint32_t p = tg_tree_parent(c->tree, la);
				op = p != TG_NONE && c->ev[p].kind == TG_KIND_CPU_OP ? p : TG_NONE;
			}
		}
		if (first == TG_NONE)
			first = (uint32_t)i;
		last = tg_event_end(c->t, e) > last ? tg_event_end(c->t, e) : last;
	}
	if (host_copies && !named)
		return tg_fctx_not_evaluated(
			c, TG_FINDING_PAGEABLE_MEMCPY,
			"%zu host-to-device copies whose names do not say pageable or pinned (older Kineto)",
			host_copies);
	tg_finding *f = tg_fctx_add(c, TG_FINDING_PAGEABLE_MEMCPY);
	if (!f)
		return TG_ENOMEM;
	f->count = (double)n / (double)c->nsteps;
	tg_fctx_cost(f, c, time + idle, "the pageable copies' time plus the GPU idle while the host staged them");
	if (!n) {
		if (host_copies)
			snprintf(f->evidence, sizeof(f->evidence), "%zu host-to-device copies, all pinned",
			         host_copies);
		else
			snprintf(f->evidence, sizeof(f->evidence), "no host-to-device copies");
		return 0;
	}
	f->start_ns = c->ev[first].ts;
	f->end_ns = last;
	char t[32], h[32];
	tg_fstr_time(t, sizeof(t), time / (double)c->nsteps);
	tg_fstr_time(h, sizeof(h), call / (double)c->nsteps);
	snprintf(f->evidence, sizeof(f->evidence), "%.3g a step: %s", f->count, tg_trace_str(c->t, c->ev[first].name));
	if (op != TG_NONE)
		tg_fstr_add(f->evidence, sizeof(f->evidence), " in %s", tg_trace_str(c->t, c->ev[op].name));
	tg_fstr_add(f->evidence, sizeof(f->evidence), ", %.3g MB a step", bytes / (double)c->nsteps / 1e6);
	if (time > 0 && bytes > 0)
		tg_fstr_add(f->evidence, sizeof(f->evidence), " at %.3g GB/s", bytes / time);
	tg_fstr_add(f->evidence, sizeof(f->evidence), ", %s a step of copying; the host spent %s a step in their calls",
	            t, h);
	return 0;
}

/* ------------------------------------------------------------ attention */

/* Kernel time (sum of durations) of the device events under ev. */
static double subtree_kernels(const tg_fctx *c, uint32_t ev, int depth)
{
	tg_tree_child_iter it;
	uint32_t k;
	double sum = 0;
	for (tg_tree_child_iter_init(&it, c->tree, ev); depth < 256 && tg_tree_child_next(&it, &k);)
		sum += (tg_kind_is_gpu(c->ev[k].kind) ? (double)tg_event_dur(c->t, &c->ev[k]) : 0) +
		       subtree_kernels(c, k, depth + 1);
	return sum;
}

/* The FLOPs of SDPA op ev from its shapes (perf_model.h), NAN when unknown. */
static double sdpa_flops(const tg_fctx *c, uint32_t ev)
{
	static const char *const keys[4] = {"Input Dims", "Input type", "Input Strides", "Concrete Inputs"};
	const char *raw[4] = {NULL, NULL, NULL, NULL};
	for (int k = 0; k < 4; k++) {
		uint32_t key = tg_trace_key(c->t, keys[k]);
		const tg_arg *a = key == TG_NONE ? NULL : tg_event_arg(c->t, &c->ev[ev], key);
		if (a && (a->type == TG_ARG_RAW || a->type == TG_ARG_STR))
			raw[k] = tg_trace_str(c->t, a->v.atom);
	}
	tg_shape_list dims, types, concrete;
	tg_perf m = {.kind = TG_PERF_SDPA_FWD, .flops = NAN, .bytes = NAN};
	static const tg_perf_opts po = {0};
	if (tg_shape_parse(&dims, raw[0]) || tg_shape_parse(&types, raw[1]) || tg_shape_parse(&concrete, raw[3]) ||
	    tg_perf_sdpa_model(&m, "aten::scaled_dot_product_attention", &dims, &types, &concrete, &po)) {
		tg_error_clear();
		return NAN;
	}
	return m.flops;
}

/* The rate (FLOPs per ns) of the rows of sheet t whose name passes keep:
 * the sum of their FLOPs over the sum of their kernel time; NAN when none. */
static double sheet_rate(const tg_table *t, int (*keep)(const char *name))
{
	double flops = 0, ns = 0;
	for (size_t r = 0; t && r < tg_table_nrows(t); r++) {
		double g = cell_num(t, r, "GFLOPS_first"), k = cell_num(t, r, "Kernel Time (µs)_sum"),
		       n = cell_num(t, r, "name_count");
		if (!keep(cell_str(t, r, "name")) || !(g > 0) || !(k > 0) || !(n > 0))
			continue;
		flops += g * 1e9 * n;
		ns += k * 1e3;
	}
	return ns > 0 ? flops / ns : NAN;
}

static int fused_name(const char *name)
{
	return strstr(name, "flash") || strstr(name, "efficient") || strstr(name, "cudnn") || strstr(name, "fused");
}

static int any_name(const char *name)
{
	(void)name;
	return 1;
}

struct attn {
	size_t calls, math, fused;
	double math_ns, math_flops;
	uint32_t first;
	int64_t last;
	char backend[96]; /* a fused backend seen */
};

/* The backend op under SDPA call ev: the first cpu_op named
 * "aten::_scaled_dot_product_..." below it (a child, or deeper: autocast
 * dispatches the call to itself once more), or TG_NONE. */
static uint32_t backend_of(const tg_fctx *c, uint32_t ev, int depth)
{
	tg_tree_child_iter it;
	uint32_t k;
	for (tg_tree_child_iter_init(&it, c->tree, ev); depth < 8 && tg_tree_child_next(&it, &k);) {
		if (c->ev[k].kind != TG_KIND_CPU_OP)
			continue;
		if (!strncmp(tg_trace_str(c->t, c->ev[k].name), "aten::_scaled_dot_product_", 26))
			return k;
		uint32_t b = backend_of(c, k, depth + 1);
		if (b != TG_NONE)
			return b;
	}
	return TG_NONE;
}

/* 1 when an ancestor of ev is an SDPA call too (the outer one counts). */
static int nested_sdpa(const tg_fctx *c, uint32_t ev)
{
	int d = 0;
	for (uint32_t p = tg_tree_parent(c->tree, ev); p != TG_NONE && d < 64; p = tg_tree_parent(c->tree, p), d++)
		if (c->ev[p].kind == TG_KIND_CPU_OP &&
		    !strcmp(tg_trace_str(c->t, c->ev[p].name), "aten::scaled_dot_product_attention"))
			return 1;
	return 0;
}

static void attn_call(struct attn *a, const tg_fctx *c, uint32_t i)
{
	uint32_t b = backend_of(c, i, 0);
	a->calls++;
	if (b == TG_NONE)
		return;
	const char *name = tg_trace_str(c->t, c->ev[b].name);
	if (!strcmp(name, "aten::_scaled_dot_product_attention_math")) {
		a->math++;
		a->math_ns += subtree_kernels(c, b, 0);
		a->math_flops += sdpa_flops(c, i);
		if (a->first == TG_NONE)
			a->first = i;
		a->last = tg_event_end(c->t, &c->ev[i]);
	} else {
		a->fused++;
		snprintf(a->backend, sizeof(a->backend), "%s", name);
	}
}

static int attention(tg_fctx *c, const tg_table *const *sheets, size_t nsheets)
{
	if (!tg_fctx_limits(c, TG_FINDING_ATTENTION_BACKEND)->enabled)
		return 0;
	if (!c->nhost)
		return tg_fctx_not_evaluated(c, TG_FINDING_ATTENTION_BACKEND, "no CPU side in the trace (no ops)");
	struct attn a = {.first = TG_NONE};
	for (size_t i = 0; i < c->ne; i++)
		if (c->ev[i].kind == TG_KIND_CPU_OP && tg_fctx_selected(c, (uint32_t)i) &&
		    !strcmp(tg_trace_str(c->t, c->ev[i].name), "aten::scaled_dot_product_attention") &&
		    !nested_sdpa(c, (uint32_t)i))
			attn_call(&a, c, (uint32_t)i);
	tg_finding *f = tg_fctx_add(c, TG_FINDING_ATTENTION_BACKEND);
	if (!f)
		return TG_ENOMEM;
	f->count = (double)a.math / (double)c->nsteps;
	if (!a.math) {
		tg_fctx_cost(f, c, 0, NULL);
		if (a.calls)
			snprintf(f->evidence, sizeof(f->evidence),
			         "%.3g scaled_dot_product_attention calls a step, none on the "
			         "math path (%s)",
			         (double)a.calls / (double)c->nsteps, a.fused ? a.backend : "backend not seen");
		else
			snprintf(f->evidence, sizeof(f->evidence), "no scaled_dot_product_attention call");
		return 0;
	}
	/* what a fused kernel would take: the math path's FLOPs at the trace's own rate */
	double rate = sheet_rate(sheet(sheets, nsheets, "SDPA_fwd"), fused_name);
	const char *ref = "its fused attention";
	if (isnan(rate)) {
		rate = sheet_rate(sheet(sheets, nsheets, "GEMM"), any_name);
		ref = "its GEMMs";
	}
	double fused = a.math_flops > 0 && rate > 0 ? a.math_flops / rate : NAN;
	char basis[160];
	if (isnan(fused))
		snprintf(basis, sizeof(basis),
		         "the math path's forward kernel time (no FLOPs or rate to compare with)");
	else
		snprintf(basis, sizeof(basis),
		         "the math path's forward kernel time less its FLOPs at the rate of %s "
		         "(%.0f TFLOPS/s; the backward is not counted)",
		         ref, rate / 1e3);
	tg_fctx_cost(f, c, isnan(fused) ? a.math_ns : a.math_ns > fused ? a.math_ns - fused : 0, basis);
	f->start_ns = c->ev[a.first].ts;
	f->end_ns = a.last;
	char t[32];
	tg_fstr_time(t, sizeof(t), a.math_ns / (double)c->nsteps);
	snprintf(f->evidence, sizeof(f->evidence),
	         "%.3g of %.3g scaled_dot_product_attention calls a step ran "
	         "aten::_scaled_dot_product_attention_math (bmm, softmax, bmm): %s a step of forward kernel time",
	         f->count, (double)a.calls / (double)c->nsteps, t);
	if (a.fused)
		tg_fstr_add(f->evidence, sizeof(f->evidence), "; %zu others ran %s", a.fused, a.backend);
	return 0;
}

/* ------------------------------------------------------------ GEMMs */

/* Bytes per element of a GEMM sheet's dtype cell ("('c10::BFloat16', ...)"), 0 unknown. */
static int elem_size(const char *dt)
{
	if (strstr(dt, "Float8") || strstr(dt, "float8"))
		return 1;
	if (strstr(dt, "BFloat16") || strstr(dt, "Half") || strstr(dt, "bfloat16") || strstr(dt, "float16"))
		return 2;
	if (strstr(dt, "double") || strstr(dt, "Double"))
		return 8;
	if (strstr(dt, "float") || strstr(dt, "Float"))
		return 4;
	return 0;
}

/* 1 when GEMM row r has a dimension of 64 or more that is not a multiple of
 * the alignment; which into bad ("N=3076"). */
static int misaligned(const tg_table *t, size_t r, int align_bytes, char *bad, size_t cap)
{
	int es = elem_size(cell_str(t, r, "param: dtype_A_B"));
	bad[0] = 0;
	if (!es || align_bytes < es)
		return 0;
	int64_t al = align_bytes / es;
	static const char *const dims[3] = {"param: M", "param: N", "param: K"};
	for (int d = 0; d < 3; d++) {
		double v = cell_num(t, r, dims[d]);
		if (isnan(v) || v < 64 || (int64_t)v % al == 0)
			continue;
		tg_fstr_add(bad, cap, "%s%c=%lld", bad[0] ? " " : "", dims[d][7], (long long)v);
	}
	return bad[0] != 0;
}

struct gemm_sum {
	double mis_ns, mis_flops, ok_ns[9], ok_flops[9]; /* by element size */
	size_t rows, calls;
	int es;
};

static int gemm(tg_fctx *c, const tg_table *t, uint8_t *bad_rows)
{
	const tg_finding_limits *lim = tg_fctx_limits(c, TG_FINDING_GEMM_ALIGNMENT);
	if (!lim->enabled)
		return 0;
	if (!c->nhost)
		return tg_fctx_not_evaluated(c, TG_FINDING_GEMM_ALIGNMENT,
		                             "no CPU side in the trace (no ops, no shapes)");
	if (!t || !tg_table_nrows(t))
		return tg_fctx_not_evaluated(c, TG_FINDING_GEMM_ALIGNMENT,
		                             "no GEMM op with shapes (record_shapes=True "
		                             "gives them)");
	struct gemm_sum s = {0};
	char ev[640] = "";
	size_t nr = tg_table_nrows(t);
	for (size_t r = 0; r < nr; r++) {
		char bad[64];
		int es = elem_size(cell_str(t, r, "param: dtype_A_B"));
		double g = cell_num(t, r, "GFLOPS_first") * 1e9 * cell_num(t, r, "name_count");
		double k = cell_num(t, r, "Kernel Time (µs)_sum") * 1e3;
		if (!misaligned(t, r, (int)lim->param, bad, sizeof(bad))) {
			if (es && g > 0 && k > 0) {
				s.ok_ns[es] += k;
				s.ok_flops[es] += g;
			}
			continue;
		}
		bad_rows[r] = 1;
		s.rows++;
		s.calls += (size_t)cell_num(t, r, "name_count");
		s.mis_ns += k > 0 ? k : 0;
		s.mis_flops += g > 0 ? g : 0;
		s.es = es;
		if (s.rows <= 3)
			tg_fstr_add(ev, sizeof(ev), "%s%s M=%.0f N=%.0f K=%.0f (%s) at %.0f TFLOPS/s",
			            s.rows > 1 ? "; " : "", cell_str(t, r, "name"), cell_num(t, r, "param: M"),
			            cell_num(t, r, "param: N"), cell_num(t, r, "param: K"), bad,
			            cell_num(t, r, "TFLOPS/s_mean"));
	}
	tg_finding *f = tg_fctx_add(c, TG_FINDING_GEMM_ALIGNMENT);
	if (!f)
		return TG_ENOMEM;
	if (!s.rows) {
		tg_fctx_cost(f, c, 0, NULL);
		snprintf(f->evidence, sizeof(f->evidence),
		         "%zu GEMM shapes, every dimension of 64 or more a multiple of %g "
		         "bytes",
		         nr, lim->param);
		return 0;
	}
	f->count = (double)s.calls / (double)c->nsteps;
	double rate = s.ok_ns[s.es] > 0 ? s.ok_flops[s.es] / s.ok_ns[s.es] : NAN;
	double ideal = rate > 0 ? s.mis_flops / rate : NAN;
	char basis[160];
	if (isnan(ideal))
		snprintf(basis, sizeof(basis),
		         "their whole kernel time (no aligned GEMM of that dtype to compare with)");
	else
		snprintf(basis, sizeof(basis),
		         "their kernel time less their FLOPs at the %.0f TFLOPS/s the aligned GEMMs "
		         "of the same dtype reach",
		         rate / 1e3);
	tg_fctx_cost(f, c, isnan(ideal) ? s.mis_ns : s.mis_ns > ideal ? s.mis_ns - ideal : 0, basis);
	char k[32];
	tg_fstr_time(k, sizeof(k), s.mis_ns / (double)c->nsteps);
	snprintf(f->evidence, sizeof(f->evidence),
	         "%zu GEMM shape%s with a dimension not a multiple of %g bytes, %.3g "
	         "calls and %s of kernel time a step: ",
	         s.rows, s.rows == 1 ? "" : "s", lim->param, f->count, k);
	tg_fstr_add(f->evidence, sizeof(f->evidence), "%s", ev);
	if (s.rows > 3)
		tg_fstr_add(f->evidence, sizeof(f->evidence), "; and %zu more", s.rows - 3);
	return 0;
}

/* ------------------------------------------------------------ roofline */

struct low {
	double excess;
	const tg_table *t;
	size_t r;
};

static int cmp_low(const void *a, const void *b)
{
	const struct low *x = a, *y = b;
	return (x->excess < y->excess) - (x->excess > y->excess);
}

static int low_efficiency(tg_fctx *c, const tg_table *const *s, size_t n, const uint8_t *bad_gemm, int have_spec)
{
	const tg_finding_limits *lim = tg_fctx_limits(c, TG_FINDING_LOW_EFFICIENCY);
	if (!lim->enabled)
		return 0;
	if (!have_spec)
		return tg_fctx_not_evaluated(
			c, TG_FINDING_LOW_EFFICIENCY,
			"the GPU is not recognised, its peaks unknown (report --gpu NAME names it)");
	if (!c->nhost)
		return tg_fctx_not_evaluated(c, TG_FINDING_LOW_EFFICIENCY,
		                             "no CPU side in the trace (no ops, no shapes)");
	struct low *v = NULL;
	size_t nv = 0, cap = 0, rows = 0;
	double total = 0;
	for (size_t i = 0; i < n; i++) {
		int is_gemm = !strcmp(tg_table_name(s[i]), "GEMM");
		for (size_t r = 0; r < tg_table_nrows(s[i]); r++) {
			double pct = cell_num(s[i], r, "Pct Roofline_mean"),
			       roof = cell_num(s[i], r, "Roofline Time (µs)_first");
			double k = cell_num(s[i], r, "Kernel Time (µs)_sum"), cnt = cell_num(s[i], r, "name_count");
			if (isnan(pct) || !(roof > 0) || !(k > 0) || !(cnt > 0))
				continue;
			rows++;
			if (pct >= lim->param || k / cnt < 20 || (is_gemm && bad_gemm[r]))
				continue;
			double excess = (k - roof * cnt) * 1e3;
			if (excess <= 0)
				continue;
			if (tg_grow((void **)&v, &cap, nv + 1, sizeof(*v))) {
				free(v);
				return TG_ENOMEM;
			}
			v[nv++] = (struct low){excess, s[i], r};
			total += excess;
		}
	}
	if (!rows) {
		free(v);
		return tg_fctx_not_evaluated(c, TG_FINDING_LOW_EFFICIENCY, "no op with a perf model and shapes");
	}
	tg_finding *f = tg_fctx_add(c, TG_FINDING_LOW_EFFICIENCY);
	if (!f) {
		free(v);
		return TG_ENOMEM;
	}
	f->count = (double)nv;
	tg_fctx_cost(f, c, total, "the kernel time above the roofline time of the ops under the limit");
	snprintf(f->evidence, sizeof(f->evidence),
	         "%zu of %zu op shapes at less than %g %% of their roofline with "
	         "kernels of 20 us or more",
	         nv, rows, lim->param);
	if (nv > 1)
		qsort(v, nv, sizeof(*v), cmp_low);
	for (size_t i = 0; i < nv && i < 3; i++) {
		char t[32];
		tg_fstr_time(t, sizeof(t), cell_num(v[i].t, v[i].r, "Kernel Time (µs)_sum") * 1e3 / (double)c->nsteps);
		tg_fstr_add(f->evidence, sizeof(f->evidence), "%s %s (%s) at %.1f %% of its roofline, %s a step",
		            i ? ";" : ":", cell_str(v[i].t, v[i].r, "name"), tg_table_name(v[i].t),
		            cell_num(v[i].t, v[i].r, "Pct Roofline_mean"), t);
	}
	free(v);
	return 0;
}

/* ------------------------------------------------------------ the family */

/* The GPU's peaks: opts->gpu, else recognised among the built-in GPUs
 * (*own holds them; the caller frees it). */
static const tg_gpu_spec *gpu_spec(const tg_fctx *c, tg_gpu_specs **own)
{
	*own = NULL;
	if (c->o->gpu)
		return c->o->gpu;
	size_t nd;
	const tg_device *d = tg_trace_devices(c->t, &nd);
	const tg_gpu_spec *g = NULL;
	if (!nd || tg_gpu_specs_new(own))
		return NULL;
	if (tg_gpu_specs_match_device(&g, *own, c->t, &d[0])) {
		tg_error_clear();
		return NULL;
	}
	return g;
}

int tg_findings_check_ops(tg_fctx *c)
{
	tg_table **mine = NULL;
	size_t nmine = 0;
	const tg_table *const *s = c->o->sheets;
	size_t ns = c->o->nsheets;
	tg_gpu_specs *own;
	const tg_gpu_spec *spec = gpu_spec(c, &own);
	int rc = 0;
	if (!s) {
		tg_timebase tb = {0, 0};
		if ((rc = tg_perf_sheets(&mine, &nmine, c->tree, &tb, c->step, spec)))
			goto done;
		s = (const tg_table *const *)mine;
		ns = nmine;
	}
	const tg_table *g = sheet(s, ns, "GEMM");
	uint8_t *bad = tg_calloc(g && tg_table_nrows(g) ? tg_table_nrows(g) : 1, 1);
	if (!bad) {
		rc = TG_ENOMEM;
		goto done;
	}
	int have_spec = 0; /* the sheets have the roofline columns */
	for (size_t i = 0; i < ns; i++)
		have_spec |= tg_table_find_column(s[i], "Pct Roofline_mean") >= 0;
	if (!(rc = attention(c, s, ns)) && !(rc = gemm(c, g, bad)))
		rc = low_efficiency(c, s, ns, bad, have_spec || (!ns && spec));
	free(bad);
done:
	tg_tables_free(mine, nmine);
	tg_gpu_specs_free(own);
	return rc;
}
