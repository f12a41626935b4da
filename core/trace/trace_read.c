/*
 * trace_read.c - the streaming trace reader.
 *
 * Why a JSON parser of our own on this path: the trace is the one big input
 * (62 MB of JSON for 239k events in the largest sample, gigabytes in the
 * wild). A DOM parser such as jansson builds an object per value and throws
 * most of them away. This reader walks the bytes once, keeps only what the
 * model needs, and interns strings as it goes. Measured on xdit_sd_3.5
 * (62 MB of plain JSON, 239,093 events, 2-core machine, same run):
 * json_load_file alone takes 2.1-2.6 s and 503 MB of peak RSS (8x the file);
 * this reader plus the whole event tree (bench/bench_read) 0.13-0.15 s and
 * 20 MB, i.e. ~16x faster in 1/25 of the memory. `make bench` keeps timing it.
 * jansson still parses the small top-level members (deviceProperties,
 * distributedInfo...).
 *
 * How it streams: the bytes sit in a window buffer followed by a NUL sentinel,
 * so the lexer needs no bounds checks: meeting a NUL means "end of window"
 * (or a NUL byte in the data, which is an error). The document is parsed in
 * units: one top-level member, or one element of traceEvents. When a unit
 * runs into the end of the window, the lexer longjmps back to the loop, which
 * undoes the unit's partial effects (arguments appended), keeps the unit's
 * bytes, refills the window and parses the unit again. setjmp runs once per
 * refill, not per event.
 *
 * The reader is one translation unit in seven files, so that every static
 * helper still inlines where issue 24 measured it: trace_read_parser.h (limits,
 * states, the parser, failing), trace_read_lex.h (the lexer),
 * trace_read_args.h (the shared argument lists), trace_read_model.h
 * (interning, tracks, committing an event), trace_read_argv.h (an event's
 * arguments), trace_read_event.h (an event, a unit, parsing ahead), and
 * this file: the
 * pipeline of chunks parsed ahead and merged, and the driver.
 */
#include "trace_chunks.h"
#include "trace_impl.h"
#include "../../util/big.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* the pieces of this one translation unit, in order */
#include "trace_read_parser.h"
#include "trace_read_lex.h"
#include "trace_read_args.h"
#include "trace_read_model.h"
#include "trace_read_argv.h"
#include "trace_read_event.h"

/* ----------------------------------------------------------- the pipeline */

/* Up to cap bytes of JSON into dst: from the source, or from the chunks of
 * the pipeline in order (never past the end of one). */
static int stream_read(struct parser *ps, char *dst, size_t cap, size_t *got)
{
	*got = 0;
	if (!ps->pipe)
		return tg_source_read(ps->src, dst, cap, got);
	for (;;) {
		if (!ps->cur) {
			ps->cur = tg_chunks_next(ps->pipe);
			ps->cur_pos = 0;
		}
		tg_chunk *c = ps->cur;
		if (c->final < 0)
			return tg_error_set(c->final, "%s", c->msg);
		if (c->final)
			return 0;
		if (ps->cur_pos < c->len) {
			size_t n = c->len - ps->cur_pos < cap ? c->len - ps->cur_pos : cap;
			memcpy(dst, c->data + ps->cur_pos, n);
			ps->cur_pos += n;
			*got = n;
			return 0;
		}
		tg_chunks_release(ps->pipe, c);
		ps->cur = NULL;
	}
}

/* The chunk the stream reads next, taken when the current one is read. */
static tg_chunk *stream_chunk(struct parser *ps)
{
	if (ps->cur && !ps->cur->final && ps->cur_pos == ps->cur->len) {
		tg_chunks_release(ps->pipe, ps->cur);
		ps->cur = NULL;
	}
	if (!ps->cur) {
		ps->cur = tg_chunks_next(ps->pipe);
		ps->cur_pos = 0;
	}
	return ps->cur;
}

static void result_free(struct spec_result *r)
{
	if (!r)
		return;
	free(r->ev);
	tg_big_free(r->args);
	free(r->touch);
	free(r);
}

/* Gives r back to ctx's spares (tg_chunk_free_fn; any thread). */
static void free_result(void *ctx, void *res)
{
	struct workers *ws_ = ctx;
	struct spec_result *r = res;
	if (!r)
		return;
	pthread_mutex_lock(&ws_->mu);
	if (ws_->nspare < NSPARE) {
		ws_->spare[ws_->nspare++] = r;
		r = NULL;
	}
	pthread_mutex_unlock(&ws_->mu);
	result_free(r);
}

