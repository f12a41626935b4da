/*
 * call_pairs.c - the records the alignment pairs (call_pairs.h). The
 * records of one trace are contiguous and in event order (measure.c adds
 * them walking the events), so a matched event's record is found by
 * searching its trace's range, forward from where the last search ended.
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

/* The first record in [lo, hi) whose event is not below ev (binary search). */
static size_t lower_bound(const tg_kernel_rec *k, size_t lo, size_t hi, uint32_t ev)
{
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (k[mid].event < ev)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The record of event ev in [lo, hi), or TG_NONE; *hint (in [lo, hi]) is
 * where the last search ended, and is moved to where this one ends. The
 * matched events mostly rise with the base records (the alignment keeps
 * the order), so that the search gallops forward from the hint: a few
 * records, in order, where a binary search over a whole trace's records
 * (88 bytes each, 176 MB at 1 GB of JSON) missed the cache at every step.
 * The same record as a binary search over [lo, hi): the first whose event
 * is not below ev. */
static uint32_t record_of(const tg_kernel_rec *k, size_t lo, size_t hi, uint32_t ev, size_t *hint)
{
	size_t h = *hint, a, b;
	if (h > lo && k[h - 1].event >= ev) { /* behind the hint */
		a = lo;
		b = h;
	} else { /* from the hint on: [h, a) below ev, then b at or past it */
		size_t step = 1;
		a = b = h;
		while (b < hi && k[b].event < ev) {
			a = b + 1;
			b = h + step;
			step *= 2;
		}
		b = b < hi ? b : hi;
	}
	size_t at = lower_bound(k, a, b, ev);
	*hint = at;
	return at < hi && k[at].event == ev ? (uint32_t)at : TG_NONE;
}

int tg_call_pairs_fill(tg_measure *base, tg_measure *next, const tg_tree_diff *d, uint32_t bt, uint32_t nt,
                       size_t *npaired)
{
	size_t nb, nx, b0, b1, x0, x1, made = 0;
	tg_kernel_rec *kb = tg_measure_kernels_mut(base, &nb), *kx = tg_measure_kernels_mut(next, &nx);
	trace_range(&b0, &b1, kb, nb, bt);
	trace_range(&x0, &x1, kx, nx, nt);
	size_t hint = x0;
	for (size_t i = b0; i < b1; i++) {
		uint32_t ev = tg_tree_diff_match(d, TG_DIFF_SIDE_BASE, kb[i].event);
		uint32_t j = ev == TG_NONE || x0 == x1 ? TG_NONE : record_of(kx, x0, x1, ev, &hint);
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
