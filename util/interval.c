/* interval.c - sorting and merging intervals. */
#include "interval.h"

#include <stdlib.h>

static int cmp_start(const void *a, const void *b)
{
	const tg_interval *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

void tg_interval_sort(tg_interval *iv, size_t n)
{
	/* most inputs arrive sorted: check before paying for qsort */
	for (size_t i = 1; i < n; i++) {
		if (iv[i].start < iv[i - 1].start) {
			qsort(iv, n, sizeof(*iv), cmp_start);
			return;
		}
	}
}

int64_t tg_interval_union(tg_interval *iv, size_t n)
{
	if (n == 0)
		return 0;
	tg_interval_sort(iv, n);
	int64_t total = 0, s = iv[0].start, e = iv[0].end;
	for (size_t i = 1; i < n; i++) {
		if (iv[i].start <= e) {
			if (iv[i].end > e)
				e = iv[i].end;
		} else {
			total += e - s;
			s = iv[i].start;
			e = iv[i].end;
		}
	}
	return total + (e - s);
}

