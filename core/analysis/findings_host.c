/*
 * findings_host.c - the findings of the host side (findings.h): host-sync
 * and dataloader-stall.
 *
 * host-sync. The host syncs are host_syncs.h's (tg_host_syncs_is_sync: the
 * *Synchronize calls, synchronous copies, cuda_sync events not under one
 * of them), and the asynchronous copy calls whose copy goes to pageable
 * host memory (which cannot return before the copy: .item(), .cpu()).
 * Each is placed where the user wrote it: the outermost cpu_op of the
 * chain of cpu_ops above it (aten::item above aten::_local_scalar_dense,
 * aten::to above aten::copy_) and the nearest Python frames above that:
 * "Block.forward" when a source frame ("model.py(48): forward") lies
 * inside an nn.Module frame ("nn.Module: Block_0"), else the module's
 * class or the source frame's function, else the user annotation around
 * it. A cuda_sync event the tree left without a parent (no runtime call)
 * finds its op by External id. Syncs of one place are one finding (at
 * most TG_FINDINGS_MAX_PER_ID fire); its key drops the source line
 * numbers so that the finding matches across two versions of the code.
 * Cost: while the host waits, the GPU drains its queue and then idles
 * until the host launches again; the cost of a sync is the GPU's idle
 * time from the sync's start to the first device event after the sync
 * (and its op) returned, all streams pooled.
 *
 * dataloader-stall. The iterator's __next__ (Kineto's
 * "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__" op, or the
 * Python frame "torch/utils/data/dataloader.py(...): __next__"); its cost
 * is the GPU's idle time while it runs. Both families mark the windows
 * they explain, so that the gap findings do not count them again.
 */
#include "findings_impl.h"
#include "host_syncs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One host sync and where it was called from. */
struct hsync {
	uint32_t sync, anchor; /* the sync event; the outermost op above it (or the sync) */
	uint32_t inner;        /* the nearest cpu_op, TG_NONE */
	int64_t a, b;          /* the window its cost is measured in */
	uint32_t where;        /* atoms of the syncs' names table: the Python place
	                          ("Block.forward", "" when unknown), */
	uint32_t key, subject; /* the key (without line numbers) and the subject */
};

static int is_source_frame(const char *name)
{
	return name[0] != '<' && strstr(name, ".py(") != NULL;
}

static int is_module_frame(const char *name)
{
	return strncmp(name, "nn.Module: ", 11) == 0;
}

/* "nn.Module: Block_0" -> "Block" (the class, without the instance index). */
static void module_class(char *buf, size_t cap, const char *frame)
{
	snprintf(buf, cap, "%s", frame + 11);
	size_t n = strlen(buf), k = n;
	while (k > 0 && buf[k - 1] >= '0' && buf[k - 1] <= '9')
		k--;
	if (k < n && k > 1 && buf[k - 1] == '_')
		buf[k - 1] = 0;
}

/* "dir/model.py(48): forward" -> file "dir/model.py", line "48", func "forward". */
static void split_frame(const char *frame, char *file, size_t fcap, char *line, size_t lcap, const char **func)
{
	const char *p = strstr(frame, ".py(");
	size_t fl = (size_t)(p - frame) + 3;
	snprintf(file, fcap, "%.*s", (int)(fl < fcap ? fl : fcap - 1), frame);
	const char *l = p + 4, *close = strchr(l, ')');
	size_t ll = close ? (size_t)(close - l) : 0;
	snprintf(line, lcap, "%.*s", (int)(ll < lcap ? ll : lcap - 1), l);
	const char *colon = close ? strstr(close, ": ") : NULL;
	*func = colon ? colon + 2 : "";
}

/* The host event the walk up from sync s starts at: its tree parent, or,
 * for a cuda_sync event the tree left without one, the cpu_op with its
 * External id (found by the tree's build: tg_tree_sync_op). */
static uint32_t first_parent(const tg_fctx *c, uint32_t sync)
{
	uint32_t p = tg_tree_parent(c->tree, sync);
	return p != TG_NONE ? p : tg_tree_sync_op(c->tree, sync);
}

/* The Python place of a sync from its nearest source frame src and
 * nearest module frame mod (TG_NONE when absent; src_first: src is the
 * nearer), else the annotation ann: where (shown) and wkey (matched). */
