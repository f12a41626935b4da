/*
 * measure.c - flattens one side of a comparison into kernel records,
 * invocations and per-step units (see measure.h; the units are measure_units.c's).
 */
#include "measure_impl.h"
#include "../analysis/stream_ids.h"
#include "../trace/categorize.h"
#include "../../util/idmap.h"
#include "../models/kernel_category.h"
#include "../trace/kernel_class.h"
#include "../analysis/launchers.h"
#include "../tree/modules.h"
#include "../models/perf_model.h"
#include "../analysis/ranks.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t tg_measure_normalize_name(char *buf, size_t cap, const char *name)
{
	size_t o = 0;
	if (!cap)
		return 0;
	for (const char *p = name; *p && o + 1 < cap;) {
		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
		    ((p[2] >= '0' && p[2] <= '9') || (p[2] >= 'a' && p[2] <= 'f') || (p[2] >= 'A' && p[2] <= 'F'))) {
			const char *rep = "0x?";
			for (size_t k = 0; rep[k] && o + 1 < cap; k++)
				buf[o++] = rep[k];
			p += 2;
			while ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F'))
				p++;
			continue;
		}
		buf[o++] = *p++;
	}
	buf[o] = 0;
	return o;
}

static int key(uint32_t *out, tg_atoms *keys, const char *s)
{
	return tg_atoms_intern(out, keys, s, strlen(s)) ? TG_ENOMEM : 0;
}

/* "Block_0/Attention_0/Linear_2": the nn.Module python frames above ev. */
static void module_path(char *buf, size_t cap, const tg_tree *tree, const tg_event *ev, const tg_atoms *atoms,
                        uint32_t e)
{
	const char *names[32];
	int n = 0;
	for (uint32_t p = tg_tree_parent(tree, e); p != TG_NONE && n < 32; p = tg_tree_parent(tree, p)) {
		if (ev[p].kind != TG_KIND_PYTHON)
			continue;
		const char *s = tg_atoms_str(atoms, ev[p].name);
		if (tg_module_name_is_module(s))
			names[n++] = s;
	}
	size_t o = 0;
	buf[0] = 0;
	for (int i = n - 1; i >= 0 && o + 1 < cap; i--) {
		const char *s = names[i];
		const char *colon = strstr(s, ": ");
		s = colon ? colon + 2 : s;
		o += (size_t)snprintf(buf + o, cap - o, "%s%s", o ? "/" : "", s);
		if (o >= cap)
			o = cap - 1;
	}
}

static void fingerprint(tg_fingerprint *fp, const tg_trace *t)
{
	memset(fp, 0, sizeof(*fp));
	size_t nd;
	const tg_device *d = tg_trace_devices(t, &nd);
	if (nd)
		snprintf(fp->gpu, sizeof(fp->gpu), "%s", tg_trace_str(t, d[0].name));
	const json_t *meta = tg_trace_meta(t);
	static const char *const drv[] = {"cuda_driver_version", "hip_driver_version"};
	static const char *const rt[][2] = {{"cuda_runtime_version", "CUDA"}, {"hip_runtime_version", "HIP"}};
	for (int i = 0; i < 2; i++) {
		json_t *v = json_object_get(meta, drv[i]);
		if (json_is_integer(v) && !fp->driver[0])
			snprintf(fp->driver, sizeof(fp->driver), "%lld", (long long)json_integer_value(v));
		else if (json_is_string(v) && !fp->driver[0])
			snprintf(fp->driver, sizeof(fp->driver), "%s", json_string_value(v));
		v = json_object_get(meta, rt[i][0]);
		if (json_is_integer(v) && !fp->runtime[0])
			snprintf(fp->runtime, sizeof(fp->runtime), "%s %lld", rt[i][1], (long long)json_integer_value(v));
		else if (json_is_string(v) && !fp->runtime[0])
			snprintf(fp->runtime, sizeof(fp->runtime), "%s %s", rt[i][1], json_string_value(v));
	}
	int64_t ws = tg_trace_world_size(t);
	fp->world_size = ws > 0 ? ws : 1;
}

/* The unit of an event whose step index is st, in a trace of ns steps
 * whose units start at first_unit: the trace's one unit when it has no
 * steps; TG_NONE for an event outside every step of a stepped trace (a
 * warm-up kernel before ProfilerStep#1): such an event is in the
 * comparison's tables but in no step's sample, like the per-step GPU busy
 * and idle times, which leave it out too. */
