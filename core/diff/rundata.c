/*
 * rundata.c - one trace's measures and op skeleton, built from its tree or
 * decoded from their stored bytes (see rundata.h for the layout).
 *
 * Integers are written little-endian byte by byte (the bytes mean the same
 * on every host that shares the store), doubles as their IEEE-754 bits.
 * The payload is deflated in an envelope (rundata_pack.c). Decoding reads
 * through a cursor that refuses to step past the end, and checks every
 * count against the bytes left before it allocates.
 */
#include "rundata_impl.h"
#include "../models/kernel_category.h"
#include "../../util/affinity.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC "TGRD"

struct tg_rundata {
	tg_atoms *keys; /* the measure's (owned) */
	tg_measure *m;
	tg_skeleton *sk;
	uint64_t json_bytes;
	int64_t rank;  /* distributedInfo, -1 when none */
	size_t nsteps; /* profiled steps */
	tg_cp_summary cp;
	tg_findings *findings;
	char *fkey; /* the thresholds' key */
	unsigned parts; /* TG_RUNDATA_*: what was computed (decoded: all) */
	int compact;    /* tg_rundata_compact: the measure's rows and the skeleton's nodes held coded */
};

/* The measures on keys of rd's own, the trace's rank and steps, and the
 * critical path's summary when asked for, of tree; between (when not
 * NULL) called once the measures are made. */
static int measure_tree(tg_rundata *rd, const tg_tree *tree, unsigned parts, void (*between)(void))
{
	if (!(rd->keys = tg_atoms_new()))
		return TG_ENOMEM;
	const tg_trace *t = tg_tree_trace(tree);
	rd->rank = tg_trace_rank(t);
	rd->json_bytes = tg_trace_stats_get(t)->json_bytes;
	tg_tree_steps(tree, &rd->nsteps);
	/* the critical path's graph first, the largest thing built on a tree
	 * (~170 B an event): it is freed before the measures and the skeleton
	 * are made, so that it never adds to them */
	int rc = 0;
	if (parts & TG_RUNDATA_CP)
		rc = tg_cp_summarize(&rd->cp, tree);
	else
		snprintf(rd->cp.why, sizeof(rd->cp.why), "not computed");
	/* packed (detached next): its records packed as they are made, never
	 * all whole (64 bytes a record) beside the rows; held (held compact
	 * next): its rows coded as they are packed, never all there either
	 * (15 MB of rows for 3 MB of stream at 1 GB of JSON) */
	if (!rc)
		rc = !(parts & TG_RUNDATA_PACKED) ? tg_measure_build(&rd->m, &tree, 1, rd->keys)
		     : parts & TG_RUNDATA_HOLD    ? tg_measure_build_held(&rd->m, tree, rd->keys)
		                                  : tg_measure_build_packed(&rd->m, tree, rd->keys);
	if (!rc) /* kept past the trace: without the slack of growing */
		rc = tg_measure_fit(rd->m);
	if (!rc && between)
		between();
	return rc;
}

/* A tree's findings, computed on a thread of their own while the rest is
 * built (TG_RUNDATA_THREADS); the error's message kept for the caller's
 * thread. */
struct findings_job {
	const tg_tree *tree;
	const tg_findings_opts *fo;
	tg_findings *out;
	int rc;
	char msg[512];
};

static void *findings_thread(void *arg)
{
	struct findings_job *j = arg;
	j->rc = tg_findings_compute(&j->out, j->tree, j->fo, -1, 0);
	if (j->rc)
		snprintf(j->msg, sizeof(j->msg), "%s", tg_error_last());
	return NULL;
}