static void python_place(char *where, size_t wcap, char *wkey, size_t kcap, const tg_fctx *c, uint32_t src,
                         uint32_t mod, int src_first, uint32_t ann)
{
	char cls[96], file[96], line[16];
	const char *func = "";
	if (src != TG_NONE)
		split_frame(tg_trace_str(c->t, c->ev[src].name), file, sizeof(file), line, sizeof(line), &func);
	if (mod != TG_NONE)
		module_class(cls, sizeof(cls), tg_trace_str(c->t, c->ev[mod].name));
	if (src != TG_NONE && mod != TG_NONE && src_first) {
		snprintf(where, wcap, "%s.%s", cls, func);
		snprintf(wkey, kcap, "%s", where);
	} else if (mod != TG_NONE) {
		snprintf(where, wcap, "%s", cls);
		snprintf(wkey, kcap, "%s", cls);
	} else if (src != TG_NONE) {
		snprintf(where, wcap, "%s (%s:%s)", func, file, line);
		snprintf(wkey, kcap, "%s (%s)", func, file);
	} else if (ann != TG_NONE) {
		snprintf(where, wcap, "%s", tg_trace_str(c->t, c->ev[ann].name));
		snprintf(wkey, kcap, "%s", where);
	}
}

/* Where sync s was called from: fills the anchor, inner op, place, key and
 * subject (interned in names). Returns 0 or TG_ENOMEM. */
static int place(struct hsync *s, const tg_fctx *c, tg_atoms *names)
{
	const tg_trace *t = c->t;
	uint32_t src = TG_NONE, mod = TG_NONE, ann = TG_NONE;
	int src_first = 0, chain = 1;
	s->anchor = s->sync;
	s->inner = TG_NONE;
	int depth = 0;
	for (uint32_t p = first_parent(c, s->sync); p != TG_NONE && depth < 512;
	     p = tg_tree_parent(c->tree, p), depth++) {
		const tg_event *e = &c->ev[p];
		const char *name = tg_trace_str(t, e->name);
		if (!strncmp(name, "ProfilerStep#", 13))
			break; /* the step (a cpu_op or an annotation) is no place */
		if (e->kind == TG_KIND_CPU_OP && chain) {
			s->anchor = p;
			if (s->inner == TG_NONE)
				s->inner = p;
			continue;
		}
		if (tg_kind_is_launch(e->kind))
			continue; /* a cuda_sync event under its call */
		chain = 0;
		if (e->kind == TG_KIND_PYTHON && src == TG_NONE && is_source_frame(name)) {
			src = p;
			src_first = mod == TG_NONE;
		} else if (e->kind == TG_KIND_PYTHON && mod == TG_NONE && is_module_frame(name)) {
			mod = p;
		} else if (e->kind == TG_KIND_USER_ANNOTATION && ann == TG_NONE) {
			ann = p;
		}
		if (src != TG_NONE && mod != TG_NONE)
			break;
	}
	char where[128] = "", wkey[128] = "", subject[300], key[300];
	python_place(where, sizeof(where), wkey, sizeof(wkey), c, src, mod, src_first, ann);
	const char *op = tg_trace_str(t, c->ev[s->anchor].name);
	snprintf(subject, sizeof(subject), "%s%s%.150s", where, where[0] ? ": " : "", op);
	snprintf(key, sizeof(key), "%s%s%.150s", wkey, wkey[0] ? ": " : "", op);
	if (tg_atoms_intern(&s->where, names, where, strlen(where)) ||
	    tg_atoms_intern(&s->subject, names, subject, strlen(subject)) ||
	    tg_atoms_intern(&s->key, names, key, strlen(key)))
		return TG_ENOMEM;
	return 0;
}

/* The window of s: from the sync's start to the first device event after
 * it (and its op) returned. It starts at the sync, not at its op: the GPU
 * idle while the op did other blocking work (a pageable copy's staging)
 * is that work's finding. */
static void sync_window(struct hsync *s, const tg_fctx *c)
{
	const tg_event *x = &c->ev[s->anchor], *y = &c->ev[s->sync];
	int64_t xe = tg_event_end(c->t, x), ye = tg_event_end(c->t, y);
	int64_t back = xe > ye ? xe : ye;
	uint32_t nx = tg_fctx_next_device(c, back);
	s->a = y->ts;
	s->b = nx != TG_NONE ? c->ev[nx].ts : back;
}

/* 1 for an asynchronous copy call whose copy goes from the device to
 * pageable host memory (Kineto: "Memcpy DtoH (Device -> Pageable)"): the
 * call cannot return before the copy, which waits for the stream's queue
 * (a .cpu(), .item() or .tolist() without pinned memory), so it blocks
 * the host like a synchronize. */