static uint32_t step_unit(uint32_t first_unit, size_t ns, int32_t st)
{
	if (!ns)
		return first_unit;
	return st >= 0 && (size_t)st < ns ? first_unit + (uint32_t)st : TG_NONE;
}

/* What add_trace knows about the trace it adds. */
struct trace_walk {
	const tg_tree *tree;
	const tg_trace *t;
	const tg_atoms *atoms;
	const tg_event *ev;
	const tg_launchers *l;
	const tg_launcher *list; /* the launchers */
	size_t nl;
	uint32_t *inv_of;    /* per launcher: its invocation in m->invs */
	tg_categorizer *cz;
	char *buf, *mod; /* scratch: 8192 and 2048 bytes */
	uint32_t *kernel_key; /* per atom: the normalized kernel name's key, TG_NONE until asked */
	size_t natoms;
	uint32_t ti, first_unit;
	size_t nsteps;
};

/* The atoms of e's string-or-raw arguments keyed key[0..4) into out
 * (TG_NONE for a key it lacks, or whose first argument of that key is of
 * another type, as tg_event_arg finds it), in one walk of its list. */
static void arg_atoms(const tg_arg *args, const tg_event *e, const uint32_t key[4], uint32_t out[4])
{
	unsigned found = 0;
	for (int k = 0; k < 4; k++)
		out[k] = TG_NONE;
	if (e->args == TG_NONE)
		return;
	for (const tg_arg *a = args + e->args;; a++) {
		for (int k = 0; k < 4; k++)
			if (!(found >> k & 1) && key[k] != TG_NONE && a->key == key[k]) {
				found |= 1u << k;
				out[k] = a->type == TG_ARG_RAW || a->type == TG_ARG_STR ? a->v.atom : TG_NONE;
			}
		if (a->last)
			return;
	}
}

/* An invocation's key and perf model, computed once per distinct (name,
 * dims, types, strides, concrete inputs): the calls of an op repeat their
 * shapes, and the model parses them. */
struct inv_memo {
	uint32_t a[5];
	uint32_t op_shape;
	double flops, bytes;
};

/* Computes into *me the key and model of the call whose atoms are me->a. */
static int invocation_of(struct inv_memo *me, tg_measure *m, struct trace_walk *w)
{
	const char *txt[5];
	for (int k = 0; k < 5; k++)
		txt[k] = me->a[k] == TG_NONE ? NULL : tg_atoms_str(w->atoms, me->a[k]);
	snprintf(w->buf, 8192, "%s %s %s", txt[0], txt[1] ? txt[1] : "", txt[2] ? txt[2] : "");
	if (key(&me->op_shape, m->keys, w->buf))
		return TG_ENOMEM;
	tg_perf pm;
	tg_perf_opts popts = {0};
	tg_perf_args pa = {txt[0], txt[1], txt[2], txt[3], txt[4]};
	if (tg_perf_model(&pm, &pa, &popts) == 0) {
		me->flops = pm.flops;
		me->bytes = pm.bytes;
	} else {
		me->flops = me->bytes = NAN;
	}
	return 0;
}

/* One invocation per launcher of the trace (op and shape key, FLOPs and
 * bytes of its perf model, NaN without one) into m->invs, each launcher's
 * index into w->inv_of. 0 or TG_ENOMEM. */