/* A result to fill: a spare (emptied), or a new one; NULL when out of
 * memory. */
static struct spec_result *take_result(struct workers *ws_)
{
	struct spec_result *r = NULL;
	pthread_mutex_lock(&ws_->mu);
	if (ws_->nspare)
		r = ws_->spare[--ws_->nspare];
	pthread_mutex_unlock(&ws_->mu);
	if (!r)
		return tg_calloc(1, sizeof(struct spec_result));
	r->nev = r->nargs = r->ntouch = r->stop = 0;
	return r;
}

/* The trace's atom of worker wk's atom a (interned now when new). */
static uint32_t map_atom(struct parser *ps, int wk, uint32_t a)
{
	if (a < ps->noise_limit + 2) /* the atoms every table begins with (seed_atoms) */
		return a;
	if (a >= ps->map_cap[wk]) {
		size_t old = ps->map_cap[wk];
		if (tg_grow((void **)&ps->map[wk], &ps->map_cap[wk], (size_t)a + 1, sizeof(uint32_t)))
			oom(ps);
		memset(ps->map[wk] + old, 0xff, (ps->map_cap[wk] - old) * sizeof(uint32_t)); /* TG_NONE */
	}
	if (ps->map[wk][a] == TG_NONE) {
		const struct pubstr *e = &ps->workers->w[wk].pub[a / PUB_SEG][a % PUB_SEG];
		ps->map[wk][a] = intern(ps, e->s, e->len);
	}
	return ps->map[wk][a];
}

static inline uint32_t remap(const struct parser *ps, int wk, uint32_t a)
{
	return a == TG_NONE || a < ps->noise_limit + 2 ? a : ps->map[wk][a];
}

/* Commits the events of a chunk parsed ahead, as if the reader had parsed
 * them: their strings interned in the order the chunk first used them,
 * then each event with its arguments. */
static void merge_result(struct parser *ps, const struct spec_result *r)
{
	int wk = r->worker;
	for (size_t i = 0; i < r->ntouch; i++)
		map_atom(ps, wk, r->touch[i]);
	for (size_t i = 0; i < r->nev; i++) {
		const struct pending *pe = &r->ev[i];
		size_t args_start = ps->t->nargs;
		for (uint32_t j = 0; j < pe->nargs; j++) {
			tg_arg *a = arg_slot(ps);
			*a = r->args[pe->args + j];
			a->key = remap(ps, wk, a->key) & TG_ARG_MAX_KEY;
			if (a->type == TG_ARG_STR || a->type == TG_ARG_RAW)
				a->v.atom = remap(ps, wk, a->v.atom);
			ps->t->nargs++;
		}
		struct evtmp ev = pe->ev;
		ev.name = remap(ps, wk, ev.name);
		ev.cat = remap(ps, wk, ev.cat);
		ev.key.pid_str = remap(ps, wk, ev.key.pid_str);
		ev.key.tid_str = remap(ps, wk, ev.key.tid_str);
		commit_event(ps, &ev, args_start, pe->at);
	}
}

/* Where no more than this many atoms: a chunk's keys keep below 2^24 */
#define SPEC_MAX_ATOMS (1u << 23)

/* At a unit boundary with nothing kept, expecting an element of
 * traceEvents, exactly where the next chunk begins: that chunk's events,
 * parsed ahead, are merged instead of read, and so the next ones. */
static int try_merge(struct parser *ps)
{
	while (ps->state == ST_EVENTS_FIRST || ps->state == ST_EVENTS_ELEM) {
		tg_chunk *c = stream_chunk(ps);
		if (ps->cur_pos != 0 || !c->spec || c->final || c->start != ps->base + ps->len)
			return 0;
		struct spec_result *r = tg_chunks_result(ps->pipe, c);
		if (!r)
			return 0;
		if (r->stop == 0 || tg_atoms_count(ps->t->atoms) + r->ntouch > SPEC_MAX_ATOMS) {
			free_result(ps->workers, r);
			return 0;
		}
		ps->merging = r;
		merge_result(ps, r);
		ps->merging = NULL;
		ps->base = c->start + r->stop;
		ps->len = 0;
		ps->state = r->state;
		ps->cur_pos = r->stop;
		free_result(ps->workers, r);
	}
	return 0;
}

