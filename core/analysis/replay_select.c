/*
 * replay_select.c - the distinct invocations of one op (replay.h): every
 * cpu_op of that name, grouped by the atoms of its four shape arguments (the
 * reader interns each argument's JSON text, so equal texts are one atom and
 * grouping is exact without comparing strings) and, for the attention entry
 * point, the backend under it; each group's device time (the kernels,
 * memcpys and memsets under its invocations, nested ops included) and host
 * time; its signature as Python prints the arguments (what --match reads
 * and the listing shows); and how it is rebuilt, or why it cannot be.
 */
#include "replay_impl.h"
#include "../trace/pyrepr.h"
#include "../../util/regex.h"
#include "../../util/tg.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIG_PART 4096 /* bytes of one argument in a signature */

struct key {
	uint32_t dims, types, strides, concrete;
	const char *backend; /* static; NULL but for the attention entry point */
};

struct group {
	struct key key;
	tg_replay_call call;
};

struct tg_replay_set {
	tg_replay_call *calls;
	size_t n, ops;
	char **sigs; /* the signatures, one per call of calls */
};

static uint32_t arg_atom(const tg_trace *t, const tg_event *e, uint32_t key)
{
	const tg_arg *a = key == TG_NONE ? NULL : tg_event_arg(t, e, key);
	return a && (a->type == TG_ARG_RAW || a->type == TG_ARG_STR) ? a->v.atom : TG_NONE;
}

static int key_eq(const struct key *a, const struct key *b)
{
	return a->dims == b->dims && a->types == b->types && a->strides == b->strides && a->concrete == b->concrete &&
	       a->backend == b->backend;
}

/* Device and host time of one invocation ev into c. */
static void add_times(tg_replay_call *c, const tg_tree *tree, const tg_event *evs, uint32_t ev)
{
	int64_t gpu = 0;
	uint32_t stack[256];
	size_t sp = 0;
	stack[sp++] = ev;
	while (sp) {
		tg_tree_child_iter it;
		uint32_t k;
		for (tg_tree_child_iter_init(&it, tree, stack[--sp]); tg_tree_child_next(&it, &k);) {
			if (tg_kind_is_gpu(evs[k].kind))
				gpu += tg_event_dur(tg_tree_trace(tree), &evs[k]);
			else if (sp < 256)
				stack[sp++] = k;
		}
	}
	c->calls++;
	c->cpu_ns += tg_event_dur(tg_tree_trace(tree), &evs[ev]);
	c->gpu_ns += gpu;
	c->gpu_calls += gpu > 0;
}

/* Python's print of one argument's JSON text ("None" when absent). */
static void sig_part(char *buf, size_t cap, const tg_trace *t, uint32_t atom)
{
	if (atom == TG_NONE)
		snprintf(buf, cap, "None");
	else
		tg_pyrepr(buf, cap, tg_trace_str(t, atom));
}

static char *signature(const tg_trace *t, const struct key *k)
{
	char *p[4], *out = NULL;
	uint32_t atoms[4] = {k->dims, k->types, k->strides, k->concrete};
	for (int i = 0; i < 4; i++) {
		p[i] = malloc(SIG_PART);
		if (p[i])
			sig_part(p[i], SIG_PART, t, atoms[i]);
	}
	if (p[0] && p[1] && p[2] && p[3] &&
	    asprintf(&out, "dims=%s types=%s strides=%s concrete=%s%s%s", p[0], p[1], p[2], p[3],
	             k->backend ? " backend=" : "", k->backend ? k->backend : "") < 0)
		out = NULL;
	for (int i = 0; i < 4; i++)
		free(p[i]);
	if (!out)
		tg_error_set(TG_ENOMEM, "out of memory");
	return out;
}

/* The group of key in g (n of them), added when new. Linear in the
 * distinct invocations, which are few per op. */
static struct group *group_of(struct group **g, size_t *n, size_t *cap, const struct key *k, uint32_t ev)
{
	for (size_t i = *n; i-- > 0;)
		if (key_eq(&(*g)[i].key, k))
			return &(*g)[i];
	if (tg_grow((void **)g, cap, *n + 1, sizeof(**g)))
		return NULL;
	struct group *x = &(*g)[(*n)++];
	memset(x, 0, sizeof(*x));
	x->key = *k;
	x->call.first = ev;
	return x;
}

/* The "no such op" error, with the ops whose names contain op's last part. */
static int not_found(const tg_trace *t, const char *op)
{
	const char *part = strrchr(op, ':') ? strrchr(op, ':') + 1 : op;
	size_t n, nsugg = 0;
	const tg_event *evs = tg_trace_events(t, &n);
	uint32_t sugg[5];
	char list[400] = "", shown[80];
	for (size_t i = 0; i < n && nsugg < 5 && *part; i++) {
		if (evs[i].kind != TG_KIND_CPU_OP || !strstr(tg_trace_str(t, evs[i].name), part))
			continue;
		int seen = 0;
		for (size_t k = 0; k < nsugg; k++)
			seen |= sugg[k] == evs[i].name;
		if (!seen)
			sugg[nsugg++] = evs[i].name;
	}
	for (size_t k = 0; k < nsugg; k++) {
		tg_replay_plain(shown, sizeof(shown), tg_trace_str(t, sugg[k]));
		size_t l = strlen(list);
		snprintf(list + l, sizeof(list) - l, "%s%s", k ? ", " : "", shown);
	}
	tg_replay_plain(shown, sizeof(shown), op);
	return nsugg ? tg_error_set(TG_ENOTFOUND, "no cpu_op named '%s' (ops named like it: %s)", shown, list)
	             : tg_error_set(TG_ENOTFOUND, "no cpu_op named '%s'", shown);
}

