/*
 * measure_hold.c - a packed measure's rows and invocations held in a bit
 * stream while its run data waits for the gate (tg_measure_compact,
 * tg_measure_expand; see measure.h), and given back as they were.
 *
 * Why: the first trace's run data stays through the second trace's read
 * and analysis, the diff's peak; packed (measure_pack.c), its records are
 * rows of 24 bytes and its invocations 8 (1.4 MB at 100 MB of JSON). A
 * row's fields follow the rows before it: its unit, invocation and event
 * grow by small steps (records come in trace order), its family (the keys
 * and stream it shares) repeats in the order a step launches its kernels,
 * its duration and launch delay are near the last ones of its family.
 * Each is coded as what the rows before do not predict, in an adaptive
 * Rice code of its own (rundata_bits.h): the family as a bit when it is
 * the one that followed the two before it last time, the numbers as
 * differences. An invocation: its event's difference, its shape as its
 * family. The families, shapes and whole values stay as they are (a few
 * kilobytes), so that the rows given back are the same bytes.
 */
#include "measure_impl.h"
#include "rundata_bits.h"

#include <stdlib.h>
#include <string.h>

#define GUESS_SIZE 1024 /* the families' (shapes') guesses, by the two before */

/* What coding and decoding carry from row to row. */
struct hold {
	struct rice unit, inv, fam, event, dur, delay, iev, shape;
	int64_t unit_at, inv_at, event_at; /* the row before's (-1: TG_NONE) */
	uint32_t f1, f2;                   /* the two families (shapes) before */
	uint32_t *guess;                   /* GUESS_SIZE */
	int64_t *last;                     /* per family: its last duration, then its last delay */
};

__attribute__((always_inline)) static inline int hold_init(struct hold *h, size_t nfams)
{
	memset(h, 0, sizeof(*h));
	h->guess = tg_calloc(GUESS_SIZE, sizeof(uint32_t));
	h->last = tg_calloc(2 * (nfams ? nfams : 1), sizeof(int64_t));
	if (h->guess && h->last)
		return 0;
	free(h->guess);
	free(h->last);
	return TG_ENOMEM;
}

__attribute__((always_inline)) static inline void hold_done(struct hold *h)
{
	free(h->guess);
	free(h->last);
}

static uint32_t guess_slot(const struct hold *h)
{
	return ((h->f1 * 0x9E3779B1u) ^ (h->f2 * 0x85EBCA77u)) >> 22;
}

static int64_t id_of(uint32_t v)
{
	return v == TG_NONE ? -1 : (int64_t)v;
}

static uint32_t id_back(int64_t v)
{
	return v < 0 ? TG_NONE : (uint32_t)v;
}

/* A family or shape f: a bit when it is the guess, else f. */
__attribute__((always_inline)) static inline void put_guessed(struct bitw *b, struct hold *h, struct rice *c, uint32_t f)
{
	uint32_t slot = guess_slot(h);
	if (h->guess[slot] == f)
		bitw_put(b, 1, 1);
	else {
		bitw_put(b, 0, 1);
		rice_put(b, c, f);
		h->guess[slot] = f;
	}
	h->f2 = h->f1;
	h->f1 = f;
}

__attribute__((always_inline)) static inline uint32_t get_guessed(struct bitr *r, struct hold *h, struct rice *c)
{
	uint32_t slot = guess_slot(h), f;
	if (bitr_get(r, 1))
		f = h->guess[slot];
	else
		f = h->guess[slot] = (uint32_t)rice_get(r, c);
	h->f2 = h->f1;
	h->f1 = f;
	return f;
}

/* A value coded as its difference from *at, which it becomes. */
__attribute__((always_inline)) static inline void put_step(struct bitw *b, struct rice *c, int64_t *at, int64_t v)
{
	rice_put(b, c, zigzag(wrap_sub(v, *at)));
	*at = v;
}

__attribute__((always_inline)) static inline int64_t get_step(struct bitr *r, struct rice *c, int64_t *at)
{
	return *at = wrap_add(*at, unzigzag(rice_get(r, c)));
}

static void put_rows(struct bitw *b, struct hold *h, const struct packed *p, size_t n)
{
	for (size_t i = 0; i < n && !bitw_room(b, RICE_WORDS(7)); i++) { /* six values and a family's bit */
		const struct pack_row *w = &p->rows[i];
		put_step(b, &h->unit, &h->unit_at, id_of(w->unit));
		put_step(b, &h->inv, &h->inv_at, id_of(w->inv));
		put_guessed(b, h, &h->fam, w->fam);
		put_step(b, &h->event, &h->event_at, w->event);
		put_step(b, &h->dur, &h->last[2 * (size_t)w->fam], w->dur);
		put_step(b, &h->delay, &h->last[2 * (size_t)w->fam + 1], w->delay);
	}
}