static int add_invocations(tg_measure *m, struct trace_walk *w)
{
	const uint32_t keys[4] = {tg_trace_key(w->t, "Input Dims"), tg_trace_key(w->t, "Input type"),
	                          tg_trace_key(w->t, "Input Strides"), tg_trace_key(w->t, "Concrete Inputs")};
	size_t nargs;
	const tg_arg *args = tg_trace_args(w->t, &nargs);
	struct inv_memo *memo = NULL;
	size_t nmemo = 0, capmemo = 0;
	tg_idmap *seen = tg_idmap_new(1024); /* hash of the atoms -> memo */
	int rc = seen ? 0 : TG_ENOMEM;
	for (size_t i = 0; !rc && i < w->nl; i++) {
		/* the launchers' events and their arguments are scattered over
		 * the trace: asked for ahead, the event 16 launchers on, its
		 * arguments 8 on (the event asked for before), so that the
		 * misses overlap instead of following one another */
		if (i + 16 < w->nl)
			__builtin_prefetch(&w->ev[w->list[i + 16].event]);
		if (i + 8 < w->nl && w->ev[w->list[i + 8].event].args != TG_NONE)
			__builtin_prefetch(&args[w->ev[w->list[i + 8].event].args]);
		const tg_event *op = &w->ev[w->list[i].event];
		struct inv_memo me = {{op->name}, 0, 0, 0};
		arg_atoms(args, op, keys, me.a + 1);
		int64_t h = (int64_t)(tg_hash_bytes(me.a, sizeof(me.a)) >> 1);
		uint32_t at = tg_idmap_get(seen, h);
		if (at != TG_NONE && !memcmp(memo[at].a, me.a, sizeof(me.a))) {
			me = memo[at];
		} else if ((rc = invocation_of(&me, m, w))) {
			break;
		} else if (at == TG_NONE) { /* remembered (a colliding hash is only computed again) */
			if (tg_grow((void **)&memo, &capmemo, nmemo + 1, sizeof(*memo)) ||
			    tg_idmap_put(seen, h, (uint32_t)nmemo) < 0) {
				rc = TG_ENOMEM;
				break;
			}
			memo[nmemo++] = me;
		}
		tg_invocation iv = {w->list[i].event, me.op_shape, me.flops, me.bytes};
		if (m->packed) {
			rc = tg_measure_pack_inv(m->packed, m->ninvs, &iv);
		} else if (tg_grow((void **)&m->invs, &m->capinvs, m->ninvs + 1, sizeof(tg_invocation))) {
			rc = TG_ENOMEM;
		} else {
			m->invs[m->ninvs] = iv;
		}
		if (rc)
			break;
		w->inv_of[i] = (uint32_t)m->ninvs++;
	}
	free(memo);
	tg_idmap_free(seen);
	return rc;
}

int64_t tg_measure_stream(const tg_measure *m, uint32_t i)
{
	return i < m->streams.n ? m->streams.v[i].stream : -1;
}

/* The record of device event i into m->recs: its normalized name, category
 * (and where it came from), launching op and invocation, module path,
 * unit, stream, duration and launch delay. 0 or TG_ENOMEM. */
static int add_kernel_rec(tg_measure *m, struct trace_walk *w, uint32_t i)
{
	const tg_event *ev = w->ev;
	tg_kernel_rec rec, *r = &rec;
	memset(r, 0, sizeof(*r));
	uint32_t name = ev[i].name;
	if (name < w->natoms && w->kernel_key[name] != TG_NONE) {
		r->kernel = w->kernel_key[name]; /* normalized once per name */
	} else {
		tg_measure_normalize_name(w->buf, 8192, tg_atoms_str(w->atoms, name));
		if (key(&r->kernel, m->keys, w->buf))
			return TG_ENOMEM;
		if (name < w->natoms)
			w->kernel_key[name] = r->kernel;
	}
	uint32_t li = tg_launchers_owner(w->l, i);
	const char *opname;
	char opshape_none[] = "(no launcher)";
	tg_kernel_cat kc;
	if (tg_categorizer_kernel(&kc, w->cz, i, li != TG_NONE ? w->list[li].event : TG_NONE,
	                          li != TG_NONE ? tg_launchers_category(w->l, &w->list[li]) : NULL))
		return TG_ENOMEM;
	r->cat_source = (uint8_t)kc.source;
	r->name_category = TG_NONE;
	if (kc.rule && key(&r->name_category, m->keys, kc.rule->category))
		return TG_ENOMEM;
	if (li != TG_NONE) {
		opname = tg_atoms_str(w->atoms, ev[w->list[li].event].name);
		r->inv = w->inv_of[li];
		r->op_shape = m->packed ? m->packed->shapes[m->packed->invs[r->inv].shape].op_shape : m->invs[r->inv].op_shape;
	} else {
		opname = opshape_none;
		r->inv = TG_NONE;
		if (key(&r->op_shape, m->keys, opshape_none))
			return TG_ENOMEM;
	}
	module_path(w->mod, 2048, w->tree, ev, w->atoms, i);
	if (key(&r->category, m->keys, kc.category) || key(&r->op, m->keys, opname) ||
	    key(&r->module, m->keys, w->mod))
		return TG_ENOMEM;
	int32_t st = tg_tree_step_of(w->tree, i);
	r->unit = step_unit(w->first_unit, w->nsteps, st);
	r->trace = (uint16_t)w->ti;
	r->event = i;
	r->pair = TG_NONE;
	if (tg_stream_ids_get(&r->stream, &m->streams, 0, tg_kernel_stream(w->t, &ev[i])))
		return TG_ENOMEM;
	r->dur_ns = tg_event_dur(w->t, &ev[i]);
	uint32_t launch = tg_tree_launch(w->tree, i);
	r->delay_ns = launch != TG_NONE ? ev[i].ts - ev[launch].ts : -1;
	if (m->packed) { /* tg_measure_build_packed: add_trace made room for every record */
		if (tg_measure_pack_rec(m->packed, m->nrecs, r))
			return TG_ENOMEM;
	} else if (tg_grow((void **)&m->recs, &m->caprecs, m->nrecs + 1, sizeof(tg_kernel_rec))) {
		return TG_ENOMEM;
	} else {
		m->recs[m->nrecs] = rec;
	}
	m->nrecs++;
	return 0;
}

