/*
 * critical_path_summary.c - one trace's critical path in a few figures
 * (critical_path.h: tg_cp_summarize), what a diff compares and what run
 * data keeps of it, so that a stored run is compared without its trace.
 */
#include "critical_path.h"

#include <stdio.h>
#include <string.h>

int tg_cp_summarize(tg_cp_summary *out, const tg_tree *tree)
{
	memset(out, 0, sizeof(*out));
	tg_critical_path *cp;
	tg_cp_opts o = {.summary_only = 1};
	int rc = tg_critical_path_build(&cp, tree, &o);
	if (rc == TG_ENOMEM)
		return rc;
	if (rc) {
		const char *why = tg_error_last();
		if (!strncmp(why, "critical path: ", 15))
			why += 15;
		snprintf(out->why, sizeof(out->why), "%s", why);
		return 0;
	}
	const tg_cp_stats *st = tg_cp_stats_get(cp);
	const int64_t *b = tg_cp_breakdown(cp);
	out->ok = 1;
	out->steps = st->steps;
	out->length_ns = tg_cp_length_ns(cp);
	for (int k = 0; k < TG_CP_NBOUND; k++)
		out->bound_ns[k] = b[k];
	tg_critical_path_free(cp);
	return 0;
}
