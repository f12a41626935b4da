/*
 * tree_diff.c - the morphological alignment of two event trees (see
 * tree_diff.h and docs/tree-diff.md).
 *
 * A port of TraceLens's TraceDiff.merge_trees / generate_diff_stats
 * (TraceLens/TraceDiff/trace_diff.py, util.py), written here because no
 * library does it: every step that TraceLens runs in O(m*n) or worse is
 * bounded (common suffix and prefix stripped before Wagner-Fischer, a
 * linear windowed alignment beyond a table size, caps on the quadratic
 * disambiguation and reconciliation), so that two 240k-event traces diff in
 * milliseconds.
 *
 * Layout. Each side is first flattened into a "view": the kept events
 * renumbered in depth-first order (children by start time), so that a
 * node's subtree is the index range [v, end[v]). The merged tree is built
 * top-down with an explicit stack; node ids are given when a node is popped,
 * which is the preorder TraceLens numbers its merged_id in. Every per-node
 * step reuses the scratch vectors of struct ctx.
 */
#include "tree_diff.h"
#include "atoms.h"
#include "interval.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_DP_CELLS (4u << 20)
#define DEFAULT_MAX_PAIRS 65536u
#define WINDOW 32   /* resync window of the linear alignment */
#define BFS_DEPTH 4 /* levels of the same-name subtree signature */
#define PRINT_DEPTH 512 /* deepest level printed (the printer recurses) */

/* ------------------------------------------------------------------ */
/* small vectors                                                        */

typedef struct u32vec {
	uint32_t *v;
	size_t n, cap;
} u32vec;

static int u32_reserve(u32vec *a, size_t need)
{
	return need <= a->cap ? 0 : tg_grow((void **)&a->v, &a->cap, need, sizeof(uint32_t));
}

static int u32_push(u32vec *a, uint32_t x)
{
	if (a->n == a->cap && tg_grow((void **)&a->v, &a->cap, a->n + 1, sizeof(uint32_t)))
		return TG_ENOMEM;
	a->v[a->n++] = x;
	return 0;
}

static int u32_copy(u32vec *dst, const uint32_t *src, size_t n)
{
	if (u32_reserve(dst, n))
		return TG_ENOMEM;
	if (n)
		memmove(dst->v, src, n * sizeof(uint32_t));
	dst->n = n;
	return 0;
}

/* An alignment step: match (i, j), delete (i, TG_NONE), insert (TG_NONE, j). */
typedef struct op {
	uint32_t i, j;
} op;

typedef struct opvec {
	op *v;
	size_t n, cap;
} opvec;

static int op_push(opvec *a, uint32_t i, uint32_t j)
{
	if (a->n == a->cap && tg_grow((void **)&a->v, &a->cap, a->n + 1, sizeof(op)))
		return TG_ENOMEM;
	a->v[a->n++] = (op){i, j};
	return 0;
}

static int op_copy(opvec *dst, const opvec *src)
{
	if (src->n > dst->cap && tg_grow((void **)&dst->v, &dst->cap, src->n, sizeof(op)))
		return TG_ENOMEM;
	if (src->n)
		memcpy(dst->v, src->v, src->n * sizeof(op));
	dst->n = src->n;
	return 0;
}

#define IS_MATCH(o) ((o).i != TG_NONE && (o).j != TG_NONE)
#define IS_DELETE(o) ((o).j == TG_NONE)
#define IS_INSERT(o) ((o).i == TG_NONE)

/* ------------------------------------------------------------------ */
/* name normalization                                                   */

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

struct sbuf {
	char *s;
	size_t n, cap;
};

static int sb_put(struct sbuf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap && tg_grow((void **)&b->s, &b->cap, b->n + n + 1, 1))
		return TG_ENOMEM;
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
	return 0;
}

/* TraceLens's _normalize_name_for_comparison into b (reset first):
 *   re.sub(r"0x[0-9a-fA-F]+", "0xXXXX"), then re.sub(r"\.py\(\d+\):", ".py:"),
 *   with strip_details re.sub(r":\s+\S+$", "") and
 *   re.sub(r"^.*\/([^/]+\.py)$", r"\1"); then hipModuleLaunchKernel and
 *   cuLaunchKernel become __kernel_launch__. */
static int normalize(struct sbuf *b, struct sbuf *tmp, const char *s, int strip)
{
	size_t n = strlen(s);
	tmp->n = 0;
	if (sb_put(tmp, "", 0))
		return TG_ENOMEM;
	for (size_t i = 0; i < n;) {
		if (s[i] == '0' && i + 2 < n && s[i + 1] == 'x' && is_hex(s[i + 2])) {
			size_t k = i + 2;
			while (k < n && is_hex(s[k]))
				k++;
			if (sb_put(tmp, "0xXXXX", 6))
				return TG_ENOMEM;
			i = k;
			continue;
		}
		if (sb_put(tmp, s + i, 1))
			return TG_ENOMEM;
		i++;
	}
	b->n = 0;
	if (sb_put(b, "", 0))
		return TG_ENOMEM;
	const char *t = tmp->s;
	n = tmp->n;
	for (size_t i = 0; i < n;) {
		if (n - i >= 4 && !memcmp(t + i, ".py(", 4)) {
			size_t k = i + 4;
			while (k < n && t[k] >= '0' && t[k] <= '9')
				k++;
			if (k > i + 4 && k + 1 < n && t[k] == ')' && t[k + 1] == ':') {
				if (sb_put(b, ".py:", 4))
					return TG_ENOMEM;
				i = k + 2;
				continue;
			}
		}
		if (sb_put(b, t + i, 1))
			return TG_ENOMEM;
		i++;
	}
	if (strip) {
		/* leftmost ':' followed by \s+\S+ up to the end */
		n = b->n;
		for (size_t i = 0; i < n; i++) {
			if (b->s[i] != ':')
				continue;
			size_t k = i + 1;
			if (k >= n || !is_space(b->s[k]))
				continue;
			while (k < n && is_space(b->s[k]))
				k++;
			if (k >= n)
				continue;
			size_t q = k;
			while (q < n && !is_space(b->s[q]))
				q++;
			if (q == n) {
				b->n = i;
				b->s[i] = 0;
				break;
			}
		}
		n = b->n;
		if (n >= 3 && !memcmp(b->s + n - 3, ".py", 3)) {
			const char *slash = memrchr(b->s, '/', n);
			if (slash && (size_t)(b->s + n - (slash + 1)) >= 4) {
				size_t off = (size_t)(slash + 1 - b->s);
				memmove(b->s, b->s + off, n - off + 1);
				b->n = n - off;
			}
		}
	}
	if (!strcmp(b->s, "hipModuleLaunchKernel") || !strcmp(b->s, "cuLaunchKernel")) {
		b->n = 0;
		if (sb_put(b, "__kernel_launch__", 17))
			return TG_ENOMEM;
	}
	return 0;
}

size_t tg_diff_normalize_name(char *buf, size_t size, const char *name, int strip_details)
{
	struct sbuf b = {0}, tmp = {0};
	size_t len = 0;
	if (!normalize(&b, &tmp, name, strip_details)) {
		len = b.n;
		if (size) {
			size_t c = len < size - 1 ? len : size - 1;
			memcpy(buf, b.s, c);
			buf[c] = 0;
		}
	} else if (size) {
		buf[0] = 0;
	}
	free(b.s);
	free(tmp.s);
	return len;
}

/* ------------------------------------------------------------------ */
/* views                                                                */

enum {
	F_GPU = 1,      /* device event: kernel, memcpy, memset */
	F_KERNEL = 2,   /* TraceLens category "kernel" (not memcpy/memset) */
	F_CPU_OP = 4,
	F_DISPATCH = 8, /* runtime/driver call that is not a graph launch */
	F_GRAPH = 16,   /* cudaGraphLaunch, hipGraphLaunch */
	F_PATH = 32     /* on the GPU path: device work in its subtree */
};

struct view {
	const tg_tree *tree;
	const tg_trace *t;
	const tg_event *ev;
	size_t ne;
	uint32_t n;
	uint32_t *event;  /* view -> event */
	uint32_t *parent; /* view -> view */
	uint32_t *end;    /* subtree = [v, end[v]) */
	uint32_t *coff;   /* children of v: child[coff[v] .. coff[v+1]) */
	uint32_t *child;
	uint32_t *key, *skey; /* comparison names (normal, strip_details) */
	uint8_t *flags;
	uint32_t *roots;
	size_t nroots;
	uint32_t *atom_key, *atom_skey; /* cache per atom of the trace */
	uint32_t natoms;
	uint32_t *pos; /* scratch: view -> position, TG_NONE when unset */
};

struct tg_tree_diff {
	struct view side[2];
	tg_tree_diff_opts opts;
	tg_atoms *norms; /* normalized names of both sides */
	tg_diff_node *nodes;
	size_t nnodes, cap_nodes;
	uint32_t *last_child; /* per node, while building */
	size_t cap_last;
	tg_diff_lca *lcas;
	size_t nlcas, cap_lcas;
	uint32_t *lca_events; /* the events of all LCAs */
	size_t nlca_events, cap_lca_events;
	uint32_t *match[2];  /* per event of each side */
	uint32_t *lca_of[2]; /* per event of each side */
	tg_tree_diff_stats stats;
};

/* A BFS signature: level k holds lpool[off[k] .. off[k+1]). */
struct levels {
	uint32_t off[BFS_DEPTH + 1];
	uint32_t n;
};

/* Scratch of the build. */
struct ctx {
	tg_tree_diff *d;
	struct sbuf nb, nt;
	/* alignment */
	u32vec ka, kb;
	uint64_t *bits;
	size_t cap_bits;
	u32vec row0, row1;
	/* disambiguation */
	struct ent {
		uint32_t key;
		uint32_t idx;
		uint8_t side, matched;
	} *ents;
	size_t cap_ents;
	u32vec st1, st2, lpool, front, next, g1, g2;
	struct levels *L1, *L2;
	size_t cap_L1, cap_L2;
	uint8_t *as1, *as2, *hand1, *hand2;
	size_t cap_as1, cap_as2, cap_hand1, cap_hand2;
	struct spair {
		uint32_t d, ov;
		uint32_t orig;
		uint32_t i, j;
	} *pairs;
	size_t cap_pairs;
	opvec dnew, dout;
	/* expansion */
	u32vec c1, c2, t1, t2, r1, r2, f1, f2, fi1, fi2, u1, u2, col1, col2, s1, s2, p2a, p2b;
	opvec ops, fops, nops, p1ops, p2ops, cops;
	u32vec imm;
	uint32_t *immoff;
	size_t cap_immoff;
	uint8_t *sub1, *sub2, *skip1, *skip2;
	size_t cap_sub1, cap_sub2, cap_skip1, cap_skip2;
	struct tsk {
		int64_t ts;
		uint32_t pos, v;
	} *tsk;
	size_t cap_tsk;
	/* work stack */
	struct work {
		uint32_t v1, v2, parent;
	} *stack;
	size_t nstack, cap_stack;
	u32vec pairs1, pairs2;
	tg_interval *iv;
	size_t cap_iv;
	uint8_t *used[2];
};

static int grow_bytes(uint8_t **p, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	return tg_grow((void **)p, cap, need, 1);
}

/* The atom of the normalized name of atom a of side s. */
static int norm_key(struct ctx *c, struct view *s, uint32_t a, int strip, uint32_t *out)
{
	uint32_t *cache = strip ? s->atom_skey : s->atom_key;
	if (a < s->natoms && cache[a] != TG_NONE) {
		*out = cache[a];
		return 0;
	}
	if (normalize(&c->nb, &c->nt, tg_trace_str(s->t, a), strip))
		return TG_ENOMEM;
	uint32_t k;
	int rc = tg_atoms_intern(&k, c->d->norms, c->nb.s, c->nb.n);
	if (rc)
		return rc;
	if (a < s->natoms)
		cache[a] = k;
	*out = k;
	return 0;
}

static int is_graph_name(const char *n)
{
	return !strcmp(n, "cudaGraphLaunch") || !strcmp(n, "hipGraphLaunch");
}

struct sortctx {
	const tg_event *ev;
};

