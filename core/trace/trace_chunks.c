/*
 * trace_chunks.c - implements trace_chunks.h: the feeder thread, the ring
 * of chunks, the guess of event boundaries, and who parses which chunk.
 *
 * Who parses what: the reader's thread needs the chunks in order, so it
 * reads the nearest chunk nobody has begun itself, as a one-thread read
 * does (cheaper than parsing it ahead and merging the result: 2 ms of the
 * 15 ms of CPU of an h200-dev read were that, and on a busy machine, where
 * the feeder seldom has a core, the reader came to parse most chunks so);
 * the feeder, once the ring is full, parses the furthest one ahead. Both
 * stay busy on two cores and rarely want the same chunk; when the reader
 * must wait for the feeder's parse of the chunk it needs next, it parses a
 * later one ahead meanwhile, and when there is none it waits only as long
 * as such a parse takes (twice the time per byte measured so far): a
 * feeder that has lost its core (another program's turn on a shared
 * machine) must not stall the reader, which then reads the chunk itself;
 * the feeder's result, when it comes, is dropped.
 *
 * The ring holds NCHUNKS chunks (the bounded buffer: at most NCHUNKS *
 * chunk_bytes of JSON in memory, plus one carried tail). Four: each chunk
 * in flight is 128 KiB of JSON and a result of about 96 KiB (its events
 * parsed ahead, kept as spares), all of it resident at the read's end,
 * where the read peaks; eight (of 64 KiB) were 0.4 MB more of the 100 MB
 * trace's read peak (12.6 -> 12.1 MB) for the same CPU and wall (the
 * reader and the feeder seldom stand more than a chunk or two apart on
 * two cores).
 *
 * The feeder is a parked thread (util/park.h) when one is parked, as the
 * report parks one before its read: a thread created when the read starts
 * is queued behind the machine's other programs and began 0.1-0.35 ms
 * late on an h200-dev read, whose first chunks the reader then inflated
 * alone.
 */
#include "trace_chunks.h"
#include "../../util/affinity.h"
#include "../../util/park.h"
#include "../../util/tg.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NCHUNKS 4

/* S_READING: the reader reads the chunk's bytes itself (tg_chunks_result) */
enum slot_state { S_FREE = 0, S_READY, S_CLAIMED, S_PARSED, S_READING };

struct slot {
	tg_chunk c;
	int state;
	void *result;
	double claimed_at; /* when the feeder began to parse it (s) */
	int unwanted;      /* the reader parsed it itself: drop the feeder's result */
	int released;      /* the reader is done with it while the feeder parses it */
};

struct tg_chunks {
	tg_source *src;
	int reader_cpu; /* the reader's CPU when the read began (tg_affinity_cpu), or -1 */
	tg_affinity reader_saved; /* the reader's CPUs before the read (tg_affinity_split) */
	size_t cap;
	tg_chunk_parse_fn parse;
	tg_chunk_free_fn free_result;
	void *ctx;
	struct slot slots[NCHUNKS];
	tg_park *thread; /* the feeder's */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint64_t produced, handed; /* chunks made, given to the reader */
	int ended, cancel;
	int producing; /* a thread reads the source into the next chunk */
	double s_per_byte; /* parsing ahead, measured (0: not yet) */
	/* the producer's (whichever thread holds producing) */
	char *carry;
	size_t carry_len;
	uint64_t offset; /* JSON offset of the next chunk */
	int src_eof, next_spec, err;
	char err_msg[512];
};

static int is_ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

static int is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

/* The offset of the last '{' of d[0..n) that looks like the start of an
 * element of traceEvents ("}" "," '{' '"' letter, whitespace between), or
 * 0. A guess: in valid JSON, '"' followed by a letter opens a string, so
 * such a '{' is outside strings, and after "," it is an array's element;
 * whether traceEvents' is for the reader to find out. */
static size_t last_boundary(const char *d, size_t n)
{
	size_t end = n;
	const char *q;
	while (end > 1 && (q = memrchr(d, '{', end))) {
		size_t i = (size_t)(q - d), j = i + 1;
		end = i;
		while (j < n && is_ws(d[j]))
			j++;
		if (j + 1 >= n || d[j] != '"' || !is_letter(d[j + 1]))
			continue;
		size_t k = i;
		while (k > 0 && is_ws(d[k - 1]))
			k--;
		if (k == 0 || d[--k] != ',')
			continue;
		while (k > 0 && is_ws(d[k - 1]))
			k--;
		if (k > 0 && d[k - 1] == '}')
			return i;
	}
	return 0;
}