/* The records of trace ti. */
static int add_trace(tg_measure *m, uint32_t ti)
{
	struct trace_walk w = {.tree = m->trees[ti], .ti = ti};
	w.t = tg_tree_trace(w.tree);
	w.atoms = tg_trace_atoms(w.t);
	size_t ne;
	w.ev = tg_trace_events(w.t, &ne);
	/* the device events, in one pass over the events (64 MB of them at a
	 * gigabyte of JSON, past the caches): the units and the records read
	 * this list, not the events again */
	size_t ndev = 0;
	for (size_t i = 0; i < ne; i++)
		ndev += tg_kind_is_gpu(w.ev[i].kind);
	uint32_t *dev = tg_malloc((ndev + 1) * sizeof(uint32_t));
	if (!dev)
		return TG_ENOMEM;
	for (size_t i = 0, k = 0; k < ndev; i++)
		if (tg_kind_is_gpu(w.ev[i].kind))
			dev[k++] = (uint32_t)i;
	int rc = tg_measure_add_units(m, ti, dev, ndev, &w.first_unit);
	if (rc) {
		free(dev);
		return rc;
	}
	tg_tree_steps(w.tree, &w.nsteps);
	tg_launchers *l = NULL;
	tg_launchers_opts lo = {.tb = {0}, .step = -1};
	if ((rc = tg_launchers_build(&l, w.tree, &lo)) || (rc = tg_categorizer_new(&w.cz, w.tree))) {
		tg_launchers_free(l);
		free(dev);
		return rc;
	}
	w.l = l;
	w.list = tg_launchers_list(l, &w.nl);
	w.inv_of = malloc((w.nl ? w.nl : 1) * sizeof(uint32_t));
	w.buf = malloc(8192);
	w.mod = malloc(2048);
	w.natoms = tg_atoms_count(w.atoms);
	w.kernel_key = malloc((w.natoms ? w.natoms : 1) * sizeof(uint32_t));
	rc = TG_ENOMEM;
	/* every device event is in the tree (tg_tree_contains): a record each,
	 * a launcher an invocation; the first trace's room exact, the next
	 * ones' doubled (a side of many traces grows a few times, not once a
	 * trace); packed as made (tg_measure_build_packed: one trace), a row
	 * each */
	if (!w.inv_of || !w.buf || !w.mod || !w.kernel_key ||
	    (m->pack_as_built ? tg_measure_pack_begin(m, ndev, w.nl)
	     : m->nrecs || m->ninvs
	         ? tg_grow((void **)&m->recs, &m->caprecs, m->nrecs + ndev + 1, sizeof(tg_kernel_rec)) ||
	               tg_grow((void **)&m->invs, &m->capinvs, m->ninvs + w.nl + 1, sizeof(tg_invocation))
	         : tg_measure_reserve(m, ndev, w.nl, 0)))
		goto done;
	memset(w.kernel_key, 0xff, (w.natoms ? w.natoms : 1) * sizeof(uint32_t)); /* TG_NONE */
	if ((rc = add_invocations(m, &w)))
		goto done;
	rc = TG_ENOMEM;
	for (size_t k = 0; k < ndev; k++)
		if (add_kernel_rec(m, &w, dev[k]))
			goto done;
	rc = m->packed && m->hold_as_built ? tg_measure_hold_end(m) : 0;
	if (!rc && m->packed)
		rc = tg_measure_pack_end(m->packed);
done:
	free(dev);
	free(w.inv_of);
	free(w.buf);
	free(w.mod);
	free(w.kernel_key);
	tg_launchers_free(l);
	tg_categorizer_free(w.cz);
	return rc;
}