/* The events of chunk c from its first byte, for as long as they parse
 * and are followed by ','; the counts at the last event kept go to w->keep_*
 * (in memory: a longjmp lands here). */
static void spec_events(struct spec *w, const tg_chunk *c)
{
	struct parser *ps = &w->ps;
	w->keep_nev = w->keep_touch = w->keep_args = w->keep_stop = 0;
	w->keep_state = ST_EVENTS_ELEM;
	if (setjmp(ps->jb) != J_NONE)
		return;
	const char *p = c->data;
	while (*p == '{' && tg_atoms_count(ps->t->atoms) < SPEC_MAX_ATOMS) {
		const char *q = parse_event(ps, p);
		if ((size_t)(q - p) > ps->max_unit / 4)
			return; /* the reader's window checks a unit this large */
		w->keep_nev = w->r->nev;
		w->keep_touch = w->r->ntouch;
		w->keep_args = ps->t->nargs;
		w->keep_stop = (size_t)(q - c->data);
		w->keep_state = ST_EVENTS_NEXT;
		q = ws(q);
		if (*q != ',')
			return;
		p = ws(q + 1);
		w->keep_stop = (size_t)(p - c->data);
		w->keep_state = ST_EVENTS_ELEM;
	}
}

static int seed_atoms(tg_atoms *a, uint32_t *atom_empty, uint32_t *atom_cat);

/* A parser's string cache, empty, its pages written now (NULL when out of
 * memory). Not calloc's: its fresh pages are mapped to the zero page when
 * intern first reads a slot, and the slot's first write then copies the
 * page and flushes its TLB entry on every core that runs one of this
 * process's threads (an interrupt to the other one): 4 % of the CPU of an
 * h200-dev report (compiled_r1, perf), on the reader's thread. Written
 * first, each page is faulted in once and nobody is interrupted. */
static struct icache *icache_new(void)
{
	_Static_assert(sizeof(struct icache) % _Alignof(struct rawslot) == 0, "the raw values' slots after the strings'");
	size_t bytes = ICACHE_SLOTS * sizeof(struct icache) + RAWCACHE_SLOTS * sizeof(struct rawslot);
	struct icache *c = tg_malloc(bytes);
	if (c)
		memset(c, 0, bytes);
	return c;
}

/* Makes worker w's atoms and string cache, on the thread whose worker it
 * is (worker 1 the feeder's, 0 the reader's), when it first parses ahead:
 * tables and page faults that the reader's thread made before reading its
 * first byte (0.1 ms), for a worker the reader seldom uses. Returns 0, or
 * -1 when out of memory (the chunk is then left to the reader). */
static int worker_ready(struct spec *w)
{
	if (w->ps.icache)
		return 0;
	if (!w->local.atoms) {
		w->local.atoms = tg_atoms_new();
		if (!w->local.atoms || seed_atoms(w->local.atoms, &w->ps.atom_empty, &w->ps.atom_cat)) {
			tg_atoms_free(w->local.atoms);
			w->local.atoms = NULL;
			return -1;
		}
		w->npub = tg_atoms_count(w->local.atoms);
		/* seeded as the trace's atoms are: the same number */
		w->ps.key_input_dims = tg_atoms_find(w->local.atoms, "Input Dims", 10);
	}
	w->ps.icache = icache_new();
	return w->ps.icache ? 0 : -1;
}

/* A worker's parse of chunk c ahead (tg_chunk_parse_fn). */
static void *spec_parse(void *ctx, int worker, const tg_chunk *c)
{
	struct spec *w = &((struct workers *)ctx)->w[worker];
	struct parser *ps = &w->ps;
	if (worker_ready(w))
		return NULL;
	struct spec_result *r = take_result(ctx);
	if (!r)
		return NULL;
	r->worker = worker;
	w->r = r;
	w->chunk_mark = (uint32_t)c->seq + 1;
	ps->buf = c->data;
	ps->len = c->len;
	ps->base = c->start;
	ps->t->args = r->args; /* the arrays of a recycled result, filled again */
	ps->t->args_cap = r->args_cap;
	ps->t->nargs = 0;
	spec_events(w, c);
	r->nev = w->keep_nev;
	r->ntouch = w->keep_touch;
	r->stop = w->keep_stop;
	r->state = w->keep_state;
	r->args = ps->t->args;
	r->args_cap = ps->t->args_cap;
	r->nargs = w->keep_args;
	ps->t->args = NULL;
	ps->t->nargs = ps->t->args_cap = 0;
	w->r = NULL;
	return r;
}

