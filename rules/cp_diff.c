/*
 * cp_diff.c - the critical path of each side of a diff and how it moved
 * (see cp_diff.h). Per-step figures make sides with different step counts
 * comparable; a side of several traces (ranks or repeated runs) is their
 * mean, each rank's path being its own.
 *
 * The two sides' summaries are found at once, the new side's on a thread
 * of its own, while the traces hold a million events or fewer: a critical
 * path is a good part of a diff's time (issue 24, docs/scale.md), and a
 * side's summary takes about 100 bytes an event (650 before the graph was
 * made compact), so past a million events the sides are summarized one
 * after the other to keep the peak memory down. (Measured with the compact
 * graph on a pair of 1 GB traces at a load of 6: at once, 220 MB more and
 * no faster than one after the other, so the limit stays.)
 */
#include "cp_diff.h"
#include "../util/affinity.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* Side s from the summaries of its n traces (names: the traces' names,
 * for why). */
static void side_of(tg_cp_side *s, const tg_cp_summary *sum, const char *const *names, size_t n)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < n; i++) {
		if (!sum[i].ok) {
			if (!s->why[0])
				snprintf(s->why, sizeof(s->why), "%s: %s", names[i], sum[i].why);
			continue;
		}
		double steps = sum[i].steps ? (double)sum[i].steps : 1;
		s->length_ns += (double)sum[i].length_ns / steps;
		for (int k = 0; k < TG_CP_NBOUND; k++)
			s->bound_ns[k] += (double)sum[i].bound_ns[k] / steps;
		s->steps += steps;
		s->traces++;
	}
	if (!s->traces)
		return;
	s->ok = 1;
	s->length_ns /= (double)s->traces;
	s->steps /= (double)s->traces;
	for (int k = 0; k < TG_CP_NBOUND; k++)
		s->bound_ns[k] /= (double)s->traces;
	s->dominant = TG_CP_CPU;
	for (int k = 0; k < TG_CP_DEPENDENCY; k++)
		if (s->bound_ns[k] > s->bound_ns[s->dominant])
			s->dominant = (tg_cp_bound)k;
}

void tg_cp_diff_from(tg_cp_diff *out, const tg_cp_summary *base, const char *const *bnames, size_t nbase,
                     const tg_cp_summary *next, const char *const *nnames, size_t nnext)
{
	side_of(&out->base, base, bnames, nbase);
	side_of(&out->next, next, nnames, nnext);
	out->moved = TG_CP_CPU;
	if (out->base.ok && out->next.ok)
		out->moved = out->next.dominant != out->base.dominant ? out->next.dominant : tg_cp_diff_largest_move(out);
}

/* The summaries and names of n trees into sum and names. 0 or TG_ENOMEM. */
static int summarize(tg_cp_summary *sum, const char **names, const tg_tree *const *trees, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		names[i] = tg_trace_name(tg_tree_trace(trees[i]));
		int rc = tg_cp_summarize(&sum[i], trees[i]);
		if (rc)
			return rc;
	}
	return 0;
}

#define CP_PARALLEL_EVENTS (1u << 20)

struct summarize_job {
	tg_cp_summary *sum;
	const char **names;
	const tg_tree *const *trees;
	size_t n;
	int rc;
};

static void *summarize_thread(void *arg)
{
	struct summarize_job *j = arg;
	j->rc = summarize(j->sum, j->names, j->trees, j->n);
	return NULL;
}

int tg_cp_diff_build(tg_cp_diff *out, const tg_tree *const *base, size_t nbase, const tg_tree *const *next,
                     size_t nnext)
{
	size_t n = nbase + nnext;
	tg_cp_summary *sum = tg_calloc(n ? n : 1, sizeof(*sum));
	const char **names = tg_calloc(n ? n : 1, sizeof(*names));
	if (!sum || !names) {
		free(sum);
		free((void *)names);
		return tg_error_set(TG_ENOMEM, "out of memory (critical path)");
	}
	size_t events = 0, ne;
	for (size_t i = 0; i < n; i++) {
		tg_trace_events(tg_tree_trace(i < nbase ? base[i] : next[i - nbase]), &ne);
		events += ne;
	}
	struct summarize_job j = {sum + nbase, names + nbase, next, nnext, 0};
	pthread_t th;
	int threaded = events <= CP_PARALLEL_EVENTS && tg_affinity_thread_create(&th, summarize_thread, &j) == 0;
	int rc = summarize(sum, names, base, nbase);
	if (threaded)
		pthread_join(th, NULL);
	else if (!rc)
		summarize_thread(&j);
	/* the base's failure first, as one after the other; the thread's error
	 * message is its own (per thread): set it here */
	if (!rc && j.rc)
		rc = tg_error_set(j.rc, "out of memory (critical path)");
	if (!rc)
		tg_cp_diff_from(out, sum, names, nbase, sum + nbase, names + nbase, nnext);
	free(sum);
	free((void *)names);
	return rc;
}

tg_cp_bound tg_cp_diff_largest_move(const tg_cp_diff *d)
{
	tg_cp_bound best = TG_CP_CPU;
	for (int k = 0; k < TG_CP_DEPENDENCY; k++)
		if (fabs(d->next.bound_ns[k] - d->base.bound_ns[k]) >
		    fabs(d->next.bound_ns[best] - d->base.bound_ns[best]))
			best = (tg_cp_bound)k;
	return best;
}
