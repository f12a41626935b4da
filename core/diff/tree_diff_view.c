/*
 * tree_diff_view.c - one tree as the diff sees it (tree_diff_impl.h), read
 * from its op skeleton (skeleton.h): the kept events (cpu_ops, runtime and
 * driver calls, device events; python and annotations on request)
 * renumbered depth first with children by (start, index), so that a
 * subtree is the index range [v, end[v]); per node its flags (device
 * event, kernel, cpu_op, launch, on the GPU path) and its normalized
 * names, and the roots the merge starts from (TraceLens's
 * _get_top_level_root). A dropped event's children hang from its nearest
 * kept ancestor, as in TraceLens's tree. The skeleton holds every event a
 * view may keep with its nearest ancestor among them, so the nearest kept
 * ancestor is found along the skeleton's parents.
 */
#include "tree_diff_impl.h"

/* The atom of the normalized name of atom a of side s. */
static int norm_key(struct ctx *c, struct view *s, uint32_t a, int strip, uint32_t *out)
{
	uint32_t *cache = strip ? s->atom_skey : s->atom_key;
	if (a < s->natoms && cache[a] != TG_NONE) {
		*out = cache[a];
		return 0;
	}
	if (tg_tree_diff_normalize(&c->nb, &c->nt, tg_atoms_str(tg_skeleton_atoms(s->sk), a), strip))
		return TG_ENOMEM;
	uint32_t k;
	int rc = tg_atoms_intern(&k, c->d->norms, c->nb.data, c->nb.len);
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

static int keep_node(const tg_tree_diff_opts *o, const tg_skel_node *x)
{
	switch (x->kind) {
	case TG_KIND_CPU_OP:
	case TG_KIND_RUNTIME:
	case TG_KIND_DRIVER: return 1;
	case TG_KIND_PYTHON: return o->keep_python;
	case TG_KIND_USER_ANNOTATION: return o->keep_annotations;
	default: break;
	}
	if (!tg_kind_is_gpu(x->kind))
		return 0;
	if (o->tracelens_links)
		return x->linked;
	return 1;
}

/* Descends from a root through single children that are neither cpu_ops
 * nor launch calls (graph launches excepted): TraceLens's
 * _get_top_level_root. */
static uint32_t descend_root(const struct view *s, uint32_t r)
{
	for (;;) {
		uint32_t ch = r + 1; /* its first child, when it has one */
		if (ch >= s->end[r] || s->end[ch] != s->end[r])
			return r; /* none, or more than one */
		/* a cpu_op, or a launch call that is no graph launch (runtime
		 * and driver calls are launches: F_DISPATCH is exactly that;
		 * the flags, not the skeleton node, a miss a root less) */
		if (s->flags[ch] & (F_CPU_OP | F_DISPATCH))
			return r;
		r = ch;
	}
}

/* Over the skeleton's nodes: near[k], k itself when kept, else its nearest
 * kept ancestor (or TG_NONE). order: every node by (start, index) on
 * entry, the kept nodes in that order on return (compacted in place).
 * Returns the number kept, nk. */
static size_t find_kept(const struct view *s, size_t nsn, const tg_tree_diff_opts *o, uint32_t *near, uint32_t *order)
{
	const uint32_t UNKNOWN = TG_NONE - 1; /* near[k] while not yet known */
	size_t nk = 0;
	for (size_t i = 0; i < nsn; i++)
		near[i] = keep_node(o, &s->sn[i]) ? (uint32_t)i : UNKNOWN;
	for (size_t q = 0; q < nsn; q++)
		if (near[order[q]] == order[q])
			order[nk++] = order[q];
	for (size_t i = 0; i < nsn; i++) {
		if (near[i] != UNKNOWN)
			continue;
		/* walk up to a known node, then fill the path */
		uint32_t x = (uint32_t)i, r;
		for (;;) {
			uint32_t p = s->sn[x].parent;
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
		for (x = (uint32_t)i; x != TG_NONE && near[x] == UNKNOWN; x = s->sn[x].parent)
			near[x] = r;
	}
	return nk;
}

/* Each kept node's nearest kept ancestor (TG_NONE for a root) into near[]
 * in place of itself, and the kept children of each kept node counted
 * into coff[k + 1] (coff: nsn + 2, zeroed); returns the number of roots.
 * In the skeleton's order: its nodes read in turn and a parent mostly
 * close by, where the order by start read them at random (two misses a
 * node once the skeleton outgrows the caches: a third of the view's build
 * at a gigabyte of JSON); a count needs no order. In place: a node not
 * kept keeps its near[] (what its children read), a kept parent is known
 * by its kind (keep_node), not by near[]. */
static size_t kept_parents(const struct view *s, size_t nsn, const tg_tree_diff_opts *o, uint32_t *near,
                           uint32_t *coff)
{
	size_t nr = 0;
	for (size_t k = 0; k < nsn; k++) {
		if (near[k] != k)
			continue; /* not kept */
		uint32_t p = s->sn[k].parent;
		uint32_t vp = p == TG_NONE ? TG_NONE : keep_node(o, &s->sn[p]) ? p : near[p];
		near[k] = vp;
		if (vp == TG_NONE)
			nr++;
		else
			coff[vp + 1]++;
	}
	return nr;
}

/* The kept children of each kept node k (counted in coff by
 * kept_parents, which left each kept node's kept parent in kp), in the
 * order of order[] (by start), as kids[coff[k] .. coff[k+1]); the roots
 * into s->roots, in that order. */
static void place_children(struct view *s, size_t nsn, const uint32_t *kp, const uint32_t *order, size_t nk,
                           uint32_t *coff, uint32_t *kids)
{
	size_t nr = 0;
	for (size_t i = 0; i < nsn; i++)
		coff[i + 1] += coff[i];
	for (size_t q = 0; q < nk; q++) {
		uint32_t k = order[q], vp = kp[k];
		if (vp == TG_NONE)
			s->roots[nr++] = k;
		else
			kids[coff[vp]++] = k;
	}
	/* each coff[k] is now where k + 1's children begin: back by one */
	memmove(coff + 1, coff, nsn * sizeof(uint32_t));
	coff[0] = 0;
}

/* A step of the depth-first numbering: a kept node, its view node, and
 * the next of its children to number. */
struct frame {
	uint32_t k, v, q;
};

/* Numbers the kept nodes depth first from the nr roots, children by
 * start (s->node; s->roots become view nodes) and fills s->end as each
 * subtree closes. The frames (one a level of the path) are scratch,
 * grown as deep as the tree. Returns the number of view nodes, or
 * TG_NONE when the frames cannot grow. */
static uint32_t number_depth_first(struct view *s, size_t nr, const uint32_t *coff, const uint32_t *kids,
                                   struct frame **frames, size_t *cap)
{
	uint32_t nv = 0;
	for (size_t r = 0; r < nr; r++) {
		size_t depth = 0;
		uint32_t k = s->roots[r];
		s->node[nv] = k;
		s->roots[r] = nv;
		(*frames)[depth++] = (struct frame){k, nv++, coff[k]};
		while (depth) {
			struct frame *f = &(*frames)[depth - 1];
			if (f->q == coff[f->k + 1]) {
				s->end[f->v] = nv;
				depth--;
				continue;
			}
			k = kids[f->q++];
			if (depth == *cap && tg_grow((void **)frames, cap, depth + 1, sizeof(struct frame)))
				return TG_NONE;
			s->node[nv] = k;
			(*frames)[depth++] = (struct frame){k, nv++, coff[k]};
		}
	}
	return nv;
}

/* The flags of every view node (F_PATH also up to its ancestors: each
 * node's children, later in the numbering, are done before it) and its
 * normalized names. 0 or the error of norm_key. */
static int set_flags_and_names(struct ctx *c, struct view *s, uint32_t nv)
{
	int rc;
	for (uint32_t v = 0; v < nv; v++) {
		const tg_skel_node *e = &s->sn[s->node[v]];
		uint8_t f = 0;
		if (tg_kind_is_gpu(e->kind))
			f |= F_GPU | F_PATH;
		if (e->kind == TG_KIND_KERNEL)
			f |= F_KERNEL;
		if (e->kind == TG_KIND_CPU_OP)
			f |= F_CPU_OP;
		if (tg_kind_is_launch(e->kind))
			f |= is_graph_name(tg_atoms_str(tg_skeleton_atoms(s->sk), e->name)) ? F_GRAPH : F_DISPATCH;
		s->flags[v] = f;
		uint32_t skey; /* into the atom cache, read back by view_skey */
		if ((rc = norm_key(c, s, e->name, 0, &s->key[v])) || (rc = norm_key(c, s, e->name, 1, &skey)))
			return rc;
	}
	for (uint32_t v = nv; v-- > 0;) {
		if (s->flags[v] & F_PATH)
			continue;
		VIEW_CHILDREN(s, v, ch)
			if (s->flags[ch] & F_PATH) {
				s->flags[v] |= F_PATH;
				break;
			}
	}
	return 0;
}

/* A launch call's names (both) become its own name followed by its device
 * events' names, so that launches of different kernels differ. Each
 * signature is written into the one scratch buffer c->nb (a buffer a
 * launch cost a third of the view's build in allocations). 0 or
 * TG_ENOMEM. */
static int key_launches_by_kernels(struct ctx *c, struct view *s, uint32_t nv)
{
	tg_buf *sig = &c->nb;
	for (uint32_t v = 0; v < nv; v++) {
		if (!(s->flags[v] & F_DISPATCH) || v + 1 >= s->end[v])
			continue;
		tg_buf_reset(sig);
		const char *ln = tg_atoms_str(c->d->norms, s->key[v]);
		int bad = tg_buf_append(sig, ln, strlen(ln));
		VIEW_CHILDREN(s, v, ch) {
			const char *kn = tg_atoms_str(c->d->norms, s->key[ch]);
			if ((bad = tg_buf_append(sig, "\x1f", 1) || tg_buf_append(sig, kn, strlen(kn))))
				break;
		}
		if (bad || tg_atoms_intern(&s->key[v], c->d->norms, tg_buf_str(sig), sig->len))
			return TG_ENOMEM;
		s->flags[v] |= F_RENAMED;
	}
	return 0;
}

/* TraceLens's roots: from each cpu_op without a cpu_op above it, in start
 * order (order[0..nk), kept skeleton nodes by (ts, index)), its
 * parentless ancestor, descended, once each, into s->roots (which holds
 * the parentless view nodes, as many as there can be of these). *nr gets
 * their number. 0 or TG_ENOMEM. */
static int roots_tracelens(struct view *s, const uint32_t *order, size_t nk, size_t nsn, uint32_t nv, size_t *nr)
{
	uint8_t *cpu_above = tg_calloc((size_t)nv + 1, 1);
	uint8_t *seen = tg_calloc((size_t)nv + 1, 1);
	uint32_t *top = tg_malloc(((size_t)nv + 1) * sizeof(uint32_t));
	uint32_t *vof = tg_malloc((nsn + 1) * sizeof(uint32_t)); /* kept skeleton node -> view node */
	int rc = cpu_above && seen && top && vof ? 0 : TG_ENOMEM;
	/* top[v]: v's parentless ancestor (preorder: parents first) */
	for (uint32_t v = 0; !rc && v < nv; v++)
		top[v] = v;
	for (uint32_t v = 0; !rc && v < nv; v++) {
		vof[s->node[v]] = v;
		VIEW_CHILDREN(s, v, ch) {
			top[ch] = top[v];
			cpu_above[ch] = cpu_above[v] || (s->flags[v] & F_CPU_OP);
		}
	}
	size_t n = 0;
	for (size_t q = 0; !rc && q < nk; q++) {
		uint32_t v = vof[order[q]];
		if (!(s->flags[v] & F_CPU_OP) || cpu_above[v])
			continue;
		uint32_t r = descend_root(s, top[v]);
		if (!seen[r]) {
			seen[r] = 1;
			s->roots[n++] = r;
		}
	}
	free(cpu_above);
	free(seen);
	free(top);
	free(vof);
	*nr = n;
	return rc;
}

/* order[0..nsn): every skeleton node by (start, index): the skeleton's
 * order copied, or sorted now (a skeleton built from a tree holds none).
 * 0 or TG_ENOMEM. */
static int order_of(const struct view *s, size_t nsn, uint32_t *order)
{
	const uint32_t *by_start = tg_skeleton_by_start(s->sk);
	if (!by_start)
		return tg_skeleton_order_into(order, NULL, s->sk);
	if (nsn)
		memcpy(order, by_start, nsn * sizeof(uint32_t));
	return 0;
}

/* The view's nodes, numbered depth first from the kept nodes of its
 * skeleton (s->node, s->end, s->roots, s->n, s->nroots), with order (the
 * kept skeleton nodes by start) handed back to the caller for
 * roots_tracelens (NULL when o does not ask for TraceLens's roots). The
 * scratch over every skeleton node goes as soon as it is read: four
 * arrays a node at most are held at once, the other side's view beside
 * them. 0 or TG_ENOMEM. */
static int number_view(struct view *s, size_t nsn, const tg_tree_diff_opts *o, uint32_t **order_out)
{
	uint32_t *near = tg_malloc((nsn + 1) * sizeof(uint32_t));
	uint32_t *order = tg_malloc((nsn + 1) * sizeof(uint32_t));
	uint32_t *coff = NULL, *kids = NULL;
	struct frame *frames = NULL;
	size_t cap = 64;
	int rc = TG_ENOMEM;
	if (!near || !order || order_of(s, nsn, order))
		goto out;
	size_t nk = find_kept(s, nsn, o, near, order);
	if (!(coff = tg_calloc(nsn + 2, sizeof(uint32_t))))
		goto out;
	s->nroots = kept_parents(s, nsn, o, near, coff);
	kids = tg_malloc((nk + 1) * sizeof(uint32_t));
	s->roots = tg_malloc((s->nroots + 1) * sizeof(uint32_t));
	if (!kids || !s->roots)
		goto out;
	place_children(s, nsn, near, order, nk, coff, kids);
	free(near);
	near = NULL;
	if (!o->tracelens_links) {
		free(order);
		order = NULL;
	}
	s->node = tg_malloc((nk + 1) * sizeof(uint32_t));
	s->end = tg_malloc((nk + 1) * sizeof(uint32_t));
	frames = tg_malloc(cap * sizeof(struct frame));
	if (!s->node || !s->end || !frames)
		goto out;
	s->n = number_depth_first(s, s->nroots, coff, kids, &frames, &cap);
	if (s->n == TG_NONE)
		goto out;
	rc = 0;
	*order_out = order;
	order = NULL;
out:
	free(near);
	free(order);
	free(coff);
	free(kids);
	free(frames);
	return rc;
}

int tg_tree_diff_view_build(struct ctx *c, struct view *s, const tg_skeleton *sk, const tg_tree_diff_opts *o)
{
	unsigned with = tg_skeleton_with(sk);
	if ((o->keep_python && !(with & TG_SKEL_PYTHON)) || (o->keep_annotations && !(with & TG_SKEL_ANNOTATIONS)))
		return tg_error_set(TG_EINVAL, "tree diff: the skeleton holds no %s events",
		                    o->keep_python && !(with & TG_SKEL_PYTHON) ? "python_function" : "user_annotation");
	size_t nsn;
	s->sk = sk;
	s->sn = tg_skeleton_nodes(sk, &nsn);
	s->ne = tg_skeleton_events(sk);
	uint32_t *order = NULL;
	s->natoms = tg_atoms_count(tg_skeleton_atoms(sk));
	s->atom_key = tg_malloc(((size_t)s->natoms + 1) * sizeof(uint32_t));
	s->atom_skey = tg_malloc(((size_t)s->natoms + 1) * sizeof(uint32_t));
	if (!s->atom_key || !s->atom_skey || number_view(s, nsn, o, &order))
		return TG_ENOMEM;
	memset(s->atom_key, 0xff, ((size_t)s->natoms + 1) * sizeof(uint32_t));
	memset(s->atom_skey, 0xff, ((size_t)s->natoms + 1) * sizeof(uint32_t));
	uint32_t nv = s->n;
	s->key = tg_malloc(((size_t)nv + 1) * sizeof(uint32_t));
	s->flags = tg_calloc((size_t)nv + 1, 1);
	int rc = s->key && s->flags ? set_flags_and_names(c, s, nv) : TG_ENOMEM;
	if (!rc && !o->launch_by_name)
		rc = key_launches_by_kernels(c, s, nv);
	size_t nr = s->nroots;
	if (!rc && o->tracelens_links) {
		rc = roots_tracelens(s, order, nv, nsn, nv, &nr);
	} else if (!rc) {
		for (size_t r = 0; r < nr; r++)
			s->roots[r] = descend_root(s, s->roots[r]);
	}
	free(order);
	if (rc)
		return rc;
	s->nroots = nr;
	for (uint32_t v = 0; v < nv; v++)
		c->d->stats.gpu[s == &c->d->side[1]] += (s->flags[v] & F_GPU) != 0;
	c->d->stats.roots[s == &c->d->side[1]] = nr;
	return 0;
}

void tg_tree_diff_view_free(struct view *s)
{
	free(s->node);
	free(s->end);
	free(s->key);
	free(s->flags);
	free(s->roots);
	free(s->atom_key);
	free(s->atom_skey);
	s->node = s->end = s->key = s->roots = s->atom_key = s->atom_skey = NULL;
	s->flags = NULL;
}