/* ------------------------------------------------------------ the driver */

_Static_assert(TG_CHUNK_PAD >= PAD, "a chunk read in place ends in the lexer's sentinel");

/* At a unit boundary with nothing kept: the reader's next chunk is parsed
 * where it lies instead of copied into the window (1 if so). Why: the
 * copy was 7.7 MB of the 11.7 MB of an h200-dev trace, on the reader's
 * thread. Only a chunk the window would have taken whole (its rest no
 * larger than the window), so that the window grows, and fails at
 * max_unit, exactly when it did. A unit that runs past the chunk's end is
 * copied to the window by refill, which reads on behind it as before. */
static int borrow_chunk(struct parser *ps)
{
	tg_chunk *c = stream_chunk(ps);
	if (c->final || ps->cur_pos >= c->len || c->len - ps->cur_pos > ps->cap)
		return 0;
	ps->buf = c->data + ps->cur_pos;
	ps->len = c->len - ps->cur_pos;
	ps->cur_pos = c->len;
	ps->unit = ps->p = ps->buf;
	return 1;
}

/* Keeps the bytes of the unfinished unit and reads more behind them. */
static int refill(struct parser *ps)
{
	size_t keep_from = (size_t)(ps->unit - ps->buf);
	size_t keep = ps->len - keep_from;
	if (ps->buf != ps->win) { /* a chunk read in place: the unit's bytes to the window */
		memcpy(ps->win, ps->buf + keep_from, keep);
		ps->buf = ps->win;
		ps->base += keep_from;
		ps->len = keep;
	} else if (keep_from > 0) {
		memmove(ps->buf, ps->buf + keep_from, keep);
		ps->base += keep_from;
		ps->len = keep;
	}
	if (keep == 0 && ps->pipe) {
		int rc = try_merge(ps);
		if (rc)
			return rc;
		if (borrow_chunk(ps))
			return 0;
	}
	if (ps->cap - ps->len < ps->cap / 4) {
		if (ps->cap >= ps->max_unit) {
			tg_error_set(TG_ELIMIT, "%s: byte %llu%s: one event or member is larger than %u bytes (limit)",
			             tg_source_name(ps->src), (unsigned long long)ps->base,
			             tg_source_is_gzip(ps->src) ? " of the inflated JSON" : "", ps->max_unit);
			return TG_ELIMIT;
		}
		size_t ncap = ps->cap * 2;
		char *nb = tg_realloc(ps->buf, ncap + PAD);
		if (!nb)
			return TG_ENOMEM;
		ps->buf = ps->win = nb;
		ps->cap = ncap;
	}
	while (ps->len < ps->cap && !ps->eof) {
		size_t got;
		int rc = stream_read(ps, ps->buf + ps->len, ps->cap - ps->len, &got);
		if (rc)
			return rc;
		if (got == 0)
			ps->eof = 1;
		ps->len += got;
		if (ps->len > ps->cap / 2)
			break; /* enough to go on with; keeps the pipeline moving */
		if (ps->pipe && got && ps->cur_pos == ps->cur->len)
			break; /* a chunk ends here: the next may be merged, not read */
	}
	memset(ps->buf + ps->len, 0, PAD);
	ps->unit = ps->p = ps->buf;
	return 0;
}

static int run(struct parser *ps)
{
	switch (setjmp(ps->jb)) {
	case J_NONE:
		break;
	case J_MORE:
		ps->t->nargs = ps->mark_args;
		ps->p = ps->unit;
		{
			int rc = refill(ps);
			if (rc)
				return rc;
		}
		break;
	default:
		return ps->err;
	}
	while (ps->state != ST_FINISHED) {
		/* whitespace between units is consumed here, so that a unit never
		 * starts with it (a window of blanks must not grow the window) */
		ps->p = ws(ps->p);
		ps->unit = ps->p;
		ps->mark_args = ps->t->nargs;
		parse_unit(ps);
	}
	return 0;
}

/* The atoms every table of a read begins with, in this order (a worker's
 * table too, so that these have the same numbers everywhere): the kept
 * argument keys, the noise keys, "" and "cat". */
