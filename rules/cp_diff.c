/*
 * cp_diff.c - the critical path of each side of a diff and how it moved
 * (see cp_diff.h). Per-step figures make sides with different step counts
 * comparable; a side of several traces (ranks or repeated runs) is their
 * mean, each rank's path being its own. The two sides are found at once,
 * the new one on a thread of its own (issue 24: a diff's time), while the
 * traces hold a million events or fewer; past that one after the other
 * (each side's graph takes about 650 bytes an event). Each side only reads
 * its own trees.
 */
#include "cp_diff.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define CP_PARALLEL_EVENTS (1u << 20)

/* Fills s from the n trees; returns the code of the last trace that gave
 * no path (0: none). */
static int side_of(tg_cp_side *s, const tg_tree *const *trees, size_t n)
{
	int code = 0;
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < n; i++) {
		tg_critical_path *cp;
		if (tg_critical_path_build(&cp, trees[i], NULL)) {
			code = tg_error_last_code();
			const char *why = tg_error_last();
			if (!strncmp(why, "critical path: ", 15))
				why += 15;
			if (!s->why[0])
				snprintf(s->why, sizeof(s->why), "%s: %s", tg_trace_name(tg_tree_trace(trees[i])), why);
			continue;
		}
		const tg_cp_stats *st = tg_cp_stats_get(cp);
		double steps = st->steps ? (double)st->steps : 1;
		const int64_t *b = tg_cp_breakdown(cp);
		s->length_ns += (double)tg_cp_length_ns(cp) / steps;
		for (int k = 0; k < TG_CP_NBOUND; k++)
			s->bound_ns[k] += (double)b[k] / steps;
		s->steps += steps;
		s->traces++;
		tg_critical_path_free(cp);
	}
	if (!s->traces)
		return code;
	s->ok = 1;
	s->length_ns /= (double)s->traces;
	s->steps /= (double)s->traces;
	for (int k = 0; k < TG_CP_NBOUND; k++)
		s->bound_ns[k] /= (double)s->traces;
	s->dominant = TG_CP_CPU;
	for (int k = 0; k < TG_CP_DEPENDENCY; k++)
		if (s->bound_ns[k] > s->bound_ns[s->dominant])
			s->dominant = (tg_cp_bound)k;
	return code;
}

struct side_job {
	tg_cp_side *s;
	const tg_tree *const *trees;
	size_t n;
	int code;
};

static void *side_thread(void *arg)
{
	struct side_job *j = arg;
	j->code = side_of(j->s, j->trees, j->n);
	return NULL;
}

int tg_cp_diff_build(tg_cp_diff *out, const tg_tree *const *base, size_t nbase, const tg_tree *const *next,
                     size_t nnext)
{
	/* at once while the two graphs are small; one after the other past a
	 * million events (a gigabyte trace's graph holds over a gigabyte) */
	size_t events = 0, ne;
	for (size_t i = 0; i < nbase + nnext; i++) {
		tg_trace_events(tg_tree_trace(i < nbase ? base[i] : next[i - nbase]), &ne);
		events += ne;
	}
	struct side_job j = {&out->next, next, nnext, 0};
	pthread_t th;
	int threaded = events <= CP_PARALLEL_EVENTS && pthread_create(&th, NULL, side_thread, &j) == 0;
	int code = side_of(&out->base, base, nbase);
	if (threaded)
		pthread_join(th, NULL);
	else
		side_thread(&j);
	/* a failure of another kind than "no path" (out of memory) stops the
	 * diff: the last failure, the new side's before the base's */
	if (j.code)
		code = j.code;
	if ((!out->base.ok || !out->next.ok) && code == TG_ENOMEM)
		return tg_error_set(TG_ENOMEM, "out of memory (critical path)");
	return 0;
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

/* A signed change in ms with as many decimals as its size needs. */
static void signed_ms(char *buf, size_t cap, double ns)
{
	double ms = ns / 1e6, a = fabs(ms);
	snprintf(buf, cap, a >= 10 ? "%+.1f ms" : a >= 1 ? "%+.2f ms" : "%+.3f ms", ms);
}

static void plain_ms(char *buf, size_t cap, double ns)
{
	double ms = ns / 1e6;
	snprintf(buf, cap, ms >= 10 ? "%.1f ms" : ms >= 1 ? "%.2f ms" : "%.3f ms", ms);
}

void tg_cp_diff_sentence(char *buf, size_t cap, const tg_cp_diff *d, const char *arrow)
{
	if (!d->base.ok || !d->next.ok) {
		snprintf(buf, cap, "critical path not compared: %s", !d->base.ok ? d->base.why : d->next.why);
		return;
	}
	char a[32], b[32], mv[32];
	plain_ms(a, sizeof(a), d->base.length_ns);
	plain_ms(b, sizeof(b), d->next.length_ns);
	tg_cp_bound m = d->next.dominant != d->base.dominant ? d->next.dominant : tg_cp_diff_largest_move(d);
	double delta = d->next.bound_ns[m] - d->base.bound_ns[m], dl = d->next.length_ns - d->base.length_ns;
	signed_ms(mv, sizeof(mv), delta);
	if (d->next.dominant != d->base.dominant) {
		snprintf(buf, cap, "the step became %s: %s of %s (critical path %s %s %s a step)",
		         tg_cp_bound_label(d->next.dominant), mv, tg_cp_bound_name(m), a, arrow, b);
	} else if (fabs(dl) < 1000 && fabs(dl) <= 0.001 * d->base.length_ns) {
		snprintf(buf, cap, "the critical path did not move (%s a step, %s)", b,
		         tg_cp_bound_label(d->next.dominant));
	} else {
		double pct = d->base.length_ns > 0 ? 100.0 * dl / d->base.length_ns : 0;
		snprintf(buf, cap,
		         "the step stays %s; critical path %s %s %s a step (%+.1f %%), most of the move %s of %s",
		         tg_cp_bound_label(d->next.dominant), a, arrow, b, pct, mv, tg_cp_bound_name(m));
	}
}
