/*
 * rundata_findings.c - the parts of run data that are results rather than
 * measures (rundata.h): a trace's findings, its critical path's summary,
 * and the findings across a side's ranks, kept on their own; and the key
 * of the thresholds the findings were computed under.
 *
 * A finding is written field by field (its strings as their length and
 * bytes), so that the bytes mean the same on every host that shares the
 * store; reading checks every id, status and string length against
 * tg_finding's, so a damaged or foreign record is an error, never a
 * finding out of range.
 */
#include "../analysis/findings.h"
#include "rundata_impl.h"

#include <stdio.h>
#include <stdlib.h>

#define ACROSS_MAGIC "TGRA"

void tg_rundata_opts_key(char *buf, size_t cap, const tg_findings_opts *fo)
{
	tg_findings_opts def;
	if (!fo) {
		tg_findings_opts_default(&def);
		fo = &def;
	}
	size_t at = 0;
	buf[0] = 0;
	for (int i = 0; i < TG_FINDING_COUNT && at < cap; i++) {
		const tg_finding_limits *l = &fo->limits[i];
		int k = snprintf(buf + at, cap - at, "%s%s:%d,%.17g,%.17g", i ? ";" : "",
		                 tg_finding_name((tg_finding_id)i), l->enabled, l->min_cost, l->param);
		at += k > 0 ? (size_t)k : 0;
	}
	/* the GPU's peaks and the perf sheets change what is found */
	if (at < cap)
		snprintf(buf + at, cap - at, ";gpu:%s;sheets:%zu", fo->gpu ? fo->gpu->name : "",
		         fo->sheets ? fo->nsheets : 0);
}

static void put_finding(struct wr *w, const tg_finding *f)
{
	PUT_U32(w, f->id);
	PUT_U32(w, f->status);
	put_str(w, f->subject, strlen(f->subject));
	put_str(w, f->key, strlen(f->key));
	put_str(w, f->evidence, strlen(f->evidence));
	put_str(w, f->basis, strlen(f->basis));
	PUT_I64(w, f->rank);
	PUT_I64(w, f->start_ns);
	PUT_I64(w, f->end_ns);
	put_f64(w, f->count);
	put_f64(w, f->cost_ns);
	put_f64(w, f->step_ns);
	put_f64(w, f->cost_pct);
	put_f64(w, f->threshold);
}

void tg_rundata_put_findings(struct wr *w, const tg_findings *f)
{
	size_t n;
	const tg_finding *v = tg_findings_list(f, &n);
	double step_ns = 0;
	size_t nsteps = f ? tg_findings_steps(f, &step_ns) : 0;
	PUT_I64(w, nsteps);
	put_f64(w, step_ns);
	PUT_U32(w, n);
	for (size_t i = 0; i < n; i++)
		put_finding(w, &v[i]);
}

static void get_finding(struct rd_cur *c, tg_finding *f)
{
	f->id = (tg_finding_id)GET_U32(c);
	f->status = (tg_finding_status)GET_U32(c);
	if (!c->bad && ((unsigned)f->id >= TG_FINDING_COUNT || (unsigned)f->status > TG_FINDING_NOT_EVALUATED))
		c->bad = "finding id or status out of range";
	get_fixed_str(c, f->subject, sizeof(f->subject), "finding subject");
	get_fixed_str(c, f->key, sizeof(f->key), "finding key");
	get_fixed_str(c, f->evidence, sizeof(f->evidence), "finding evidence");
	get_fixed_str(c, f->basis, sizeof(f->basis), "finding basis");
	f->rank = GET_I64(c);
	f->start_ns = GET_I64(c);
	f->end_ns = GET_I64(c);
	f->count = get_f64(c);
	f->cost_ns = get_f64(c);
	f->step_ns = get_f64(c);
	f->cost_pct = get_f64(c);
	f->threshold = get_f64(c);
}

tg_findings *tg_rundata_get_findings(struct rd_cur *c)
{
	if (c->bad)
		return NULL;
	int64_t steps = GET_I64(c);
	double step_ns = get_f64(c);
	/* a finding takes at least its ids, string lengths and numbers */
	uint32_t n = get_count(c, 8 + 16 + 8 * 8, "finding count");
	tg_finding *v = NULL;
	if (!c->bad && n && !(v = tg_calloc(n, sizeof(*v))))
		c->bad = "out of memory";
	for (uint32_t i = 0; i < n && !c->bad; i++)
		get_finding(c, &v[i]);
	tg_findings *l = NULL;
	if (!c->bad && tg_findings_adopt(&l, v, n, steps > 0 ? (size_t)steps : 0, step_ns)) {
		v = NULL; /* the list's even on failure */
		c->bad = "out of memory";
	}
	if (c->bad) {
		free(v);
		return NULL;
	}
	return l;
}

void tg_rundata_put_cp(struct wr *w, const tg_cp_summary *s)
{
	PUT_U8(w, s->ok != 0);
	put_str(w, s->why, strlen(s->why));
	PUT_I64(w, s->steps);
	PUT_I64(w, s->length_ns);
	PUT_U32(w, TG_CP_NBOUND);
	for (int k = 0; k < TG_CP_NBOUND; k++)
		PUT_I64(w, s->bound_ns[k]);
}

void tg_rundata_get_cp(struct rd_cur *c, tg_cp_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->ok = GET_U8(c);
	get_fixed_str(c, s->why, sizeof(s->why), "critical path");
	s->steps = (uint64_t)GET_I64(c);
	s->length_ns = GET_I64(c);
	if (GET_U32(c) != TG_CP_NBOUND && !c->bad)
		c->bad = "critical path bounds";
	for (int k = 0; k < TG_CP_NBOUND; k++)
		s->bound_ns[k] = GET_I64(c);
	if (!c->bad && s->ok > 1)
		c->bad = "critical path";
}

int tg_rundata_across_encode(void **out, size_t *len, const tg_findings *f)
{
	struct wr w = {0};
	tg_rundata_put_findings(&w, f);
	return tg_rundata_pack(out, len, ACROSS_MAGIC, TG_RUNDATA_FORMAT, &w);
}

int tg_rundata_across_decode(tg_findings **out, const void *data, size_t len, const char *what)
{
	*out = NULL;
	uint8_t *raw = NULL;
	size_t n = 0;
	int rc = tg_rundata_unpack(&raw, &n, data, len, ACROSS_MAGIC, TG_RUNDATA_FORMAT, 0, "across-rank findings",
	                           what);
	if (rc)
		return rc;
	struct rd_cur c = {raw, n, 0, NULL};
	tg_findings *f = tg_rundata_get_findings(&c);
	if (!c.bad && c.at != c.n)
		c.bad = "bytes after the end";
	if (c.bad) {
		rc = !strcmp(c.bad, "out of memory") ? TG_ENOMEM
		                                     : tg_error_set(TG_EFORMAT,
		                                                    "%s: damaged across-rank findings: %s at "
		                                                    "byte %zu",
		                                                    what, c.bad, c.at);
		tg_findings_free(f);
		f = NULL;
	}
	free(raw);
	*out = f;
	return rc;
}