static int seed_atoms(tg_atoms *a, uint32_t *atom_empty, uint32_t *atom_cat)
{
	uint32_t x;
	for (size_t i = 0; i < NKEPT; i++)
		if (tg_atoms_intern(&x, a, kept_keys[i], strlen(kept_keys[i])))
			return TG_ENOMEM;
	for (size_t i = 0; i < NNOISE; i++)
		if (tg_atoms_intern(&x, a, noise_keys[i], strlen(noise_keys[i])))
			return TG_ENOMEM;
	if (tg_atoms_intern(atom_empty, a, "", 0) || tg_atoms_intern(atom_cat, a, "cat", 3))
		return TG_ENOMEM;
	return 0;
}

/* The limits and options of opts on a fresh parser ps reading src. */
static void parser_config(struct parser *ps, tg_source *src, const tg_read_opts *opts)
{
	memset(ps, 0, sizeof(*ps));
	ps->src = src;
	ps->max_depth = opts && opts->max_depth ? opts->max_depth : DEFAULT_MAX_DEPTH;
	if (ps->max_depth > HARD_MAX_DEPTH)
		ps->max_depth = HARD_MAX_DEPTH;
	if (ps->max_depth < MIN_DEPTH)
		ps->max_depth = MIN_DEPTH;
	ps->max_events = opts && opts->max_events ? opts->max_events : DEFAULT_MAX_EVENTS;
	ps->max_args = opts && opts->max_args && opts->max_args < TG_MAX_ARGS ? opts->max_args : TG_MAX_ARGS;
	ps->max_string = opts && opts->max_string ? opts->max_string : DEFAULT_MAX_STRING;
	ps->max_unit = opts && opts->max_unit ? opts->max_unit : DEFAULT_MAX_UNIT;
	ps->last_track = TG_NONE;
	ps->state = ST_BEGIN;
	ps->keep_limit = (uint32_t)NKEPT;
	ps->noise_limit = (uint32_t)(NKEPT + NNOISE);
	ps->keep_all = opts && opts->keep_all_args;
	ps->launch_flows_only = opts && opts->launch_flows_only;
}

static void workers_free(struct workers *ws_)
{
	if (!ws_)
		return;
	for (int i = 0; i < ws_->nspare; i++)
		result_free(ws_->spare[i]);
	pthread_mutex_destroy(&ws_->mu);
	for (int i = 0; i < 2; i++) {
		struct spec *w = &ws_->w[i];
		tg_atoms_free(w->local.atoms);
		tg_big_free(w->local.args);
		free(w->ps.icache);
		free(w->ps.scratch);
		free(w->ps.meta_key);
		free(w->seen);
		for (size_t k = 0; k < PUB_SEGS && w->pub[k]; k++)
			free(w->pub[k]);
	}
	free(ws_);
}

/* The two workers' parsers, configured as main; their tables are made by
 * the first parse each worker does (worker_ready). */
static int workers_new(struct workers **out, const struct parser *main, const tg_read_opts *opts)
{
	struct workers *ws_ = *out = tg_calloc(1, sizeof(*ws_));
	if (!ws_)
		return TG_ENOMEM;
	pthread_mutex_init(&ws_->mu, NULL);
	for (int i = 0; i < 2; i++) {
		struct spec *w = &ws_->w[i];
		parser_config(&w->ps, main->src, opts);
		w->ps.spec = w;
		w->ps.t = &w->local; /* its atoms, and key_input_dims, made by worker_ready */
	}
	return 0;
}

/* Frees what the parser ps holds (not its trace); stops its pipeline. */
static void parser_free(struct parser *ps)
{
	tg_chunks_stop(ps->pipe);
	ps->pipe = NULL;
	result_free(ps->merging);
	workers_free(ps->workers);
	free(ps->map[0]);
	free(ps->map[1]);
	free(ps->win);
	free(ps->scratch);
	free(ps->meta_key);
	free(ps->tslots);
	free(ps->open);
	free(ps->icache);
	free(ps->dslots);
}

/* Bytes of JSON per event that reserve_arrays guesses: fewer than any
 * shared trace has (h200-dev 300-370, xdit_sd_3.5 260), so that the guess
 * seldom falls short. */
#define RESERVE_BYTES_PER_EVENT 192
/* No reservation below this many events: growing costs nothing there. */
#define RESERVE_MIN_EVENTS 4096