static int by_time(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;
	if (a->call.gpu_ns != b->call.gpu_ns)
		return a->call.gpu_ns > b->call.gpu_ns ? -1 : 1;
	if (a->call.cpu_ns != b->call.cpu_ns)
		return a->call.cpu_ns > b->call.cpu_ns ? -1 : 1;
	return a->call.first < b->call.first ? -1 : a->call.first > b->call.first;
}

/* 1 when an invocation of op wraps another one (autocast dispatches an op
 * again inside itself, with the cast inputs): the inner one is what ran. */
static int wraps_itself(const tg_tree *tree, const tg_event *evs, uint32_t ev, uint32_t op)
{
	uint32_t stack[64];
	size_t sp = 0;
	stack[sp++] = ev;
	for (int visits = 0; sp && visits < 256; visits++) { /* autocast's inner call is a child */
		tg_tree_child_iter it;
		uint32_t k;
		for (tg_tree_child_iter_init(&it, tree, stack[--sp]); tg_tree_child_next(&it, &k);) {
			if (evs[k].kind != TG_KIND_CPU_OP)
				continue;
			if (evs[k].name == op)
				return 1;
			if (sp < 64)
				stack[sp++] = k;
		}
	}
	return 0;
}

/* Groups every cpu_op named op (but those that wrap another) into *g (*n
 * groups), timed. */
static int collect(struct group **g, size_t *n, const tg_tree *tree, uint32_t op)
{
	const tg_trace *t = tg_tree_trace(tree);
	uint32_t kd = tg_trace_key(t, "Input Dims"), kt = tg_trace_key(t, "Input type");
	uint32_t ks = tg_trace_key(t, "Input Strides"), kc = tg_trace_key(t, "Concrete Inputs");
	size_t nev, cap = 0;
	const tg_event *evs = tg_trace_events(t, &nev);
	*g = NULL;
	*n = 0;
	for (size_t i = 0; i < nev; i++) {
		if (evs[i].kind != TG_KIND_CPU_OP || evs[i].name != op || wraps_itself(tree, evs, (uint32_t)i, op))
			continue;
		struct key k = {arg_atom(t, &evs[i], kd), arg_atom(t, &evs[i], kt), arg_atom(t, &evs[i], ks),
		                arg_atom(t, &evs[i], kc), tg_replay_sdpa_backend(tree, (uint32_t)i)};
		struct group *x = group_of(g, n, &cap, &k, (uint32_t)i);
		if (!x)
			return TG_ENOMEM;
		add_times(&x->call, tree, evs, (uint32_t)i);
	}
	return 0;
}

/* Keeps the groups whose signature match matches, with their calls. */
static int fill(tg_replay_set *s, struct group *g, size_t n, const tg_tree *tree, const regex_t *re)
{
	const tg_trace *t = tg_tree_trace(tree);
	s->calls = calloc(n ? n : 1, sizeof(*s->calls));
	s->sigs = calloc(n ? n : 1, sizeof(*s->sigs));
	if (!s->calls || !s->sigs)
		return tg_error_set(TG_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		char *sig = signature(t, &g[i].key);
		if (!sig)
			return TG_ENOMEM;
		if (re && regexec(re, sig, 0, NULL, 0)) {
			free(sig);
			continue;
		}
		tg_replay_call *c = &s->calls[s->n];
		*c = g[i].call;
		s->sigs[s->n++] = sig;
		c->signature = sig;
		tg_replay_spec *sp = tg_malloc(sizeof(*sp));
		if (!sp)
			return TG_ENOMEM;
		c->family = tg_replay_spec_build(sp, c->reason, sizeof(c->reason), tree, c->first) ? TG_REPLAY_REFUSED
		                                                                                   : sp->family;
		free(sp);
	}
	return 0;
}

int tg_replay_find(tg_replay_set **out, const tg_tree *tree, const char *op, const char *match)
{
	*out = NULL;
	const tg_trace *t = tg_tree_trace(tree);
	uint32_t atom = tg_atoms_find(tg_trace_atoms(t), op, strlen(op));
	regex_t re;
	if (match) {
		char msg[128];
		if (tg_regex_compile(&re, match, msg, sizeof(msg)))
			return tg_error_set(TG_EINVAL, "--match: not a regular expression: %s", msg);
	}
	struct group *g = NULL;
	size_t n = 0;
	tg_replay_set *s = calloc(1, sizeof(*s));
	int rc = !s ? tg_error_set(TG_ENOMEM, "out of memory") : atom == TG_NONE ? 0 : collect(&g, &n, tree, atom);
	if (rc == TG_ENOMEM)
		tg_error_set(TG_ENOMEM, "out of memory");
	if (!rc && !n)
		rc = not_found(t, op);
	if (!rc) {
		qsort(g, n, sizeof(*g), by_time);
		s->ops = n;
		rc = fill(s, g, n, tree, match ? &re : NULL);
	}
	free(g);
	if (match)
		regfree(&re);
	if (rc) {
		tg_replay_set_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

const tg_replay_call *tg_replay_calls(const tg_replay_set *s, size_t *n)
{
	*n = s->n;
	return s->calls;
}

size_t tg_replay_set_ops(const tg_replay_set *s)
{
	return s->ops;
}

void tg_replay_set_free(tg_replay_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->sigs[i]);
	free(s->sigs);
	free(s->calls);
	free(s);
}