int tg_rundata_build_staged(tg_rundata **out, const tg_tree *tree, const tg_findings_opts *fo, unsigned parts,
                            void (*between)(void))
{
	*out = NULL;
	tg_rundata *rd = tg_calloc(1, sizeof(*rd));
	char key[2048];
	tg_rundata_opts_key(key, sizeof(key), fo);
	struct findings_job j = {tree, fo, NULL, 0, ""};
	pthread_t th;
	int ok = rd && (rd->fkey = strdup(key)), threaded = 0;
	/* `diff` asks for no critical path here (it finds it last, cli/diff_load.c):
	 * the findings then overlap the measures, which take about as long
	 * (the join waited 20-35 ms a trace at 1 GB of JSON); the skeleton
	 * comes once they are joined, so that its 31.5 MB and its
	 * 4-byte-an-event scratch are not built beside the findings' (the
	 * parts' peak at 1 GB 141-150 / 152-162 MB -> 141 / 152-153,
	 * docs/scale.md i33stage) */
	if (ok && (parts & TG_RUNDATA_THREADS) && (parts & TG_RUNDATA_FINDINGS))
		threaded = tg_affinity_thread_create(&th, findings_thread, &j) == 0;
	int rc = ok ? measure_tree(rd, tree, parts, between) : TG_ENOMEM;
	if (threaded) {
		pthread_join(th, NULL);
		rd->findings = j.out;
		if (!rc && j.rc)
			rc = tg_error_set(j.rc, "%s", j.msg[0] ? j.msg : "out of memory");
	} else if (!rc && (parts & TG_RUNDATA_FINDINGS))
		rc = tg_findings_compute(&rd->findings, tree, fo, -1, 0);
	if (!rc && between && (parts & TG_RUNDATA_FINDINGS))
		between();
	if (!rc && (parts & TG_RUNDATA_SKELETON) && !(rc = tg_skeleton_build(&rd->sk, tree, 0)) && between)
		between();
	if (rc) {
		tg_rundata_free(rd);
		return rc;
	}
	rd->parts = parts & TG_RUNDATA_ALL;
	*out = rd;
	return 0;
}

int tg_rundata_build_parts(tg_rundata **out, const tg_tree *tree, const tg_findings_opts *fo, unsigned parts)
{
	return tg_rundata_build_staged(out, tree, fo, parts, NULL);
}

int tg_rundata_build(tg_rundata **out, const tg_tree *tree, const tg_findings_opts *fo)
{
	return tg_rundata_build_parts(out, tree, fo, TG_RUNDATA_ALL);
}

/* rd's skeleton with names of its own, numbered from 0 in the order its
 * nodes first use them, as encoding writes them and decoding reads them
 * back (put_skeleton); its nodes and their order stay. */
static int own_skeleton(tg_rundata *rd)
{
	size_t n;
	const tg_skel_node *x = tg_skeleton_nodes(rd->sk, &n);
	const tg_atoms *at = tg_skeleton_atoms(rd->sk);
	uint32_t na = tg_atoms_count(at);
	uint32_t *map = tg_malloc(((size_t)na + 1) * sizeof(uint32_t));
	tg_atoms *names = tg_atoms_new();
	int rc = map && names ? 0 : TG_ENOMEM;
	if (!rc)
		memset(map, 0xff, ((size_t)na + 1) * sizeof(uint32_t));
	for (size_t i = 0; !rc && i < n; i++) {
		uint32_t a = x[i].name;
		if (a < na && map[a] == TG_NONE)
			rc = tg_atoms_intern(&map[a], names, tg_atoms_str(at, a), tg_atoms_len(at, a));
	}
	if (!rc)
		tg_skeleton_rename(rd->sk, names, map);
	else
		tg_atoms_free(names);
	free(map);
	return rc;
}

int tg_rundata_detach(tg_rundata *rd)
{
	if (!rd->m || !tg_measure_tree(rd->m, 0))
		return 0; /* decoded, or detached already */
	int rc = rd->sk ? own_skeleton(rd) : 0;
	if (!rc)
		rc = tg_measure_forget_trees(rd->m);
	return rc ? rc : tg_measure_pack(rd->m);
}

int tg_rundata_compact(tg_rundata *rd)
{
	if (rd->compact)
		return 0;
	if (!rd->m || !tg_measure_packed(rd->m) || tg_measure_tree(rd->m, 0))
		return tg_error_set(TG_EINVAL, "run data is compacted once detached");
	int rc = tg_measure_compact(rd->m);
	if (!rc && rd->sk && (rc = tg_skeleton_compact(rd->sk)) != 0)
		rd->compact = tg_measure_expand(rd->m) != 0; /* as it was, or compact still (expand again) */
	if (rc)
		return tg_error_set(rc, "out of memory");
	rd->compact = 1;
	return 0;
}

