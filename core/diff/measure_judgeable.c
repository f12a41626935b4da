/*
 * measure_judgeable.c - whether a side's measures hold something to judge
 * (measure.h: tg_measure_judgeable), read through the measure's public
 * accessors: every trace has GPU activity, inside its steps when it has
 * steps.
 */
#include "measure.h"
#include "../../util/tg.h"

int tg_measure_judgeable(const tg_measure *m, const char *side)
{
	size_t nr;
	const tg_kernel_rec *r = tg_measure_kernels(m, &nr);
	for (size_t t = 0; t < tg_measure_traces(m); t++) {
		size_t all = 0, in_steps = 0;
		for (size_t i = 0; i < nr; i++) {
			if (r[i].trace != t)
				continue;
			all++;
			in_steps += r[i].unit != TG_NONE;
		}
		if (in_steps)
			continue;
		const char *name = tg_measure_trace_name(m, t);
		if (!all)
			return tg_error_set(TG_ENODATA,
			                    "nothing to judge: the %s trace %s has no GPU activity (no kernel, "
			                    "memcpy or memset)",
			                    side, name);
		return tg_error_set(TG_ENODATA,
		                    "nothing to judge: the %s trace %s has %zu GPU events, none in its %zu "
		                    "profiled steps",
		                    side, name, all, tg_measure_trace_steps(m, t));
	}
	return 0;
}
