/*
 * truth.c - the ground truth of what was written (--summary), per step and
 * for the whole trace, as CSV on stderr:
 *
 *   step,kernels,memcpys,gemm_us,sdpa_fwd_us,sdpa_bwd_us,comm_us,memcpy_us,kernel_us,busy_us
 *
 * kernels counts every "kernel" event (NCCL included); gemm_us, sdpa_*_us
 * and comm_us sum the durations of the GEMM (aten::addmm, aten::mm), flash
 * attention forward and backward, and NCCL kernels; kernel_us sums every
 * kernel; busy_us is the length of the union of all kernels and copies.
 * Steps never overlap on the GPU (each begins with a copy that waits for
 * the previous step), so the whole trace's busy time is the sum.
 */
#include "gen.h"

#include <stdlib.h>

static void add_span(gen *g, int64_t ts, int64_t dur)
{
	if (g->nspans + 2 > g->capspans) {
		g->capspans = g->capspans ? 2 * g->capspans : 1024;
		g->spans = xrealloc(g->spans, g->capspans * sizeof(int64_t));
	}
	g->spans[g->nspans++] = ts;
	g->spans[g->nspans++] = ts + dur;
}

void truth_add_kernel(gen *g, const kdesc *k, int64_t ts, int64_t dur)
{
	truth *t = &g->step_truth;
	t->kernels++;
	t->kernel += dur;
	if (k->cls == K_GEMM)
		t->gemm += dur;
	else if (k->cls == K_SDPA_FWD)
		t->sdpa_fwd += dur;
	else if (k->cls == K_SDPA_BWD)
		t->sdpa_bwd += dur;
	else if (k->cls == K_COMM)
		t->comm += dur;
	add_span(g, ts, dur);
}

void truth_add_memcpy(gen *g, int64_t ts, int64_t dur)
{
	g->step_truth.memcpys++;
	g->step_truth.memcpy += dur;
	add_span(g, ts, dur);
}

static int cmp_span(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Length of the union of n/2 [start, end] pairs (sorts them). */
static int64_t union_length(int64_t *s, size_t n)
{
	qsort(s, n / 2, 2 * sizeof(int64_t), cmp_span);
	int64_t total = 0, lo = 0, hi = 0;
	for (size_t i = 0; i < n; i += 2) {
		if (i && s[i] <= hi) {
			if (s[i + 1] > hi)
				hi = s[i + 1];
			continue;
		}
		total += hi - lo;
		lo = s[i];
		hi = s[i + 1];
	}
	return total + hi - lo;
}

static void print_us(FILE *out, int64_t ns)
{
	fprintf(out, ",%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}

static void print_row(FILE *out, const char *label, int64_t step, const truth *t)
{
	if (label)
		fputs(label, out);
	else
		fprintf(out, "%lld", (long long)step);
	fprintf(out, ",%lld,%lld", (long long)t->kernels, (long long)t->memcpys);
	print_us(out, t->gemm);
	print_us(out, t->sdpa_fwd);
	print_us(out, t->sdpa_bwd);
	print_us(out, t->comm);
	print_us(out, t->memcpy);
	print_us(out, t->kernel);
	print_us(out, t->busy);
	fputc('\n', out);
}

void truth_print_header(FILE *out)
{
	fputs("step,kernels,memcpys,gemm_us,sdpa_fwd_us,sdpa_bwd_us,comm_us,memcpy_us,kernel_us,busy_us\n", out);
}

void truth_end_step(gen *g, FILE *out)
{
	truth *t = &g->step_truth, *a = &g->all_truth;
	t->busy = g->nspans ? union_length(g->spans, g->nspans) : 0;
	if (out && g->o->steps)
		print_row(out, NULL, g->step, t);
	a->kernels += t->kernels;
	a->memcpys += t->memcpys;
	a->gemm += t->gemm;
	a->sdpa_fwd += t->sdpa_fwd;
	a->sdpa_bwd += t->sdpa_bwd;
	a->comm += t->comm;
	a->memcpy += t->memcpy;
	a->kernel += t->kernel;
	a->busy += t->busy;
	*t = (truth){0};
	g->nspans = 0;
}

void truth_print_all(gen *g, FILE *out)
{
	print_row(out, "all", 0, &g->all_truth);
}
