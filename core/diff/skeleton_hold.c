/*
 * skeleton_hold.c - a skeleton's nodes held in a bit stream while its run
 * data waits for the gate (tg_skeleton_compact, tg_skeleton_expand; see
 * skeleton.h), and given back node for node.
 *
 * Why: `tracegate diff` keeps the first trace's run data while the second
 * trace is read and analysed, the diff's peak; its skeleton, 16 bytes a
 * node, was two thirds of it (3.15 of 4.7 MB at 100 MB of JSON). The gate
 * reads every node, so nothing of it can go; but a node's fields follow
 * from the nodes before it, and what they do not predict takes 3-5 bytes:
 *
 *   name, kind, link  one symbol (their 32 bits), predicted from the two symbols before
 *                     it (a step of training runs the same ops in the same
 *                     order): a bit when the guess holds, else the symbol
 *   parent            a host node's: how many steps up the chain of
 *                     parents of the node before it (0: that node, its
 *                     sibling: 1, ...); a device node's: the difference
 *                     from the device node before's (launches come in
 *                     order)
 *   start             from the parent's start when the parent is the node
 *                     before, else from the end of the node before of the
 *                     same class (host, device)
 *   duration          from the last duration of the same symbol
 *
 * each difference in an adaptive Rice code (rundata_bits.h) of its own
 * class, in two streams (the symbols and parents, the starts and
 * durations): each stream's position is a chain of dependent steps, and
 * two chains let the processor decode them side by side (giving back
 * 3.45 -> 3.3 ms at 100 MB when it was tried). A node's start and duration are coded whole (its block's base
 * and offset, and the wide lists beside the nodes, are kept: they are a
 * few bytes a block) and the node's fields are made from them as the
 * skeleton made them (an offset of TG_SKEL_WIDE_TS or more, a duration
 * out of 32 bits: the wide marks), so that the nodes given back are the
 * same bytes. At 100 MB: 3.15 MB of nodes in about 0.8 MB, a few
 * milliseconds each way (docs/scale.md, i29rd).
 */
#include "skeleton_impl.h"
#include "rundata_bits.h"

#include <stdlib.h>
#include <string.h>

#define PRED_SIZE 4096 /* the symbols' guesses, by the two symbols before */
#define DUR_SIZE 4096  /* the last durations, by symbol */
#define PAR_ESC 15     /* a parent this many steps up or more: coded as a difference */

/* What coding and decoding carry from node to node (the same on both
 * sides, so that each predicts what the other did). */
struct hold {
	struct rice sym, par, par_far, par_dev, ts[3], dur[2];
	int64_t end[2];   /* the end of the last host (0) and device (1) node */
	int64_t prev_ts;  /* the start of the node before */
	int64_t dev_par;  /* the parent of the device node before (-1: none) */
	uint32_t s1, s2;  /* the two symbols before */
	uint32_t *pred;   /* PRED_SIZE */
	int64_t *last_dur; /* DUR_SIZE */
};

__attribute__((always_inline)) static inline int hold_init(struct hold *h)
{
	memset(h, 0, sizeof(*h));
	h->dev_par = -1;
	h->pred = tg_calloc(PRED_SIZE, sizeof(uint32_t));
	h->last_dur = tg_calloc(DUR_SIZE, sizeof(int64_t));
	if (h->pred && h->last_dur)
		return 0;
	free(h->pred);
	free(h->last_dur);
	return TG_ENOMEM;
}

__attribute__((always_inline)) static inline void hold_done(struct hold *h)
{
	free(h->pred);
	free(h->last_dur);
}

/* A node's symbol: the 32 bits of its name, kind and link as they lie
 * (the node's last word), read and written whole, turned so that the name
 * is high (kind and link, x86-64's bits 27-31, low): a new symbol's code
 * then grows with the name's atom, a small number. */
_Static_assert(sizeof(tg_skel_node) == 16, "name, kind and link: the node's last 32 bits");

static uint32_t sym_of(const tg_skel_node *x)
{
	uint32_t v;
	memcpy(&v, (const char *)x + 12, sizeof(v));
	return v << 5 | v >> 27;
}

