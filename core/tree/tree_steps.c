/*
 * tree_steps.c - the steps (ProfilerStep#N host events) and the step of
 * every event (tree_impl.h): host events by time, device events their
 * launch's, orphan device events by a gpu_user_annotation ProfilerStep#N
 * on their track; and the steps read back.
 */
#include "tree_impl.h"

#include <stdlib.h>
#include <string.h>

static int parse_step_number(const char *name, int64_t *n)
{
	static const char prefix[] = "ProfilerStep#";
	/* the first byte first: nearly every name asked about is a cpu_op's
	 * (aten::...), and strncmp was a call for each */
	if (name[0] != 'P' || strncmp(name, prefix, sizeof(prefix) - 1) != 0)
		return -1;
	const char *p = name + sizeof(prefix) - 1;
	if (!*p)
		return -1;
	int64_t v = 0;
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || v > INT64_MAX / 10)
			return -1;
		v = v * 10 + (*p - '0');
	}
	*n = v;
	return 0;
}

static int cmp_step(const void *a, const void *b)
{
	const tg_step *x = a, *y = b;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

int32_t tg_steps_find(const tg_step *steps, size_t n, int64_t ts)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (steps[mid].ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	const tg_step *s = &steps[lo - 1];
	return ts < s->ts + s->dur ? (int32_t)(lo - 1) : -1;
}

/* Index of the step whose host window holds ts, or -1: tg_steps_find's
 * answer, checked first against *last, the step it gave last (the host
 * events come mostly in time order, so that it is nearly always the same
 * step, and the binary search was 1.2 M instructions of an h200-dev
 * tree). The same answer: the last step starting at or before ts, when
 * its window holds ts. */
static int32_t step_at(const tg_tree *tree, int64_t ts, int32_t *last)
{
	const tg_step *st = tree->steps;
	size_t n = tree->nsteps, s = (size_t)*last;
	if (*last >= 0 && st[s].ts <= ts && (s + 1 == n || st[s + 1].ts > ts) && ts < st[s].ts + st[s].dur)
		return *last;
	int32_t found = tg_steps_find(st, n, ts);
	if (found >= 0)
		*last = found;
	return found;
}

/* A step's number and its index in tree->steps. */
struct step_no {
	int64_t number;
	int32_t index;
};

/* By number, then index (equal numbers keep their order: the last wins). */
static int cmp_step_no(const void *a, const void *b)
{
	const struct step_no *x = a, *y = b;
	if (x->number != y->number)
		return x->number < y->number ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/* Device events by track, then start, then index. */
static int cmp_track_ts(const void *a, const void *b, void *ctx)
{
	const tg_event *ev = ctx;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	if (ev[i].track != ev[j].track)
		return ev[i].track < ev[j].track ? -1 : 1;
	if (ev[i].ts != ev[j].ts)
		return ev[i].ts < ev[j].ts ? -1 : 1;
	return (i > j) - (i < j);
}

/* Event i's step index as find_steps keeps it: 16-bit while every step's
 * index fits, else 32-bit (-1: none). */
static inline int32_t step_get(const tg_tree *tree, size_t i)
{
	return tree->step16 ? tree->step16[i] : tree->step_of[i];
}

static inline void step_set(tg_tree *tree, size_t i, int32_t s)
{
	if (tree->step16)
		tree->step16[i] = (int16_t)s;
	else
		tree->step_of[i] = s;
}

int tg_tree_find_steps(tg_tree *tree, const tg_trace *t)
{
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	size_t cap = 0;
	for (size_t i = 0; i < ne; i++) {
		int64_t n;
		if ((ev[i].kind != TG_KIND_CPU_OP && ev[i].kind != TG_KIND_USER_ANNOTATION) ||
		    parse_step_number(tg_trace_str(t, ev[i].name), &n))
			continue;
		if (tg_grow((void **)&tree->steps, &cap, tree->nsteps + 1, sizeof(tg_step)))
			return TG_ENOMEM;
		tree->steps[tree->nsteps++] = (tg_step){n, (uint32_t)i, ev[i].ts, tg_event_dur(t, &ev[i])};
	}
	if (tree->nsteps > 1)
		qsort(tree->steps, tree->nsteps, sizeof(tg_step), cmp_step);
	/* host events: by time; device events: their launch's step; orphans: by
	 * a gpu_user_annotation ProfilerStep#N on their track, else none. In 16
	 * bits when every step's index fits (nearly always: 2 bytes an event,
	 * not 4, and never both at once) */
	if (tree->nsteps < INT16_MAX)
		tree->step16 = tg_malloc((ne + 1) * sizeof(int16_t));
	else
		tree->step_of = tg_malloc((ne + 1) * sizeof(int32_t));
	if (!tree->step16 && !tree->step_of)
		return TG_ENOMEM;
	int32_t last = -1;
	for (size_t i = 0; i < ne; i++)
		step_set(tree, i, tree->nsteps && tg_tree_is_host_kind(ev[i].kind) ? step_at(tree, ev[i].ts, &last) : -1);
	for (size_t i = 0; i < ne; i++) {
		if (!tg_tree_is_device_event(&ev[i]))
			continue;
		uint32_t p = tg_tree_parent_at(tree, i);
		while (p != TG_NONE && !tg_tree_is_host_kind(ev[p].kind))
			p = tg_tree_parent_at(tree, p);
		if (p != TG_NONE)
			step_set(tree, i, step_get(tree, p));
	}
	int have_gpu_steps = 0;
	for (size_t i = 0; i < ne && !have_gpu_steps; i++)
		have_gpu_steps = ev[i].kind == TG_KIND_GPU_ANNOTATION;
	if (!have_gpu_steps || !tree->nsteps)
		return 0;
	/* the orphan device events, by track and start, so that each annotation
	 * finds its own by binary search (one scan of the trace per step would
	 * make the build quadratic: 375 steps of a 1 GB trace) */
	size_t no = 0;
	uint32_t *orph = tg_malloc((ne + 1) * sizeof(uint32_t));
	struct step_no *byno = tg_malloc((tree->nsteps + 1) * sizeof(*byno));
	if (!orph || !byno) {
		free(orph);
		free(byno);
		return TG_ENOMEM;
	}
	for (size_t j = 0; j < ne; j++)
		if (step_get(tree, j) < 0 && tg_kind_is_gpu(ev[j].kind) && tg_tree_parent_at(tree, j) == TG_NONE)
			orph[no++] = (uint32_t)j;
	if (no > 1)
		qsort_r(orph, no, sizeof(uint32_t), cmp_track_ts, (void *)ev);
	for (size_t k = 0; k < tree->nsteps; k++)
		byno[k] = (struct step_no){tree->steps[k].number, (int32_t)k};
	if (tree->nsteps > 1)
		qsort(byno, tree->nsteps, sizeof(*byno), cmp_step_no);
	for (size_t i = 0; i < ne && no; i++) {
		int64_t n;
		if (ev[i].kind != TG_KIND_GPU_ANNOTATION ||
		    parse_step_number(tg_trace_str(t, ev[i].name), &n))
			continue;
		/* the last step with that number, as a linear search from the start would find */
		size_t lo = 0, hi = tree->nsteps;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (byno[mid].number <= n)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0 || byno[lo - 1].number != n)
			continue;
		int32_t s = byno[lo - 1].index;
		/* the first orphan on the annotation's track starting at or after it */
		lo = 0, hi = no;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			const tg_event *x = &ev[orph[mid]];
			if (x->track < ev[i].track || (x->track == ev[i].track && x->ts < ev[i].ts))
				lo = mid + 1;
			else
				hi = mid;
		}
		int64_t end = tg_event_end(t, &ev[i]);
		for (size_t k = lo; k < no && ev[orph[k]].track == ev[i].track && ev[orph[k]].ts < end; k++)
			if (step_get(tree, orph[k]) < 0)
				step_set(tree, orph[k], s);
	}
	free(orph);
	free(byno);
	return 0;
}

int32_t tg_tree_step_of(const tg_tree *tree, uint32_t ev)
{
	if (tree->step16)
		return tree->step16[ev];
	return tree->step_of ? tree->step_of[ev] : (int32_t)tg_tree_pack_get8(&tree->steps_of, ev);
}

int32_t tg_tree_step_index(const tg_tree *tree, int64_t number)
{
	int32_t idx = -1;
	for (size_t i = 0; i < tree->nsteps; i++)
		if (tree->steps[i].number == number)
			idx = (int32_t)i;
	return idx;
}

const tg_step *tg_tree_steps(const tg_tree *tree, size_t *n)
{
	*n = tree->nsteps;
	return tree->steps;
}
