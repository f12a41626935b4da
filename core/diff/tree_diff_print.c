/*
 * tree_diff_print.c - labels of merged nodes and the printed drawing of the
 * merged tree (tree_diff.h, tree_diff_impl.h): the whole tree as
 * TraceLens's merged_tree_output.txt, or (only_diffs) the paths down to
 * the LCAs with context and run-length "... N matching" lines, as the
 * pull-request comment shows it. The printer recurses, PRINT_DEPTH levels
 * at most; names are escaped (control characters) and cut at a UTF-8
 * boundary.
 */
#include "tree_diff_impl.h"

#define PRINT_DEPTH 512 /* deepest level printed (the printer recurses) */

/* The skeleton node of event ev of side s (an event of the merged tree:
 * the skeleton holds it). */
static const tg_skel_node *ev_node(const tg_tree_diff *d, int s, uint32_t ev)
{
	size_t n;
	return &tg_skeleton_nodes(d->side[s].sk, &n)[side_node(d, s, ev)];
}

static const char *raw_name(const tg_tree_diff *d, int s, uint32_t ev)
{
	return tg_atoms_str(tg_skeleton_atoms(d->side[s].sk), ev_node(d, s, ev)->name);
}

/* name, cut to max bytes (0: whole) at a UTF-8 boundary with "...". With
 * escape (the printed drawing), control characters become \xNN, as in the
 * tables: a newline in a name would break the one-node-a-line drawing, and
 * an escape sequence from a trace would reach a terminal (tracegate diff)
 * or a pull-request comment. Labels (tg_tree_diff_label) keep names raw. */
static int put_name(tg_buf *b, const char *name, size_t max, int escape)
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
		if (tg_buf_append(b, name + from, i - from) || tg_buf_append(b, esc, 4))
			return TG_ENOMEM;
		from = i + 1;
	}
	if (tg_buf_append(b, name + from, k - from))
		return TG_ENOMEM;
	return k < n ? tg_buf_append(b, "...", 3) : 0;
}

/* plain: one-sided nodes read "base: name" / "new: name" (the comment's
 * drawing) instead of TraceLens's ">> trace1: " / "<< trace2: ". */
static int label_into(tg_buf *b, const tg_tree_diff *d, uint32_t node, size_t max, int escape, int plain)
{
	const tg_diff_node *x = &d->nodes[node];
	if (node == 0)
		return tg_buf_append(b, "(root)", 6);
	const char *bl = plain ? "base: " : ">> trace1: ", *nl = plain ? "new:  " : "<< trace2: ";
	if (x->side == TG_DIFF_BASE_ONLY)
		return tg_buf_append(b, bl, strlen(bl)) || put_name(b, raw_name(d, 0, x->base_ev), max, escape);
	if (x->side == TG_DIFF_NEW_ONLY)
		return tg_buf_append(b, nl, strlen(nl)) || put_name(b, raw_name(d, 1, x->new_ev), max, escape);
	const char *a = raw_name(d, 0, x->base_ev), *c = raw_name(d, 1, x->new_ev);
	if (!strcmp(a, c))
		return put_name(b, a, max, escape);
	return tg_buf_append(b, "combined: ", 10) || put_name(b, a, max, escape) || tg_buf_append(b, " | ", 3) ||
	       put_name(b, c, max, escape);
}

size_t tg_tree_diff_label(char *buf, size_t size, const tg_tree_diff *d, uint32_t node)
{
	tg_buf b = TG_BUF_INIT;
	int ok = node < d->nnodes && !label_into(&b, d, node, 0, 0, 0);
	size_t len = tg_buf_copy_out(buf, size, ok ? &b : NULL);
	tg_buf_free(&b);
	return len;
}

struct printer {
	FILE *f;
	const tg_tree_diff *d;
	tg_diff_print_opts o;
	tg_buf prefix, line;
	size_t lines, dropped;
	const char *tee, *elbow, *bar, *blank;
	uint8_t *mark;    /* only_diffs: on the way to an LCA */
	uint32_t *lcaidx; /* only_diffs: LCA of the node, TG_NONE */
	struct level {    /* only_diffs: each level's children and what is shown of them, reused */
		uint32_t *kids;
		uint8_t *show;
		size_t cap_kids, cap_show;
	} *levels;        /* PRINT_DEPTH of them */
	int err;
};

/* Whether the drawing is full (o.max_lines): every line from here on is
 * only counted ("... N more lines"), so nothing of it need be written out:
 * neither its label nor its prefix. */
static int full(const struct printer *p)
{
	return p->o.max_lines && p->lines >= p->o.max_lines;
}

static void emit(struct printer *p, const char *connector)
{
	if (full(p)) {
		p->dropped++;
		return;
	}
	p->lines++;
	if (fputs(tg_buf_str(&p->prefix), p->f) < 0 || fputs(connector, p->f) < 0 ||
	    fputs(tg_buf_str(&p->line), p->f) < 0 || fputc('\n', p->f) < 0)
		p->err = 1;
}