static int blocking_copy(const tg_fctx *c, uint32_t call)
{
	const char *name = tg_trace_str(c->t, c->ev[call].name);
	if (!strstr(name, "Memcpy") || !strstr(name, "Async"))
		return 0;
	tg_tree_child_iter it;
	uint32_t k;
	for (tg_tree_child_iter_init(&it, c->tree, call); tg_tree_child_next(&it, &k);) {
		const char *d = tg_trace_str(c->t, c->ev[k].name);
		if (c->ev[k].kind == TG_KIND_MEMCPY && strstr(d, "DtoH") && strstr(d, "Pageable"))
			return 1;
	}
	return 0;
}

/* The selected host syncs, each placed. */
static int collect_syncs(struct hsync **out, size_t *n, const tg_fctx *c, tg_atoms *names)
{
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < c->ne; i++) {
		const tg_event *e = &c->ev[i];
		if (!tg_kind_is_launch(e->kind) && e->kind != TG_KIND_SYNC)
			continue;
		if (!(tg_host_syncs_is_sync(tg_trace_str(c->t, e->name), e->kind) ||
		      (tg_kind_is_launch(e->kind) && blocking_copy(c, (uint32_t)i))) ||
		    !tg_fctx_selected(c, (uint32_t)i))
			continue;
		uint32_t p = tg_tree_parent(c->tree, (uint32_t)i);
		if (e->kind == TG_KIND_SYNC && p != TG_NONE &&
		    tg_host_syncs_is_sync(tg_trace_str(c->t, c->ev[p].name), c->ev[p].kind))
			continue; /* counted with its runtime call */
		if (tg_grow((void **)out, &cap, *n + 1, sizeof(**out)))
			return TG_ENOMEM;
		struct hsync *s = &(*out)[(*n)++];
		s->sync = (uint32_t)i;
		if (place(s, c, names))
			return TG_ENOMEM;
		sync_window(s, c);
	}
	return 0;
}

static int cmp_hsync(const void *a, const void *b, void *names)
{
	const struct hsync *x = a, *y = b;
	int k = x->key == y->key ? 0 : strcmp(tg_atoms_str(names, x->key), tg_atoms_str(names, y->key));
	if (k)
		return k;
	if (x->anchor != y->anchor)
		return x->anchor < y->anchor ? -1 : 1;
	return (x->sync > y->sync) - (x->sync < y->sync);
}

/* The distinct sync names of v[0..n) into buf ("cudaMemcpyAsync and
 * cudaStreamSynchronize"), a copy to pageable memory said so. */
static void sync_names(char *buf, size_t cap, const tg_fctx *c, const struct hsync *v, size_t n)
{
	uint32_t seen[3];
	size_t ns = 0;
	buf[0] = 0;
	for (size_t i = 0; i < n && ns < 3; i++) {
		uint32_t a = c->ev[v[i].sync].name;
		int dup = 0;
		for (size_t k = 0; k < ns; k++)
			dup |= seen[k] == a;
		if (dup)
			continue;
		seen[ns++] = a;
		tg_fstr_add(buf, cap, "%s%s%s", ns > 1 ? " and " : "", tg_trace_str(c->t, a),
		            tg_kind_is_launch(c->ev[v[i].sync].kind) && blocking_copy(c, v[i].sync)
		                    ? " to pageable memory"
		                    : "");
	}
}

