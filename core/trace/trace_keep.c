/*
 * trace_keep.c - a trace's arguments cut down to a few keys
 * (tg_trace_keep_args), for a caller that has read everything else it
 * needs of them and keeps the events for one more analysis (`diff`: the
 * critical path, last, reads only the streams and the stream waits).
 *
 * Lists may be shared by events (the reader keeps one copy of equal
 * lists) and an event's list is a run of the array ending at an argument
 * marked last. Every position of the old array is mapped to the first
 * kept argument at or after it in its list (TG_NONE when none is left),
 * so that an event's first argument maps to its new list whatever run it
 * starts; the kept arguments are moved down in place in the same walk (a
 * new place is never after the old one), each list's last one marked;
 * then the events' lists are mapped and the array shrunk (a mapped block
 * gives its tail back). The map is the one transient: 4 bytes an old
 * argument.
 */
#include "trace_impl.h"
#include "../../util/big.h"

#include <stdlib.h>
#include <string.h>

/* Whether key is one of keys[0..n). */
static int wanted(uint32_t key, const uint32_t *keys, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (keys[k] == key)
			return 1;
	return 0;
}

/* The list starting at s (its last argument at e, returned): its kept
 * arguments moved down to *w on (*w <= s: the array is walked once, in
 * order), the last of them marked; map[j], j in the list: the new place
 * of the first kept argument at or after j (TG_NONE when none is). */
static size_t keep_list(uint32_t *map, tg_arg *a, size_t n, size_t s, const uint32_t *keys, size_t nkeys,
                        size_t *w)
{
	size_t first = *w, e = s;
	for (;; e++) {
		int last = a[e].last || e + 1 == n; /* read before a[*w] (maybe a[e]) is written */
		if (wanted(a[e].key, keys, nkeys)) {
			map[e] = (uint32_t)*w;
			a[*w] = a[e];
			a[(*w)++].last = 0;
		} else {
			map[e] = TG_NONE;
		}
		if (last)
			break;
	}
	if (*w > first)
		a[*w - 1].last = 1;
	uint32_t next = TG_NONE;
	for (size_t j = e + 1; j-- > s;) {
		if (map[j] != TG_NONE)
			next = map[j];
		else
			map[j] = next;
	}
	return e;
}

int tg_trace_keep_args(tg_trace *t, const char *const *names)
{
	uint32_t keys[16];
	size_t nkeys = 0;
	for (size_t k = 0; names[k] && nkeys < sizeof(keys) / sizeof(keys[0]); k++) {
		uint32_t key = tg_trace_key(t, names[k]);
		if (key != TG_NONE)
			keys[nkeys++] = key;
	}
	size_t n = t->nargs;
	if (!n)
		return 0;
	uint32_t *map = tg_big_alloc(n * sizeof(uint32_t));
	if (!map)
		return TG_ENOMEM;
	size_t nw = 0;
	for (size_t s = 0; s < n;) /* the lists, in order */
		s = keep_list(map, t->args, n, s, keys, nkeys, &nw) + 1;
	for (size_t i = 0; i < t->nevents; i++) {
		tg_event *e = &t->events[i];
		if (e->args != TG_NONE)
			e->args = e->args < n ? map[e->args] : TG_NONE;
	}
	tg_big_free(map);
	if (!nw) {
		tg_big_free(t->args);
		t->args = NULL;
		t->nargs = t->args_cap = 0;
		return 0;
	}
	tg_arg *shrunk = tg_big_realloc(t->args, nw * sizeof(tg_arg));
	if (shrunk) { /* else the old block stays: only its tail is unused */
		t->args = shrunk;
		t->args_cap = nw;
	}
	t->nargs = nw;
	return 0;
}
