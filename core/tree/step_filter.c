/* step_filter.c - which events an analysis looks at: a step, HTA's
 * default window, or the whole trace (rules in step_filter.h). */
#include "step_filter.h"

#include <string.h>

static int is_host_kind(int k)
{
	return k == TG_KIND_PYTHON || k == TG_KIND_CPU_OP || k == TG_KIND_USER_ANNOTATION ||
	       tg_kind_is_launch(k);
}

int tg_step_filter_init(tg_step_filter *f, const tg_tree *tree, int32_t step)
{
	memset(f, 0, sizeof(*f));
	size_t ne;
	f->tree = tree;
	f->events = tg_trace_events(tg_tree_trace(tree), &ne);
	f->steps = tg_tree_steps(tree, &f->nsteps);
	f->step = step;
	f->hta_end = INT64_MAX;
	f->round_us = step == TG_STEP_HTA_ROUNDED;
	if ((step == TG_STEP_HTA || step == TG_STEP_HTA_ROUNDED) && f->nsteps >= 2) {
		const tg_event *last = &f->events[f->steps[f->nsteps - 1].event];
		int64_t end;
		tg_step_filter_span(f, last, &f->hta_end, &end);
	}
	if (step < TG_STEP_HTA_ROUNDED || (step >= 0 && (size_t)step >= f->nsteps))
		return tg_error_set(TG_EINVAL, "step %d: the trace has %zu steps", (int)step,
		                    f->nsteps);
	return 0;
}

/* Step index whose window holds ts, or -1 (tree.h's tg_steps_find). */
static int32_t step_at(const tg_step_filter *f, int64_t ts)
{
	return tg_steps_find(f->steps, f->nsteps, ts);
}

int32_t tg_step_filter_step_of(const tg_step_filter *f, uint32_t ev)
{
	return tg_tree_contains(f->tree, ev) ? tg_tree_step_of(f->tree, ev) : step_at(f, f->events[ev].ts);
}

int tg_step_filter_has(const tg_step_filter *f, uint32_t ev)
{
	if (f->step == TG_STEP_ALL)
		return 1;
	const tg_event *e = &f->events[ev];
	int in_tree = tg_tree_contains(f->tree, ev);
	if (f->step >= 0)
		return in_tree ? tg_tree_step_of(f->tree, ev) == f->step : step_at(f, e->ts) == f->step;
	/* TG_STEP_HTA, TG_STEP_HTA_ROUNDED */
	if (f->hta_end == INT64_MAX)
		return 1;
	if (in_tree && !is_host_kind(e->kind)) {
		uint32_t p = tg_tree_parent(f->tree, ev);
		while (p != TG_NONE && !is_host_kind(f->events[p].kind))
			p = tg_tree_parent(f->tree, p);
		if (p == TG_NONE)
			return 0;
		e = &f->events[p];
	}
	int64_t ts, end;
	tg_step_filter_span(f, e, &ts, &end);
	return ts < f->hta_end;
}

static int64_t floor_us(int64_t ns)
{
	int64_t q = ns / 1000;
	return (ns % 1000 < 0 ? q - 1 : q) * 1000;
}

void tg_step_filter_span(const tg_step_filter *f, const tg_event *e, int64_t *ts, int64_t *end)
{
	*ts = e->ts;
	*end = tg_event_end(tg_tree_trace(f->tree), e);
	if (f->round_us) {
		int64_t up = floor_us(*ts);
		*ts = up == *ts ? up : up + 1000;
		*end = floor_us(*end);
	}
}