static int print_full(struct printer *p, uint32_t node, int is_last, int depth)
{
	const tg_tree_diff *d = p->d;
	tg_buf_reset(&p->line);
	if (label_into(&p->line, d, node, p->o.max_name, 1, 0))
		return TG_ENOMEM;
	emit(p, is_last ? p->elbow : p->tee);
	if (d->nodes[node].end == node + 1)
		return 0; /* no children */
	size_t plen = p->prefix.len;
	if (tg_buf_append(&p->prefix, is_last ? p->blank : p->bar, strlen(is_last ? p->blank : p->bar)))
		return TG_ENOMEM;
	if (depth >= PRINT_DEPTH) {
		tg_buf_reset(&p->line);
		if (tg_buf_append(&p->line, "... (deeper levels not shown)", 29))
			return TG_ENOMEM;
		emit(p, p->elbow);
		buf_cut(&p->prefix, plen);
		return 0;
	}
	size_t nk = 0;
	TG_DIFF_CHILDREN(d->nodes, node, ch)
		nk++;
	size_t k = 0;
	/* TraceLens's order: combined, then trace1, then trace2 */
	for (int side = 0; side < 3; side++)
		TG_DIFF_CHILDREN(d->nodes, node, ch) {
			if (d->nodes[ch].side != side)
				continue;
			k++;
			int rc = print_full(p, ch, k == nk, depth + 1);
			if (rc)
				return rc;
		}
	buf_cut(&p->prefix, plen);
	return 0;
}

static int annotate_lca(struct printer *p, const tg_diff_lca *L)
{
	char buf[160];
	snprintf(buf, sizeof(buf), "  [LCA: base %zu kernel%s %.3f us busy, new %zu kernel%s %.3f us busy]", L->nbase,
	         L->nbase == 1 ? "" : "s", L->base_busy_ns / 1000.0, L->nnew, L->nnew == 1 ? "" : "s",
	         L->new_busy_ns / 1000.0);
	return tg_buf_append(&p->line, buf, strlen(buf));
}

/* What print_diff shows of the nk children kids[] of node, into show[]: 1
 * shown and expanded (on the way to an LCA, or one-sided with device work
 * under an LCA), 2 shown as context (o.context siblings with GPU work
 * around a shown one), 3 summarised as an orphan (a device event no op
 * launched, at the top level: counted into orphans[side] and
 * orphan_ns[side]), 0 elided. depth: levels below the LCA. */
static void choose_shown(const struct printer *p, uint32_t node, const uint32_t *kids, size_t nk, int lca_here,
                         int depth, uint8_t *show, size_t orphans[2], int64_t orphan_ns[2])
{
	const tg_tree_diff *d = p->d;
	for (size_t k = 0; k < nk; k++) {
		const tg_diff_node *y = &d->nodes[kids[k]];
		if (node == 0 && lca_here && y->side != TG_DIFF_BOTH) {
			int s = y->side == TG_DIFF_BASE_ONLY ? 0 : 1;
			uint32_t ev = s ? y->new_ev : y->base_ev;
			if (tg_kind_is_gpu(ev_node(d, s, ev)->kind)) {
				orphans[s]++;
				orphan_ns[s] += tg_skeleton_dur(d->side[s].sk, side_node(d, s, ev));
				show[k] = 3;
				continue;
			}
		}
		if (p->mark[kids[k]] || (depth && y->side != TG_DIFF_BOTH && y->gpu))
			show[k] = 1;
	}
	if (p->o.context > 0)
		for (size_t k = 0; k < nk; k++) {
			if (show[k] != 1)
				continue;
			for (size_t q = k > (size_t)p->o.context ? k - (size_t)p->o.context : 0;
			     q <= k + (size_t)p->o.context && q < nk; q++)
				if (!show[q] && d->nodes[kids[q]].gpu)
					show[q] = 2;
		}
}

/* One line for the run of elided children kids[k..q) ("... N matching" or
 * "... N more (M with GPU work)"); last: nothing follows it. */
static int print_elided(struct printer *p, const uint32_t *kids, size_t k, size_t q, int last)
{
	const tg_tree_diff *d = p->d;
	if (full(p)) {
		p->dropped++;
		return 0;
	}
	size_t ncomb = 0, ngpu = 0;
	for (size_t x = k; x < q; x++) {
		ncomb += d->nodes[kids[x]].side == TG_DIFF_BOTH;
		ngpu += d->nodes[kids[x]].gpu;
	}
	char buf[96];
	if (ncomb == q - k)
		snprintf(buf, sizeof(buf), "... %zu matching", q - k);
	else
		snprintf(buf, sizeof(buf), "... %zu more (%zu with GPU work)", q - k, ngpu);
	tg_buf_reset(&p->line);
	int rc = tg_buf_append(&p->line, buf, strlen(buf));
	if (!rc)
		emit(p, last ? p->elbow : p->tee);
	return rc;
}

