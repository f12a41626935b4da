/* timebase.c - event spans in a time base (timebase.h): merging, lengths, overlaps. */
#include "timebase.h"

#include <math.h>
#include <stdlib.h>

double tg_ns_to_us_f64(int64_t ns)
{
	if (ns % 1000 == 0)
		return (double)(ns / 1000); /* whole microseconds: exact up to 2^53 us */
	if (ns > -(INT64_C(1) << 53) && ns < (INT64_C(1) << 53))
		return (double)ns / 1000.0; /* one correctly rounded division */
	return (double)((long double)ns / 1000.0L);
}

static int cmp_span(const void *a, const void *b)
{
	const tg_span *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

size_t tg_span_merge(tg_span *v, size_t n)
{
	if (n == 0)
		return 0;
	for (size_t i = 1; i < n; i++)
		if (v[i].start < v[i - 1].start) {
			qsort(v, n, sizeof(*v), cmp_span);
			break;
		}
	size_t o = 0;
	for (size_t i = 1; i < n; i++) {
		if (v[i].start <= v[o].end) {
			if (v[i].end > v[o].end)
				v[o].end = v[i].end;
		} else {
			v[++o] = v[i];
		}
	}
	return o + 1;
}

double tg_span_length(const tg_span *m, size_t n)
{
	double total = 0;
	for (size_t i = 0; i < n; i++)
		total += m[i].end - m[i].start;
	return total;
}

double tg_span_overlap(const tg_span *a, size_t na, const tg_span *b, size_t nb)
{
	double total = 0;
	size_t i = 0, j = 0;
	while (i < na && j < nb) {
		double s = fmax(a[i].start, b[j].start), e = fmin(a[i].end, b[j].end);
		if (e > s)
			total += e - s;
		if (a[i].end < b[j].end)
			i++;
		else
			j++;
	}
	return total;
}

double tg_span_union(tg_span *v, size_t n)
{
	return tg_span_length(v, tg_span_merge(v, n));
}