int tg_measure_new(tg_measure **out, tg_atoms *keys)
{
	*out = NULL;
	tg_measure *m = tg_calloc(1, sizeof(*m));
	if (!m)
		return TG_ENOMEM;
	m->keys = keys;
	m->fp_consistent = 1;
	m->streams = (tg_stream_ids)TG_STREAM_IDS_INIT;
	*out = m;
	return 0;
}

/* Room for one more trace in m's per-trace arrays. 0 or TG_ENOMEM. */
static int grow_traces(tg_measure *m)
{
	if (m->ntrees < m->captrees)
		return 0;
	size_t cap = m->captrees ? 2 * m->captrees : 4;
	const tg_tree **t = realloc((void *)m->trees, cap * sizeof(*t));
	if (t)
		m->trees = t;
	int64_t *r = t ? realloc(m->ranks, cap * sizeof(*r)) : NULL;
	if (r)
		m->ranks = r;
	char **na = r ? realloc(m->names, cap * sizeof(*na)) : NULL;
	if (na)
		m->names = na;
	size_t *ns = na ? realloc(m->nsteps, cap * sizeof(*ns)) : NULL;
	if (!ns)
		return TG_ENOMEM;
	m->nsteps = ns;
	m->captrees = cap;
	return 0;
}

/* One more trace: its tree (or, from stored records, its name, copied,
 * and step count) and rank set, the fingerprint folded in. 0 or
 * TG_ENOMEM. */
static int push_trace(tg_measure *m, const tg_tree *tree, int64_t rank, const tg_fingerprint *fp, const char *name,
                      size_t nsteps)
{
	char *copy = NULL;
	if (m->ntrees >= TG_MEASURE_MAX_TRACES)
		return tg_error_set(TG_ELIMIT, "more than %d traces on one side", TG_MEASURE_MAX_TRACES);
	if (grow_traces(m) || (!tree && !(copy = strdup(name ? name : ""))))
		return TG_ENOMEM;
	m->trees[m->ntrees] = tree;
	m->ranks[m->ntrees] = rank;
	m->names[m->ntrees] = copy;
	m->nsteps[m->ntrees] = nsteps;
	if (m->ntrees == 0)
		m->fp = *fp;
	else if (strcmp(fp->gpu, m->fp.gpu) || strcmp(fp->driver, m->fp.driver) || strcmp(fp->runtime, m->fp.runtime) ||
	         fp->world_size != m->fp.world_size)
		m->fp_consistent = 0;
	m->ntrees++;
	return 0;
}

int tg_measure_build(tg_measure **out, const tg_tree *const *trees, size_t n, tg_atoms *keys)
{
	return tg_measure_build_ranked(out, trees, NULL, n, keys);
}

int tg_measure_build_ranked(tg_measure **out, const tg_tree *const *trees, const int64_t *ranks, size_t n,
                            tg_atoms *keys)
{
	int rc = tg_measure_new(out, keys);
	for (size_t i = 0; !rc && i < n; i++) {
		tg_fingerprint fp;
		const tg_trace *t = tg_tree_trace(trees[i]);
		fingerprint(&fp, t);
		if (!(rc = push_trace(*out, trees[i], tg_rank_of(t, ranks ? ranks[i] : -1), &fp, NULL, 0)))
			rc = add_trace(*out, (uint32_t)i);
	}
	if (rc) {
		tg_measure_free(*out);
		*out = NULL;
	}
	return rc;
}

/* tg_measure_build_packed, the rows also held as they are packed when
 * hold says so (tg_measure_build_held). */
static int build_packed(tg_measure **out, const tg_tree *tree, tg_atoms *keys, int hold)
{
	int rc = tg_measure_new(out, keys);
	if (!rc) {
		tg_fingerprint fp;
		const tg_trace *t = tg_tree_trace(tree);
		fingerprint(&fp, t);
		(*out)->pack_as_built = 1;
		(*out)->hold_as_built = hold;
		if (!(rc = push_trace(*out, tree, tg_rank_of(t, -1), &fp, NULL, 0)))
			rc = add_trace(*out, 0);
		(*out)->pack_as_built = 0;
		(*out)->hold_as_built = 0;
	}
	if (rc) {
		tg_measure_free(*out);
		*out = NULL;
	}
	return rc;
}