static int cmp_ts_idx(const void *a, const void *b, void *p)
{
	const tg_event *ev = ((const struct sortctx *)p)->ev;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (ev[x].ts != ev[y].ts)
		return ev[x].ts < ev[y].ts ? -1 : 1;
	return (x > y) - (x < y);
}

static int keep_event(const tg_tree_diff_opts *o, const tg_tree *tree, const tg_event *e, uint32_t i)
{
	if (!tg_tree_contains(tree, i))
		return 0;
	switch (e->kind) {
	case TG_KIND_CPU_OP:
	case TG_KIND_RUNTIME:
	case TG_KIND_DRIVER: return 1;
	case TG_KIND_PYTHON: return o->keep_python;
	case TG_KIND_USER_ANNOTATION: return o->keep_annotations;
	default: break;
	}
	if (!tg_kind_is_gpu(e->kind))
		return 0;
	if (o->tracelens_links)
		return tg_tree_linked_like_tracelens(tree, i);
	return 1;
}

/* Descends from a root through single children that are neither cpu_ops
 * nor launch calls (graph launches excepted): TraceLens's
 * _get_top_level_root. */
static uint32_t descend_root(const struct view *s, uint32_t r)
{
	for (;;) {
		if (s->coff[r + 1] - s->coff[r] != 1)
			return r;
		uint32_t ch = s->child[s->coff[r]];
		uint8_t f = s->flags[ch];
		int k = s->ev[s->event[ch]].kind;
		if ((f & F_CPU_OP) || ((k == TG_KIND_RUNTIME || k == TG_KIND_DRIVER) && !(f & F_GRAPH)))
			return r;
		r = ch;
	}
}

static int build_view(struct ctx *c, struct view *s, const tg_tree *tree, const tg_tree_diff_opts *o)
{
	s->tree = tree;
	s->t = tg_tree_trace(tree);
	s->ev = tg_trace_events(s->t, &s->ne);
	const tg_event *ev = s->ev;
	size_t ne = s->ne;
	int rc = TG_ENOMEM;
	uint32_t *near = NULL, *order = NULL, *coff = NULL, *kids = NULL, *fill = NULL, *vof = NULL;
	uint32_t *stack = NULL;
	s->natoms = tg_atoms_count(tg_trace_atoms(s->t));
	s->atom_key = tg_malloc(((size_t)s->natoms + 1) * sizeof(uint32_t));
	s->atom_skey = tg_malloc(((size_t)s->natoms + 1) * sizeof(uint32_t));
	near = tg_malloc((ne + 1) * sizeof(uint32_t));
	order = tg_malloc((ne + 1) * sizeof(uint32_t));
	if (!s->atom_key || !s->atom_skey || !near || !order)
		goto out;
	memset(s->atom_key, 0xff, ((size_t)s->natoms + 1) * sizeof(uint32_t));
	memset(s->atom_skey, 0xff, ((size_t)s->natoms + 1) * sizeof(uint32_t));
	/* near[e]: e itself when kept, else its nearest kept ancestor (or
	 * TG_NONE); TG_NONE - 1 while unknown */
	const uint32_t UNKNOWN = TG_NONE - 1;
	size_t nk = 0;
	for (size_t i = 0; i < ne; i++) {
		int k = keep_event(o, tree, &ev[i], (uint32_t)i);
		near[i] = k ? (uint32_t)i : UNKNOWN;
		if (k)
			order[nk++] = (uint32_t)i;
	}
	for (size_t i = 0; i < ne; i++) {
		if (near[i] != UNKNOWN)
			continue;
		/* walk up to a known node, then fill the path */
		uint32_t x = (uint32_t)i, r;
		for (;;) {
			uint32_t p = tg_tree_parent(tree, x);
			if (p == TG_NONE) {
				r = TG_NONE;
				break;
			}
			if (near[p] != UNKNOWN) {
				r = near[p];
				break;
			}
			x = p;
		}
		x = (uint32_t)i;
		while (x != TG_NONE && near[x] == UNKNOWN) {
			near[x] = r;
			x = tg_tree_parent(tree, x);
		}
	}
	struct sortctx sc = {ev};
	qsort_r(order, nk, sizeof(uint32_t), cmp_ts_idx, &sc);
	/* children per kept parent, in (ts, index) order; roots likewise */
	coff = tg_calloc(ne + 2, sizeof(uint32_t));
	kids = tg_malloc((nk + 1) * sizeof(uint32_t));
	fill = tg_malloc((ne + 1) * sizeof(uint32_t));
	s->roots = tg_malloc((nk + 1) * sizeof(uint32_t));
	if (!coff || !kids || !fill || !s->roots)
		goto out;
	size_t nr = 0;
	for (size_t q = 0; q < nk; q++) {
		uint32_t e = order[q], p = tg_tree_parent(tree, e);
		uint32_t vp = p == TG_NONE ? TG_NONE : near[p];
		if (vp == TG_NONE)
			s->roots[nr++] = e;
		else
			coff[vp + 1]++;
	}
	for (size_t i = 0; i < ne; i++)
		coff[i + 1] += coff[i];
	memcpy(fill, coff, (ne + 1) * sizeof(uint32_t));
	for (size_t q = 0; q < nk; q++) {
		uint32_t e = order[q], p = tg_tree_parent(tree, e);
		uint32_t vp = p == TG_NONE ? TG_NONE : near[p];
		if (vp != TG_NONE)
			kids[fill[vp]++] = e;
	}
	/* depth-first numbering */
	s->n = (uint32_t)nk;
	s->event = tg_malloc((nk + 1) * sizeof(uint32_t));
	s->parent = tg_malloc((nk + 1) * sizeof(uint32_t));
	s->end = tg_malloc((nk + 1) * sizeof(uint32_t));
	s->coff = tg_calloc(nk + 2, sizeof(uint32_t));
	s->child = tg_malloc((nk + 1) * sizeof(uint32_t));
	s->key = tg_malloc((nk + 1) * sizeof(uint32_t));
	s->skey = tg_malloc((nk + 1) * sizeof(uint32_t));
	s->flags = tg_calloc(nk + 1, 1);
	s->pos = tg_malloc((nk + 1) * sizeof(uint32_t));
	stack = tg_malloc((nk + 1) * 2 * sizeof(uint32_t));
	vof = tg_malloc((ne + 1) * sizeof(uint32_t));
	if (!s->event || !s->parent || !s->end || !s->coff || !s->child || !s->key || !s->skey ||
	    !s->flags || !s->pos || !stack || !vof)
		goto out;
	memset(s->pos, 0xff, (nk + 1) * sizeof(uint32_t));
	uint32_t nv = 0;
	size_t sp = 0;
	for (size_t r = nr; r-- > 0;) {
		stack[sp++] = s->roots[r];
		stack[sp++] = TG_NONE;
	}
	while (sp) {
		uint32_t vp = stack[--sp], e = stack[--sp];
		uint32_t v = nv++;
		s->event[v] = e;
		s->parent[v] = vp;
		vof[e] = v;
		for (uint32_t k = coff[e + 1]; k-- > coff[e];) {
			stack[sp++] = kids[k];
			stack[sp++] = v;
		}
	}
	for (uint32_t r = 0; r < nr; r++)
		s->roots[r] = vof[s->roots[r]];
	for (uint32_t v = 0; v < nv; v++)
		if (s->parent[v] != TG_NONE)
			s->coff[s->parent[v] + 1]++;
	for (uint32_t v = 0; v < nv; v++)
		s->coff[v + 1] += s->coff[v];
	memcpy(fill, s->coff, ((size_t)nv + 1) * sizeof(uint32_t));
	for (uint32_t v = 0; v < nv; v++)
		if (s->parent[v] != TG_NONE)
			s->child[fill[s->parent[v]]++] = v;
	for (uint32_t v = 0; v < nv; v++)
		s->end[v] = v + 1;
	for (uint32_t v = nv; v-- > 0;)
		if (s->parent[v] != TG_NONE && s->end[v] > s->end[s->parent[v]])
			s->end[s->parent[v]] = s->end[v];
	/* flags and names */
	for (uint32_t v = 0; v < nv; v++) {
		const tg_event *e = &ev[s->event[v]];
		uint8_t f = 0;
		if (tg_kind_is_gpu(e->kind))
			f |= F_GPU | F_PATH;
		if (e->kind == TG_KIND_KERNEL)
			f |= F_KERNEL;
		if (e->kind == TG_KIND_CPU_OP)
			f |= F_CPU_OP;
		if (tg_kind_is_launch(e->kind))
			f |= is_graph_name(tg_trace_str(s->t, e->name)) ? F_GRAPH : F_DISPATCH;
		s->flags[v] = f;
		if ((rc = norm_key(c, s, e->name, 0, &s->key[v])) ||
		    (rc = norm_key(c, s, e->name, 1, &s->skey[v])))
			goto out;
		rc = TG_ENOMEM;
	}
	for (uint32_t v = nv; v-- > 0;)
		if ((s->flags[v] & F_PATH) && s->parent[v] != TG_NONE)
			s->flags[s->parent[v]] |= F_PATH;
	/* a launch's name includes its device events' names */
	if (!o->launch_by_name)
		for (uint32_t v = 0; v < nv; v++) {
			if (!(s->flags[v] & F_DISPATCH) || s->coff[v + 1] == s->coff[v])
				continue;
			struct sbuf sig = {0};
			const char *ln = tg_atoms_str(c->d->norms, s->key[v]);
			int bad = sb_put(&sig, ln, strlen(ln));
			for (uint32_t k = s->coff[v]; !bad && k < s->coff[v + 1]; k++) {
				const char *kn = tg_atoms_str(c->d->norms, s->key[s->child[k]]);
				bad = sb_put(&sig, "\x1f", 1) || sb_put(&sig, kn, strlen(kn));
			}
			if (bad || tg_atoms_intern(&s->key[v], c->d->norms, sig.s, sig.n)) {
				free(sig.s);
				goto out;
			}
			free(sig.s);
			s->skey[v] = s->key[v];
		}
	/* roots */
	if (o->tracelens_links) {
		/* TraceLens: from each cpu_op without a cpu_op above it, in start
		 * order, its parentless ancestor, descended, once each */
		uint8_t *cpu_above = tg_calloc((size_t)nv + 1, 1);
		uint8_t *seen = tg_calloc((size_t)nv + 1, 1);
		if (!cpu_above || !seen) {
			free(cpu_above);
			free(seen);
			goto out;
		}
		/* fill[v]: v's parentless ancestor (preorder: parents first) */
		for (uint32_t v = 0; v < nv; v++) {
			uint32_t p = s->parent[v];
			fill[v] = p == TG_NONE ? v : fill[p];
			if (p != TG_NONE)
				cpu_above[v] = cpu_above[p] || (s->flags[p] & F_CPU_OP);
		}
		/* in start order: the kept events by (ts, index) */
		nr = 0;
		for (size_t q = 0; q < nk; q++) {
			uint32_t v = vof[order[q]];
			if (!(s->flags[v] & F_CPU_OP) || cpu_above[v])
				continue;
			uint32_t r = descend_root(s, fill[v]);
			if (!seen[r]) {
				seen[r] = 1;
				s->roots[nr++] = r;
			}
		}
		free(cpu_above);
		free(seen);
	} else {
		for (size_t r = 0; r < nr; r++)
			s->roots[r] = descend_root(s, s->roots[r]);
	}
	s->nroots = nr;
	for (uint32_t v = 0; v < nv; v++)
		c->d->stats.gpu[s == &c->d->side[1]] += (s->flags[v] & F_GPU) != 0;
	c->d->stats.roots[s == &c->d->side[1]] = nr;
	rc = 0;
out:
	free(near);
	free(order);
	free(coff);
	free(kids);
	free(fill);
	free(vof);
	free(stack);
	return rc;
}

static void free_view(struct view *s)
{
	free(s->event);
	free(s->parent);
	free(s->end);
	free(s->coff);
	free(s->child);
	free(s->key);
	free(s->skey);
	free(s->flags);
	free(s->roots);
	free(s->atom_key);
	free(s->atom_skey);
	free(s->pos);
}

/* ------------------------------------------------------------------ */
/* alignment of two lists of view nodes                                 */

