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
		uint8_t f = s->flags[ch];
		int k = s->sn[s->node[ch]].kind;
		if ((f & F_CPU_OP) || ((k == TG_KIND_RUNTIME || k == TG_KIND_DRIVER) && !(f & F_GRAPH)))
			return r;
		r = ch;
	}
}

/* Over the skeleton's nodes: near[k], k itself when kept, else its nearest
 * kept ancestor (or TG_NONE). order[0..nk): the kept nodes by (start,
 * index), from the skeleton's order. Returns nk. */
static size_t find_kept(const struct view *s, size_t nsn, const tg_tree_diff_opts *o, uint32_t *near, uint32_t *order)
{
	const uint32_t UNKNOWN = TG_NONE - 1; /* near[k] while not yet known */
	const uint32_t *by_start = s->by_start;
	size_t nk = 0;
	for (size_t i = 0; i < nsn; i++)
		near[i] = keep_node(o, &s->sn[i]) ? (uint32_t)i : UNKNOWN;
	for (size_t q = 0; q < nsn; q++)
		if (near[by_start[q]] == by_start[q])
			order[nk++] = by_start[q];
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

/* The kept children of each kept node k, in the order of order[] (by
 * start), as kids[coff[k] .. coff[k+1]); the kept nodes without a kept
 * ancestor into s->roots. fill: scratch of nsn + 1. Returns the number of
 * roots. */
static size_t group_children(struct view *s, size_t nsn, const uint32_t *near, const uint32_t *order, size_t nk,
                             uint32_t *coff, uint32_t *kids, uint32_t *fill)
{
	size_t nr = 0;
	for (size_t q = 0; q < nk; q++) {
		uint32_t k = order[q], p = s->sn[k].parent;
		uint32_t vp = p == TG_NONE ? TG_NONE : near[p];
		if (vp == TG_NONE)
			s->roots[nr++] = k;
		else
			coff[vp + 1]++;
	}
	for (size_t i = 0; i < nsn; i++)
		coff[i + 1] += coff[i];
	memcpy(fill, coff, (nsn + 1) * sizeof(uint32_t));
	for (size_t q = 0; q < nk; q++) {
		uint32_t k = order[q], p = s->sn[k].parent;
		uint32_t vp = p == TG_NONE ? TG_NONE : near[p];
		if (vp != TG_NONE)
			kids[fill[vp]++] = k;
	}
	return nr;
}

/* Numbers the kept nodes depth first from the nr roots (s->node,
 * s->parent, s->vof; vof: skeleton node -> view node; s->roots
 * become view nodes), then fills s->end. stack is scratch. Returns the
 * number of view nodes. */
static uint32_t number_depth_first(struct view *s, size_t nr, const uint32_t *coff, const uint32_t *kids, uint32_t *vof,
                                   uint32_t *stack)
{
	uint32_t nv = 0;
	size_t sp = 0;
	for (size_t r = nr; r-- > 0;) {
		stack[sp++] = s->roots[r];
		stack[sp++] = TG_NONE;
	}
	while (sp) {
		uint32_t vp = stack[--sp], k = stack[--sp];
		uint32_t v = nv++;
		s->node[v] = k;
		s->parent[v] = vp;
		vof[k] = v;
		s->vof[s->sn[k].event] = v;
		for (uint32_t q = coff[k + 1]; q-- > coff[k];) {
			stack[sp++] = kids[q];
			stack[sp++] = v;
		}
	}
	for (uint32_t r = 0; r < nr; r++)
		s->roots[r] = vof[s->roots[r]];
	for (uint32_t v = 0; v < nv; v++)
		s->end[v] = v + 1;
	for (uint32_t v = nv; v-- > 0;)
		if (s->parent[v] != TG_NONE && s->end[v] > s->end[s->parent[v]])
			s->end[s->parent[v]] = s->end[v];
	return nv;
}

/* The flags of every view node (F_PATH also up to its ancestors) and its
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
	for (uint32_t v = nv; v-- > 0;)
		if ((s->flags[v] & F_PATH) && s->parent[v] != TG_NONE)
			s->flags[s->parent[v]] |= F_PATH;
	return 0;
}

/* A launch call's names (both) become its own name followed by its device
 * events' names, so that launches of different kernels differ. 0 or
 * TG_ENOMEM. */
static int key_launches_by_kernels(struct ctx *c, struct view *s, uint32_t nv)
{
	for (uint32_t v = 0; v < nv; v++) {
		if (!(s->flags[v] & F_DISPATCH) || v + 1 >= s->end[v])
			continue;
		tg_buf sig = TG_BUF_INIT;
		const char *ln = tg_atoms_str(c->d->norms, s->key[v]);
		int bad = tg_buf_append(&sig, ln, strlen(ln));
		VIEW_CHILDREN(s, v, ch) {
			const char *kn = tg_atoms_str(c->d->norms, s->key[ch]);
			if ((bad = tg_buf_append(&sig, "\x1f", 1) || tg_buf_append(&sig, kn, strlen(kn))))
				break;
		}
		if (bad || tg_atoms_intern(&s->key[v], c->d->norms, tg_buf_str(&sig), sig.len)) {
			tg_buf_free(&sig);
			return TG_ENOMEM;
		}
		tg_buf_free(&sig);
		s->flags[v] |= F_RENAMED;
	}
	return 0;
}

/* TraceLens's roots: from each cpu_op without a cpu_op above it, in start
 * order (order[0..nk), by (ts, index); vof: skeleton node -> view node), its
 * parentless ancestor, descended, once each, into s->roots. fill is
 * scratch. *nr gets their number. 0 or TG_ENOMEM. */
static int roots_tracelens(struct view *s, const uint32_t *order, size_t nk, const uint32_t *vof, uint32_t *fill,
                           uint32_t nv, size_t *nr)
{
	uint8_t *cpu_above = tg_calloc((size_t)nv + 1, 1);
	uint8_t *seen = tg_calloc((size_t)nv + 1, 1);
	if (!cpu_above || !seen) {
		free(cpu_above);
		free(seen);
		return TG_ENOMEM;
	}
	/* fill[v]: v's parentless ancestor (preorder: parents first) */
	for (uint32_t v = 0; v < nv; v++) {
		uint32_t p = s->parent[v];
		fill[v] = p == TG_NONE ? v : fill[p];
		if (p != TG_NONE)
			cpu_above[v] = cpu_above[p] || (s->flags[p] & F_CPU_OP);
	}
	size_t n = 0;
	for (size_t q = 0; q < nk; q++) {
		uint32_t v = vof[order[q]];
		if (!(s->flags[v] & F_CPU_OP) || cpu_above[v])
			continue;
		uint32_t r = descend_root(s, fill[v]);
		if (!seen[r]) {
			seen[r] = 1;
			s->roots[n++] = r;
		}
	}
	free(cpu_above);
	free(seen);
	*nr = n;
	return 0;
}

/* The arrays of a view of nk nodes; 0 or TG_ENOMEM (what was allocated is
 * freed by tg_tree_diff_view_free). */
static int alloc_nodes(struct view *s, size_t nk)
{
	s->n = (uint32_t)nk;
	s->node = tg_malloc((nk + 1) * sizeof(uint32_t));
	s->vof = tg_malloc((s->ne + 1) * sizeof(uint32_t));
	s->parent = tg_malloc((nk + 1) * sizeof(uint32_t));
	s->end = tg_malloc((nk + 1) * sizeof(uint32_t));
	s->key = tg_malloc((nk + 1) * sizeof(uint32_t));
	s->flags = tg_calloc(nk + 1, 1);
	if (!s->node || !s->vof || !s->parent || !s->end || !s->key || !s->flags)
		return TG_ENOMEM;
	memset(s->vof, 0xff, (s->ne + 1) * sizeof(uint32_t));
	return 0;
}

/* s->by_start and s->start_rank: the skeleton's, or sorted into
 * s->own_order (a skeleton built from a tree holds none). 0 or
 * TG_ENOMEM. */
static int order_of(struct view *s, size_t nsn)
{
	s->by_start = tg_skeleton_by_start(s->sk);
	s->start_rank = tg_skeleton_start_rank(s->sk);
	if (s->by_start && s->start_rank)
		return 0;
	if (!(s->own_order = tg_malloc((nsn + 1) * 2 * sizeof(uint32_t))))
		return TG_ENOMEM;
	s->by_start = s->own_order;
	s->start_rank = s->own_order + nsn + 1;
	return tg_skeleton_order_into(s->own_order, s->own_order + nsn + 1, s->sk);
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
	int rc = TG_ENOMEM;
	uint32_t *near = NULL, *order = NULL, *coff = NULL, *kids = NULL, *fill = NULL, *vof = NULL;
	uint32_t *stack = NULL;
	s->natoms = tg_atoms_count(tg_skeleton_atoms(sk));
	s->atom_key = tg_malloc(((size_t)s->natoms + 1) * sizeof(uint32_t));
	s->atom_skey = tg_malloc(((size_t)s->natoms + 1) * sizeof(uint32_t));
	near = tg_malloc((nsn + 1) * sizeof(uint32_t));
	order = tg_malloc((nsn + 1) * sizeof(uint32_t));
	if (!s->atom_key || !s->atom_skey || !near || !order)
		goto out;
	memset(s->atom_key, 0xff, ((size_t)s->natoms + 1) * sizeof(uint32_t));
	memset(s->atom_skey, 0xff, ((size_t)s->natoms + 1) * sizeof(uint32_t));
	if (order_of(s, nsn))
		goto out;
	size_t nk = find_kept(s, nsn, o, near, order);
	coff = tg_calloc(nsn + 2, sizeof(uint32_t));
	kids = tg_malloc((nk + 1) * sizeof(uint32_t));
	fill = tg_malloc((nsn + 1) * sizeof(uint32_t));
	s->roots = tg_malloc((nk + 1) * sizeof(uint32_t));
	if (!coff || !kids || !fill || !s->roots)
		goto out;
	size_t nr = group_children(s, nsn, near, order, nk, coff, kids, fill);
	stack = tg_malloc((nk + 1) * 2 * sizeof(uint32_t));
	vof = tg_malloc((nsn + 1) * sizeof(uint32_t));
	if (alloc_nodes(s, nk) || !stack || !vof)
		goto out;
	uint32_t nv = number_depth_first(s, nr, coff, kids, vof, stack);
	if ((rc = set_flags_and_names(c, s, nv)))
		goto out;
	rc = TG_ENOMEM;
	if (!o->launch_by_name && key_launches_by_kernels(c, s, nv))
		goto out;
	if (o->tracelens_links) {
		if (roots_tracelens(s, order, nk, vof, fill, nv, &nr))
			goto out;
	} else {
		for (size_t r = 0; r < nr; r++)
			s->roots[r] = descend_root(s, s->roots[r]);
	}
	s->nroots = nr;
	uint32_t *few = tg_realloc(s->roots, (nr + 1) * sizeof(uint32_t)); /* held as long as nk, the most */
	if (few)
		s->roots = few;
	for (uint32_t v = 0; v < nv; v++)
		c->d->stats.gpu[s == &c->d->side[1]] += (s->flags[v] & F_GPU) != 0;
	c->d->stats.roots[s == &c->d->side[1]] = nr;
	free(s->parent); /* read only while building */
	s->parent = NULL;
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

void tg_tree_diff_view_free(struct view *s)
{
	free(s->node);
	free(s->vof);
	free(s->parent);
	free(s->end);
	free(s->key);
	free(s->flags);
	free(s->roots);
	free(s->atom_key);
	free(s->atom_skey);
	free(s->own_order);
}