int tg_measure_build_packed(tg_measure **out, const tg_tree *tree, tg_atoms *keys)
{
	return build_packed(out, tree, keys, 0);
}

int tg_measure_build_held(tg_measure **out, const tg_tree *tree, tg_atoms *keys)
{
	return build_packed(out, tree, keys, 1);
}

/* Appends n records (their trace, unit and inv moved by t0, u0, i0), keys
 * through map (NULL: the same table), streams (indices into numbers, or
 * into ids when numbers is NULL) into m's. */
static int append_recs(tg_measure *m, const tg_kernel_rec *r, size_t n, const int64_t *numbers,
                       const tg_stream_ids *ids, const uint32_t *map, uint32_t t0, uint32_t u0, uint32_t i0)
{
	if (t0 >= TG_MEASURE_MAX_TRACES)
		return tg_error_set(TG_ELIMIT, "more than %d traces on one side", TG_MEASURE_MAX_TRACES);
	if (tg_grow((void **)&m->recs, &m->caprecs, m->nrecs + n + 1, sizeof(tg_kernel_rec)))
		return TG_ENOMEM;
#define KEY(k) (map && (k) != TG_NONE ? map[k] : (k))
	for (size_t i = 0; i < n; i++) {
		tg_kernel_rec x = r[i];
		x.unit = x.unit == TG_NONE ? TG_NONE : x.unit + u0;
		x.inv = x.inv == TG_NONE ? TG_NONE : x.inv + i0;
		x.category = KEY(x.category);
		x.name_category = KEY(x.name_category);
		x.op = KEY(x.op);
		x.op_shape = KEY(x.op_shape);
		x.kernel = KEY(x.kernel);
		x.module = KEY(x.module);
		x.trace = (uint16_t)(x.trace + t0);
		x.pair = TG_NONE; /* the alignment's, made on the measures it pairs */
		if (tg_stream_ids_get(&x.stream, &m->streams, 0, numbers ? numbers[x.stream] : ids->v[x.stream].stream))
			return TG_ENOMEM;
		m->recs[m->nrecs++] = x;
	}
#undef KEY
	return 0;
}

/* Appends units (their trace moved by t0) and invocations (keys through map). */
static int append_units_invs(tg_measure *m, const tg_unit *u, size_t nu, const tg_invocation *iv, size_t ni,
                             const uint32_t *map, uint32_t t0)
{
	if (tg_grow((void **)&m->units, &m->capunits, m->nunits + nu + 1, sizeof(tg_unit)) ||
	    tg_grow((void **)&m->invs, &m->capinvs, m->ninvs + ni + 1, sizeof(tg_invocation)))
		return TG_ENOMEM;
	for (size_t i = 0; i < nu; i++) {
		m->units[m->nunits] = u[i];
		m->units[m->nunits++].trace += t0;
	}
	for (size_t i = 0; i < ni; i++) {
		tg_invocation x = iv[i];
		x.op_shape = map && x.op_shape != TG_NONE ? map[x.op_shape] : x.op_shape;
		m->invs[m->ninvs++] = x;
	}
	return 0;
}

int tg_measure_add_trace(tg_measure *m, const tg_measure_trace *tr)
{
	if (m->packed)
		return tg_error_set(TG_EINVAL, "measure: adding a trace to a packed measure");
	uint32_t t0 = (uint32_t)m->ntrees, u0 = (uint32_t)m->nunits, i0 = (uint32_t)m->ninvs;
	int rc = append_units_invs(m, tr->units, tr->nunits, tr->invs, tr->ninvs, NULL, t0);
	if (!rc)
		rc = append_recs(m, tr->recs, tr->nrecs, tr->streams, NULL, NULL, t0, u0, i0);
	return rc ? rc : push_trace(m, tr->tree, tr->rank, &tr->fp, tr->name, tr->nsteps);
}

/* Appends the records and invocations of packed src (their trace, unit
 * and inv moved by t0, u0, i0, keys through map) to dst, unpacked a few
 * at a time. 0, TG_ENOMEM or TG_ELIMIT. */