int tg_rundata_expand(tg_rundata *rd)
{
	int rc = rd->sk ? tg_skeleton_expand(rd->sk) : 0;
	if (!rc && rd->m)
		rc = tg_measure_expand(rd->m);
	if (rc)
		return tg_error_set(rc, "out of memory");
	rd->compact = 0;
	return 0;
}

void tg_rundata_set_cp(tg_rundata *rd, const tg_cp_summary *cp)
{
	rd->cp = *cp;
	rd->parts |= TG_RUNDATA_CP;
}

int tg_rundata_compacted(const tg_rundata *rd)
{
	return rd->compact;
}

unsigned tg_rundata_parts(const tg_rundata *rd)
{
	return rd->parts | (rd->m ? TG_RUNDATA_MEASURE : 0);
}

void tg_rundata_release(tg_rundata *rd, unsigned parts)
{
	if ((parts & TG_RUNDATA_MEASURE) && rd->m) {
		tg_measure_free(rd->m);
		tg_atoms_free(rd->keys);
		rd->m = NULL;
		rd->keys = NULL;
	}
	if (parts & TG_RUNDATA_SKELETON) {
		tg_skeleton_free(rd->sk);
		rd->sk = NULL;
		rd->parts &= ~(unsigned)TG_RUNDATA_SKELETON;
	}
}

void tg_rundata_free(tg_rundata *rd)
{
	if (!rd)
		return;
	tg_measure_free(rd->m);
	tg_skeleton_free(rd->sk);
	tg_atoms_free(rd->keys);
	tg_findings_free(rd->findings);
	free(rd->fkey);
	free(rd);
}

const tg_measure *tg_rundata_measure(const tg_rundata *rd)
{
	return rd->m;
}

const tg_skeleton *tg_rundata_skeleton(const tg_rundata *rd)
{
	return rd->sk;
}

uint64_t tg_rundata_json_bytes(const tg_rundata *rd)
{
	return rd->json_bytes;
}

int64_t tg_rundata_rank(const tg_rundata *rd)
{
	return rd->rank;
}

const tg_findings *tg_rundata_findings(const tg_rundata *rd)
{
	return rd->findings;
}

const char *tg_rundata_findings_key(const tg_rundata *rd)
{
	return rd->fkey;
}

const tg_cp_summary *tg_rundata_cp(const tg_rundata *rd)
{
	return &rd->cp;
}

uint64_t tg_rundata_mem_bytes(const tg_rundata *rd)
{
	size_t nf = 0;
	if (rd->findings)
		tg_findings_list(rd->findings, &nf);
	return (rd->m ? tg_measure_mem_bytes(rd->m) : 0) + (rd->sk ? tg_skeleton_mem_bytes(rd->sk) : 0) +
	       (rd->keys ? tg_atoms_bytes(rd->keys) : 0) +
	       (uint64_t)nf * sizeof(tg_finding) +
	       (!rd->sk || (rd->m && tg_measure_tree(rd->m, 0)) ? 0 : tg_atoms_bytes(tg_skeleton_atoms(rd->sk)));
}

/* ------------------------------------------------------------ writing */

static void put_trace(struct wr *w, const tg_rundata *rd, uint32_t nevents)
{
	const tg_fingerprint *fp = tg_measure_fingerprint(rd->m, NULL);
	PUT_I64(w, rd->json_bytes);
	PUT_U32(w, nevents);
	PUT_I64(w, rd->rank);
	PUT_I64(w, rd->nsteps);
	put_str(w, fp->gpu, strlen(fp->gpu));
	put_str(w, fp->driver, strlen(fp->driver));
	put_str(w, fp->runtime, strlen(fp->runtime));
	PUT_I64(w, fp->world_size);
	uint32_t nk = tg_atoms_count(rd->keys);
	PUT_U32(w, nk);
	for (uint32_t a = 0; a < nk; a++)
		put_str(w, tg_atoms_str(rd->keys, a), tg_atoms_len(rd->keys, a));
}

