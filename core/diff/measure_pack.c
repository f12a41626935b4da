/*
 * measure_pack.c - a measure's records and invocations packed while it is
 * kept as run data, and read back whole (see measure.h, tg_measure_pack;
 * the layout in measure_impl.h).
 *
 * Why: `tracegate diff` keeps each trace's run data while the next trace
 * is read and analysed, and a kernel record of 64 bytes held most of it
 * beside the skeleton (2.9 of 7.6 MB at 100 MB of JSON). What a record
 * holds besides its unit, invocation, event, duration and delay (six keys,
 * its stream, trace and category's source) repeats across the records of
 * a trace (a few hundred families at most on the generated and h200-dev
 * traces), as an invocation's key and perf model repeat across the calls
 * of an op: each is held once, and a record becomes a row of 24 bytes, an
 * invocation 8. Durations and delays of 2^31 ns and more (or negative
 * beyond -2^31 + 1) are held whole beside the rows, so that every value
 * reads back as it was.
 */
#include "measure_impl.h"
#include "../../util/big.h"
#include "../../util/idmap.h"

#include <stdlib.h>
#include <string.h>

/* Interns the n-byte item into *items (its id into *id): an item seen
 * before (by hash, then bytes) keeps its id; a hash that collides only
 * costs a second copy. 0 or TG_ENOMEM. */
static int intern(uint32_t *id, void **items, size_t *nitems, size_t *cap, tg_idmap *seen, const void *item,
                  size_t size)
{
	int64_t h = (int64_t)(tg_hash_bytes(item, size) >> 1);
	uint32_t at = tg_idmap_get(seen, h);
	if (at != TG_NONE && !memcmp((const char *)*items + (size_t)at * size, item, size)) {
		*id = at;
		return 0;
	}
	if (tg_grow(items, cap, *nitems + 1, size))
		return TG_ENOMEM;
	memcpy((char *)*items + *nitems * size, item, size);
	*id = (uint32_t)*nitems;
	if (at == TG_NONE && tg_idmap_put(seen, h, *id) < 0)
		return TG_ENOMEM;
	(*nitems)++;
	return 0;
}

/* What the packer keeps while rows are added: the sets that find a family
 * or shape seen before, the arrays' room. */
struct pack_build {
	tg_idmap *fams_seen, *shapes_seen;
	size_t capfams, capshapes, capwide;
};

/* v as a row's 32 bits, or TG_PACK_WIDE with v appended to p->wide. */
static int narrow(int32_t *out, struct packed *p, uint32_t row, uint32_t delay, int64_t v)
{
	if (v > INT32_MIN && v <= INT32_MAX) {
		*out = (int32_t)v;
		return 0;
	}
	if (tg_grow((void **)&p->wide, &p->build->capwide, p->nwide + 1, sizeof(*p->wide)))
		return TG_ENOMEM;
	p->wide[p->nwide++] = (struct pack_wide){row, delay, v};
	*out = TG_PACK_WIDE;
	return 0;
}

int tg_measure_pack_begin(tg_measure *m, size_t nrecs, size_t ninvs)
{
	struct packed *p = tg_calloc(1, sizeof(*p));
	if (!p)
		return TG_ENOMEM;
	m->packed = p;
	p->build = tg_calloc(1, sizeof(*p->build));
	if (!p->build)
		return TG_ENOMEM;
	if (m->hold_as_built && nrecs > TG_HOLD_WINDOW) /* the rows a window at a time */
		nrecs = TG_HOLD_WINDOW;
	p->rows = tg_malloc((nrecs ? nrecs : 1) * sizeof(*p->rows));
	p->invs = tg_malloc((ninvs ? ninvs : 1) * sizeof(*p->invs));
	p->build->fams_seen = tg_idmap_new(256);
	p->build->shapes_seen = tg_idmap_new(256);
	if (!p->rows || !p->invs || !p->build->fams_seen || !p->build->shapes_seen)
		return TG_ENOMEM;
	return m->hold_as_built ? tg_measure_hold_begin(p) : 0;
}

int tg_measure_pack_rec(struct packed *p, size_t i, const tg_kernel_rec *r)
{
	struct pack_fam f = {r->category, r->name_category, r->op, r->op_shape, r->kernel, r->module, r->stream,
	                     r->trace, r->cat_source, 0};
	struct pack_row *w = &p->rows[p->stream ? i % TG_HOLD_WINDOW : i];
	w->unit = r->unit;
	w->inv = r->inv;
	w->event = r->event;
	if (intern(&w->fam, (void **)&p->fams, &p->nfams, &p->build->capfams, p->build->fams_seen, &f, sizeof(f)) ||
	    narrow(&w->dur, p, (uint32_t)i, 0, r->dur_ns) || narrow(&w->delay, p, (uint32_t)i, 1, r->delay_ns))
		return TG_ENOMEM;
	if (p->stream && i % TG_HOLD_WINDOW == TG_HOLD_WINDOW - 1) /* the window full: coded */
		return tg_measure_hold_rows(p, TG_HOLD_WINDOW);
	return 0;
}

