/*
 * tree_diff_side.c - a base side's view made once (tree_diff.h:
 * tg_tree_diff_side), for the many diffs that align a run with the same
 * baseline: the daemon judges every pull request against its target
 * branch's baseline, and the view of a 250 MB baseline (half a million
 * skeleton nodes renumbered, flagged and named) cost each tiny pull
 * request more than its own side did.
 *
 * The side holds the view exactly as tg_tree_diff_build_skeletons builds
 * it for its base (tree_diff_view.c, first, into an empty table of
 * normalized names) and that table. A diff built from the side borrows
 * the view's arrays, which the alignment only reads, gets a scratch
 * array of its own for the one it writes (pos), and a copy of the names
 * table (the same atoms in the same order) that its new side's names are
 * added to: the same numbers as building both views, so the same diff.
 * Nothing in the side is written after it is made.
 */
#include "tree_diff_impl.h"

/* The options a view depends on (tg_tree_diff_view_build). */
int tg_tree_diff_side_fits(const tg_tree_diff_opts *a, const tg_tree_diff_opts *b)
{
	return a->keep_python == b->keep_python && a->keep_annotations == b->keep_annotations &&
	       a->tracelens_links == b->tracelens_links && a->launch_by_name == b->launch_by_name;
}

int tg_tree_diff_side_new(tg_tree_diff_side **out, const tg_skeleton *sk, const tg_tree_diff_opts *opts)
{
	*out = NULL;
	tg_tree_diff_side *s = tg_calloc(1, sizeof(*s));
	tg_tree_diff *d = tg_calloc(1, sizeof(*d));
	int rc = s && d && (d->norms = tg_atoms_new()) ? 0 : TG_ENOMEM;
	struct ctx c;
	memset(&c, 0, sizeof(c));
	c.d = d;
	if (!rc) {
		if (opts) /* the view reads only the options tg_tree_diff_side_fits compares */
			s->opts = d->opts = *opts;
		rc = tg_tree_diff_view_build(&c, &d->side[0], sk, &d->opts);
	}
	tg_buf_free(&c.nb); /* the view's build uses no other scratch of c */
	tg_buf_free(&c.nt);
	if (rc) {
		if (d)
			tg_tree_diff_view_free(&d->side[0]);
		tg_atoms_free(d ? d->norms : NULL);
		free(d);
		free(s);
		return rc;
	}
	s->v = d->side[0];
	s->norms = d->norms;
	s->gpu = d->stats.gpu[0];
	s->roots = d->stats.roots[0];
	free(d);
	*out = s;
	return 0;
}

void tg_tree_diff_side_free(tg_tree_diff_side *s)
{
	if (!s)
		return;
	tg_tree_diff_view_free(&s->v);
	tg_atoms_free(s->norms);
	free(s);
}

uint64_t tg_tree_diff_side_bytes(const tg_tree_diff_side *s)
{
	if (!s)
		return 0;
	uint64_t n = (uint64_t)s->v.n + 1;
	/* node, end, key; flags; roots; the atom caches */
	return sizeof(*s) + n * 3 * sizeof(uint32_t) + n + ((uint64_t)s->v.nroots + 1) * sizeof(uint32_t) +
	       ((uint64_t)s->v.natoms + 1) * 2 * sizeof(uint32_t) + tg_atoms_bytes(s->norms);
}

const tg_skeleton *tg_tree_diff_side_skeleton(const tg_tree_diff_side *s)
{
	return s->v.sk;
}

/* A copy of names: each atom interned again in order, so each keeps its
 * number. */
static int copy_names(tg_atoms **out, const tg_atoms *names)
{
	tg_atoms *t = tg_atoms_new();
	if (!t)
		return TG_ENOMEM;
	uint32_t n = tg_atoms_count(names);
	for (uint32_t a = 0; a < n; a++) {
		uint32_t got;
		int rc = tg_atoms_intern(&got, t, tg_atoms_str(names, a), tg_atoms_len(names, a));
		if (!rc && got != a) /* equal strings are one atom: a table never holds two */
			rc = tg_error_set(TG_EINVAL, "tree diff: a names table holds a string twice");
		if (rc) {
			tg_atoms_free(t);
			return rc;
		}
	}
	*out = t;
	return 0;
}

int tg_tree_diff_side_lend(tg_tree_diff *d, const tg_tree_diff_side *s)
{
	int rc = copy_names(&d->norms, s->norms);
	if (rc)
		return rc;
	d->side[0] = s->v;
	d->base_borrowed = 1;
	d->stats.gpu[0] = s->gpu;
	d->stats.roots[0] = s->roots;
	return 0;
}
