/*
 * call_pairs.c - the records the alignment pairs (call_pairs.h). The
 * records of one trace are contiguous and in event order (measure.c adds
 * them walking the events), so a matched event's record is found by
 * binary search in its trace's range.
 */
#include "call_pairs.h"

/* The first record of trace t in k (n records), and one past its last. */
static void trace_range(size_t *lo, size_t *hi, const tg_kernel_rec *k, size_t n, uint32_t t)
{
	size_t a = 0, b = n;
	while (a < b) {
		size_t mid = (a + b) / 2;
		if (k[mid].trace < t)
			a = mid + 1;
		else
			b = mid;
	}
	*lo = a;
	for (b = a; b < n && k[b].trace == t; b++)
		;
	*hi = b;
}

/* The record of event ev in [lo, hi), or TG_NONE. */
static uint32_t record_of(const tg_kernel_rec *k, size_t lo, size_t hi, uint32_t ev)
{
	size_t end = hi;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (k[mid].event < ev)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < end && k[lo].event == ev ? (uint32_t)lo : TG_NONE;
}

int tg_call_pairs_fill(tg_measure *base, tg_measure *next, const tg_tree_diff *d, uint32_t bt, uint32_t nt,
                       size_t *npaired)
{
	size_t nb, nx, b0, b1, x0, x1, made = 0;
	tg_kernel_rec *kb = tg_measure_kernels_mut(base, &nb), *kx = tg_measure_kernels_mut(next, &nx);
	trace_range(&b0, &b1, kb, nb, bt);
	trace_range(&x0, &x1, kx, nx, nt);
	for (size_t i = b0; i < b1; i++) {
		uint32_t ev = tg_tree_diff_match(d, TG_DIFF_SIDE_BASE, kb[i].event);
		uint32_t j = ev == TG_NONE || x0 == x1 ? TG_NONE : record_of(kx, x0, x1, ev);
		if (j == TG_NONE || kx[j].pair != TG_NONE)
			continue;
		kb[i].pair = j;
		kx[j].pair = (uint32_t)i;
		made++;
	}
	if (npaired)
		*npaired = made;
	return 0;
}
