/*
 * trace_read_args.h - the set of the distinct argument lists the reader
 * has stored, so that an event whose list equals one of them shares it.
 *
 * A piece of trace_read.c's one translation unit, which includes it once,
 * before trace_read_model.h (whose commit of an event calls share_args):
 * the functions stay static in one unit, so the compiler inlines across
 * the pieces. Nothing else includes it.
 */
#ifndef TG_TRACE_READ_ARGS_H
#define TG_TRACE_READ_ARGS_H

/* Events share their argument lists (issue 24): most calls of an op repeat
 * the same shapes, types and values (xdit_sd_3.5: 127,629 arguments, 2,979
 * in distinct lists; a 100 MB generated trace: 480,750 and 114,139), so an
 * event whose list equals, byte for byte, one already stored points at it
 * and its own copy is dropped. Nothing reads an argument but through its
 * event (tg_event_arg), and nothing writes one after the read. A set of the
 * distinct lists finds them, 4 bytes a list: its first index + 1 (no
 * count: n arguments compared from there tell a longer or shorter list
 * apart at the shorter's .last bit); it is dropped when, after DEDUP_TRIAL
 * lists, fewer than a quarter were repeats (unique "Sequence number"s). */
#define DEDUP_TRIAL 65536

static uint64_t args_hash(const tg_arg *a, size_t n) { return tg_hash_bytes(a, n * sizeof(tg_arg)); }

/* The count of the stored list from t->args[at] (up to its .last). */
static size_t stored_count(const tg_trace *t, size_t at)
{
	size_t n = 1;
	while (!t->args[at + n - 1].last)
		n++;
	return n;
}

static void dedup_insert(struct parser *ps, uint32_t slot, uint64_t h)
{
	size_t i = (size_t)h & ps->dmask;
	while (ps->dslots[i])
		i = (i + 1) & ps->dmask;
	ps->dslots[i] = slot;
	ps->dcount++;
}

/* Bytes of JSON a slot of the set, for the size it jumps to (dedup_grow):
 * the generated traces hold a distinct list every 3.3-3.4 KB, and the set
 * is kept at most half full. */
#define DEDUP_BYTES_PER_SLOT 1536
/* The largest set the input's size alone may ask for (a hint may lie):
 * 4 Mi slots, 16 MiB; past it the set doubles as it fills. */
#define DEDUP_HINT_MAX_MASK ((size_t)(1u << 22) - 1)

/* The set's mask for json_hint bytes of JSON: the power of two at or above
 * json_hint / DEDUP_BYTES_PER_SLOT, less one; 0 where that is no larger
 * than the first set. */
static size_t dedup_mask_for(uint64_t json_hint)
{
	uint64_t want = json_hint / DEDUP_BYTES_PER_SLOT;
	size_t mask = 4095;
	while (mask < DEDUP_HINT_MAX_MASK && mask + 1 < want)
		mask = mask * 2 + 1;
	return mask > 4095 ? mask : 0;
}

/* Grows the set: doubles it, or on its first growth jumps to the size the
 * input suggests (ps->dmask_hint), so that a large trace's set is rehashed
 * once or twice, not at each doubling (each rehash hashes every stored list
 * again, a read of the arguments out of order: a miss a list at 1 GB). A
 * trace of few distinct lists never grows past the first set, whatever its
 * size. 0 or -1 (out of memory: the set is dropped). */
static int dedup_grow(struct parser *ps)
{
	uint32_t *old = ps->dslots;
	size_t omask = ps->dmask, nmask = omask ? omask * 2 + 1 : 4095;
	if (nmask < ps->dmask_hint)
		nmask = ps->dmask_hint;
	/* zeroed by writing, not calloc's fresh pages: a probe reads a slot
	 * before the insert writes it, and a page first read maps the zero
	 * page, so that the write faults again and flushes the page from the
	 * other CPU's TLB while the feeder runs there (30 of xdit_sd_3.5's
	 * 3,834 page faults; the pages the probes reach are nearly all of
	 * them either way) */
	ps->dslots = tg_malloc((nmask + 1) * sizeof(uint32_t));
	if (ps->dslots)
		memset(ps->dslots, 0, (nmask + 1) * sizeof(uint32_t));
	ps->dmask = ps->dslots ? nmask : 0;
	ps->dcount = 0;
	for (size_t i = 0; ps->dslots && old && i <= omask; i++)
		if (old[i]) {
			size_t at = old[i] - 1;
			dedup_insert(ps, old[i], args_hash(ps->t->args + at, stored_count(ps->t, at)));
		}
	free(old);
	if (!ps->dslots)
		ps->dedup_off = 1;
	return ps->dslots ? 0 : -1;
}

/* Where the event's arguments t->args[start..nargs) are kept: an equal
 * list stored before (this one then dropped), or start. */
static uint32_t share_args(struct parser *ps, size_t start)
{
	tg_trace *t = ps->t;
	size_t n = t->nargs - start;
	if (n == 0 || ps->dedup_off)
		return (uint32_t)start;
	const tg_arg *a = t->args + start;
	uint64_t h = args_hash(a, n);
	for (size_t i = (size_t)h & ps->dmask; ps->dslots && ps->dslots[i]; i = (i + 1) & ps->dmask) {
		uint32_t at = ps->dslots[i] - 1;
		if (!memcmp(t->args + at, a, n * sizeof(tg_arg))) {
			t->nargs = start;
			ps->dhits++;
			return at;
		}
	}
	if (++ps->dlists == DEDUP_TRIAL && ps->dhits < DEDUP_TRIAL / 4) {
		free(ps->dslots);
		ps->dslots = NULL;
		ps->dedup_off = 1;
		return (uint32_t)start;
	}
	/* a slot holds start + 1: past 2^32 - 2 the list is kept unshared */
	if (start >= UINT32_MAX || ((ps->dcount + 1) * 2 > ps->dmask && dedup_grow(ps)))
		return (uint32_t)start;
	dedup_insert(ps, (uint32_t)start + 1, h);
	return (uint32_t)start;
}

#endif
