/*
 * diff_render_json.c - a diff as one JSON document (tg_diff_write_json,
 * stable, documented in docs/diff.md): the verdict, each side, every
 * result with its category and where that came from, the ranks, the
 * findings, the top regressions and improvements by op, the kernels no op
 * launched, the critical path, the divergence drawing and every table. It
 * reads the computed document (diff_render.h, diff_tables.h).
 */
#include "diff_render_impl.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The findings' changes (findings.h) as a JSON array, or NULL (out of memory). */
static json_t *findings_json(const tg_diff_doc *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	int rc = tg_findings_compare_write_json(f, d->findings, d->nfindings);
	if (fclose(f) || rc) {
		free(buf);
		return NULL;
	}
	json_t *v = json_loadb(buf, len, 0, NULL);
	free(buf);
	return v;
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* One side: its files, steps and fingerprint. */
static json_t *fp_json(const tg_diff_tables_side *side, const char *const *files, size_t n)
{
	const tg_fingerprint *fp = side->fp;
	json_t *fl = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(fl, json_string(files[i]));
	return json_pack("{s:o,s:I,s:{s:s,s:s,s:s,s:I}}", "files", fl, "steps", (json_int_t)side->steps, "fingerprint",
	                 "gpu", fp->gpu, "driver", fp->driver, "runtime", fp->runtime, "world_size",
	                 (json_int_t)fp->world_size);
}

/* One result of the rules, with its category. */
static json_t *item_json(const tg_judged *x, const char *category)
{
	json_t *o = json_object();
	json_object_set_new(o, "rule", json_string(x->rule->name));
	json_object_set_new(o, "item", json_string(x->item));
	json_object_set_new(o, "category", json_string(category));
	json_object_set_new(o, "metric", json_string(tg_rule_metric_name(x->rule->metric)));
	json_object_set_new(o, "verdict", json_string(tg_verdict_name(x->verdict)));
	json_object_set_new(o, "accepted", json_boolean(x->accepted));
	json_object_set_new(o, "improved", json_boolean(x->improved));
	json_object_set_new(o, "new", json_boolean(x->is_new));
	json_object_set_new(o, "gone", json_boolean(x->is_gone));
	json_object_set_new(o, "base", num(x->base));
	json_object_set_new(o, "next", num(x->next));
	json_object_set_new(o, "delta", num(x->delta));
	json_object_set_new(o, "pct", num(x->pct));
	json_object_set_new(o, "pct_lo", num(x->pct_lo));
	json_object_set_new(o, "pct_hi", num(x->pct_hi));
	json_object_set_new(o, "p_value", num(x->p_value));
	json_object_set_new(o, "samples_base", json_integer((json_int_t)x->nbase));
	json_object_set_new(o, "samples_new", json_integer((json_int_t)x->nnext));
	json_object_set_new(o, "sampling", json_string(tg_sampling_name(x->sampling)));
	json_object_set_new(o, "no_data", json_boolean(x->no_data));
	json_object_set_new(o, "unmatched", json_boolean(x->unmatched));
	json_object_set_new(o, "note", json_string(x->note));
	json_object_set_new(o, "decide", json_string(tg_rule_decide_name(x->rule->decide)));
	json_object_set_new(o, "runs_base", json_integer((json_int_t)x->nruns_base));
	json_object_set_new(o, "runs_new", json_integer((json_int_t)x->nruns_new));
	json_object_set_new(o, "noise_pct", num(x->noise_pct));
	json_object_set_new(o, "noise_df", num(x->noise_df));
	json_object_set_new(o, "runs_needed", json_integer((json_int_t)x->runs_needed));
	json_object_set_new(o, "pairs", json_integer((json_int_t)x->npairs));
	json_object_set_new(o, "call_noise_pct", num(x->sampling == TG_SAMPLING_PAIRS ? x->call_noise_pct : NAN));
	json_object_set_new(o, "rank", x->rank >= 0 ? json_integer((json_int_t)x->rank) : json_null());
	return o;
}

/* The ranks of the comparison (rank_compare.h), null with one rank. */
static json_t *ranks_json(const tg_judgement *j)
{
	const tg_rank_compare *rk = tg_judgement_ranks(j);
	if (!rk)
		return json_null();
	json_t *o = json_object();
	json_object_set_new(o, "count", json_integer((json_int_t)rk->nranks));
	json_object_set_new(o, "slowest", rk->slowest >= 0 ? json_integer((json_int_t)rk->slowest) : json_null());
	json_object_set_new(o, "slowest_compute_ms", num(rk->slowest >= 0 ? rk->slowest_ms : NAN));
	json_object_set_new(o, "most_changed",
	                    rk->most_changed >= 0 ? json_integer((json_int_t)rk->most_changed) : json_null());
	json_object_set_new(o, "most_changed_pct", num(rk->most_changed_pct));
	json_object_set_new(o, "most_changed_what", json_string(rk->most_changed_what));
	return o;
}

/* One op of the comparison as the json's top lists give it: op, category,
 * base, next, delta (ns per step), pct, pct_lo, pct_hi, samples_base,
 * samples_new, significant. */
static json_t *op_json(const tg_diff_doc *d, const tg_judged *x)
{
	const char *cat = tg_diff_tables_op_category(d->tables, x);
	json_t *o = json_object();
	json_object_set_new(o, "op", json_string(x->item));
	json_object_set_new(o, "category", json_string(cat));
	json_object_set_new(o, "base", num(x->base));
	json_object_set_new(o, "next", num(x->next));
	json_object_set_new(o, "delta", num(x->delta));
	json_object_set_new(o, "pct", num(x->pct));
	json_object_set_new(o, "pct_lo", num(x->pct_lo));
	json_object_set_new(o, "pct_hi", num(x->pct_hi));
	json_object_set_new(o, "samples_base", json_integer((json_int_t)x->nbase));
	json_object_set_new(o, "samples_new", json_integer((json_int_t)x->nnext));
	json_object_set_new(o, "significant", json_boolean(tg_diff_tables_op_significant(x)));
	return o;
}

/* The top regressions or improvements by op, as in the md comment, each
 * as op_json gives it. */
static json_t *top_json(const tg_diff_doc *d, int regressions, size_t limit)
{
	json_t *a = json_array();
	const tg_diff_tables *t = d->tables;
	size_t c = regressions ? t->nregressions : t->nimprovements;
	const tg_judged *const *pick = regressions ? t->regressions : t->improvements;
	for (size_t i = 0; i < c && i < limit; i++)
		json_array_append_new(a, op_json(d, pick[i]));
	return a;
}

/* The kernels no op launched, kept out of the top lists as the md comment
 * keeps them out of its headline: their numbers as a top item's, their
 * share of the base's kernel time and why they are apart; json null when
 * there are none. */
static json_t *no_launcher_json(const tg_diff_doc *d)
{
	double share = d->tables->no_launcher_share;
	const tg_judged *x = d->tables->no_launcher;
	if (!x)
		return json_null();
	json_t *o = op_json(d, x);
	json_object_set_new(o, "share_of_base_pct", num(share));
	json_object_set_new(o, "why_apart",
	                    json_string("Their launch is not in the trace: it fell before the profiler's window opened "
	                                "(or they are communication kernels, or the trace has no CPU side), so how many "
	                                "land in the window moves from run to run. They are not ranked with the ops in "
	                                "top_regressions and top_improvements; the rules still count them under their "
	                                "category (from their kernel names)."));
	return o;
}

static json_t *table_json(const tg_table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	tg_table_write_json(t, f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	json_t *o = json_loadb(buf, len, 0, NULL);
	free(buf);
	return o;
}

/* Every result of the rules, with its category and where that came from
 * (docs/categories.md). */
static json_t *results_json(const tg_diff_doc *d)
{
	json_t *items = json_array();
	size_t n;
	const tg_judged *it = tg_judgement_items(d->judgement, &n);
	const tg_diff_tables *t = d->tables;
	for (size_t i = 0; i < n; i++) {
		json_t *o = item_json(&it[i], i < t->nitems ? t->item_category[i] : "");
		json_object_set_new(o, "category_from", json_string(i < t->nitems ? t->item_from[i] : ""));
		json_array_append_new(items, o);
	}
	return items;
}

/* What no rule judges, the rules that matched nothing, the accepted
 * regressions: into root. */
static void judgement_lists(json_t *root, const tg_judgement *j)
{
	json_t *nj = json_array();
	size_t n;
	const tg_not_judged *njv = tg_judgement_not_judged(j, &n);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(nj, json_pack("{s:s,s:o}", "category", njv[i].category, "pct", num(njv[i].pct)));
	json_object_set_new(root, "not_judged", nj);
	json_t *un = json_array();
	const char *const *u = tg_judgement_unmatched(j, &n);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(un, json_string(u[i]));
	json_object_set_new(root, "unmatched_rules", un);
	json_t *acc = json_array();
	const tg_accept *a = tg_judgement_accepts(j, &n);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(acc, json_pack("{s:s,s:s,s:s?}", "rule", a[i].rule, "reason",
		                                     a[i].reason ? a[i].reason : "", "by", a[i].by));
	json_object_set_new(root, "accepted", acc);
}

/* The kernel time tables by each grouping, and the divergences. */
static json_t *tables_json(const tg_diff_doc *d)
{
	json_t *tabs = json_object();
	for (int by = 0; by < TG_DIFF_BY_COUNT; by++) {
		const tg_table *t = d->tables->by[by];
		json_t *tj = table_json(t);
		if (tj)
			json_object_set_new(tabs, tg_table_name(t), tj);
	}
	if (d->divergences) {
		json_t *tj = table_json(d->divergences);
		if (tj)
			json_object_set_new(tabs, tg_table_name(d->divergences), tj);
	}
	return tabs;
}

int tg_diff_write_json(FILE *f, const tg_diff_doc *d)
{
	if (!d->tables)
		return tg_error_set(TG_EINVAL, "a diff document without its tables (diff_tables.h)");
	const tg_judgement *j = d->judgement;
	const char *why;
	int comparable = tg_judgement_comparable(j, &why);
	json_t *root = json_object();
	json_object_set_new(root, "tracegate_diff", json_integer(1));
	json_object_set_new(root, "verdict", json_string(tg_verdict_name(tg_judgement_verdict(j))));
	json_object_set_new(root, "summary", json_string(tg_judgement_summary(j)));
	json_object_set_new(root, "comparable", json_boolean(comparable));
	json_object_set_new(root, "hardware_change", json_string(why));
	json_object_set_new(root, "base", fp_json(&d->tables->side[0], d->base_files, d->nbase));
	json_object_set_new(root, "new", fp_json(&d->tables->side[1], d->new_files, d->nnew));
	json_object_set_new(root, "results", results_json(d));
	json_object_set_new(root, "ranks", ranks_json(j));
	judgement_lists(root, j);
	int rc = 0;
	if (d->with_findings) {
		json_t *fj = findings_json(d);
		if (!fj)
			rc = TG_ENOMEM;
		json_object_set_new(root, "findings", fj ? fj : json_array());
	}
	json_object_set_new(root, "top_regressions", top_json(d, 1, 10));
	json_object_set_new(root, "top_improvements", top_json(d, 0, 5));
	json_object_set_new(root, "no_launcher", no_launcher_json(d));
	if (d->critical_path)
		json_object_set_new(root, "critical_path", tg_cp_diff_json(d->critical_path));
	json_object_set_new(root, "divergence", json_string(d->divergence ? d->divergence : ""));
	json_object_set_new(root, "tables", tables_json(d));
	if (rc) {
		json_decref(root);
		return tg_error_set(rc, "out of memory writing the json");
	}
	rc = json_dumpf(root, f, JSON_PRESERVE_ORDER | JSON_COMPACT) || fputc('\n', f) == EOF ? TG_EIO : 0;
	json_decref(root);
	return rc ? tg_error_set(rc, "cannot write the json") : 0;
}