static int append_packed(tg_measure *dst, const tg_measure *src, const uint32_t *map, uint32_t t0, uint32_t u0,
                         uint32_t i0)
{
	enum { CHUNK = 256 };
	tg_kernel_rec r[CHUNK];
	tg_invocation v[CHUNK];
	int rc = 0;
	for (size_t i = 0; !rc && i < src->ninvs; i += CHUNK) {
		size_t n = src->ninvs - i < CHUNK ? src->ninvs - i : CHUNK;
		for (size_t k = 0; k < n; k++)
			tg_measure_invocation_get(&v[k], src, i + k);
		rc = append_units_invs(dst, NULL, 0, v, n, map, t0);
	}
	for (size_t i = 0; !rc && i < src->nrecs; i += CHUNK) {
		size_t n = src->nrecs - i < CHUNK ? src->nrecs - i : CHUNK;
		for (size_t k = 0; k < n; k++)
			tg_measure_kernel_get(&r[k], src, i + k);
		rc = append_recs(dst, r, n, NULL, &src->streams, map, t0, u0, i0);
	}
	return rc;
}

int tg_measure_append(tg_measure *dst, const tg_measure *src, const int64_t *ranks, const char *const *names)
{
	if (dst->packed)
		return tg_error_set(TG_EINVAL, "measure: appending to a packed measure");
	uint32_t *map = NULL;
	if (src->keys != dst->keys) {
		/* every key of src interned in src's order: the table numbers them
		 * as a measure built on dst's table would have (first seen first) */
		uint32_t na = tg_atoms_count(src->keys);
		if (!(map = tg_malloc(((size_t)na + 1) * sizeof(uint32_t))))
			return TG_ENOMEM;
		for (uint32_t a = 0; a < na; a++)
			if (tg_atoms_intern(&map[a], dst->keys, tg_atoms_str(src->keys, a), tg_atoms_len(src->keys, a))) {
				free(map);
				return TG_ENOMEM;
			}
	}
	uint32_t t0 = (uint32_t)dst->ntrees, u0 = (uint32_t)dst->nunits, i0 = (uint32_t)dst->ninvs;
	int rc = append_units_invs(dst, src->units, src->nunits, src->packed ? NULL : src->invs,
	                           src->packed ? 0 : src->ninvs, map, t0);
	if (!rc && src->packed)
		rc = append_packed(dst, src, map, t0, u0, i0);
	else if (!rc)
		rc = append_recs(dst, src->recs, src->nrecs, NULL, &src->streams, map, t0, u0, i0);
	for (size_t t = 0; !rc && t < src->ntrees; t++)
		rc = push_trace(dst, src->trees[t], ranks ? ranks[t] : src->ranks[t], &src->fp,
		                names && names[t] ? names[t] : src->names[t], src->nsteps[t]);
	if (!rc && !src->fp_consistent)
		dst->fp_consistent = 0;
	free(map);
	return rc;
}

/* Sets *items' room to exactly n (at least 1) items when it differs:
 * grown, or shrunk with the tail given back. 0 or TG_ENOMEM. */
static int room_exact(void **items, size_t *cap, size_t n, size_t item_size)
{
	void *p = n == *cap ? NULL : tg_realloc(*items, (n ? n : 1) * item_size);
	if (n == *cap || !p)
		return n == *cap ? 0 : TG_ENOMEM;
	*items = p;
	*cap = n;
	return 0;
}

int tg_measure_reserve(tg_measure *m, size_t nrecs, size_t ninvs, size_t nunits)
{
	if (m->packed)
		return tg_error_set(TG_EINVAL, "measure: room in a packed measure");
	/* + 1: as append_recs and append_units_invs ask for */
	size_t r = m->nrecs + nrecs + 1, i = m->ninvs + ninvs + 1, u = m->nunits + nunits + 1;
	if ((r > m->caprecs && room_exact((void **)&m->recs, &m->caprecs, r, sizeof(tg_kernel_rec))) ||
	    (i > m->capinvs && room_exact((void **)&m->invs, &m->capinvs, i, sizeof(tg_invocation))) ||
	    (u > m->capunits && room_exact((void **)&m->units, &m->capunits, u, sizeof(tg_unit))))
		return TG_ENOMEM;
	return 0;
}