/* One place's syncs v[0..n) (sorted by anchor) as a finding. */
static int sync_finding(tg_fctx *c, const struct hsync *v, size_t n, const tg_atoms *names, int *fired)
{
	tg_finding *f = tg_fctx_add(c, TG_FINDING_HOST_SYNC);
	if (!f)
		return TG_ENOMEM;
	double host = 0, idle = 0;
	size_t anchors = 0;
	for (size_t i = 0; i < n; i++) {
		host += (double)tg_event_dur(c->t, &c->ev[v[i].sync]);
		if (i && v[i].anchor == v[i - 1].anchor)
			continue;
		anchors++;
		idle += (double)tg_fctx_idle_in(c, v[i].a, v[i].b);
	}
	snprintf(f->subject, sizeof(f->subject), "%s", tg_atoms_str(names, v[0].subject));
	snprintf(f->key, sizeof(f->key), "%s", tg_atoms_str(names, v[0].key));
	f->count = (double)anchors / (double)c->nsteps;
	f->start_ns = v[0].a;
	f->end_ns = v[0].b;
	for (size_t i = 1; i < n; i++) {
		f->start_ns = v[i].a < f->start_ns ? v[i].a : f->start_ns;
		f->end_ns = v[i].b > f->end_ns ? v[i].b : f->end_ns;
	}
	tg_fctx_cost(f, c, idle, "GPU idle from each sync's start until the first device event after it");
	char h[32], g[32], calls[256];
	tg_fstr_time(h, sizeof(h), host / (double)c->nsteps);
	tg_fstr_time(g, sizeof(g), f->cost_ns);
	sync_names(calls, sizeof(calls), c, v, n);
	const char *op = tg_trace_str(c->t, c->ev[v[0].anchor].name);
	const char *inner = v[0].inner != TG_NONE ? tg_trace_str(c->t, c->ev[v[0].inner].name) : NULL;
	snprintf(f->evidence, sizeof(f->evidence), "%.3g a step: %s", f->count, calls);
	if (inner && strcmp(inner, op))
		tg_fstr_add(f->evidence, sizeof(f->evidence), " in %s", inner);
	if (v[0].anchor != v[0].sync)
		tg_fstr_add(f->evidence, sizeof(f->evidence), " under %s", op);
	if (tg_atoms_str(names, v[0].where)[0])
		tg_fstr_add(f->evidence, sizeof(f->evidence), " in %s", tg_atoms_str(names, v[0].where));
	tg_fstr_add(f->evidence, sizeof(f->evidence), "; the host waited %s a step in them, the GPU idled %s after", h,
	            g);
	*fired = f->status == TG_FINDING_FIRED;
	return 0;
}

/* Fired places first, at most TG_FINDINGS_MAX_PER_ID; without any, one ok
 * finding over all the syncs. */
static int sync_findings(tg_fctx *c, struct hsync *v, size_t n, tg_atoms *names)
{
	if (n > 1)
		qsort_r(v, n, sizeof(*v), cmp_hsync, names);
	size_t first = c->out->n, nfired = 0, places = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && v[j].key == v[i].key)
			j++;
		int fired, rc = sync_finding(c, v + i, j - i, names, &fired);
		if (rc)
			return rc;
		places++;
		if (!fired)
			c->out->n--; /* below the threshold: counted in the summary below */
		else
			nfired++;
		i = j;
	}
	if (nfired > TG_FINDINGS_MAX_PER_ID) {
		/* keep the costliest */
		tg_findings part = {c->out->v + first, nfired, nfired, 0, 0};
		tg_findings_sort(&part);
		tg_finding *last = &c->out->v[first + TG_FINDINGS_MAX_PER_ID - 1];
		tg_fstr_add(last->evidence, sizeof(last->evidence), "; and %zu more places above the threshold",
		            nfired - TG_FINDINGS_MAX_PER_ID);
		c->out->n = first + TG_FINDINGS_MAX_PER_ID;
	}
	if (nfired)
		return 0;
	tg_finding *f = tg_fctx_add(c, TG_FINDING_HOST_SYNC);
	if (!f)
		return TG_ENOMEM;
	double idle = 0;
	for (size_t i = 0; i < n; i++)
		if (!i || v[i].anchor != v[i - 1].anchor)
			idle += (double)tg_fctx_idle_in(c, v[i].a, v[i].b);
	tg_fctx_cost(f, c, idle, "GPU idle from each sync's start until the first device event after it");
	f->status = TG_FINDING_OK;
	size_t anchors = 0;
	for (size_t i = 0; i < n; i++)
		anchors += !i || v[i].anchor != v[i - 1].anchor;
	f->count = (double)anchors / (double)c->nsteps;
	char g[32];
	tg_fstr_time(g, sizeof(g), f->cost_ns);
	if (n)
		snprintf(f->evidence, sizeof(f->evidence),
		         "%.3g syncing calls a step in %zu place%s, the GPU idled %s a step after them", f->count,
		         places, places == 1 ? "" : "s", g);
	else
		snprintf(f->evidence, sizeof(f->evidence), "no host sync in the analysed steps");
	return 0;
}

