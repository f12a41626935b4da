/*
 * collectives_impl.h - what the collective tables over several ranks share
 * (collectives_gather.c, collectives_rank.c, collectives_sync.c): one
 * collective of one rank as a record, the gathering of every rank's
 * records, and small comparisons and table setters. Not public:
 * core/analysis/collectives.h is the interface.
 */
#ifndef TG_COLLECTIVES_IMPL_H
#define TG_COLLECTIVES_IMPL_H

#include "collectives.h"
#include "describe.h"

#include <math.h>
#include <string.h>

/* One collective of one rank. */
struct rec {
	tg_collective c;
	int64_t rank;
	size_t pos;        /* position in the rank's list (start-time order) */
	const char *group; /* matching group: pg name, "Unknown_Group", "all", or NULL with gstream */
	int64_t gstream;   /* "stream S" group when group is NULL */
	int64_t index;     /* index_in_group */
	int in_step;       /* 1: the kernel falls in the selected step (or no step selected) */
};

/* All collectives of all ranks, rank by rank (ascending), each in
 * start-time order; in_step marks those whose kernel falls in
 * ProfilerStep#step on its rank (all of them when step < 0). *out is the
 * caller's (free). Returns 0, or TG_ENOMEM with the error set. */
int tg_collectives_gather(struct rec **out, size_t *nout, const tg_tree *const *trees, size_t n, int64_t step);
/* NULL sorts first. */
static inline int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static inline int cmp_i64(int64_t a, int64_t b) { return (a > b) - (a < b); }

static inline int fail_nomem(void) { return tg_error_set(TG_ENOMEM, "out of memory"); }

static inline void set_opt_str(tg_table *t, size_t row, size_t col, const char *s, int *rc)
{
	if (s && tg_table_set_str(t, row, col, s))
		*rc = TG_ENOMEM;
}

static inline void set_opt_int(tg_table *t, size_t row, size_t col, int64_t v)
{
	if (v >= 0)
		tg_table_set_int(t, row, col, v);
}

static inline void set_opt_num(tg_table *t, size_t row, size_t col, double v)
{
	if (!isnan(v))
		tg_table_set_num(t, row, col, v);
}

#endif