/* Sizes the events' and the arguments' arrays once, for the events that
 * json_hint bytes of JSON hold at most (tg_source_size_hint), instead of
 * doubling them from 16 as they fill. Why: each doubling copied the array
 * into memory touched for the first time, and those copies and their page
 * faults were a third of the page faults of an h200-dev report (1,550),
 * all on the reader's thread. What is reserved and never written is never
 * touched either (tg_big_alloc maps a block this large, or malloc leaves it
 * untouched at the heap's top: its pages are made on first write), and
 * trim_array gives it back after the read. A guess too small grows as
 * before; no memory for a guess too large (a hint comes from the file and
 * may lie) is no error: the arrays grow as before. The flows too (at most
 * one an event): grown from 16, they passed through the heap below util/big's
 * mappings, and a 1 GB read left 3 MB of freed heap resident behind them
 * (its peak 99.1 -> 96.0 MB reserved). The events' second ids likewise,
 * beside the events (tg_trace_drop_id1s gives them back after the tree). */
static void reserve_arrays(tg_trace *t, uint64_t json_hint, uint64_t max_events)
{
	uint64_t n = json_hint / RESERVE_BYTES_PER_EVENT;
	if (n > max_events)
		n = max_events;
	if (n < RESERVE_MIN_EVENTS || n > SIZE_MAX / 2 / sizeof(tg_event))
		return;
	tg_event *ev = tg_big_alloc((size_t)n * sizeof(tg_event));
	tg_arg *args = tg_big_alloc((size_t)n * sizeof(tg_arg)); /* about one an event at most in the shared traces */
	tg_flow *flows = tg_big_alloc((size_t)n * sizeof(tg_flow));
	uint32_t *id1s = tg_big_alloc((size_t)n * sizeof(uint32_t));
	if (!ev || !args || !flows || !id1s) {
		tg_big_free(ev);
		tg_big_free(args);
		tg_big_free(flows);
		tg_big_free(id1s);
		return;
	}
	t->events = ev;
	t->events_cap = (size_t)n;
	t->args = args;
	t->args_cap = (size_t)n;
	t->flows = flows;
	t->flows_cap = (size_t)n;
	t->id1s = id1s;
	t->id1s_cap = (size_t)n;
}

/* Gives back what reserve_arrays reserved beyond the events, arguments and
 * flows read (a smaller block: shrunk in place or remapped, never copied). */
static void trim_array(void **items, size_t *cap, size_t n, size_t item_size)
{
	if (*cap <= n + n / 4 + RESERVE_MIN_EVENTS)
		return;
	void *p = tg_big_realloc(*items, (n ? n : 1) * item_size);
	if (p) {
		*items = p;
		*cap = n ? n : 1;
	}
}

static int read_source(tg_trace **out, tg_source *src, const char *name, const tg_read_opts *opts, int pipeline)
{
	*out = NULL;
	struct parser ps;
	parser_config(&ps, src, opts);
	int rc = TG_ENOMEM;
	tg_trace *t = tg_calloc(1, sizeof(*t));
	if (!t)
		return TG_ENOMEM;
	ps.t = t;
	uint64_t hint = tg_source_size_hint(src); /* before the feeder reads src */
	/* the feeder first, so that it inflates the first chunks while this
	 * thread makes its tables (0.2-0.3 ms before its first byte, which it
	 * otherwise waited for on an h200-dev read) */
	if (pipeline) {
		size_t chunk = opts && opts->chunk ? opts->chunk : CHUNK_DEFAULT;
		if ((rc = workers_new(&ps.workers, &ps, opts)))
			goto fail;
		if (tg_chunks_start(&ps.pipe, src, chunk, spec_parse, free_result, ps.workers)) {
			workers_free(ps.workers); /* no thread: read on this one */
			ps.workers = NULL;
			tg_error_clear();
		}
	}
	rc = TG_ENOMEM;
	t->name = strdup(name);
	t->atoms = tg_atoms_new();
	t->meta = json_object();
	ps.cap = opts && opts->window ? opts->window : WINDOW_INITIAL;
	if (ps.cap < 16)
		ps.cap = 16;
	ps.buf = ps.win = tg_malloc(ps.cap + PAD);
	ps.tmask = 63;
	ps.tslots = tg_calloc(ps.tmask + 1, sizeof(uint32_t));
	ps.icache = icache_new();
	if (!t->name || !t->atoms || !t->meta || !ps.buf || !ps.tslots || !ps.icache)
		goto fail;
	memset(ps.buf, 0, PAD);
	ps.unit = ps.p = ps.buf;
	if (seed_atoms(t->atoms, &ps.atom_empty, &ps.atom_cat))
		goto fail;
	ps.key_input_dims = tg_atoms_find(t->atoms, "Input Dims", 10);
	reserve_arrays(t, hint, ps.max_events);
	ps.dmask_hint = dedup_mask_for(hint);
	rc = run(&ps);
	tg_chunks_stop(ps.pipe); /* the feeder has read the source to its end */
	ps.pipe = NULL;
	if (rc)
		goto fail;
	trim_array((void **)&t->events, &t->events_cap, t->nevents, sizeof(tg_event));
	trim_array((void **)&t->id1s, &t->id1s_cap, t->nevents, sizeof(uint32_t));
	trim_array((void **)&t->args, &t->args_cap, t->nargs, sizeof(tg_arg));
	trim_array((void **)&t->flows, &t->flows_cap, t->nflows, sizeof(tg_flow));
	for (size_t i = 0; i < ps.nopen; i++)
		t->events[ps.open[i]].flags |= TG_EV_UNCLOSED;
	t->stats.json_bytes = ps.base + ps.len;
	t->stats.file_bytes = tg_source_file_bytes(src);
	rc = tg_trace_finish_meta(t);
	if (!rc)
		rc = tg_trace_finish_names(t);
	if (rc)
		goto fail;
	parser_free(&ps);
	*out = t;
	return 0;
fail:
	/* out-of-memory messages come from deep inside: name the file too */
	if (rc == TG_ENOMEM)
		tg_error_set(TG_ENOMEM, "%s: out of memory while reading the trace", name);
	parser_free(&ps);
	tg_trace_free(t);
	return rc;
}