static int host_sync(tg_fctx *c)
{
	if (!tg_fctx_limits(c, TG_FINDING_HOST_SYNC)->enabled)
		return 0;
	if (!c->nhost)
		return tg_fctx_not_evaluated(c, TG_FINDING_HOST_SYNC, "no CPU side in the trace (device events only)");
	struct hsync *v = NULL;
	size_t n = 0;
	tg_atoms *names = tg_atoms_new();
	int rc = names ? collect_syncs(&v, &n, c, names) : TG_ENOMEM;
	for (size_t i = 0; !rc && i < n; i++)
		rc = tg_fctx_explain(c, v[i].a, v[i].b);
	if (!rc)
		rc = sync_findings(c, v, n, names);
	free(v);
	tg_atoms_free(names);
	return rc;
}

/* 1 for the DataLoader iterator's __next__, as an op or a Python frame.
 * Asked of every event: the kind first, then the name's length from its
 * atom (a strlen and a strcmp each were 2 M of an h200-dev report's
 * instructions). */
static int is_dataloader_next(const tg_fctx *c, const tg_event *e)
{
	if (e->kind != TG_KIND_PYTHON && e->kind != TG_KIND_CPU_OP && e->kind != TG_KIND_USER_ANNOTATION)
		return 0;
	size_t n = tg_atoms_len(tg_trace_atoms(c->t), e->name);
	const char *name = tg_trace_str(c->t, e->name);
	if (n < 8 || memcmp(name + n - 8, "__next__", 8))
		return 0;
	return strstr(name, e->kind == TG_KIND_PYTHON ? "utils/data/dataloader.py(" : "DataLoader") != NULL;
}

/* 1 if an ancestor of ev is a DataLoader __next__ too. */
static int nested_next(const tg_fctx *c, uint32_t ev)
{
	int depth = 0;
	for (uint32_t p = tg_tree_parent(c->tree, ev); p != TG_NONE && depth < 512;
	     p = tg_tree_parent(c->tree, p), depth++)
		if (is_dataloader_next(c, &c->ev[p]))
			return 1;
	return 0;
}

static int dataloader(tg_fctx *c)
{
	if (!tg_fctx_limits(c, TG_FINDING_DATALOADER_STALL)->enabled)
		return 0;
	if (!c->nhost)
		return tg_fctx_not_evaluated(c, TG_FINDING_DATALOADER_STALL,
		                             "no CPU side in the trace (device events only)");
	size_t calls = 0;
	double host = 0, idle = 0;
	uint32_t longest = TG_NONE;
	int64_t first = 0, last = 0;
	for (size_t i = 0; i < c->ne; i++) {
		const tg_event *e = &c->ev[i];
		if (!is_dataloader_next(c, e) || !tg_fctx_selected(c, (uint32_t)i) ||
		    nested_next(c, (uint32_t)i))
			continue;
		if (tg_fctx_explain(c, e->ts, tg_event_end(c->t, e)))
			return TG_ENOMEM;
		calls++;
		host += (double)tg_event_dur(c->t, e);
		idle += (double)tg_fctx_idle_in(c, e->ts, tg_event_end(c->t, e));
		if (longest == TG_NONE || tg_event_dur(c->t, e) > tg_event_dur(c->t, &c->ev[longest]))
			longest = (uint32_t)i;
		first = calls == 1 || e->ts < first ? e->ts : first;
		last = tg_event_end(c->t, e) > last ? tg_event_end(c->t, e) : last;
	}
	if (!calls)
		return tg_fctx_not_evaluated(
			c, TG_FINDING_DATALOADER_STALL,
			"no DataLoader __next__ in the analysed steps: no torch.utils.data.DataLoader, "
			"or it loads outside them");
	tg_finding *f = tg_fctx_add(c, TG_FINDING_DATALOADER_STALL);
	if (!f)
		return TG_ENOMEM;
	f->count = (double)calls / (double)c->nsteps;
	f->start_ns = first;
	f->end_ns = last;
	tg_fctx_cost(f, c, idle, "GPU idle while the DataLoader's __next__ ran");
	char h[32], g[32];
	tg_fstr_time(h, sizeof(h), host / (double)c->nsteps);
	tg_fstr_time(g, sizeof(g), f->cost_ns);
	snprintf(f->evidence, sizeof(f->evidence),
	         "%s: %.3g a step, %s a step on the host (%.1f %% of the step), the "
	         "GPU idled %s of it",
	         tg_trace_str(c->t, c->ev[longest].name), f->count, h,
	         c->step_ns > 0 ? 100 * host / (double)c->nsteps / c->step_ns : 0.0, g);
	return 0;
}

int tg_findings_check_host(tg_fctx *c)
{
	int rc = host_sync(c);
	if (!rc)
		rc = dataloader(c);
	tg_fctx_explained_done(c);
	return rc;
}