static void set_sym(tg_skel_node *x, uint32_t sym)
{
	uint32_t v = sym >> 5 | sym << 27;
	memcpy((char *)x + 12, &v, sizeof(v));
}

static uint32_t pred_slot(const struct hold *h)
{
	return ((h->s1 * 0x9E3779B1u) ^ (h->s2 * 0x85EBCA77u)) >> 20;
}

static uint32_t dur_slot(uint32_t sym)
{
	return (sym * 0x9E3779B1u) >> 20;
}

/* How many steps up the parents of node i - 1 node i's parent p is
 * (PAR_ESC: not within reach, or behind a node not yet given back). */
static unsigned parent_steps(const tg_skel_node *x, size_t i, uint32_t p)
{
	uint32_t c = i ? (uint32_t)(i - 1) : TG_NONE;
	for (unsigned lv = 0; lv < PAR_ESC; lv++) {
		if (c == p)
			return lv;
		if (c == TG_NONE || c >= i)
			return PAR_ESC;
		c = x[c].parent;
	}
	return PAR_ESC;
}

/* The start of node i of s, and its duration (whole). */
static int64_t node_ts(const tg_skeleton *s, size_t i)
{
	return s->nodes[i].ts != TG_SKEL_WIDE_TS ? (int64_t)((uint64_t)s->base[i >> 6] + s->nodes[i].ts)
	                                         : tg_skeleton_ts(s, i);
}

static int64_t node_dur(const tg_skeleton *s, size_t i)
{
	return s->nodes[i].dur != TG_SKEL_WIDE_DUR ? s->nodes[i].dur : tg_skeleton_dur(s, i);
}

/* The class of the start's code: the parent is the node before (0), a
 * host node otherwise (1), a device node (2). */
static int ts_class(int dev, uint32_t p, size_t i)
{
	return dev ? 2 : i && p == i - 1 ? 0 : 1;
}

/* The predicted start of node i. */
static int64_t ts_guess(const struct hold *h, int cls, int dev)
{
	return cls == 0 ? h->prev_ts : h->end[dev];
}

/* Node i of s into b[0] (its symbol and parent) and b[1] (its start and
 * duration). */
static void put_node(struct bitw *b, struct hold *h, const tg_skeleton *s, size_t i)
{
	const tg_skel_node *x = &s->nodes[i];
	uint32_t sym = sym_of(x), slot = pred_slot(h), p = x->parent;
	int dev = tg_kind_is_gpu(x->kind);
	if (h->pred[slot] == sym)
		bitw_put(&b[0], 1, 1);
	else {
		bitw_put(&b[0], 0, 1);
		rice_put(&b[0], &h->sym, sym);
		h->pred[slot] = sym;
	}
	h->s2 = h->s1;
	h->s1 = sym;
	int64_t pv = p == TG_NONE ? -1 : (int64_t)p;
	if (dev) {
		rice_put(&b[0], &h->par_dev, zigzag(wrap_sub(pv, h->dev_par)));
		h->dev_par = pv;
	} else {
		unsigned lv = parent_steps(s->nodes, i, p);
		rice_put(&b[0], &h->par, lv);
		if (lv == PAR_ESC)
			rice_put(&b[0], &h->par_far, zigzag(wrap_sub(pv, (int64_t)i)));
	}
	int cls = ts_class(dev, p, i);
	int64_t ts = node_ts(s, i), dur = node_dur(s, i);
	rice_put(&b[1], &h->ts[cls], zigzag(wrap_sub(ts, ts_guess(h, cls, dev))));
	uint32_t ds = dur_slot(sym);
	rice_put(&b[1], &h->dur[dev], zigzag(wrap_sub(dur, h->last_dur[ds])));
	h->last_dur[ds] = dur;
	h->prev_ts = ts;
	h->end[dev] = wrap_add(ts, dur);
}

/* Node i of s back from r[0] and r[1]: its fields as the skeleton made them from its
 * start and duration. */
