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

/* v as a row's 32 bits, or TG_PACK_WIDE with v appended to p->wide (which
 * has room: a row adds at most two). */
static int32_t narrow(struct packed *p, uint32_t row, uint32_t delay, int64_t v)
{
	if (v > INT32_MIN && v <= INT32_MAX)
		return (int32_t)v;
	p->wide[p->nwide++] = (struct pack_wide){row, delay, v};
	return TG_PACK_WIDE;
}

/* The records of m into p: rows, families, whole values. 0 or TG_ENOMEM. */
static int pack_recs(struct packed *p, const tg_measure *m)
{
	size_t capfams = 0, nwide = 0;
	for (size_t i = 0; i < m->nrecs; i++)
		nwide += (m->recs[i].dur_ns <= INT32_MIN || m->recs[i].dur_ns > INT32_MAX) +
		         (m->recs[i].delay_ns <= INT32_MIN || m->recs[i].delay_ns > INT32_MAX);
	p->rows = tg_malloc((m->nrecs ? m->nrecs : 1) * sizeof(*p->rows));
	p->wide = tg_malloc((nwide ? nwide : 1) * sizeof(*p->wide));
	tg_idmap *seen = tg_idmap_new(256);
	int rc = p->rows && p->wide && seen ? 0 : TG_ENOMEM;
	for (size_t i = 0; !rc && i < m->nrecs; i++) {
		const tg_kernel_rec *r = &m->recs[i];
		struct pack_fam f = {r->category, r->name_category, r->op, r->op_shape, r->kernel, r->module, r->stream,
		                      r->trace, r->cat_source, 0};
		struct pack_row *w = &p->rows[i];
		rc = intern(&w->fam, (void **)&p->fams, &p->nfams, &capfams, seen, &f, sizeof(f));
		w->unit = r->unit;
		w->inv = r->inv;
		w->event = r->event;
		w->dur = narrow(p, (uint32_t)i, 0, r->dur_ns);
		w->delay = narrow(p, (uint32_t)i, 1, r->delay_ns);
	}
	tg_idmap_free(seen);
	struct pack_fam *fit = !rc && p->nfams ? tg_realloc(p->fams, p->nfams * sizeof(*p->fams)) : NULL;
	if (fit) /* without the slack of growing (on failure the block stays p's) */
		p->fams = fit;
	return rc;
}

/* The invocations of m into p: (event, shape) pairs and the shapes. 0 or
 * TG_ENOMEM. */
static int pack_invs(struct packed *p, const tg_measure *m)
{
	size_t capshapes = 0;
	p->invs = tg_malloc((m->ninvs ? m->ninvs : 1) * sizeof(*p->invs));
	tg_idmap *seen = tg_idmap_new(256);
	int rc = p->invs && seen ? 0 : TG_ENOMEM;
	for (size_t i = 0; !rc && i < m->ninvs; i++) {
		const tg_invocation *v = &m->invs[i];
		struct pack_shape sh;
		memset(&sh, 0, sizeof(sh));
		sh.op_shape = v->op_shape;
		sh.flops = v->flops;
		sh.bytes = v->bytes;
		p->invs[i].event = v->event;
		rc = intern(&p->invs[i].shape, (void **)&p->shapes, &p->nshapes, &capshapes, seen, &sh, sizeof(sh));
	}
	tg_idmap_free(seen);
	return rc;
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
	free(p->held);
	free(p);
	m->packed = NULL;
}

int tg_measure_pack(tg_measure *m)
{
	if (m->packed)
		return 0;
	struct packed *p = tg_calloc(1, sizeof(*p));
	if (!p)
		return TG_ENOMEM;
	m->packed = p;
	if (pack_recs(p, m) || pack_invs(p, m)) {
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