/* Fills slot s with the next chunk (the feeder's thread, outside the lock). */
static void produce(tg_chunks *p, struct slot *s)
{
	tg_chunk *c = &s->c;
	c->seq = p->produced;
	c->start = p->offset;
	c->final = 0;
	c->len = 0;
	c->spec = p->next_spec;
	if (p->carry_len == 0 && (p->err || p->src_eof)) {
		c->final = p->err ? p->err : 1;
		c->spec = 0;
		snprintf(c->msg, sizeof(c->msg), "%s", p->err_msg);
		memset(c->data, 0, TG_CHUNK_PAD);
		return;
	}
	size_t n = p->carry_len;
	memcpy(c->data, p->carry, n);
	p->carry_len = 0;
	while (n < p->cap && !p->src_eof && !p->err) {
		size_t got;
		int rc = tg_source_read(p->src, c->data + n, p->cap - n, &got);
		if (rc) {
			p->err = rc;
			snprintf(p->err_msg, sizeof(p->err_msg), "%s", tg_error_last());
		} else if (got == 0) {
			p->src_eof = 1;
		}
		n += rc ? 0 : got;
	}
	size_t q = p->src_eof || p->err ? 0 : last_boundary(c->data, n);
	if (q) {
		p->carry_len = n - q;
		memcpy(p->carry, c->data + q, p->carry_len);
		n = q;
	}
	p->next_spec = q != 0;
	c->len = n;
	memset(c->data + n, 0, TG_CHUNK_PAD);
	p->offset += n;
}

/* The slot of the ready, spec chunk with the highest (far: 1) or lowest
 * seq above after, or NULL. Under the lock. */