int tg_measure_fit(tg_measure *m)
{
	if ((!m->packed && room_exact((void **)&m->recs, &m->caprecs, m->nrecs, sizeof(tg_kernel_rec))) ||
	    (!m->packed && room_exact((void **)&m->invs, &m->capinvs, m->ninvs, sizeof(tg_invocation))) ||
	    room_exact((void **)&m->units, &m->capunits, m->nunits, sizeof(tg_unit)))
		return TG_ENOMEM;
	return 0;
}

int tg_measure_forget_trees(tg_measure *m)
{
	for (size_t i = 0; i < m->ntrees; i++) {
		if (!m->trees[i])
			continue;
		char *copy = strdup(m->names[i] ? m->names[i] : "");
		if (!copy)
			return TG_ENOMEM;
		free(m->names[i]);
		m->names[i] = copy;
		tg_tree_steps(m->trees[i], &m->nsteps[i]);
		m->trees[i] = NULL;
	}
	return 0;
}

void tg_measure_free(tg_measure *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->ntrees; i++)
		free(m->names[i]);
	free((void *)m->trees);
	free(m->ranks);
	free(m->names);
	free(m->nsteps);
	free(m->recs);
	free(m->invs);
	free(m->units);
	tg_stream_ids_free(&m->streams);
	tg_measure_pack_free(m);
	free(m);
}

const tg_kernel_rec *tg_measure_kernels(const tg_measure *m, size_t *n)
{
	*n = m->nrecs;
	return m->recs; /* NULL when packed */
}

tg_kernel_rec *tg_measure_kernels_mut(tg_measure *m, size_t *n)
{
	*n = m->nrecs;
	return m->recs;
}

const tg_invocation *tg_measure_invocations(const tg_measure *m, size_t *n)
{
	*n = m->ninvs;
	return m->invs;
}

const tg_unit *tg_measure_units(const tg_measure *m, size_t *n)
{
	*n = m->nunits;
	return m->units;
}

const tg_fingerprint *tg_measure_fingerprint(const tg_measure *m, int *consistent)
{
	if (consistent)
		*consistent = m->fp_consistent;
	return &m->fp;
}

size_t tg_measure_traces(const tg_measure *m)
{
	return m->ntrees;
}

const tg_tree *tg_measure_tree(const tg_measure *m, size_t i)
{
	return i < m->ntrees ? m->trees[i] : NULL;
}

int64_t tg_measure_trace_rank(const tg_measure *m, size_t i)
{
	return i < m->ntrees ? m->ranks[i] : -1;
}

const char *tg_measure_trace_name(const tg_measure *m, size_t i)
{
	if (i >= m->ntrees)
		return "";
	return m->trees[i] ? tg_trace_name(tg_tree_trace(m->trees[i])) : m->names[i];
}

size_t tg_measure_trace_steps(const tg_measure *m, size_t i)
{
	size_t n = 0;
	if (i < m->ntrees && m->trees[i])
		tg_tree_steps(m->trees[i], &n);
	else if (i < m->ntrees)
		n = m->nsteps[i];
	return n;
}

size_t tg_measure_nranks(const tg_measure *m)
{
	size_t n = 0;
	for (size_t i = 0; i < m->ntrees; i++) {
		if (m->ranks[i] < 0)
			continue;
		size_t k = 0;
		while (k < i && m->ranks[k] != m->ranks[i])
			k++;
		n += k == i;
	}
	return n;
}

const tg_atoms *tg_measure_keys(const tg_measure *m)
{
	return m->keys;
}

void tg_fingerprint_runtime_text(char *buf, size_t cap, const char *runtime)
{
	const char *sp = strchr(runtime, ' ');
	char *end = NULL;
	long long v = sp ? strtoll(sp + 1, &end, 10) : -1;
	if (!sp || !end || *end || end == sp + 1 || v < 0) {
		snprintf(buf, cap, "%s", runtime);
		return;
	}
	int name_len = (int)(sp - runtime);
	if (!strncmp(runtime, "CUDA", 4)) /* CUDART_VERSION: 1000 major + 10 minor */
		snprintf(buf, cap, "%.*s %lld.%lld", name_len, runtime, v / 1000, (v % 1000) / 10);
	else if (!strncmp(runtime, "HIP", 3)) /* HIP_VERSION: 10^7 major + 10^5 minor + patch */
		snprintf(buf, cap, "%.*s %lld.%lld.%lld", name_len, runtime, v / 10000000, (v / 100000) % 100, v % 100000);
	else
		snprintf(buf, cap, "%s", runtime);
}