int tg_measure_pack_inv(struct packed *p, size_t i, const tg_invocation *v)
{
	struct pack_shape sh;
	memset(&sh, 0, sizeof(sh));
	sh.op_shape = v->op_shape;
	sh.flops = v->flops;
	sh.bytes = v->bytes;
	p->invs[i].event = v->event;
	return intern(&p->invs[i].shape, (void **)&p->shapes, &p->nshapes, &p->build->capshapes, p->build->shapes_seen,
	              &sh, sizeof(sh));
}

/* *items' room fitted to n items of size (kept as it is when n is 0 or
 * the block cannot move). */
static void fit(void **items, size_t n, size_t size)
{
	void *p = n ? tg_realloc(*items, n * size) : NULL;
	if (p)
		*items = p;
}

int tg_measure_pack_end(struct packed *p)
{
	struct pack_build *b = p->build;
	if (!b)
		return 0;
	fit((void **)&p->fams, p->nfams, sizeof(*p->fams)); /* kept past the trace: without the slack of growing */
	fit((void **)&p->shapes, p->nshapes, sizeof(*p->shapes));
	fit((void **)&p->wide, p->nwide, sizeof(*p->wide));
	tg_idmap_free(b->fams_seen);
	tg_idmap_free(b->shapes_seen);
	free(b);
	p->build = NULL;
	return 0;
}

void tg_measure_pack_free(tg_measure *m)
{
	struct packed *p = m->packed;
	if (!p)
		return;
	free(p->rows);
	free(p->fams);
	free(p->wide);
	free(p->invs);
	free(p->shapes);
	tg_big_free(p->held);
	tg_measure_hold_free(p);
	if (p->build) {
		tg_idmap_free(p->build->fams_seen);
		tg_idmap_free(p->build->shapes_seen);
		free(p->build);
	}
	free(p);
	m->packed = NULL;
}

int tg_measure_pack(tg_measure *m)
{
	if (m->packed)
		return 0;
	int rc = tg_measure_pack_begin(m, m->nrecs, m->ninvs);
	for (size_t i = 0; !rc && i < m->nrecs; i++)
		rc = tg_measure_pack_rec(m->packed, i, &m->recs[i]);
	for (size_t i = 0; !rc && i < m->ninvs; i++)
		rc = tg_measure_pack_inv(m->packed, i, &m->invs[i]);
	if (rc || tg_measure_pack_end(m->packed)) {
		tg_measure_pack_free(m);
		return TG_ENOMEM;
	}
	free(m->recs);
	free(m->invs);
	m->recs = NULL;
	m->invs = NULL;
	m->caprecs = m->capinvs = 0;
	return 0;
}

int tg_measure_packed(const tg_measure *m)
{
	return m->packed != NULL;
}

/* The whole value of row i's duration (delay 0) or delay (1). */
static int64_t wide_of(const struct packed *p, size_t i, uint32_t delay)
{
	size_t lo = 0, hi = p->nwide;
	while (lo < hi) { /* by row, then the duration before the delay */
		size_t mid = lo + (hi - lo) / 2;
		if (p->wide[mid].row < i || (p->wide[mid].row == i && p->wide[mid].delay < delay))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nwide ? p->wide[lo].v : 0;
}

void tg_measure_kernel_get(tg_kernel_rec *out, const tg_measure *m, size_t i)
{
	const struct packed *p = m->packed;
	if (!p) {
		*out = m->recs[i];
		return;
	}
	const struct pack_row *w = &p->rows[i];
	const struct pack_fam *f = &p->fams[w->fam];
	memset(out, 0, sizeof(*out));
	out->unit = w->unit;
	out->inv = w->inv;
	out->category = f->category;
	out->name_category = f->name_category;
	out->op = f->op;
	out->op_shape = f->op_shape;
	out->kernel = f->kernel;
	out->module = f->module;
	out->event = w->event;
	out->pair = TG_NONE;
	out->stream = f->stream;
	out->trace = f->trace;
	out->cat_source = f->cat_source;
	out->dur_ns = w->dur != TG_PACK_WIDE ? w->dur : wide_of(p, i, 0);
	out->delay_ns = w->delay != TG_PACK_WIDE ? w->delay : wide_of(p, i, 1);
}

void tg_measure_invocation_get(tg_invocation *out, const tg_measure *m, size_t i)
{
	const struct packed *p = m->packed;
	if (!p) {
		*out = m->invs[i];
		return;
	}
	const struct pack_shape *sh = &p->shapes[p->invs[i].shape];
	*out = (tg_invocation){p->invs[i].event, sh->op_shape, sh->flops, sh->bytes};
}

uint64_t tg_measure_mem_bytes(const tg_measure *m)
{
	uint64_t b = (uint64_t)m->nunits * sizeof(tg_unit);
	const struct packed *p = m->packed;
	if (!p)
		return b + (uint64_t)m->nrecs * sizeof(tg_kernel_rec) + (uint64_t)m->ninvs * sizeof(tg_invocation);
	b += p->nfams * sizeof(*p->fams) + p->nwide * sizeof(*p->wide) + p->nshapes * sizeof(*p->shapes);
	if (p->held) /* tg_measure_compact: rows and invocations in its words */
		return b + (uint64_t)p->nheld * sizeof(uint64_t);
	return b + (uint64_t)m->nrecs * sizeof(*p->rows) + (uint64_t)m->ninvs * sizeof(*p->invs);
}