static struct slot *ready_spec(tg_chunks *p, int far, uint64_t after)
{
	struct slot *best = NULL;
	for (int i = 0; i < NCHUNKS; i++) {
		struct slot *s = &p->slots[i];
		if (s->state != S_READY || !s->c.spec || s->c.final || s->c.seq < after)
			continue;
		if (!best || (far ? s->c.seq > best->c.seq : s->c.seq < best->c.seq))
			best = s;
	}
	return best;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Parses s (claimed) as worker, under the lock on entry and on return.
 * A result the reader no longer wants is dropped; a slot the reader has
 * released meanwhile is freed. */
static void parse_slot(tg_chunks *p, struct slot *s, int worker)
{
	double t0 = now_s();
	s->state = S_CLAIMED;
	s->claimed_at = t0;
	s->unwanted = s->released = 0;
	pthread_mutex_unlock(&p->mu);
	void *r = p->parse(p->ctx, worker, &s->c);
	double t = now_s() - t0;
	pthread_mutex_lock(&p->mu);
	if (s->c.len) {
		double spb = t / (double)s->c.len;
		p->s_per_byte = p->s_per_byte ? 0.8 * p->s_per_byte + 0.2 * spb : spb;
	}
	if (s->unwanted || s->released) {
		pthread_mutex_unlock(&p->mu);
		p->free_result(p->ctx, r);
		pthread_mutex_lock(&p->mu);
		r = NULL;
	}
	s->result = r;
	s->state = s->released ? S_FREE : S_PARSED;
	pthread_cond_broadcast(&p->cv);
}

/* Produces the next chunk on this thread when it can be made now (a free
 * slot, nobody producing, data left): 1 if it did. Under the lock on entry
 * and on return. Either thread produces: the reader too, when it needs the
 * next chunk and the feeder is elsewhere (parsing, or off its core). */
static int try_produce(tg_chunks *p)
{
	struct slot *s = &p->slots[p->produced % NCHUNKS];
	if (p->ended || p->producing || s->state != S_FREE)
		return 0;
	p->producing = 1;
	pthread_mutex_unlock(&p->mu);
	produce(p, s);
	pthread_mutex_lock(&p->mu);
	s->state = S_READY;
	s->result = NULL;
	p->produced++;
	p->ended = s->c.final != 0;
	p->producing = 0;
	pthread_cond_broadcast(&p->cv);
	return 1;
}

static void *feeder(void *arg)
{
	tg_chunks *p = arg;
	/* off the reader's half of the CPUs for the read (util/affinity.h):
	 * on the same CPU the two took turns while the other core idled */
	tg_affinity saved;
	tg_affinity_split(&saved, p->reader_cpu, 1);
	pthread_mutex_lock(&p->mu);
	while (!p->cancel) {
		if (try_produce(p))
			continue;
		struct slot *r = ready_spec(p, 1, 0);
		if (r) {
			parse_slot(p, r, 1);
			continue;
		}
		if (p->ended && !p->producing)
			break;
		pthread_cond_wait(&p->cv, &p->mu);
	}
	pthread_mutex_unlock(&p->mu);
	tg_affinity_restore(&saved); /* a parked thread: its next job may run anywhere */
	return NULL;
}

int tg_chunks_start(tg_chunks **out, tg_source *src, size_t chunk_bytes, tg_chunk_parse_fn parse,
                    tg_chunk_free_fn free_result, void *ctx)
{
	*out = NULL;
	tg_chunks *p = tg_calloc(1, sizeof(*p));
	if (!p)
		return TG_ENOMEM;
	p->src = src;
	p->cap = chunk_bytes < 64 ? 64 : chunk_bytes;
	p->parse = parse;
	p->free_result = free_result;
	p->ctx = ctx;
	p->carry = tg_malloc(p->cap);
	int ok = p->carry != NULL;
	for (int i = 0; i < NCHUNKS && ok; i++)
		ok = (p->slots[i].c.data = tg_malloc(p->cap + TG_CHUNK_PAD)) != NULL;
	if (!ok) {
		for (int i = 0; i < NCHUNKS; i++)
			free(p->slots[i].c.data);
		free(p->carry);
		free(p);
		return TG_ENOMEM;
	}
	pthread_mutex_init(&p->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* the deadlines of tg_chunks_result */
	pthread_cond_init(&p->cv, &ca);
	pthread_condattr_destroy(&ca);
	p->reader_cpu = tg_affinity_cpu();
	/* the reader keeps to its half, the feeder to the other, until the
	 * read ends (tg_chunks_stop): free, the reader was placed on the
	 * feeder's CPU as it woke */
	tg_affinity_split(&p->reader_saved, p->reader_cpu, 0);
	if (tg_park_run(&p->thread, feeder, p) != 0) {
		tg_affinity_restore(&p->reader_saved);
		pthread_mutex_destroy(&p->mu);
		pthread_cond_destroy(&p->cv);
		for (int i = 0; i < NCHUNKS; i++)
			free(p->slots[i].c.data);
		free(p->carry);
		free(p);
		return tg_error_set(TG_EAGAIN, "cannot start the reader's thread");
	}
	*out = p;
	return 0;
}

tg_chunk *tg_chunks_next(tg_chunks *p)
{
	pthread_mutex_lock(&p->mu);
	while (p->produced <= p->handed)
		if (!try_produce(p))
			pthread_cond_wait(&p->cv, &p->mu);
	tg_chunk *c = &p->slots[p->handed % NCHUNKS].c;
	p->handed++;
	pthread_mutex_unlock(&p->mu);
	return c;
}

/* The slot of c: a chunk is its slot's first member. */
static struct slot *slot_of(tg_chunk *c) { return (struct slot *)(void *)c; }

void *tg_chunks_result(tg_chunks *p, tg_chunk *c)
{
	if (!c->spec || c->final)
		return NULL;
	struct slot *s = slot_of(c);
	pthread_mutex_lock(&p->mu);
	while (s->state != S_PARSED) {
		if (s->state == S_READY) { /* nobody began it: the reader reads it */
			s->state = S_READING;
			pthread_mutex_unlock(&p->mu);
			return NULL;
		}
		struct slot *later = ready_spec(p, 0, c->seq + 1); /* the feeder parses c: help ahead */
		if (later) {
			parse_slot(p, later, 0);
			continue;
		}
		/* wait for the feeder as long as a parse of c takes, twice over */
		double deadline = s->claimed_at + 2 * (double)c->len * p->s_per_byte + 200e-6;
		if (now_s() >= deadline) { /* it has lost its core: read c here */
			s->unwanted = 1;
			pthread_mutex_unlock(&p->mu);
			return NULL;
		}
		struct timespec ts = {(time_t)deadline, (long)((deadline - (double)(time_t)deadline) * 1e9)};
		pthread_cond_timedwait(&p->cv, &p->mu, &ts);
	}
	void *r = s->result;
	s->result = NULL;
	pthread_mutex_unlock(&p->mu);
	return r;
}

void tg_chunks_release(tg_chunks *p, tg_chunk *c)
{
	struct slot *s = slot_of(c);
	pthread_mutex_lock(&p->mu);
	if (s->state == S_CLAIMED) {
		/* the feeder still parses it (a chunk the reader did not use, or
		 * parsed itself): the feeder frees the slot when done */
		s->released = 1;
		pthread_mutex_unlock(&p->mu);
		return;
	}
	void *r = s->result;
	s->result = NULL;
	s->state = S_FREE;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	if (r)
		p->free_result(p->ctx, r);
}

void tg_chunks_stop(tg_chunks *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->cancel = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	tg_park_join(p->thread);
	tg_affinity_restore(&p->reader_saved);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	for (int i = 0; i < NCHUNKS; i++) {
		if (p->slots[i].result)
			p->free_result(p->ctx, p->slots[i].result);
		free(p->slots[i].c.data);
	}
	free(p->carry);
	free(p);
}