static void get_node(struct bitr *r, struct hold *h, tg_skeleton *s, size_t i)
{
	tg_skel_node *x = &s->nodes[i];
	uint32_t slot = pred_slot(h), sym;
	if (bitr_get(&r[0], 1))
		sym = h->pred[slot];
	else
		sym = h->pred[slot] = (uint32_t)rice_get(&r[0], &h->sym);
	h->s2 = h->s1;
	h->s1 = sym;
	set_sym(x, sym);
	int dev = tg_kind_is_gpu(x->kind);
	int64_t pv;
	if (dev) {
		pv = wrap_add(h->dev_par, unzigzag(rice_get(&r[0], &h->par_dev)));
		h->dev_par = pv;
	} else {
		unsigned lv = (unsigned)rice_get(&r[0], &h->par);
		if (lv >= PAR_ESC)
			pv = wrap_add((int64_t)i, unzigzag(rice_get(&r[0], &h->par_far)));
		else {
			uint32_t c = (uint32_t)(i - 1);
			for (unsigned k = 0; k < lv; k++)
				c = s->nodes[c].parent;
			pv = c == TG_NONE ? -1 : (int64_t)c;
		}
	}
	uint32_t p = x->parent = pv < 0 ? TG_NONE : (uint32_t)pv;
	int cls = ts_class(dev, p, i);
	int64_t ts = wrap_add(ts_guess(h, cls, dev), unzigzag(rice_get(&r[1], &h->ts[cls])));
	uint32_t ds = dur_slot(sym);
	int64_t dur = wrap_add(h->last_dur[ds], unzigzag(rice_get(&r[1], &h->dur[dev])));
	h->last_dur[ds] = dur;
	h->prev_ts = ts;
	h->end[dev] = wrap_add(ts, dur);
	uint64_t off = (uint64_t)ts - (uint64_t)s->base[i >> 6];
	x->ts = off < TG_SKEL_WIDE_TS ? (uint32_t)off : TG_SKEL_WIDE_TS;
	x->dur = dur >= 0 && dur < (int64_t)TG_SKEL_WIDE_DUR ? (uint32_t)dur : TG_SKEL_WIDE_DUR;
}

int tg_skeleton_compact(tg_skeleton *s)
{
	if (!s->nodes)
		return 0; /* compact already */
	struct hold h;
	struct bitw b[2] = {{0}, {0}};
	if (hold_init(&h))
		return TG_ENOMEM;
	for (size_t i = 0; i < s->n && !bitw_room(&b[0], RICE_WORDS(4)) && !bitw_room(&b[1], RICE_WORDS(2)); i++)
		put_node(b, &h, s, i); /* a symbol's bit and three values, then two */
	hold_done(&h);
	int rc = bitw_finish(&b[0]);
	if (bitw_finish(&b[1]) || rc) { /* a stream that failed is freed already */
		tg_big_free(b[0].w);
		tg_big_free(b[1].w);
		return TG_ENOMEM;
	}
	for (int k = 0; k < 2; k++) {
		s->held[k] = b[k].w;
		s->nheld[k] = b[k].n;
	}
	free(s->nodes);
	s->nodes = NULL;
	return 0;
}

int tg_skeleton_expand(tg_skeleton *s)
{
	if (s->nodes)
		return 0;
	struct hold h;
	if (hold_init(&h))
		return TG_ENOMEM;
	s->nodes = tg_malloc((s->n ? s->n : 1) * sizeof(tg_skel_node));
	if (!s->nodes) {
		hold_done(&h);
		return TG_ENOMEM;
	}
	struct bitr r[2] = {{s->held[0], 0}, {s->held[1], 0}};
	for (size_t i = 0; i < s->n; i++)
		get_node(r, &h, s, i);
	hold_done(&h);
	for (int k = 0; k < 2; k++) {
		tg_big_free(s->held[k]);
		s->held[k] = NULL;
		s->nheld[k] = 0;
	}
	return 0;
}

int tg_skeleton_compacted(const tg_skeleton *s)
{
	return s->nodes == NULL;
}

uint64_t tg_skeleton_mem_bytes(const tg_skeleton *s)
{
	return s->nodes ? (uint64_t)s->n * sizeof(tg_skel_node) : (uint64_t)(s->nheld[0] + s->nheld[1]) * sizeof(uint64_t);
}