static inline uint32_t key_of(const struct view *s, uint32_t v, int strip)
{
	return strip ? s->skey[v] : s->key[v];
}

/* Wagner-Fischer on ka[a0..a1) x kb[b0..b1) with TraceLens's backtrack:
 * from the end, a pair of equal names is matched at once; otherwise delete
 * when dp[i][j] == dp[i-1][j] + 1, else insert. Appends to out with index
 * offsets as given. Stores only the "delete allowed" bit of each cell. */
static int wf_dp(struct ctx *c, const uint32_t *ka, uint32_t a0, uint32_t a1, const uint32_t *kb,
                 uint32_t b0, uint32_t b1, opvec *out)
{
	size_t M = a1 - a0, N = b1 - b0, W = N + 1;
	size_t nbits = M * W + 64;
	size_t words = nbits / 64 + 1;
	if (words > c->cap_bits && tg_grow((void **)&c->bits, &c->cap_bits, words, sizeof(uint64_t)))
		return TG_ENOMEM;
	if (u32_reserve(&c->row0, W) || u32_reserve(&c->row1, W))
		return TG_ENOMEM;
	uint64_t *bits = c->bits;
	memset(bits, 0, words * sizeof(uint64_t));
	uint32_t *prev = c->row0.v, *cur = c->row1.v;
	for (size_t j = 0; j < W; j++)
		prev[j] = (uint32_t)j;
	for (size_t i = 1; i <= M; i++) {
		cur[0] = (uint32_t)i;
		size_t base = (i - 1) * W;
		bits[base / 64] |= 1ULL << (base % 64);
		uint32_t ki = ka[a0 + i - 1];
		for (size_t j = 1; j < W; j++) {
			uint32_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			uint32_t sub = prev[j - 1] + (ki != kb[b0 + j - 1]);
			uint32_t v = del < ins ? del : ins;
			v = sub < v ? sub : v;
			cur[j] = v;
			if (v == del) {
				size_t b = base + j;
				bits[b / 64] |= 1ULL << (b % 64);
			}
		}
		uint32_t *t = prev;
		prev = cur;
		cur = t;
	}
	size_t start = out->n;
	size_t i = M, j = N;
	while (i > 0 || j > 0) {
		if (i > 0 && j > 0 && ka[a0 + i - 1] == kb[b0 + j - 1]) {
			if (op_push(out, a0 + (uint32_t)i - 1, b0 + (uint32_t)j - 1))
				return TG_ENOMEM;
			i--;
			j--;
		} else if (i > 0 && (j == 0 || (bits[((i - 1) * W + j) / 64] >> (((i - 1) * W + j) % 64) & 1))) {
			if (op_push(out, a0 + (uint32_t)i - 1, TG_NONE))
				return TG_ENOMEM;
			i--;
		} else {
			if (op_push(out, TG_NONE, b0 + (uint32_t)j - 1))
				return TG_ENOMEM;
			j--;
		}
	}
	/* reverse what was appended */
	for (size_t x = start, y = out->n - 1; x < y; x++, y--) {
		op t = out->v[x];
		out->v[x] = out->v[y];
		out->v[y] = t;
	}
	return 0;
}

/* Linear alignment for lists too large for the table: walk both lists;
 * at a mismatch, resynchronise at the nearest equal pair within WINDOW
 * steps on each side (fewest skipped first), else delete and insert one. */
static int wf_window(const uint32_t *ka, uint32_t a0, uint32_t a1, const uint32_t *kb, uint32_t b0,
                     uint32_t b1, opvec *out)
{
	uint32_t i = a0, j = b0;
	while (i < a1 && j < b1) {
		if (ka[i] == kb[j]) {
			if (op_push(out, i++, j++))
				return TG_ENOMEM;
			continue;
		}
		uint32_t bp = 0, bq = 0;
		int found = 0;
		for (uint32_t dd = 1; dd <= 2 * WINDOW && !found; dd++)
			for (uint32_t q = 0; q <= dd; q++) {
				uint32_t p = dd - q;
				if (p > WINDOW || q > WINDOW || i + p >= a1 || j + q >= b1)
					continue;
				if (ka[i + p] == kb[j + q]) {
					bp = p;
					bq = q;
					found = 1;
					break;
				}
			}
		if (!found) {
			bp = 1;
			bq = 1;
		}
		for (uint32_t k = 0; k < bp; k++)
			if (op_push(out, i++, TG_NONE))
				return TG_ENOMEM;
		for (uint32_t k = 0; k < bq; k++)
			if (op_push(out, TG_NONE, j++))
				return TG_ENOMEM;
	}
	while (i < a1)
		if (op_push(out, i++, TG_NONE))
			return TG_ENOMEM;
	while (j < b1)
		if (op_push(out, TG_NONE, j++))
			return TG_ENOMEM;
	return 0;
}

/* Edit-distance alignment of a[0..m) with b[0..n) by name (TraceLens's
 * wagner_fischer), bounded: the common suffix is what the backtrack
 * matches first anyway, so it is stripped exactly; a table larger than
 * max_dp_cells strips the common prefix too, then falls back to
 * wf_window. */