static void put_measure(struct wr *w, const tg_measure *m)
{
	size_t nu, ni, nr;
	const tg_unit *u = tg_measure_units(m, &nu);
	tg_measure_invocations(m, &ni);
	tg_measure_kernels(m, &nr); /* read one at a time: packed or whole */
	PUT_U32(w, nu);
	for (size_t i = 0; i < nu; i++) {
		const int64_t v[] = {
			u[i].step,     u[i].busy_ns, u[i].idle_ns,   u[i].exposed_comm_ns,     u[i].exposed_memcpy_ns,
			u[i].total_ns, u[i].comm_ns, u[i].memcpy_ns, (int64_t)u[i].host_syncs, u[i].peak_memory};
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
			PUT_I64(w, v[k]);
	}
	PUT_U32(w, ni);
	for (size_t i = 0; i < ni; i++) {
		tg_invocation iv;
		tg_measure_invocation_get(&iv, m, i);
		PUT_U32(w, iv.event);
		PUT_U32(w, iv.op_shape);
		put_f64(w, iv.flops);
		put_f64(w, iv.bytes);
	}
	PUT_U32(w, nr);
	for (size_t i = 0; i < nr; i++) {
		tg_kernel_rec r;
		tg_measure_kernel_get(&r, m, i);
		const uint32_t k[] = {r.unit, r.inv, r.category, r.name_category, r.op, r.op_shape, r.kernel, r.module, r.event};
		for (size_t j = 0; j < sizeof(k) / sizeof(k[0]); j++)
			PUT_U32(w, k[j]);
		PUT_I64(w, tg_measure_rec_stream(m, &r));
		PUT_I64(w, r.dur_ns);
		PUT_I64(w, r.delay_ns);
		PUT_I64(w, 0); /* the start, which no judgement reads: not held since issue 24's sixth round */
		PUT_U8(w, r.cat_source);
	}
}

/* The skeleton, its names renumbered from 0 in the order nodes first use
 * them (a skeleton built from a tree names atoms of the whole trace). */