/* The summary line of the orphaned device events, last under the root. */
static int print_orphans(struct printer *p, const size_t orphans[2], const int64_t orphan_ns[2])
{
	char buf[200];
	snprintf(buf, sizeof(buf),
	         "... no launching op (launched before the profiled window, or GPU-only): "
	         "base %zu device event%s %.3f us, new %zu %.3f us",
	         orphans[0], orphans[0] == 1 ? "" : "s", (double)orphan_ns[0] / 1000.0, orphans[1],
	         (double)orphan_ns[1] / 1000.0);
	tg_buf_reset(&p->line);
	int rc = tg_buf_append(&p->line, buf, strlen(buf));
	if (!rc)
		emit(p, p->elbow);
	return rc;
}

/* only_diffs: a node and what is worth showing under it. in_lca: levels
 * below the LCA this node is (0: not under one). */
static int print_diff(struct printer *p, uint32_t node, int is_last, int in_lca, int expand_kids, int level)
{
	const tg_tree_diff *d = p->d;
	if (node && full(p)) {
		p->dropped++;
	} else if (node) {
		tg_buf_reset(&p->line);
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
	TG_DIFF_CHILDREN(d->nodes, node, ch)
		nk++;
	if (!nk)
		return 0;
	struct level *lv = &p->levels[level];
	if (tg_grow((void **)&lv->kids, &lv->cap_kids, nk, sizeof(uint32_t)) ||
	    tg_grow((void **)&lv->show, &lv->cap_show, nk, 1))
		return TG_ENOMEM;
	uint32_t *kids = lv->kids; /* the deeper levels use levels of their own */
	uint8_t *show = lv->show;
	memset(show, 0, nk);
	size_t k = 0;
	TG_DIFF_CHILDREN(d->nodes, node, ch)
		kids[k++] = ch;
	/* at the top level, device events no op launched (their launch fell
	 * outside the profiled window; communication, GPU-only traces) are one
	 * summary line per side, not a line each */
	size_t orphans[2] = {0, 0};
	int64_t orphan_ns[2] = {0, 0};
	choose_shown(p, node, kids, nk, lca_here, depth, show, orphans, orphan_ns);
	int any_orphan = orphans[0] || orphans[1];
	size_t plen = p->prefix.len;
	const char *ext = node == 0 || full(p) ? "" : is_last ? p->blank : p->bar;
	int rc = *ext ? tg_buf_append(&p->prefix, ext, strlen(ext)) : 0;
	size_t lastshown = nk;
	for (k = 0; k < nk; k++)
		if (show[k] && show[k] != 3)
			lastshown = k;
	for (k = 0; k < nk && !rc;) {
		if (show[k] == 3) {
			k++;
		} else if (show[k]) {
			int last = k == lastshown && k == nk - 1 && !any_orphan;
			rc = print_diff(p, kids[k], last, depth, show[k] == 1, level + 1);
			k++;
		} else {
			size_t q = k;
			while (q < nk && !show[q])
				q++;
			rc = print_elided(p, kids, k, q, q == nk && !any_orphan);
			k = q;
		}
	}
	if (!rc && any_orphan)
		rc = print_orphans(p, orphans, orphan_ns);
	buf_cut(&p->prefix, plen);
	return rc;
}

int tg_tree_diff_print(FILE *f, const tg_tree_diff *d, const tg_diff_print_opts *opts)
{
	if (!d->nodes)
		return tg_error_set(TG_EINVAL, "tree diff: made lean, it has no merged tree to print");
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
	int rc = tg_buf_append(&p.prefix, "", 0);
	if (!rc && !p.o.only_diffs) {
		size_t nr = 0;
		TG_DIFF_CHILDREN(d->nodes, 0, ch)
			nr++;
		size_t k = 0;
		TG_DIFF_CHILDREN(d->nodes, 0, ch) {
			if (rc)
				break;
			k++;
			rc = print_full(&p, ch, k == nr, 1);
		}
	} else if (!rc) {
		p.mark = tg_calloc(d->nnodes + 1, 1);
		p.lcaidx = tg_malloc((d->nnodes + 1) * sizeof(uint32_t));
		p.levels = tg_calloc(PRINT_DEPTH, sizeof(*p.levels));
		if (!p.mark || !p.lcaidx || !p.levels) {
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
				tg_buf_reset(&p.line);
				rc = tg_buf_append(&p.line, "(no divergence: every GPU event matched)", 40);
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
	tg_buf_free(&p.prefix);
	tg_buf_free(&p.line);
	free(p.mark);
	free(p.lcaidx);
	for (size_t l = 0; p.levels && l < PRINT_DEPTH; l++) {
		free(p.levels[l].kids);
		free(p.levels[l].show);
	}
	free(p.levels);
	if (rc)
		return rc;
	if (p.err || ferror(f))
		return tg_error_set(TG_EIO, "tree diff: write failed");
	return 0;
}