static void get_rows(struct bitr *r, struct hold *h, struct packed *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct pack_row *w = &p->rows[i];
		w->unit = id_back(get_step(r, &h->unit, &h->unit_at));
		w->inv = id_back(get_step(r, &h->inv, &h->inv_at));
		w->fam = get_guessed(r, h, &h->fam);
		w->event = (uint32_t)get_step(r, &h->event, &h->event_at);
		w->dur = (int32_t)get_step(r, &h->dur, &h->last[2 * (size_t)w->fam]);
		w->delay = (int32_t)get_step(r, &h->delay, &h->last[2 * (size_t)w->fam + 1]);
	}
}

static void put_invs(struct bitw *b, struct hold *h, const struct packed *p, size_t n)
{
	h->f1 = h->f2 = 0;
	for (size_t i = 0; i < n && !bitw_room(b, RICE_WORDS(3)); i++) {
		put_step(b, &h->iev, &h->event_at, p->invs[i].event);
		put_guessed(b, h, &h->shape, p->invs[i].shape);
	}
}

static void get_invs(struct bitr *r, struct hold *h, struct packed *p, size_t n)
{
	h->f1 = h->f2 = 0;
	for (size_t i = 0; i < n; i++) {
		p->invs[i].event = (uint32_t)get_step(r, &h->iev, &h->event_at);
		p->invs[i].shape = get_guessed(r, h, &h->shape);
	}
}

/* The stream of rows held as they are packed: the coder's state across
 * windows, the words so far, the rows coded. */
struct hold_stream {
	struct hold h;
	size_t caplast; /* h.last's families */
	struct bitw b;
	size_t done;
};

int tg_measure_hold_begin(struct packed *p)
{
	struct hold_stream *st = tg_calloc(1, sizeof(*st));
	if (!st || hold_init(&st->h, 0)) {
		free(st);
		return TG_ENOMEM;
	}
	st->caplast = 1; /* hold_init's room for one family */
	p->stream = st;
	return 0;
}

int tg_measure_hold_rows(struct packed *p, size_t n)
{
	struct hold_stream *st = p->stream;
	if (p->nfams > st->caplast) { /* the new families' last values 0, as hold_init's calloc */
		size_t cap = st->caplast;
		while (cap < p->nfams)
			cap *= 2;
		int64_t *last = tg_realloc(st->h.last, 2 * cap * sizeof(int64_t));
		if (!last)
			return TG_ENOMEM;
		memset(last + 2 * st->caplast, 0, 2 * (cap - st->caplast) * sizeof(int64_t));
		st->h.last = last;
		st->caplast = cap;
	}
	put_rows(&st->b, &st->h, p, n);
	st->done += n;
	return st->b.bad ? TG_ENOMEM : 0;
}

int tg_measure_hold_end(tg_measure *m)
{
	struct packed *p = m->packed;
	struct hold_stream *st = p->stream;
	if (m->nrecs - st->done && tg_measure_hold_rows(p, m->nrecs - st->done))
		return TG_ENOMEM;
	st->h.event_at = 0;
	put_invs(&st->b, &st->h, p, m->ninvs);
	int rc = bitw_finish(&st->b);
	if (!rc) {
		p->held = st->b.w;
		p->nheld = st->b.n;
		st->b.w = NULL;
		free(p->rows);
		free(p->invs);
		p->rows = NULL;
		p->invs = NULL;
	}
	tg_measure_hold_free(p);
	return rc;
}

void tg_measure_hold_free(struct packed *p)
{
	struct hold_stream *st = p->stream;
	if (!st)
		return;
	hold_done(&st->h);
	tg_big_free(st->b.w);
	free(st);
	p->stream = NULL;
}

int tg_measure_compact(tg_measure *m)
{
	struct packed *p = m->packed;
	if (!p || p->held)
		return 0;
	struct hold h;
	struct bitw b = {0};
	if (hold_init(&h, p->nfams))
		return TG_ENOMEM;
	put_rows(&b, &h, p, m->nrecs);
	h.event_at = 0;
	put_invs(&b, &h, p, m->ninvs);
	hold_done(&h);
	if (bitw_finish(&b))
		return TG_ENOMEM;
	p->held = b.w;
	p->nheld = b.n;
	free(p->rows);
	free(p->invs);
	p->rows = NULL;
	p->invs = NULL;
	return 0;
}

int tg_measure_compacted(const tg_measure *m)
{
	return m->packed && m->packed->held;
}

int tg_measure_expand(tg_measure *m)
{
	struct packed *p = m->packed;
	if (!p || !p->held)
		return 0;
	struct hold h;
	struct pack_row *rows = tg_malloc((m->nrecs ? m->nrecs : 1) * sizeof(*rows));
	struct pack_inv *invs = tg_malloc((m->ninvs ? m->ninvs : 1) * sizeof(*invs));
	if (!rows || !invs || hold_init(&h, p->nfams)) {
		free(rows);
		free(invs);
		return TG_ENOMEM;
	}
	p->rows = rows;
	p->invs = invs;
	struct bitr r = {p->held, 0};
	get_rows(&r, &h, p, m->nrecs);
	h.event_at = 0;
	get_invs(&r, &h, p, m->ninvs);
	hold_done(&h);
	tg_big_free(p->held);
	p->held = NULL;
	p->nheld = 0;
	return 0;
}