static int wf(struct ctx *c, const uint32_t *a, size_t m, const uint32_t *b, size_t n, int strip,
              opvec *out)
{
	tg_tree_diff *d = c->d;
	out->n = 0;
	if (u32_reserve(&c->ka, m + 1) || u32_reserve(&c->kb, n + 1))
		return TG_ENOMEM;
	uint32_t *ka = c->ka.v, *kb = c->kb.v;
	for (size_t i = 0; i < m; i++)
		ka[i] = key_of(&d->side[0], a[i], strip);
	for (size_t j = 0; j < n; j++)
		kb[j] = key_of(&d->side[1], b[j], strip);
	size_t s = 0;
	while (s < m && s < n && ka[m - 1 - s] == kb[n - 1 - s])
		s++;
	uint32_t M = (uint32_t)(m - s), N = (uint32_t)(n - s);
	int rc = 0;
	if (M == 0) {
		for (uint32_t j = 0; j < N && !rc; j++)
			rc = op_push(out, TG_NONE, j);
	} else if (N == 0) {
		for (uint32_t i = 0; i < M && !rc; i++)
			rc = op_push(out, i, TG_NONE);
	} else if ((uint64_t)M * N <= d->opts.max_dp_cells) {
		d->stats.dp_exact++;
		rc = wf_dp(c, ka, 0, M, kb, 0, N, out);
	} else {
		d->stats.dp_fallback++;
		uint32_t p = 0;
		while (p < M && p < N && ka[p] == kb[p])
			p++;
		for (uint32_t k = 0; k < p && !rc; k++)
			rc = op_push(out, k, k);
		if (!rc && (uint64_t)(M - p) * (N - p) <= d->opts.max_dp_cells)
			rc = wf_dp(c, ka, p, M, kb, p, N, out);
		else if (!rc)
			rc = wf_window(ka, p, M, kb, p, N, out);
	}
	for (size_t k = 0; k < s && !rc; k++)
		rc = op_push(out, M + (uint32_t)k, N + (uint32_t)k);
	return rc;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* qsort of n uint32 at p (p may be NULL when n is 0). */
static void sort32(uint32_t *p, size_t n)
{
	if (n > 1)
		qsort(p, n, sizeof(uint32_t), cmp_u32);
}

static int find32(uint32_t x, const uint32_t *p, size_t n)
{
	return n && bsearch(&x, p, n, sizeof(uint32_t), cmp_u32) != NULL;
}

/* The BFS signature of view node v: up to BFS_DEPTH levels, each the sorted
 * names of the GPU-path children at that depth (TraceLens's
 * _gpu_path_child_names_at_bfs_levels). Appends the names to c->lpool and
 * writes the level offsets (nlev + 1 of them) into off. */
static int bfs_levels(struct ctx *c, const struct view *s, uint32_t v, struct levels *L)
{
	c->front.n = 0;
	if (u32_push(&c->front, v))
		return TG_ENOMEM;
	L->n = 0;
	L->off[0] = (uint32_t)c->lpool.n;
	for (int depth = 0; depth < BFS_DEPTH; depth++) {
		c->next.n = 0;
		for (size_t f = 0; f < c->front.n; f++) {
			uint32_t u = c->front.v[f];
			for (uint32_t k = s->coff[u]; k < s->coff[u + 1]; k++) {
				uint32_t ch = s->child[k];
				if (!(s->flags[ch] & F_PATH))
					continue;
				if (u32_push(&c->next, ch) || u32_push(&c->lpool, s->key[ch]))
					return TG_ENOMEM;
			}
		}
		if (c->lpool.n > L->off[L->n])
			sort32(c->lpool.v + L->off[L->n], c->lpool.n - L->off[L->n]);
		L->n++;
		L->off[L->n] = (uint32_t)c->lpool.n;
		u32vec t = c->front;
		c->front = c->next;
		c->next = t;
		if (!c->front.n)
			break;
	}
	return 0;
}

/* (levels equal before the first difference, multiset overlap there). */
static void match_depth(const uint32_t *pool, const struct levels *A, const struct levels *B,
                        uint32_t *dout, uint32_t *ovout)
{
	uint32_t maxd = A->n > B->n ? A->n : B->n;
	for (uint32_t dd = 0; dd < maxd; dd++) {
		const uint32_t *a = pool + (dd < A->n ? A->off[dd] : 0);
		size_t na = dd < A->n ? A->off[dd + 1] - A->off[dd] : 0;
		const uint32_t *b = pool + (dd < B->n ? B->off[dd] : 0);
		size_t nb = dd < B->n ? B->off[dd + 1] - B->off[dd] : 0;
		if (na == nb && (na == 0 || !memcmp(a, b, na * sizeof(uint32_t))))
			continue;
		uint32_t ov = 0;
		size_t x = 0, y = 0;
		while (x < na && y < nb) {
			if (a[x] == b[y]) {
				ov++;
				x++;
				y++;
			} else if (a[x] < b[y]) {
				x++;
			} else {
				y++;
			}
		}
		*dout = dd;
		*ovout = ov;
		return;
	}
	*dout = maxd;
	*ovout = 0;
}

static int cmp_ent(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->side != y->side)
		return x->side < y->side ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static int cmp_spair(const void *a, const void *b)
{
	const struct spair *x = a, *y = b;
	if (x->d != y->d)
		return x->d > y->d ? -1 : 1;
	if (x->ov != y->ov)
		return x->ov > y->ov ? -1 : 1;
	if (x->orig != y->orig)
		return x->orig > y->orig ? -1 : 1;
	if (x->i != y->i)
		return x->i < y->i ? -1 : 1;
	return (x->j > y->j) - (x->j < y->j);
}

static int cmp_op(const void *a, const void *b)
{
	const op *x = a, *y = b;
	if (x->i != y->i)
		return x->i < y->i ? -1 : 1;
	return (x->j > y->j) - (x->j < y->j);
}

/* TraceLens's _disambiguate_same_name_candidates: for every name that
 * occurs more than once on a side and takes part in a match, re-pair all
 * nodes of that name by subtree similarity (greedy on BFS-level scores,
 * ties: pairs the alignment made, then position). Rewrites ops in place
 * when the pairing changes. Groups with more than max_pairs candidate pairs
 * keep the alignment's pairs. */
static int disambiguate(struct ctx *c, const uint32_t *a, size_t m, const uint32_t *b, size_t n,
                        opvec *ops)
{
	tg_tree_diff *d = c->d;
	const struct view *s1 = &d->side[0], *s2 = &d->side[1];
	size_t ne = 0;
	size_t need = 2 * ops->n + 1;
	if (need > c->cap_ents && tg_grow((void **)&c->ents, &c->cap_ents, need, sizeof(struct ent)))
		return TG_ENOMEM;
	if (u32_reserve(&c->st1, m + 1) || u32_reserve(&c->st2, n + 1))
		return TG_ENOMEM;
	uint32_t *st1 = c->st1.v, *st2 = c->st2.v; /* partner in the alignment */
	for (size_t i = 0; i < m; i++)
		st1[i] = TG_NONE;
	for (size_t j = 0; j < n; j++)
		st2[j] = TG_NONE;
	int any_match = 0;
	for (size_t k = 0; k < ops->n; k++) {
		op o = ops->v[k];
		if (o.i != TG_NONE)
			c->ents[ne++] = (struct ent){s1->key[a[o.i]], o.i, 0, IS_MATCH(o)};
		if (o.j != TG_NONE)
			c->ents[ne++] = (struct ent){s2->key[b[o.j]], o.j, 1, IS_MATCH(o)};
		if (IS_MATCH(o)) {
			st1[o.i] = o.j;
			st2[o.j] = o.i;
			any_match = 1;
		}
	}
	if (!any_match || ne < 3)
		return 0;
	qsort(c->ents, ne, sizeof(struct ent), cmp_ent);
	/* groups: [g0, g1) of one key; side 0 entries first */
	int changed = 0, any_amb = 0;
	if (grow_bytes(&c->hand1, &c->cap_hand1, m + 1) || grow_bytes(&c->hand2, &c->cap_hand2, n + 1) ||
	    grow_bytes(&c->as1, &c->cap_as1, m + 1) || grow_bytes(&c->as2, &c->cap_as2, n + 1))
		return TG_ENOMEM;
	memset(c->hand1, 0, m);
	memset(c->hand2, 0, n);
	memset(c->as1, 0, m);
	memset(c->as2, 0, n);
	c->dnew.n = 0;
	for (size_t g0 = 0, g1; g0 < ne; g0 = g1) {
		size_t n1 = 0, n2 = 0;
		int matched = 0;
		for (g1 = g0; g1 < ne && c->ents[g1].key == c->ents[g0].key; g1++) {
			if (c->ents[g1].side == 0)
				n1++;
			else
				n2++;
			matched |= c->ents[g1].matched;
		}
		if (!n1 || !n2 || !matched || (n1 < 2 && n2 < 2))
			continue;
		any_amb = 1;
		uint32_t key = c->ents[g0].key;
		const struct ent *E1 = c->ents + g0, *E2 = c->ents + g0 + n1;
		for (size_t x = 0; x < n1; x++)
			c->hand1[E1[x].idx] = 1;
		for (size_t y = 0; y < n2; y++)
			c->hand2[E2[y].idx] = 1;
		size_t nmin = n1 < n2 ? n1 : n2;
		/* the alignment's pairs inside the group */
		size_t nwf = 0;
		for (size_t x = 0; x < n1; x++) {
			uint32_t j = st1[E1[x].idx];
			if (j != TG_NONE && s2->key[b[j]] == key)
				nwf++;
		}
		/* levels of every candidate */
		c->lpool.n = 0;
		if ((n1 > c->cap_L1 && tg_grow((void **)&c->L1, &c->cap_L1, n1, sizeof(struct levels))) ||
		    (n2 > c->cap_L2 && tg_grow((void **)&c->L2, &c->cap_L2, n2, sizeof(struct levels))))
			return TG_ENOMEM;
		struct levels *L1 = c->L1, *L2 = c->L2;
		int keep = 0;
		if (nwf == nmin) {
			/* all pairs perfect: the greedy pairing is the alignment's */
			int perfect = 1;
			for (size_t x = 0; x < n1 && perfect; x++) {
				uint32_t i = E1[x].idx, j = st1[i];
				if (j == TG_NONE || s2->key[b[j]] != key)
					continue;
				struct levels A, B;
				if (bfs_levels(c, s1, a[i], &A) || bfs_levels(c, s2, b[j], &B))
					return TG_ENOMEM;
				uint32_t dd, ov;
				match_depth(c->lpool.v, &A, &B, &dd, &ov);
				perfect = dd == (A.n > B.n ? A.n : B.n) && A.n == B.n;
				c->lpool.n = 0;
			}
			keep = perfect;
		}
		if (!keep && (uint64_t)n1 * n2 > d->opts.max_pairs) {
			d->stats.skipped_quadratic++;
			keep = 1;
		}
		if (keep) {
			for (size_t x = 0; x < n1; x++) {
				uint32_t i = E1[x].idx, j = st1[i];
				if (j != TG_NONE && s2->key[b[j]] == key) {
					if (op_push(&c->dnew, i, j))
						return TG_ENOMEM;
					c->as1[i] = 1;
					c->as2[j] = 1;
				}
			}
			continue;
		}
		for (size_t x = 0; x < n1; x++)
			if (bfs_levels(c, s1, a[E1[x].idx], &L1[x]))
				return TG_ENOMEM;
		for (size_t y = 0; y < n2; y++)
			if (bfs_levels(c, s2, b[E2[y].idx], &L2[y]))
				return TG_ENOMEM;
		size_t np = n1 * n2;
		if (np > c->cap_pairs && tg_grow((void **)&c->pairs, &c->cap_pairs, np, sizeof(struct spair)))
			return TG_ENOMEM;
		size_t k = 0;
		for (size_t x = 0; x < n1; x++)
			for (size_t y = 0; y < n2; y++) {
				struct spair *p = &c->pairs[k++];
				match_depth(c->lpool.v, &L1[x], &L2[y], &p->d, &p->ov);
				p->i = E1[x].idx;
				p->j = E2[y].idx;
				p->orig = st1[p->i] == p->j;
			}
		qsort(c->pairs, np, sizeof(struct spair), cmp_spair);
		size_t got = 0;
		for (k = 0; k < np && got < nmin; k++) {
			const struct spair *p = &c->pairs[k];
			if (c->as1[p->i] || c->as2[p->j])
				continue;
			c->as1[p->i] = 1;
			c->as2[p->j] = 1;
			got++;
			if (op_push(&c->dnew, p->i, p->j))
				return TG_ENOMEM;
			if (!p->orig)
				changed = 1;
		}
	}
	if (!any_amb || !changed)
		return 0;
	/* rebuild: the untouched steps in order, then the new pairs, the
	 * deletes and the inserts of the handled nodes */
	opvec *out = &c->dout;
	out->n = 0;
	for (size_t k = 0; k < ops->n; k++) {
		op o = ops->v[k];
		if (IS_MATCH(o)) {
			int h1 = c->hand1[o.i], h2 = c->hand2[o.j];
			if (!h1 && !h2) {
				if (op_push(out, o.i, o.j))
					return TG_ENOMEM;
			}
		} else if (IS_DELETE(o)) {
			if (!c->hand1[o.i] && op_push(out, o.i, TG_NONE))
				return TG_ENOMEM;
		} else if (!c->hand2[o.j] && op_push(out, TG_NONE, o.j)) {
			return TG_ENOMEM;
		}
	}
	if (c->dnew.n > 1)
		qsort(c->dnew.v, c->dnew.n, sizeof(op), cmp_op);
	for (size_t k = 0; k < c->dnew.n; k++)
		if (op_push(out, c->dnew.v[k].i, c->dnew.v[k].j))
			return TG_ENOMEM;
	for (size_t i = 0; i < m; i++)
		if (c->hand1[i] && !c->as1[i] && op_push(out, (uint32_t)i, TG_NONE))
			return TG_ENOMEM;
	for (size_t j = 0; j < n; j++)
		if (c->hand2[j] && !c->as2[j] && op_push(out, TG_NONE, (uint32_t)j))
			return TG_ENOMEM;
	/* a pair of two names of which only one was re-paired: TraceLens drops
	 * the other node; keep it, one-sided */
	for (size_t k = 0; k < ops->n; k++) {
		op o = ops->v[k];
		if (!IS_MATCH(o))
			continue;
		if (c->hand1[o.i] && !c->hand2[o.j] && op_push(out, TG_NONE, o.j))
			return TG_ENOMEM;
		if (!c->hand1[o.i] && c->hand2[o.j] && op_push(out, o.i, TG_NONE))
			return TG_ENOMEM;
	}
	return op_copy(ops, out);
}

/* wf then disambiguate (TraceLens's aligned_wf). */
static int aligned(struct ctx *c, const uint32_t *a, size_t m, const uint32_t *b, size_t n, int strip,
                   opvec *out)
{
	int rc = wf(c, a, m, b, n, strip, out);
	if (!rc && m && n)
		rc = disambiguate(c, a, m, b, n, out);
	return rc;
}

/* ------------------------------------------------------------------ */
/* one merge step: the children pairs of a node pair                    */

static int push_gpu_children(const struct view *s, uint32_t v, u32vec *out)
{
	for (uint32_t k = s->coff[v]; k < s->coff[v + 1]; k++)
		if ((s->flags[s->child[k]] & F_PATH) && u32_push(out, s->child[k]))
			return TG_ENOMEM;
	return 0;
}

static int is_dispatch(const struct view *s, uint32_t v) { return (s->flags[v] & F_DISPATCH) != 0; }

/* TraceLens's collapse_single_gpu_child: descend through nodes with a
 * single GPU-path child, stopping at a launch call or at a cpu_op that
 * has a launch call among its children. *cur gets the node reached; kids
 * its GPU-path children when it has several (else empty). */
static int collapse(const struct view *s, uint32_t v, uint32_t *cur, u32vec *kids)
{
	kids->n = 0;
	for (;;) {
		if (is_dispatch(s, v))
			break;
		if (s->flags[v] & F_CPU_OP) {
			int cr = 0;
			for (uint32_t k = s->coff[v]; k < s->coff[v + 1] && !cr; k++)
				cr = is_dispatch(s, s->child[k]);
			if (cr)
				break;
		}
		uint32_t ng = 0, only = TG_NONE;
		for (uint32_t k = s->coff[v]; k < s->coff[v + 1]; k++)
			if (s->flags[s->child[k]] & F_PATH) {
				ng++;
				only = s->child[k];
			}
		if (ng != 1) {
			if (push_gpu_children(s, v, kids))
				return TG_ENOMEM;
			break;
		}
		v = only;
	}
	*cur = v;
	return 0;
}

static int cmp_tsk(const void *a, const void *b)
{
	const struct tsk *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Stable sort of view nodes by start time (TraceLens's _sort_by_ts). */
static int sort_by_ts(struct ctx *c, const struct view *s, u32vec *a)
{
	int sorted = 1;
	for (size_t k = 1; k < a->n && sorted; k++)
		sorted = s->ev[s->event[a->v[k - 1]]].ts <= s->ev[s->event[a->v[k]]].ts;
	if (sorted)
		return 0;
	if (a->n > c->cap_tsk && tg_grow((void **)&c->tsk, &c->cap_tsk, a->n, sizeof(struct tsk)))
		return TG_ENOMEM;
	for (size_t k = 0; k < a->n; k++)
		c->tsk[k] = (struct tsk){s->ev[s->event[a->v[k]]].ts, (uint32_t)k, a->v[k]};
	qsort(c->tsk, a->n, sizeof(struct tsk), cmp_tsk);
	for (size_t k = 0; k < a->n; k++)
		a->v[k] = c->tsk[k].v;
	return 0;
}

static int cmp_keypos(const void *a, const void *b)
{
	const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Appends to dst, for every name among the GPU-path children of one side
 * (have) that no GPU-path child of the other side (node v of s) bears, the
 * last child of v with that name (a node off the GPU path). */
static int add_missing(const struct view *have_s, const u32vec *have, const struct view *s, uint32_t v,
                       const u32vec *gpu_kids, u32vec *dst, u32vec *tmp)
{
	uint32_t nall = s->coff[v + 1] - s->coff[v];
	if (nall == gpu_kids->n || !have->n)
		return 0; /* every child of v is on the GPU path */
	/* names of the GPU-path children of v, sorted */
	tmp->n = 0;
	for (size_t k = 0; k < gpu_kids->n; k++)
		if (u32_push(tmp, s->key[gpu_kids->v[k]]))
			return TG_ENOMEM;
	sort32(tmp->v, tmp->n);
	/* the names of have missing there, sorted, once each */
	uint32_t *miss = tg_malloc((have->n + 1) * sizeof(uint32_t));
	uint64_t *kp = tg_malloc(((size_t)nall + 1) * sizeof(uint64_t));
	if (!miss || !kp) {
		free(miss);
		free(kp);
		return TG_ENOMEM;
	}
	size_t nm = 0;
	for (size_t h = 0; h < have->n; h++) {
		uint32_t name = have_s->key[have->v[h]];
		if (!find32(name, tmp->v, tmp->n))
			miss[nm++] = name;
	}
	sort32(miss, nm);
	/* all children of v by (name, position) */
	for (uint32_t k = 0; k < nall; k++)
		kp[k] = (uint64_t)s->key[s->child[s->coff[v] + k]] << 32 | k;
	if (nm)
		qsort(kp, nall, sizeof(uint64_t), cmp_keypos);
	int rc = 0;
	for (size_t q = 0; q < nm && !rc; q++) {
		uint32_t name = miss[q];
		if (q && miss[q - 1] == name)
			continue;
		/* last child named name: the largest (name, pos) below (name+1, 0) */
		size_t lo = 0, hi = nall;
		uint64_t lim = ((uint64_t)name + 1) << 32;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (kp[mid] < lim)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > 0 && (uint32_t)(kp[lo - 1] >> 32) == name)
			rc = u32_push(dst, s->child[s->coff[v] + (uint32_t)(kp[lo - 1] & 0xffffffffu)]);
	}
	free(miss);
	free(kp);
	return rc;
}

/* TraceLens's get_children_with_missing: the GPU-path children of each
 * side, plus, for a name on one side's GPU path only, the other side's
 * child of that name off the GPU path; each list by start time. */
static int children_with_missing(struct ctx *c, uint32_t v1, uint32_t v2)
{
	const struct view *s1 = &c->d->side[0], *s2 = &c->d->side[1];
	c->c1.n = c->c2.n = 0;
	if (v1 != TG_NONE && push_gpu_children(s1, v1, &c->c1))
		return TG_ENOMEM;
	if (v2 != TG_NONE && push_gpu_children(s2, v2, &c->c2))
		return TG_ENOMEM;
	if (v1 == TG_NONE || v2 == TG_NONE)
		return 0;
	size_t g1 = c->c1.n, g2 = c->c2.n;
	/* snapshots of the GPU-path lists: the additions must not feed back */
	if (u32_copy(&c->t1, c->c1.v, g1) || u32_copy(&c->t2, c->c2.v, g2))
		return TG_ENOMEM;
	if (add_missing(s1, &c->t1, s2, v2, &c->t2, &c->c2, &c->s1) ||
	    add_missing(s2, &c->t2, s1, v1, &c->t1, &c->c1, &c->s1))
		return TG_ENOMEM;
	if (c->c1.n != g1 && sort_by_ts(c, s1, &c->c1))
		return TG_ENOMEM;
	if (c->c2.n != g2 && sort_by_ts(c, s2, &c->c2))
		return TG_ENOMEM;
	return 0;
}

static int any_dispatch(const struct view *s, const uint32_t *a, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (is_dispatch(s, a[k]))
			return 1;
	return 0;
}

/* 1 when b holds the names of a in another order (same multiset, not the
 * same sequence). */
static int reordered(struct ctx *c, const uint32_t *a, const uint32_t *b, size_t n)
{
	const struct view *s1 = &c->d->side[0], *s2 = &c->d->side[1];
	size_t k = 0;
	while (k < n && s1->key[a[k]] == s2->key[b[k]])
		k++;
	if (k == n)
		return 0;
	if (u32_reserve(&c->g1, n) || u32_reserve(&c->g2, n))
		return 0; /* out of memory: keep TraceLens's rule */
	for (k = 0; k < n; k++) {
		c->g1.v[k] = s1->key[a[k]];
		c->g2.v[k] = s2->key[b[k]];
	}
	sort32(c->g1.v, n);
	sort32(c->g2.v, n);
	return !memcmp(c->g1.v, c->g2.v, n * sizeof(uint32_t));
}

/* Phase 2 logic: by position when the lists have equal length and no
 * launch call (unless, by default, they are the same names reordered),
 * else aligned. */
static int phase2(struct ctx *c, const uint32_t *a, size_t m, const uint32_t *b, size_t n, opvec *out)
{
	const struct view *s1 = &c->d->side[0], *s2 = &c->d->side[1];
	if (m == n && !any_dispatch(s1, a, m) && !any_dispatch(s2, b, n) &&
	    (c->d->opts.positional_reorders || !reordered(c, a, b, m))) {
		out->n = 0;
		for (size_t k = 0; k < m; k++)
			if (op_push(out, (uint32_t)k, (uint32_t)k))
				return TG_ENOMEM;
		return 0;
	}
	return aligned(c, a, m, b, n, 0, out);
}

static int reconcile_skip(const struct view *s, uint32_t v)
{
	return (s->flags[v] & (F_KERNEL | F_DISPATCH)) != 0;
}

/* Phase 3, TraceLens's reconcile_unmatched: for each unmatched pair (a
 * delete and an insert, neither a kernel nor a launch call), when one's
 * name is among the other's GPU-path children, or both have the same
 * GPU-path children names, the wrapper is replaced by its children; then
 * the matches are kept and the rest re-aligned. Works on c->c1, c->c2 and
 * c->ops. */
static int phase3(struct ctx *c)
{
	tg_tree_diff *d = c->d;
	const struct view *s1 = &d->side[0], *s2 = &d->side[1];
	u32vec *dl = &c->u1, *il = &c->u2;
	dl->n = il->n = 0;
	for (size_t k = 0; k < c->ops.n; k++) {
		op o = c->ops.v[k];
		if (IS_DELETE(o) && u32_push(dl, o.i))
			return TG_ENOMEM;
		if (IS_INSERT(o) && u32_push(il, o.j))
			return TG_ENOMEM;
	}
	if (!dl->n || !il->n)
		return 0;
	if ((uint64_t)dl->n * il->n > d->opts.max_pairs) {
		d->stats.skipped_quadratic++;
		return 0;
	}
	size_t m = c->c1.n, n = c->c2.n;
	if (grow_bytes(&c->sub1, &c->cap_sub1, m + 1) || grow_bytes(&c->sub2, &c->cap_sub2, n + 1))
		return TG_ENOMEM;
	memset(c->sub1, 0, m);
	memset(c->sub2, 0, n);
	/* GPU-path children of every delete and insert: names in order, then
	 * sorted for lookups; imm holds [ordered | sorted] per node */
	size_t nn = dl->n + il->n;
	if (nn + 1 > c->cap_immoff && tg_grow((void **)&c->immoff, &c->cap_immoff, nn + 1, sizeof(uint32_t)))
		return TG_ENOMEM;
	c->imm.n = 0;
	for (size_t q = 0; q < nn; q++) {
		const struct view *s = q < dl->n ? s1 : s2;
		uint32_t v = q < dl->n ? c->c1.v[dl->v[q]] : c->c2.v[il->v[q - dl->n]];
		c->immoff[q] = (uint32_t)c->imm.n;
		size_t st = c->imm.n;
		for (uint32_t k = s->coff[v]; k < s->coff[v + 1]; k++)
			if ((s->flags[s->child[k]] & F_PATH) && u32_push(&c->imm, s->key[s->child[k]]))
				return TG_ENOMEM;
		size_t cnt = c->imm.n - st;
		for (size_t k = 0; k < cnt; k++)
			if (u32_push(&c->imm, c->imm.v[st + k]))
				return TG_ENOMEM;
		if (cnt > 1)
			sort32(c->imm.v + st + cnt, cnt);
	}
	c->immoff[nn] = (uint32_t)c->imm.n;
	int any = 0;
	for (size_t x = 0; x < dl->n; x++) {
		uint32_t di = dl->v[x], vd = c->c1.v[di];
		if (reconcile_skip(s1, vd))
			continue;
		size_t cd = (c->immoff[x + 1] - c->immoff[x]) / 2;
		const uint32_t *od = c->imm.v + c->immoff[x], *sd = od + cd;
		for (size_t y = 0; y < il->n; y++) {
			uint32_t ii = il->v[y], vi = c->c2.v[ii];
			if (reconcile_skip(s2, vi))
				continue;
			size_t q = dl->n + y;
			size_t ci = (c->immoff[q + 1] - c->immoff[q]) / 2;
			const uint32_t *oi = c->imm.v + c->immoff[q], *si = oi + ci;
			uint32_t nd = s1->key[vd], ni = s2->key[vi];
			if (find32(nd, si, ci)) {
				c->sub2[ii] = 1;
				any = 1;
			}
			if (find32(ni, sd, cd)) {
				c->sub1[di] = 1;
				any = 1;
			}
			if (cd && ci && cd == ci && !memcmp(od, oi, cd * sizeof(uint32_t))) {
				c->sub1[di] = 1;
				c->sub2[ii] = 1;
				any = 1;
			}
		}
	}
	if (!any)
		return 0;
	/* expanded lists, by start time */
	c->r1.n = c->r2.n = 0;
	for (size_t k = 0; k < m; k++) {
		int rc = c->sub1[k] ? push_gpu_children(s1, c->c1.v[k], &c->r1) : u32_push(&c->r1, c->c1.v[k]);
		if (rc)
			return TG_ENOMEM;
	}
	for (size_t k = 0; k < n; k++) {
		int rc = c->sub2[k] ? push_gpu_children(s2, c->c2.v[k], &c->r2) : u32_push(&c->r2, c->c2.v[k]);
		if (rc)
			return TG_ENOMEM;
	}
	if (sort_by_ts(c, s1, &c->r1) || sort_by_ts(c, s2, &c->r2))
		return TG_ENOMEM;
	struct view *w1 = &d->side[0], *w2 = &d->side[1];
	for (size_t k = 0; k < c->r1.n; k++)
		w1->pos[c->r1.v[k]] = (uint32_t)k;
	for (size_t k = 0; k < c->r2.n; k++)
		w2->pos[c->r2.v[k]] = (uint32_t)k;
	/* keep the matches, pinned by node */
	opvec *no = &c->nops;
	no->n = 0;
	if (grow_bytes(&c->skip1, &c->cap_skip1, c->r1.n + 1) || grow_bytes(&c->skip2, &c->cap_skip2, c->r2.n + 1))
		return TG_ENOMEM;
	memset(c->skip1, 0, c->r1.n);
	memset(c->skip2, 0, c->r2.n);
	for (size_t k = 0; k < c->ops.n; k++) {
		op o = c->ops.v[k];
		if (!IS_MATCH(o))
			continue;
		uint32_t ri = w1->pos[c->c1.v[o.i]], rj = w2->pos[c->c2.v[o.j]];
		if (ri != TG_NONE && rj != TG_NONE) {
			if (op_push(no, ri, rj))
				return TG_ENOMEM;
			c->skip1[ri] = 1;
			c->skip2[rj] = 1;
		}
	}
	for (size_t k = 0; k < c->r1.n; k++)
		w1->pos[c->r1.v[k]] = TG_NONE;
	for (size_t k = 0; k < c->r2.n; k++)
		w2->pos[c->r2.v[k]] = TG_NONE;
	c->f1.n = c->f2.n = c->fi1.n = c->fi2.n = 0;
	for (size_t k = 0; k < c->r1.n; k++)
		if (!c->skip1[k] && (u32_push(&c->f1, (uint32_t)k) || u32_push(&c->fi1, c->r1.v[k])))
			return TG_ENOMEM;
	for (size_t k = 0; k < c->r2.n; k++)
		if (!c->skip2[k] && (u32_push(&c->f2, (uint32_t)k) || u32_push(&c->fi2, c->r2.v[k])))
			return TG_ENOMEM;
	if (c->f1.n && c->f2.n) {
		if (phase2(c, c->fi1.v, c->fi1.n, c->fi2.v, c->fi2.n, &c->fops))
			return TG_ENOMEM;
		for (size_t k = 0; k < c->fops.n; k++) {
			op o = c->fops.v[k];
			if (op_push(no, o.i == TG_NONE ? TG_NONE : c->f1.v[o.i], o.j == TG_NONE ? TG_NONE : c->f2.v[o.j]))
				return TG_ENOMEM;
		}
	} else {
		for (size_t k = 0; k < c->f1.n; k++)
			if (op_push(no, c->f1.v[k], TG_NONE))
				return TG_ENOMEM;
		for (size_t k = 0; k < c->f2.n; k++)
			if (op_push(no, TG_NONE, c->f2.v[k]))
				return TG_ENOMEM;
	}
	if (op_copy(&c->ops, no) || u32_copy(&c->c1, c->r1.v, c->r1.n) || u32_copy(&c->c2, c->r2.v, c->r2.n))
		return TG_ENOMEM;
	return 0;
}

/* Phase 4: each unmatched node collapsed through single-GPU-child wrappers,
 * then aligned by name, and what is left by names stripped of details. */
static int phase4(struct ctx *c)
{
	const struct view *s1 = &c->d->side[0], *s2 = &c->d->side[1];
	u32vec *un1 = &c->u1, *un2 = &c->u2;
	un1->n = un2->n = 0;
	for (size_t k = 0; k < c->ops.n; k++) {
		op o = c->ops.v[k];
		if (IS_DELETE(o) && u32_push(un1, o.i))
			return TG_ENOMEM;
		if (IS_INSERT(o) && u32_push(un2, o.j))
			return TG_ENOMEM;
	}
	if (!un1->n || !un2->n)
		return 0;
	c->col1.n = c->col2.n = 0;
	for (size_t k = 0; k < un1->n; k++) {
		uint32_t v;
		if (collapse(s1, c->c1.v[un1->v[k]], &v, &c->s1) || u32_push(&c->col1, v))
			return TG_ENOMEM;
	}
	for (size_t k = 0; k < un2->n; k++) {
		uint32_t v;
		if (collapse(s2, c->c2.v[un2->v[k]], &v, &c->s1) || u32_push(&c->col2, v))
			return TG_ENOMEM;
	}
	if (aligned(c, c->col1.v, c->col1.n, c->col2.v, c->col2.n, 0, &c->p1ops))
		return TG_ENOMEM;
	c->s1.n = c->s2.n = 0; /* still unmatched: indices into col1 / col2 */
	for (size_t k = 0; k < c->p1ops.n; k++) {
		op o = c->p1ops.v[k];
		if (IS_DELETE(o) && u32_push(&c->s1, o.i))
			return TG_ENOMEM;
		if (IS_INSERT(o) && u32_push(&c->s2, o.j))
			return TG_ENOMEM;
	}
	opvec *co = &c->cops;
	co->n = 0;
	if (c->s1.n && c->s2.n) {
		for (size_t k = 0; k < c->p1ops.n; k++)
			if (IS_MATCH(c->p1ops.v[k]) && op_push(co, c->p1ops.v[k].i, c->p1ops.v[k].j))
				return TG_ENOMEM;
		c->p2a.n = c->p2b.n = 0;
		for (size_t k = 0; k < c->s1.n; k++)
			if (u32_push(&c->p2a, c->col1.v[c->s1.v[k]]))
				return TG_ENOMEM;
		for (size_t k = 0; k < c->s2.n; k++)
			if (u32_push(&c->p2b, c->col2.v[c->s2.v[k]]))
				return TG_ENOMEM;
		if (aligned(c, c->p2a.v, c->p2a.n, c->p2b.v, c->p2b.n, 1, &c->p2ops))
			return TG_ENOMEM;
		for (size_t k = 0; k < c->p2ops.n; k++) {
			op o = c->p2ops.v[k];
			if (op_push(co, o.i == TG_NONE ? TG_NONE : c->s1.v[o.i], o.j == TG_NONE ? TG_NONE : c->s2.v[o.j]))
				return TG_ENOMEM;
		}
	} else if (op_copy(co, &c->p1ops)) {
		return TG_ENOMEM;
	}
	opvec *no = &c->nops;
	no->n = 0;
	for (size_t k = 0; k < c->ops.n; k++)
		if (IS_MATCH(c->ops.v[k]) && op_push(no, c->ops.v[k].i, c->ops.v[k].j))
			return TG_ENOMEM;
	for (size_t k = 0; k < co->n; k++) {
		op o = co->v[k];
		uint32_t oi = TG_NONE, oj = TG_NONE;
		if (o.i != TG_NONE) {
			oi = un1->v[o.i];
			c->c1.v[oi] = c->col1.v[o.i];
		}
		if (o.j != TG_NONE) {
			oj = un2->v[o.j];
			c->c2.v[oj] = c->col2.v[o.j];
		}
		if (op_push(no, oi, oj))
			return TG_ENOMEM;
	}
	return op_copy(&c->ops, no);
}

/* The children pairs of the node pair (*v1, *v2) into c->pairs1/2. Phase 1
 * may replace one side of the node by a deeper wrapper. root: the virtual
 * root, whose children are the roots (no phase 1). */
static int expand(struct ctx *c, uint32_t *v1, uint32_t *v2, int root, int positional)
{
	tg_tree_diff *d = c->d;
	const struct view *s1 = &d->side[0], *s2 = &d->side[1];
	c->pairs1.n = c->pairs2.n = 0;
	if (root) {
		if (u32_copy(&c->c1, s1->roots, s1->nroots) || u32_copy(&c->c2, s2->roots, s2->nroots))
			return TG_ENOMEM;
		if (positional) {
			size_t n = c->c1.n > c->c2.n ? c->c1.n : c->c2.n;
			for (size_t k = 0; k < n; k++)
				if (u32_push(&c->pairs1, k < c->c1.n ? c->c1.v[k] : TG_NONE) ||
				    u32_push(&c->pairs2, k < c->c2.n ? c->c2.v[k] : TG_NONE))
					return TG_ENOMEM;
			return 0;
		}
	} else {
		if (children_with_missing(c, *v1, *v2))
			return TG_ENOMEM;
		/* phase 1: one child against several: open the single one up */
		if (c->c1.n != c->c2.n) {
			uint32_t cur;
			if (c->c1.n == 1) {
				if (collapse(s1, c->c1.v[0], &cur, &c->s2))
					return TG_ENOMEM;
				if (c->s2.n) {
					*v1 = cur;
					if (u32_copy(&c->c1, c->s2.v, c->s2.n))
						return TG_ENOMEM;
				}
			} else if (c->c2.n == 1) {
				if (collapse(s2, c->c2.v[0], &cur, &c->s2))
					return TG_ENOMEM;
				if (c->s2.n) {
					*v2 = cur;
					if (u32_copy(&c->c2, c->s2.v, c->s2.n))
						return TG_ENOMEM;
				}
			}
		}
	}
	if (!c->c1.n && !c->c2.n)
		return 0;
	if (phase2(c, c->c1.v, c->c1.n, c->c2.v, c->c2.n, &c->ops))
		return TG_ENOMEM;
	int unmatched = 0;
	for (size_t k = 0; k < c->ops.n && !unmatched; k++)
		unmatched = !IS_MATCH(c->ops.v[k]);
	if (unmatched && (phase3(c) || phase4(c)))
		return TG_ENOMEM;
	for (size_t k = 0; k < c->ops.n; k++) {
		op o = c->ops.v[k];
		if (u32_push(&c->pairs1, o.i == TG_NONE ? TG_NONE : c->c1.v[o.i]) ||
		    u32_push(&c->pairs2, o.j == TG_NONE ? TG_NONE : c->c2.v[o.j]))
			return TG_ENOMEM;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* the merged tree                                                      */

static int new_node(tg_tree_diff *d, uint32_t **nodev, size_t *cap_nodev, uint32_t v1, uint32_t v2,
                    uint32_t parent, uint32_t *id)
{
	size_t need = d->nnodes + 1;
	if ((need > d->cap_nodes && tg_grow((void **)&d->nodes, &d->cap_nodes, need, sizeof(tg_diff_node))) ||
	    (need > d->cap_last && tg_grow((void **)&d->last_child, &d->cap_last, need, sizeof(uint32_t))) ||
	    (2 * need > *cap_nodev && tg_grow((void **)nodev, cap_nodev, 2 * need, sizeof(uint32_t))))
		return TG_ENOMEM;
	uint32_t n = (uint32_t)d->nnodes++;
	const struct view *s1 = &d->side[0], *s2 = &d->side[1];
	tg_diff_node *x = &d->nodes[n];
	memset(x, 0, sizeof(*x));
	x->base_ev = v1 == TG_NONE ? TG_NONE : s1->event[v1];
	x->new_ev = v2 == TG_NONE ? TG_NONE : s2->event[v2];
	x->parent = parent;
	x->first_child = x->next_sibling = TG_NONE;
	x->side = v1 != TG_NONE && v2 != TG_NONE ? TG_DIFF_BOTH : v1 != TG_NONE ? TG_DIFF_BASE_ONLY : TG_DIFF_NEW_ONLY;
	(*nodev)[2 * (size_t)n] = v1;
	(*nodev)[2 * (size_t)n + 1] = v2;
	d->last_child[n] = TG_NONE;
	if (parent != TG_NONE) {
		if (d->last_child[parent] == TG_NONE)
			d->nodes[parent].first_child = n;
		else
			d->nodes[d->last_child[parent]].next_sibling = n;
		d->last_child[parent] = n;
	}
	*id = n;
	return 0;
}

static int cmp_ev_ts(const void *a, const void *b, void *p)
{
	return cmp_ts_idx(a, b, p);
}

/* Device events of view subtree v, appended. */
static int gather(const struct view *s, uint32_t v, u32vec *out)
{
	for (uint32_t u = v; u < s->end[v]; u++)
		if ((s->flags[u] & F_GPU) && u32_push(out, s->event[u]))
			return TG_ENOMEM;
	return 0;
}

static int64_t busy_of(struct ctx *c, const struct view *s, const uint32_t *evs, size_t n, int64_t *sum)
{
	if (n > c->cap_iv && tg_grow((void **)&c->iv, &c->cap_iv, n, sizeof(tg_interval)))
		return -1;
	*sum = 0;
	for (size_t k = 0; k < n; k++) {
		const tg_event *e = &s->ev[evs[k]];
		c->iv[k] = (tg_interval){e->ts, e->ts + e->dur};
		*sum += e->dur;
	}
	return tg_interval_union(c->iv, n);
}

struct lca_tmp {
	uint32_t node;
	size_t b0, nb, n0, nn;
};

static int find_lcas(struct ctx *c, const uint32_t *nodev)
{
	tg_tree_diff *d = c->d;
	const struct view *s1 = &d->side[0], *s2 = &d->side[1];
	u32vec pool = {0}, bl = {0}, nl = {0};
	struct lca_tmp *tmp = NULL;
	size_t ntmp = 0, cap_tmp = 0;
	int rc = TG_ENOMEM;
	struct sortctx sc1 = {s1->ev}, sc2 = {s2->ev};
	for (size_t id = 0; id < d->nnodes; id++) {
		tg_diff_node *x = &d->nodes[id];
		uint32_t v1 = nodev[2 * id], v2 = nodev[2 * id + 1];
		x->gpu = id == 0 || (v1 != TG_NONE && (s1->flags[v1] & F_PATH)) ||
		         (v2 != TG_NONE && (s2->flags[v2] & F_PATH));
		if (x->side != TG_DIFF_BOTH)
			continue;
		if (id)
			x->diverges = s1->key[v1] != s2->key[v2];
		bl.n = nl.n = 0;
		for (uint32_t ch = x->first_child; ch != TG_NONE; ch = d->nodes[ch].next_sibling) {
			const tg_diff_node *y = &d->nodes[ch];
			uint32_t w1 = nodev[2 * (size_t)ch], w2 = nodev[2 * (size_t)ch + 1];
			if (y->side == TG_DIFF_BASE_ONLY && (s1->flags[w1] & F_PATH) && gather(s1, w1, &bl))
				goto out;
			if (y->side == TG_DIFF_NEW_ONLY && (s2->flags[w2] & F_PATH) && gather(s2, w2, &nl))
				goto out;
		}
		int lca = bl.n || nl.n;
		if (!lca && id && (s1->flags[v1] & F_GPU) && (s2->flags[v2] & F_GPU)) {
			if (x->diverges) {
				lca = 1;
				if (u32_push(&bl, s1->event[v1]) || u32_push(&nl, s2->event[v2]))
					goto out;
			} else {
				d->match[0][s1->event[v1]] = s2->event[v2];
				d->match[1][s2->event[v2]] = s1->event[v1];
				d->stats.matched[0]++;
				d->stats.matched[1]++;
			}
		}
		if (!lca)
			continue;
		if (ntmp == cap_tmp && tg_grow((void **)&tmp, &cap_tmp, ntmp + 1, sizeof(*tmp)))
			goto out;
		if (bl.n > 1)
			qsort_r(bl.v, bl.n, sizeof(uint32_t), cmp_ev_ts, &sc1);
		if (nl.n > 1)
			qsort_r(nl.v, nl.n, sizeof(uint32_t), cmp_ev_ts, &sc2);
		tmp[ntmp] = (struct lca_tmp){(uint32_t)id, pool.n, bl.n, pool.n + bl.n, nl.n};
		for (size_t k = 0; k < bl.n; k++) {
			if (u32_push(&pool, bl.v[k]))
				goto out;
			d->lca_of[0][bl.v[k]] = (uint32_t)ntmp;
		}
		for (size_t k = 0; k < nl.n; k++) {
			if (u32_push(&pool, nl.v[k]))
				goto out;
			d->lca_of[1][nl.v[k]] = (uint32_t)ntmp;
		}
		d->stats.in_lca[0] += bl.n;
		d->stats.in_lca[1] += nl.n;
		ntmp++;
	}
	d->lca_events = pool.v;
	d->nlca_events = pool.n;
	pool.v = NULL;
	d->lcas = tg_calloc(ntmp + 1, sizeof(tg_diff_lca));
	if (!d->lcas)
		goto out;
	d->nlcas = ntmp;
	for (size_t k = 0; k < ntmp; k++) {
		tg_diff_lca *L = &d->lcas[k];
		L->node = tmp[k].node;
		L->base_gpu = d->lca_events + tmp[k].b0;
		L->nbase = tmp[k].nb;
		L->new_gpu = d->lca_events + tmp[k].n0;
		L->nnew = tmp[k].nn;
		L->base_busy_ns = busy_of(c, s1, L->base_gpu, L->nbase, &L->base_sum_ns);
		L->new_busy_ns = busy_of(c, s2, L->new_gpu, L->nnew, &L->new_sum_ns);
		if (L->base_busy_ns < 0 || L->new_busy_ns < 0)
			goto out;
	}
	for (int s = 0; s < 2; s++)
		d->stats.unaccounted[s] = d->stats.gpu[s] - d->stats.matched[s] - d->stats.in_lca[s];
	rc = 0;
out:
	free(pool.v);
	free(bl.v);
	free(nl.v);
	free(tmp);
	return rc;
}

tg_tree_diff_opts tg_tree_diff_opts_tracelens(void)
{
	tg_tree_diff_opts o;
	memset(&o, 0, sizeof(o));
	o.positional_roots = 1;
	o.launch_by_name = 1;
	o.tracelens_links = 1;
	o.positional_reorders = 1;
	return o;
}

static void free_ctx(struct ctx *c)
{
	free(c->nb.s);
	free(c->nt.s);
	free(c->ka.v);
	free(c->kb.v);
	free(c->bits);
	free(c->row0.v);
	free(c->row1.v);
	free(c->ents);
	u32vec *vs[] = {&c->st1, &c->st2, &c->lpool, &c->front, &c->next, &c->g1, &c->g2,
	                &c->c1,  &c->c2,  &c->t1,    &c->t2,    &c->r1,   &c->r2, &c->f1, &c->f2,  &c->fi1,
	                &c->fi2, &c->u1,  &c->u2,    &c->col1,  &c->col2, &c->s1, &c->s2, &c->p2a, &c->p2b,
	                &c->imm, &c->pairs1, &c->pairs2};
	for (size_t k = 0; k < sizeof(vs) / sizeof(vs[0]); k++)
		free(vs[k]->v);
	opvec *os[] = {&c->dnew, &c->dout, &c->ops, &c->fops, &c->nops, &c->p1ops, &c->p2ops, &c->cops};
	for (size_t k = 0; k < sizeof(os) / sizeof(os[0]); k++)
		free(os[k]->v);
	free(c->as1);
	free(c->as2);
	free(c->hand1);
	free(c->hand2);
	free(c->pairs);
	free(c->L1);
	free(c->L2);
	free(c->immoff);
	free(c->sub1);
	free(c->sub2);
	free(c->skip1);
	free(c->skip2);
	free(c->tsk);
	free(c->stack);
	free(c->iv);
	free(c->used[0]);
	free(c->used[1]);
}

int tg_tree_diff_build(tg_tree_diff **out, const tg_tree *base, const tg_tree *next,
                       const tg_tree_diff_opts *opts)
{
	*out = NULL;
	tg_tree_diff *d = tg_calloc(1, sizeof(*d));
	if (!d)
		return TG_ENOMEM;
	if (opts)
		d->opts = *opts;
	if (!d->opts.max_dp_cells)
		d->opts.max_dp_cells = DEFAULT_MAX_DP_CELLS;
	if (!d->opts.max_pairs)
		d->opts.max_pairs = DEFAULT_MAX_PAIRS;
	struct ctx c;
	memset(&c, 0, sizeof(c));
	c.d = d;
	uint32_t *nodev = NULL;
	size_t cap_nodev = 0;
	int rc = TG_ENOMEM;
	d->norms = tg_atoms_new();
	if (!d->norms)
		goto fail;
	if ((rc = build_view(&c, &d->side[0], base, &d->opts)) ||
	    (rc = build_view(&c, &d->side[1], next, &d->opts)))
		goto fail;
	rc = TG_ENOMEM;
	for (int s = 0; s < 2; s++) {
		size_t ne = d->side[s].ne;
		d->match[s] = tg_malloc((ne + 1) * sizeof(uint32_t));
		d->lca_of[s] = tg_malloc((ne + 1) * sizeof(uint32_t));
		c.used[s] = tg_calloc((size_t)d->side[s].n + 1, 1);
		if (!d->match[s] || !d->lca_of[s] || !c.used[s])
			goto fail;
		memset(d->match[s], 0xff, (ne + 1) * sizeof(uint32_t));
		memset(d->lca_of[s], 0xff, (ne + 1) * sizeof(uint32_t));
	}
	/* the virtual root, then depth first */
	uint32_t root;
	if (new_node(d, &nodev, &cap_nodev, TG_NONE, TG_NONE, TG_NONE, &root))
		goto fail;
	d->nodes[root].side = TG_DIFF_BOTH;
	uint32_t rv1 = TG_NONE, rv2 = TG_NONE;
	if (expand(&c, &rv1, &rv2, 1, d->opts.positional_roots))
		goto fail;
	for (size_t k = c.pairs1.n; k-- > 0;) {
		if (c.nstack == c.cap_stack && tg_grow((void **)&c.stack, &c.cap_stack, c.nstack + 1, sizeof(struct work)))
			goto fail;
		c.stack[c.nstack++] = (struct work){c.pairs1.v[k], c.pairs2.v[k], root};
	}
	while (c.nstack) {
		struct work w = c.stack[--c.nstack];
		if ((w.v1 != TG_NONE && c.used[0][w.v1]) || (w.v2 != TG_NONE && c.used[1][w.v2]))
			continue; /* never twice in the merged tree */
		uint32_t id;
		if (new_node(d, &nodev, &cap_nodev, w.v1, w.v2, w.parent, &id))
			goto fail;
		if (w.v1 != TG_NONE)
			c.used[0][w.v1] = 1;
		if (w.v2 != TG_NONE)
			c.used[1][w.v2] = 1;
		uint32_t v1 = w.v1, v2 = w.v2;
		if (expand(&c, &v1, &v2, 0, 0))
			goto fail;
		if (v1 != w.v1 || v2 != w.v2) {
			/* phase 1 opened a wrapper: the node is the deeper one */
			tg_diff_node *x = &d->nodes[id];
			nodev[2 * (size_t)id] = v1;
			nodev[2 * (size_t)id + 1] = v2;
			x->base_ev = v1 == TG_NONE ? TG_NONE : d->side[0].event[v1];
			x->new_ev = v2 == TG_NONE ? TG_NONE : d->side[1].event[v2];
			if (v1 != TG_NONE)
				c.used[0][v1] = 1;
			if (v2 != TG_NONE)
				c.used[1][v2] = 1;
		}
		for (size_t k = c.pairs1.n; k-- > 0;) {
			if (c.nstack == c.cap_stack && tg_grow((void **)&c.stack, &c.cap_stack, c.nstack + 1, sizeof(struct work)))
				goto fail;
			c.stack[c.nstack++] = (struct work){c.pairs1.v[k], c.pairs2.v[k], id};
		}
	}
	d->stats.nodes = d->nnodes;
	if (find_lcas(&c, nodev))
		goto fail;
	free(nodev);
	free(d->last_child);
	d->last_child = NULL;
	free_ctx(&c);
	*out = d;
	return 0;
fail:
	free(nodev);
	free_ctx(&c);
	tg_tree_diff_free(d);
	return rc ? rc : TG_ENOMEM;
}

void tg_tree_diff_free(tg_tree_diff *d)
{
	if (!d)
		return;
	free_view(&d->side[0]);
	free_view(&d->side[1]);
	tg_atoms_free(d->norms);
	free(d->nodes);
	free(d->last_child);
	free(d->lcas);
	free(d->lca_events);
	for (int s = 0; s < 2; s++) {
		free(d->match[s]);
		free(d->lca_of[s]);
	}
	free(d);
}

const tg_diff_node *tg_tree_diff_nodes(const tg_tree_diff *d, size_t *n)
{
	*n = d->nnodes;
	return d->nodes;
}

const tg_diff_lca *tg_tree_diff_lcas(const tg_tree_diff *d, size_t *n)
{
	*n = d->nlcas;
	return d->lcas;
}

uint32_t tg_tree_diff_match(const tg_tree_diff *d, int side, uint32_t ev)
{
	if ((side != 0 && side != 1) || ev >= d->side[side].ne)
		return TG_NONE;
	return d->match[side][ev];
}

uint32_t tg_tree_diff_lca_of(const tg_tree_diff *d, int side, uint32_t ev)
{
	if ((side != 0 && side != 1) || ev >= d->side[side].ne)
		return TG_NONE;
	return d->lca_of[side][ev];
}

const tg_tree_diff_stats *tg_tree_diff_stats_get(const tg_tree_diff *d) { return &d->stats; }

/* ------------------------------------------------------------------ */
/* labels and printing                                                  */

static const char *raw_name(const tg_tree_diff *d, int s, uint32_t ev)
{
	const struct view *v = &d->side[s];
	return tg_trace_str(v->t, v->ev[ev].name);
}

/* name, cut to max bytes (0: whole) at a UTF-8 boundary with "...". With
 * escape (the printed drawing), control characters become \xNN, as in the
 * tables: a newline in a name would break the one-node-a-line drawing, and
 * an escape sequence from a trace would reach a terminal (tracegate diff)
 * or a pull-request comment. Labels (tg_tree_diff_label) keep names raw. */
static int put_name(struct sbuf *b, const char *name, size_t max, int escape)
{
	size_t n = strlen(name), k = n;
	if (max && n > max) {
		/* do not cut a UTF-8 sequence */
		k = max;
		while (k > 0 && ((unsigned char)name[k] & 0xc0) == 0x80)
			k--;
	}
	size_t from = 0;
	for (size_t i = 0; escape && i < k; i++) {
		unsigned char c = (unsigned char)name[i];
		if (c >= 0x20 && c != 0x7f)
			continue;
		char esc[8];
		snprintf(esc, sizeof(esc), "\\x%02x", c);
		if (sb_put(b, name + from, i - from) || sb_put(b, esc, 4))
			return TG_ENOMEM;
		from = i + 1;
	}
	if (sb_put(b, name + from, k - from))
		return TG_ENOMEM;
	return k < n ? sb_put(b, "...", 3) : 0;
}

/* plain: one-sided nodes read "base: name" / "new: name" (the comment's
 * drawing) instead of TraceLens's ">> trace1: " / "<< trace2: ". */
static int label_into(struct sbuf *b, const tg_tree_diff *d, uint32_t node, size_t max, int escape, int plain)
{
	const tg_diff_node *x = &d->nodes[node];
	if (node == 0)
		return sb_put(b, "(root)", 6);
	const char *bl = plain ? "base: " : ">> trace1: ", *nl = plain ? "new:  " : "<< trace2: ";
	if (x->side == TG_DIFF_BASE_ONLY)
		return sb_put(b, bl, strlen(bl)) || put_name(b, raw_name(d, 0, x->base_ev), max, escape);
	if (x->side == TG_DIFF_NEW_ONLY)
		return sb_put(b, nl, strlen(nl)) || put_name(b, raw_name(d, 1, x->new_ev), max, escape);
	const char *a = raw_name(d, 0, x->base_ev), *c = raw_name(d, 1, x->new_ev);
	if (!strcmp(a, c))
		return put_name(b, a, max, escape);
	return sb_put(b, "combined: ", 10) || put_name(b, a, max, escape) || sb_put(b, " | ", 3) ||
	       put_name(b, c, max, escape);
}

size_t tg_tree_diff_label(char *buf, size_t size, const tg_tree_diff *d, uint32_t node)
{
	struct sbuf b = {0};
	size_t len = 0;
	if (node < d->nnodes && !label_into(&b, d, node, 0, 0, 0)) {
		len = b.n;
		if (size) {
			size_t k = len < size - 1 ? len : size - 1;
			memcpy(buf, b.s, k);
			buf[k] = 0;
		}
	} else if (size) {
		buf[0] = 0;
	}
	free(b.s);
	return len;
}

struct printer {
	FILE *f;
	const tg_tree_diff *d;
	tg_diff_print_opts o;
	struct sbuf prefix, line;
	size_t lines, dropped;
	const char *tee, *elbow, *bar, *blank;
	uint8_t *mark;    /* only_diffs: on the way to an LCA */
	uint32_t *lcaidx; /* only_diffs: LCA of the node, TG_NONE */
	int err;
};

static void emit(struct printer *p, const char *connector)
{
	if (p->o.max_lines && p->lines >= p->o.max_lines) {
		p->dropped++;
		return;
	}
	p->lines++;
	if (fputs(p->prefix.s ? p->prefix.s : "", p->f) < 0 || fputs(connector, p->f) < 0 ||
	    fputs(p->line.s ? p->line.s : "", p->f) < 0 || fputc('\n', p->f) < 0)
		p->err = 1;
}

static int print_full(struct printer *p, uint32_t node, int is_last, int depth)
{
	const tg_tree_diff *d = p->d;
	p->line.n = 0;
	if (label_into(&p->line, d, node, p->o.max_name, 1, 0))
		return TG_ENOMEM;
	emit(p, is_last ? p->elbow : p->tee);
	if (d->nodes[node].first_child == TG_NONE)
		return 0;
	size_t plen = p->prefix.n;
	if (sb_put(&p->prefix, is_last ? p->blank : p->bar, strlen(is_last ? p->blank : p->bar)))
		return TG_ENOMEM;
	if (depth >= PRINT_DEPTH) {
		p->line.n = 0;
		if (sb_put(&p->line, "... (deeper levels not shown)", 29))
			return TG_ENOMEM;
		emit(p, p->elbow);
		p->prefix.n = plen;
		p->prefix.s[plen] = 0;
		return 0;
	}
	size_t nk = 0;
	for (uint32_t ch = d->nodes[node].first_child; ch != TG_NONE; ch = d->nodes[ch].next_sibling)
		nk++;
	size_t k = 0;
	/* TraceLens's order: combined, then trace1, then trace2 */
	for (int side = 0; side < 3; side++)
		for (uint32_t ch = d->nodes[node].first_child; ch != TG_NONE; ch = d->nodes[ch].next_sibling) {
			if (d->nodes[ch].side != side)
				continue;
			k++;
			int rc = print_full(p, ch, k == nk, depth + 1);
			if (rc)
				return rc;
		}
	p->prefix.n = plen;
	p->prefix.s[plen] = 0;
	return 0;
}

static int annotate_lca(struct printer *p, const tg_diff_lca *L)
{
	char buf[160];
	snprintf(buf, sizeof(buf), "  [LCA: base %zu kernel%s %.3f us busy, new %zu kernel%s %.3f us busy]", L->nbase,
	         L->nbase == 1 ? "" : "s", L->base_busy_ns / 1000.0, L->nnew, L->nnew == 1 ? "" : "s",
	         L->new_busy_ns / 1000.0);
	return sb_put(&p->line, buf, strlen(buf));
}

/* only_diffs: a node and what is worth showing under it. in_lca: levels
 * below the LCA this node is (0: not under one). */
static int print_diff(struct printer *p, uint32_t node, int is_last, int in_lca, int expand_kids, int level)
{
	const tg_tree_diff *d = p->d;
	const tg_diff_node *x = &d->nodes[node];
	if (node) {
		p->line.n = 0;
		if (label_into(&p->line, d, node, p->o.max_name, 1, 1))
			return TG_ENOMEM;
		if (p->lcaidx[node] != TG_NONE && expand_kids && annotate_lca(p, &d->lcas[p->lcaidx[node]]))
			return TG_ENOMEM;
		emit(p, is_last ? p->elbow : p->tee);
	}
	if (!expand_kids)
		return 0;
	int lca_here = p->lcaidx[node] != TG_NONE;
	int depth = lca_here ? 1 : in_lca ? in_lca + 1 : 0;
	if (p->o.max_depth && depth > p->o.max_depth)
		return 0;
	if (level >= PRINT_DEPTH)
		return 0;
	size_t nk = 0;
	for (uint32_t ch = x->first_child; ch != TG_NONE; ch = d->nodes[ch].next_sibling)
		nk++;
	if (!nk)
		return 0;
	uint32_t *kids = tg_malloc(nk * sizeof(uint32_t));
	uint8_t *show = tg_calloc(nk, 1); /* 1 shown and expanded, 2 shown as context */
	if (!kids || !show) {
		free(kids);
		free(show);
		return TG_ENOMEM;
	}
	size_t k = 0;
	for (uint32_t ch = x->first_child; ch != TG_NONE; ch = d->nodes[ch].next_sibling)
		kids[k++] = ch;
	/* at the top level, device events no op launched (their launch fell
	 * outside the profiled window; communication, GPU-only traces) are one
	 * summary line per side, not a line each */
	size_t orphans[2] = {0, 0};
	int64_t orphan_ns[2] = {0, 0};
	for (k = 0; k < nk; k++) {
		const tg_diff_node *y = &d->nodes[kids[k]];
		if (node == 0 && lca_here && y->side != TG_DIFF_BOTH) {
			int s = y->side == TG_DIFF_BASE_ONLY ? 0 : 1;
			const tg_event *e = &d->side[s].ev[s ? y->new_ev : y->base_ev];
			if (tg_kind_is_gpu(e->kind)) {
				orphans[s]++;
				orphan_ns[s] += e->dur;
				show[k] = 3;
				continue;
			}
		}
		if (p->mark[kids[k]] || (depth && y->side != TG_DIFF_BOTH && y->gpu))
			show[k] = 1;
	}
	if (p->o.context > 0)
		for (k = 0; k < nk; k++) {
			if (show[k] != 1)
				continue;
			for (size_t q = k > (size_t)p->o.context ? k - (size_t)p->o.context : 0;
			     q <= k + (size_t)p->o.context && q < nk; q++)
				if (!show[q] && d->nodes[kids[q]].gpu)
					show[q] = 2;
		}
	size_t plen = p->prefix.n;
	const char *ext = node == 0 ? "" : is_last ? p->blank : p->bar;
	int rc = sb_put(&p->prefix, ext, strlen(ext));
	size_t lastshown = nk;
	for (k = 0; k < nk; k++)
		if (show[k] && show[k] != 3)
			lastshown = k;
	for (k = 0; k < nk && !rc;) {
		if (show[k] == 3) {
			k++;
			continue;
		}
		if (show[k]) {
			int last = k == lastshown && k == nk - 1 && !orphans[0] && !orphans[1];
			rc = print_diff(p, kids[k], last, depth, show[k] == 1, level + 1);
			k++;
			continue;
		}
		size_t q = k, ncomb = 0, ngpu = 0;
		for (; q < nk && !show[q]; q++) {
			ncomb += d->nodes[kids[q]].side == TG_DIFF_BOTH;
			ngpu += d->nodes[kids[q]].gpu;
		}
		char buf[96];
		if (ncomb == q - k)
			snprintf(buf, sizeof(buf), "... %zu matching", q - k);
		else
			snprintf(buf, sizeof(buf), "... %zu more (%zu with GPU work)", q - k, ngpu);
		p->line.n = 0;
		rc = sb_put(&p->line, buf, strlen(buf));
		if (!rc)
			emit(p, q == nk && !orphans[0] && !orphans[1] ? p->elbow : p->tee);
		k = q;
	}
	if (!rc && (orphans[0] || orphans[1])) {
		char buf[200];
		snprintf(buf, sizeof(buf),
		         "... no launching op (launched before the profiled window, or GPU-only): "
		         "base %zu device event%s %.3f us, new %zu %.3f us",
		         orphans[0], orphans[0] == 1 ? "" : "s", (double)orphan_ns[0] / 1000.0, orphans[1],
		         (double)orphan_ns[1] / 1000.0);
		p->line.n = 0;
		rc = sb_put(&p->line, buf, strlen(buf));
		if (!rc)
			emit(p, p->elbow);
	}
	p->prefix.n = plen;
	if (p->prefix.s)
		p->prefix.s[plen] = 0;
	free(kids);
	free(show);
	return rc;
}

int tg_tree_diff_print(FILE *f, const tg_tree_diff *d, const tg_diff_print_opts *opts)
{
	struct printer p;
	memset(&p, 0, sizeof(p));
	p.f = f;
	p.d = d;
	if (opts)
		p.o = *opts;
	p.tee = p.o.ascii ? "|-- " : "\xe2\x94\x9c\xe2\x94\x80\xe2\x94\x80 ";
	p.elbow = p.o.ascii ? "`-- " : "\xe2\x94\x94\xe2\x94\x80\xe2\x94\x80 ";
	p.bar = p.o.ascii ? "|   " : "\xe2\x94\x82   ";
	p.blank = "    ";
	int rc = sb_put(&p.prefix, "", 0);
	if (!rc && !p.o.only_diffs) {
		size_t nr = 0;
		for (uint32_t ch = d->nodes[0].first_child; ch != TG_NONE; ch = d->nodes[ch].next_sibling)
			nr++;
		size_t k = 0;
		for (uint32_t ch = d->nodes[0].first_child; ch != TG_NONE && !rc; ch = d->nodes[ch].next_sibling) {
			k++;
			rc = print_full(&p, ch, k == nr, 1);
		}
	} else if (!rc) {
		p.mark = tg_calloc(d->nnodes + 1, 1);
		p.lcaidx = tg_malloc((d->nnodes + 1) * sizeof(uint32_t));
		if (!p.mark || !p.lcaidx) {
			rc = TG_ENOMEM;
		} else {
			memset(p.lcaidx, 0xff, (d->nnodes + 1) * sizeof(uint32_t));
			for (size_t l = 0; l < d->nlcas; l++) {
				if (p.o.lca_mask && !p.o.lca_mask[l])
					continue;
				p.lcaidx[d->lcas[l].node] = (uint32_t)l;
				for (uint32_t x = d->lcas[l].node; x != TG_NONE && !p.mark[x]; x = d->nodes[x].parent)
					p.mark[x] = 1;
			}
			if (!d->nlcas) {
				p.line.n = 0;
				rc = sb_put(&p.line, "(no divergence: every GPU event matched)", 40);
				if (!rc)
					emit(&p, "");
			} else {
				rc = print_diff(&p, 0, 1, 0, 1, 0);
			}
		}
	}
	if (!rc && p.dropped) {
		char buf[64];
		snprintf(buf, sizeof(buf), "... %zu more lines", p.dropped);
		if (fputs(buf, f) < 0 || fputc('\n', f) < 0)
			p.err = 1;
	}
	free(p.prefix.s);
	free(p.line.s);
	free(p.mark);
	free(p.lcaidx);
	if (rc)
		return rc;
	if (p.err || ferror(f))
		return tg_error_set(TG_EIO, "tree diff: write failed");
	return 0;
}