static int put_skeleton(struct wr *w, const tg_skeleton *sk)
{
	size_t n;
	const tg_skel_node *x = tg_skeleton_nodes(sk, &n);
	const tg_atoms *at = tg_skeleton_atoms(sk);
	uint32_t na = tg_atoms_count(at), used = 0;
	uint32_t *map = tg_malloc(((size_t)na + 1) * sizeof(uint32_t)), *order = tg_malloc((n + 1) * sizeof(uint32_t));
	if (!map || !order) {
		free(map);
		free(order);
		return TG_ENOMEM;
	}
	memset(map, 0xff, ((size_t)na + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++)
		if (x[i].name < na && map[x[i].name] == TG_NONE) {
			map[x[i].name] = used;
			order[used++] = x[i].name;
		}
	PUT_U32(w, tg_skeleton_with(sk));
	PUT_U32(w, used);
	for (uint32_t k = 0; k < used; k++)
		put_str(w, tg_atoms_str(at, order[k]), tg_atoms_len(at, order[k]));
	PUT_U32(w, n);
	for (size_t i = 0; i < n; i++) {
		PUT_I64(w, tg_skeleton_ts(sk, i));
		PUT_I64(w, tg_skeleton_dur(sk, i));
		PUT_U32(w, tg_skeleton_event(sk, i));
		PUT_U32(w, x[i].parent);
		PUT_U32(w, x[i].name < na ? map[x[i].name] : TG_NONE);
		PUT_U8(w, x[i].kind);
		PUT_U8(w, x[i].linked);
	}
	free(map);
	free(order);
	return 0;
}

int tg_rundata_encode(void **out, size_t *len, const tg_rundata *rd)
{
	*out = NULL;
	*len = 0;
	if (rd->parts != TG_RUNDATA_ALL || !rd->m)
		return tg_error_set(TG_EINVAL, "run data without all its parts is not encoded");
	if (rd->compact || tg_measure_compacted(rd->m))
		return tg_error_set(TG_EINVAL, "compact run data is not encoded (tg_rundata_expand first)");
	struct wr w = {0};
	put_trace(&w, rd, tg_skeleton_events(rd->sk));
	put_measure(&w, rd->m);
	int rc = put_skeleton(&w, rd->sk);
	tg_rundata_put_cp(&w, &rd->cp);
	put_str(&w, rd->fkey, strlen(rd->fkey));
	tg_rundata_put_findings(&w, rd->findings);
	if (rc) {
		free(w.p);
		return rc;
	}
	return tg_rundata_pack(out, len, MAGIC, TG_RUNDATA_FORMAT, &w);
}

/* ------------------------------------------------------------ reading */

/* n strings interned into a new table, atom i for the i-th (a repeated
 * string would shift the numbering: refused). */
static tg_atoms *get_atoms(struct rd_cur *c, const char *what)
{
	uint32_t n = get_count(c, 4, what);
	tg_atoms *a = c->bad ? NULL : tg_atoms_new();
	if (!a)
		return NULL;
	for (uint32_t i = 0; i < n && !c->bad; i++) {
		uint32_t len = GET_U32(c), id;
		if (!c->bad && len > c->n - c->at)
			c->bad = what;
		if (c->bad)
			break;
		if (tg_atoms_intern(&id, a, (const char *)c->p + c->at, len)) {
			c->bad = "out of memory";
			break;
		}
		if (id != i)
			c->bad = what;
		c->at += len;
	}
	if (c->bad) {
		tg_atoms_free(a);
		return NULL;
	}
	return a;
}

/* The arrays a measure is decoded into. */
struct dec {
	uint64_t json_bytes;
	uint32_t nevents, nkeys;
	tg_measure_trace tr;
	tg_unit *units;
	tg_invocation *invs;
	tg_kernel_rec *recs;
	int64_t *streams; /* each record's stream (its index is its own) */
};

static void get_units(struct rd_cur *c, struct dec *d)
{
	uint32_t n = get_count(c, 80, "unit count");
	if (c->bad || !(d->units = tg_calloc(n ? n : 1, sizeof(tg_unit)))) {
		c->bad = c->bad ? c->bad : "out of memory";
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		tg_unit *u = &d->units[i];
		int64_t *v[] = {&u->step,     &u->busy_ns, &u->idle_ns,  &u->exposed_comm_ns, &u->exposed_memcpy_ns,
		                &u->total_ns, &u->comm_ns, &u->memcpy_ns};
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
			*v[k] = GET_I64(c);
		u->host_syncs = (uint64_t)GET_I64(c);
		u->peak_memory = GET_I64(c);
	}
	d->tr.units = d->units;
	d->tr.nunits = n;
}

static void get_invs(struct rd_cur *c, struct dec *d)
{
	uint32_t n = get_count(c, 24, "invocation count");
	if (c->bad || !(d->invs = tg_calloc(n ? n : 1, sizeof(tg_invocation)))) {
		c->bad = c->bad ? c->bad : "out of memory";
		return;
	}
	for (uint32_t i = 0; i < n && !c->bad; i++) {
		tg_invocation *v = &d->invs[i];
		v->event = GET_U32(c);
		v->op_shape = GET_U32(c);
		v->flops = get_f64(c);
		v->bytes = get_f64(c);
		if (!c->bad && (v->event >= d->nevents || v->op_shape >= d->nkeys))
			c->bad = "invocation out of range";
	}
	d->tr.invs = d->invs;
	d->tr.ninvs = n;
}

/* The first thing wrong with record r, or NULL. */
static const char *rec_fault(const tg_kernel_rec *r, const struct dec *d)
{
	uint32_t nk = d->nkeys;
	if ((r->unit != TG_NONE && r->unit >= d->tr.nunits) || (r->inv != TG_NONE && r->inv >= d->tr.ninvs))
		return "record's unit or invocation out of range";
	if (r->category >= nk || r->op >= nk || r->op_shape >= nk || r->kernel >= nk || r->module >= nk ||
	    (r->name_category != TG_NONE && r->name_category >= nk))
		return "record's key out of range";
	if (r->event >= d->nevents || r->cat_source >= TG_CAT_SRC_COUNT)
		return "record's event or category source out of range";
	return NULL;
}

static void get_recs(struct rd_cur *c, struct dec *d)
{
	uint32_t n = get_count(c, 69, "record count");
	if (c->bad || !(d->recs = tg_calloc(n ? n : 1, sizeof(tg_kernel_rec))) ||
	    !(d->streams = tg_malloc((n ? n : 1) * sizeof(int64_t)))) {
		c->bad = c->bad ? c->bad : "out of memory";
		return;
	}
	for (uint32_t i = 0; i < n && !c->bad; i++) {
		tg_kernel_rec *r = &d->recs[i];
		uint32_t *k[] = {&r->unit,     &r->inv,    &r->category, &r->name_category, &r->op,
		                 &r->op_shape, &r->kernel, &r->module,   &r->event};
		for (size_t j = 0; j < sizeof(k) / sizeof(k[0]); j++)
			*k[j] = GET_U32(c);
		d->streams[i] = GET_I64(c);
		r->stream = i; /* tg_measure_add_trace numbers the distinct ones */
		r->dur_ns = GET_I64(c);
		r->delay_ns = GET_I64(c);
		(void)GET_I64(c); /* the start: read by no judgement, not held */
		r->cat_source = GET_U8(c);
		r->trace = 0;
		r->pair = TG_NONE;
		if (!c->bad)
			c->bad = rec_fault(r, d);
	}
	d->tr.recs = d->recs;
	d->tr.nrecs = n;
	d->tr.streams = d->streams;
	d->tr.nstreams = n;
}

/* The skeleton's names and nodes into *sk (what names it in messages). */
static int get_skeleton(tg_skeleton **sk, struct rd_cur *c, uint32_t nevents, const char *what)
{
	unsigned with = GET_U32(c);
	tg_atoms *names = get_atoms(c, "skeleton name");
	uint32_t n = get_count(c, 27, "skeleton node count");
	tg_skel_entry *x = c->bad ? NULL : tg_calloc(n ? n : 1, sizeof(tg_skel_entry));
	if (!c->bad && !x)
		c->bad = "out of memory";
	for (uint32_t i = 0; i < n && !c->bad; i++) {
		x[i].ts = GET_I64(c);
		x[i].dur = GET_I64(c);
		x[i].event = GET_U32(c);
		x[i].parent = GET_U32(c);
		/* checked before they are narrowed into the node's bits */
		uint32_t name = GET_U32(c);
		uint8_t kind = GET_U8(c), linked = GET_U8(c);
		if (!c->bad && (name >= TG_SKEL_MAX_NAMES || kind >= TG_KIND_COUNT || linked > 1))
			c->bad = name >= TG_SKEL_MAX_NAMES ? "skeleton node name" : kind >= TG_KIND_COUNT ? "skeleton node kind"
			                                                                                   : "skeleton node link";
		x[i].name = name;
		x[i].kind = kind;
		x[i].linked = linked;
	}
	if (c->bad) {
		free(x);
		tg_atoms_free(names);
		return TG_EFORMAT;
	}
	return tg_skeleton_adopt(sk, x, n, nevents, names, with, what);
}

/* What follows the skeleton: the critical path's summary, the thresholds'
 * key and the findings, then the end. */
static void get_tail(struct rd_cur *c, tg_rundata *rd)
{
	tg_rundata_get_cp(c, &rd->cp);
	uint32_t n = GET_U32(c);
	if (!c->bad && n > c->n - c->at)
		c->bad = "findings key";
	if (!c->bad && !(rd->fkey = tg_malloc((size_t)n + 1)))
		c->bad = "out of memory";
	if (c->bad)
		return;
	memcpy(rd->fkey, c->p + c->at, n);
	rd->fkey[n] = 0;
	c->at += n;
	rd->findings = tg_rundata_get_findings(c);
	if (!c->bad && c->at != c->n)
		c->bad = "bytes after the end";
}

/* The trace's header and keys into d and rd. */
static void get_trace(struct rd_cur *c, struct dec *d, tg_rundata *rd)
{
	d->json_bytes = (uint64_t)GET_I64(c);
	d->nevents = GET_U32(c);
	d->tr.rank = GET_I64(c);
	d->tr.nsteps = (size_t)GET_I64(c);
	get_fixed_str(c, d->tr.fp.gpu, sizeof(d->tr.fp.gpu), "fingerprint");
	get_fixed_str(c, d->tr.fp.driver, sizeof(d->tr.fp.driver), "fingerprint");
	get_fixed_str(c, d->tr.fp.runtime, sizeof(d->tr.fp.runtime), "fingerprint");
	d->tr.fp.world_size = GET_I64(c);
	if (!c->bad && d->nevents >= TG_NONE - 1)
		c->bad = "event count";
	if (!c->bad && d->tr.nsteps > d->nevents)
		c->bad = "step count";
	rd->keys = get_atoms(c, "key");
	d->nkeys = rd->keys ? tg_atoms_count(rd->keys) : 0;
}

int tg_rundata_decode(tg_rundata **out, const void *data, size_t len, uint64_t max_bytes, const char *what)
{
	*out = NULL;
	uint8_t *raw = NULL;
	size_t n = 0;
	int rc = tg_rundata_unpack(&raw, &n, data, len, MAGIC, TG_RUNDATA_FORMAT, max_bytes, "run data", what);
	if (rc)
		return rc;
	struct rd_cur c = {raw, n, 0, NULL};
	struct dec d;
	memset(&d, 0, sizeof(d));
	tg_rundata *rd = tg_calloc(1, sizeof(*rd));
	if (!rd)
		c.bad = "out of memory";
	else
		get_trace(&c, &d, rd);
	get_units(&c, &d);
	get_invs(&c, &d);
	get_recs(&c, &d);
	if (!c.bad && (rc = tg_measure_new(&rd->m, rd->keys)) == 0)
		rc = tg_measure_add_trace(rd->m, &d.tr);
	if (!c.bad && !rc)
		rc = get_skeleton(&rd->sk, &c, d.nevents, what);
	if (!c.bad && !rc)
		get_tail(&c, rd);
	if (c.bad)
		rc = !strcmp(c.bad, "out of memory")
		             ? TG_ENOMEM
		             : tg_error_set(TG_EFORMAT, "%s: damaged run data: %s at byte %zu", what, c.bad, c.at);
	free(raw);
	free(d.units);
	free(d.invs);
	free(d.recs);
	free(d.streams);
	if (rc) {
		tg_rundata_free(rd);
		return rc;
	}
	rd->json_bytes = d.json_bytes;
	rd->parts = TG_RUNDATA_ALL;
	rd->rank = d.tr.rank;
	rd->nsteps = d.tr.nsteps;
	*out = rd;
	return 0;
}

int tg_rundata_expand_parts(tg_rundata *rd, unsigned parts)
{
	int rc = (parts & TG_RUNDATA_SKELETON) && rd->sk ? tg_skeleton_expand(rd->sk) : 0;
	if (!rc && (parts & TG_RUNDATA_MEASURE) && rd->m)
		rc = tg_measure_expand(rd->m);
	if (rc)
		return tg_error_set(rc, "out of memory");
	if ((!rd->sk || !tg_skeleton_compacted(rd->sk)) && (!rd->m || (parts & TG_RUNDATA_MEASURE)))
		rd->compact = 0;
	return 0;
}

int tg_rundata_compact_measure(tg_rundata *rd)
{
	if (!rd->m || !tg_measure_packed(rd->m) || tg_measure_tree(rd->m, 0))
		return tg_error_set(TG_EINVAL, "run data is compacted once detached");
	if (tg_measure_compact(rd->m))
		return tg_error_set(TG_ENOMEM, "out of memory");
	rd->compact = 1;
	return 0;
}