/* Whether to read with the pipeline (trace_chunks.h): not when asked to
 * stay on one thread, nor for input too small to be worth a thread (size:
 * the file's bytes, or -1 when unknown, as for a pipe). */
static int use_pipeline(const tg_read_opts *opts, int64_t size)
{
	if (opts && opts->source.single_thread)
		return 0;
	size_t chunk = opts && opts->chunk ? opts->chunk : CHUNK_DEFAULT;
	return size < 0 || (uint64_t)size >= chunk / 4;
}

/* The source options for a read: single-threaded under the pipeline, whose
 * feeder inflates. */
static tg_source_opts source_opts(const tg_read_opts *opts, int pipeline)
{
	tg_source_opts so = {0};
	if (opts)
		so = opts->source;
	if (pipeline)
		so.single_thread = 1;
	return so;
}

static int64_t size_of_fd(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (int64_t)st.st_size : -1;
}

int tg_trace_read_file(tg_trace **out, const char *path, const tg_read_opts *opts)
{
	return tg_trace_read_file_named(out, path, path, opts);
}

int tg_trace_read_file_named(tg_trace **out, const char *path, const char *name, const tg_read_opts *opts)
{
	tg_source *src;
	*out = NULL;
	tg_error_clear();
	if (!name)
		name = path;
	struct stat st;
	int pipeline = use_pipeline(opts, stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (int64_t)st.st_size : -1);
	tg_source_opts so = source_opts(opts, pipeline);
	int rc = tg_source_open_file(&src, path, name, &so);
	if (rc)
		return rc;
	rc = read_source(out, src, name, opts, pipeline);
	tg_source_free(src);
	return rc;
}

int tg_trace_read_fd_named(tg_trace **out, int fd, const char *name, const tg_read_opts *opts)
{
	tg_source *src;
	*out = NULL;
	tg_error_clear();
	int pipeline = use_pipeline(opts, size_of_fd(fd));
	tg_source_opts so = source_opts(opts, pipeline);
	int rc = tg_source_open_fd(&src, fd, name, &so);
	if (rc)
		return rc;
	rc = read_source(out, src, name ? name : "<fd>", opts, pipeline);
	tg_source_free(src);
	return rc;
}

int tg_trace_read_mem(tg_trace **out, const void *data, size_t len, const char *name,
                      const tg_read_opts *opts)
{
	tg_source *src;
	*out = NULL;
	tg_error_clear();
	if (!name)
		name = "<memory>";
	int pipeline = use_pipeline(opts, (int64_t)len);
	tg_source_opts so = source_opts(opts, pipeline);
	int rc = tg_source_open_mem(&src, data, len, name, &so);
	if (rc)
		return rc;
	rc = read_source(out, src, name, opts, pipeline);
	tg_source_free(src);
	return rc;
}
