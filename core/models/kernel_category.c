/*
 * kernel_category.c - a kernel's category in the default classification:
 * backward link, enclosing op, launching op, kernel name (see the header).
 * Decisions that depend only on the launcher are cached per launcher (a
 * direct-mapped cache of DEC_SLOTS: a graph launch's hundreds of kernels
 * decide once, and a 1 GB trace's 500,000 launcher events take no map as
 * long as they are), the kernel-name match per distinct name: a trace has
 * millions of kernels but hundreds of kernel names.
 */
#include "kernel_category.h"
#include "../trace/categorize.h"
#include "../../util/idmap.h"

#include <stdlib.h>
#include <string.h>

/* how far up the tree a walk goes: deeper stacks than this are not ops */
#define MAX_WALK 256

struct decision {
	const char *category; /* NULL: the kernel's name decides */
	uint8_t source;
	uint32_t via;
};

/* The decisions cached, by launcher modulo DEC_SLOTS; a slot another
 * launcher took is decided again (decide() is a function of the launcher). */
#define DEC_SLOTS 4096

struct dec_slot {
	uint32_t launcher; /* TG_NONE: empty */
	struct decision d;
};

/* The distinct op families met (tg_op_family gives static strings, a few
 * dozen of them), so that an atom's family takes one byte, not a pointer. */
#define MAX_FAMILIES 255

struct families {
	const char *v[MAX_FAMILIES];
	uint8_t composite[MAX_FAMILIES]; /* is_composite(v[i]), asked of every ancestor of every launch */
	size_t n;
};

struct tg_categorizer {
	const tg_tree *tree;
	const tg_trace *trace;
	const tg_event *ev;
	uint16_t *name_rule; /* per atom: 0 not looked up, 1 no rule, 2 + i rule i */
	uint8_t *family;     /* per atom: 0 not looked up, 1 + i the name's tg_op_family is fams->v[i] */
	struct families *fams;
	size_t natoms;
	tg_idmap *fwd;       /* Sequence number -> forward op */
	struct dec_slot *dec; /* DEC_SLOTS */
	uint32_t k_seq, k_fwd_tid;
};

const char *tg_cat_source_name(tg_cat_source s)
{
	static const char *const names[TG_CAT_SRC_COUNT] = {"none", "op", "enclosing op", "backward link",
	                                                    "kernel name", "event", "tree diff"};
	return (unsigned)s < TG_CAT_SRC_COUNT ? names[s] : "none";
}

static int arg_int(const tg_categorizer *c, uint32_t e, uint32_t key, int64_t *out)
{
	if (key == TG_NONE)
		return -1;
	const tg_arg *a = tg_event_arg(c->trace, &c->ev[e], key);
	return a ? tg_arg_int(c->trace, a, out) : -1;
}

/* The map of forward ops, Sequence number -> op: cpu_ops with a Sequence
 * number and a Fwd thread id of 0 or none (backward nodes carry the
 * forward's thread, 1 and up); the first in the file wins, and ops that
 * share a number (a composite op and the op under it) share ancestors.
 * Sized from a first pass over the numbers' range: autograd numbers them
 * 0, 1, 2..., so the map is a plain array of 4 bytes a number, not a hash
 * of 32 bytes a key. 0 or TG_ENOMEM. */
static int fwd_map(tg_categorizer *c, size_t ne)
{
	size_t n = 0;
	int64_t lo = INT64_MAX, hi = INT64_MIN, seq, tid;
	for (size_t i = 0; c->k_seq != TG_NONE && i < ne; i++) {
		if (c->ev[i].kind != TG_KIND_CPU_OP || c->ev[i].args == TG_NONE ||
		    arg_int(c, (uint32_t)i, c->k_seq, &seq) || seq < 0)
			continue;
		n++;
		lo = seq < lo ? seq : lo;
		hi = seq > hi ? seq : hi;
	}
	c->fwd = n ? tg_idmap_new_range(n, lo, hi) : tg_idmap_new(0);
	if (!c->fwd)
		return TG_ENOMEM;
	for (size_t i = 0; n && i < ne; i++) {
		const tg_event *e = &c->ev[i];
		if (e->kind != TG_KIND_CPU_OP || e->args == TG_NONE)
			continue;
		if (arg_int(c, (uint32_t)i, c->k_seq, &seq) || seq < 0)
			continue;
		if (!arg_int(c, (uint32_t)i, c->k_fwd_tid, &tid) && tid > 0)
			continue;
		if (tg_idmap_put(c->fwd, seq, (uint32_t)i) < 0)
			return TG_ENOMEM;
	}
	return 0;
}

int tg_categorizer_new(tg_categorizer **out, const tg_tree *tree)
{
	*out = NULL;
	tg_categorizer *c = tg_calloc(1, sizeof(*c));
	if (!c)
		return TG_ENOMEM;
	c->tree = tree;
	c->trace = tg_tree_trace(tree);
	size_t ne;
	c->ev = tg_trace_events(c->trace, &ne);
	c->natoms = tg_atoms_count(tg_trace_atoms(c->trace));
	c->name_rule = tg_calloc(c->natoms ? c->natoms : 1, sizeof(uint16_t));
	c->family = tg_calloc(c->natoms ? c->natoms : 1, 1);
	c->fams = tg_calloc(1, sizeof(*c->fams));
	c->k_seq = tg_trace_key(c->trace, "Sequence number");
	c->k_fwd_tid = tg_trace_key(c->trace, "Fwd thread id");
	c->dec = tg_malloc(DEC_SLOTS * sizeof(*c->dec));
	if (!c->name_rule || !c->family || !c->fams || !c->dec || fwd_map(c, ne)) {
		tg_categorizer_free(c);
		return TG_ENOMEM;
	}
	for (size_t i = 0; i < DEC_SLOTS; i++)
		c->dec[i].launcher = TG_NONE;
	*out = c;
	return 0;
}

void tg_categorizer_free(tg_categorizer *c)
{
	if (!c)
		return;
	free(c->name_rule);
	free(c->family);
	free(c->fams);
	tg_idmap_free(c->fwd);
	free(c->dec);
	free(c);
}

const tg_kernel_name_rule *tg_categorizer_name_rule(tg_categorizer *c, uint32_t name)
{
	if (name >= c->natoms)
		return NULL;
	uint16_t r = c->name_rule[name];
	if (!r) {
		const tg_kernel_name_rule *rule = tg_kernel_name_classify(tg_trace_str(c->trace, name));
		r = rule ? (uint16_t)(2 + (rule - tg_kernel_name_rules)) : 1;
		c->name_rule[name] = r;
	}
	return r >= 2 ? &tg_kernel_name_rules[r - 2] : NULL;
}

/* Attention, norms and convolutions: ops whose children's kernels are the
 * op's own work, forward or backward. */
static int is_composite(const char *cat)
{
	return !strcmp(cat, "SDPA_fwd") || !strcmp(cat, "SDPA_bwd") || !strcmp(cat, "NORM_fwd") ||
	       !strcmp(cat, "NORM_bwd") || !strcmp(cat, "CONV_fwd") || !strcmp(cat, "CONV_bwd");
}

static const char *backward_of(const char *cat)
{
	if (!strcmp(cat, "SDPA_fwd"))
		return "SDPA_bwd";
	if (!strcmp(cat, "NORM_fwd"))
		return "NORM_bwd";
	if (!strcmp(cat, "CONV_fwd"))
		return "CONV_bwd";
	return cat;
}

/* tg_op_family of e's name, once per name (a walk up the tree asks it of
 * every ancestor of every launch) */
static const char *op_family(const tg_categorizer *c, uint32_t e)
{
	uint32_t name = c->ev[e].name;
	if (name >= c->natoms)
		return tg_op_family(tg_trace_str(c->trace, name));
	if (c->family[name])
		return c->fams->v[c->family[name] - 1];
	const char *f = tg_op_family(tg_trace_str(c->trace, name));
	size_t i = 0;
	while (i < c->fams->n && c->fams->v[i] != f)
		i++;
	if (i == c->fams->n) {
		if (i == MAX_FAMILIES)
			return f; /* not kept: asked again next time */
		c->fams->composite[c->fams->n] = (uint8_t)is_composite(f);
		c->fams->v[c->fams->n++] = f;
	}
	c->family[name] = (uint8_t)(i + 1);
	return f;
}

/* is_composite of e's family: the answer kept beside the family (six
 * string comparisons an ancestor of every launch otherwise). */
static int family_composite(const tg_categorizer *c, uint32_t e)
{
	const char *f = op_family(c, e);
	uint32_t name = c->ev[e].name;
	if (name < c->natoms && c->family[name])
		return c->fams->composite[c->family[name] - 1];
	return is_composite(f);
}

/* The outermost cpu_op from e up (e included when self) whose family is
 * composite, or TG_NONE. */
static uint32_t outermost_composite(const tg_categorizer *c, uint32_t e, int self)
{
	uint32_t found = TG_NONE;
	int depth = 0;
	for (uint32_t p = self ? e : tg_tree_parent(c->tree, e); p != TG_NONE && depth < MAX_WALK;
	     p = tg_tree_parent(c->tree, p), depth++)
		if (c->ev[p].kind == TG_KIND_CPU_OP && family_composite(c, p))
			found = p;
	return found;
}

/* The forward op of the autograd node that e runs in (e or an ancestor
 * with a Fwd thread id above 0), or TG_NONE. */
static uint32_t forward_op(const tg_categorizer *c, uint32_t e)
{
	if (c->k_fwd_tid == TG_NONE || c->k_seq == TG_NONE)
		return TG_NONE;
	int depth = 0;
	for (uint32_t p = e; p != TG_NONE && depth < MAX_WALK; p = tg_tree_parent(c->tree, p), depth++) {
		if (c->ev[p].kind != TG_KIND_CPU_OP || c->ev[p].args == TG_NONE)
			continue;
		int64_t tid, seq;
		if (arg_int(c, p, c->k_fwd_tid, &tid) || tid <= 0 || arg_int(c, p, c->k_seq, &seq))
			continue;
		return seq >= 0 ? tg_idmap_get(c->fwd, seq) : TG_NONE;
	}
	return TG_NONE;
}

/* What the launcher alone decides. */
static struct decision decide(const tg_categorizer *c, uint32_t launcher, const char *op_cat)
{
	/* backward link to a composite forward */
	uint32_t f = forward_op(c, launcher);
	const char *fam = NULL;
	uint32_t fam_via = TG_NONE;
	if (f != TG_NONE) {
		uint32_t comp = outermost_composite(c, f, 1);
		fam_via = comp != TG_NONE ? comp : f;
		fam = op_family(c, fam_via);
		if (comp != TG_NONE) {
			const char *bc = backward_of(fam);
			/* the launching op says the same (aten::_flash_attention_backward):
			 * the plainer evidence */
			if (op_cat && !strcmp(op_cat, bc))
				return (struct decision){op_cat, TG_CAT_SRC_OP, launcher};
			return (struct decision){bc, TG_CAT_SRC_BACKWARD, comp};
		}
	}
	/* an enclosing composite op */
	if (c->ev[launcher].kind == TG_KIND_CPU_OP || c->ev[launcher].kind == TG_KIND_USER_ANNOTATION ||
	    tg_kind_is_launch(c->ev[launcher].kind)) {
		uint32_t enc = outermost_composite(c, launcher, 0);
		if (enc != TG_NONE) {
			const char *ec = op_family(c, enc);
			if (!op_cat || strcmp(ec, op_cat))
				return (struct decision){ec, TG_CAT_SRC_ENCLOSING, enc};
		}
	}
	if (tg_op_category_informative(op_cat))
		return (struct decision){op_cat, TG_CAT_SRC_OP, launcher};
	if (fam && tg_op_category_informative(fam))
		return (struct decision){backward_of(fam), TG_CAT_SRC_BACKWARD, fam_via};
	return (struct decision){NULL, TG_CAT_SRC_NONE, launcher};
}

int tg_categorizer_kernel(tg_kernel_cat *out, tg_categorizer *c, uint32_t ev, uint32_t launcher,
                          const char *op_category)
{
	const tg_event *e = &c->ev[ev];
	out->rule = e->kind == TG_KIND_KERNEL ? tg_categorizer_name_rule(c, e->name) : NULL;
	out->via = TG_NONE;
	if (launcher == TG_NONE) {
		if (e->kind == TG_KIND_KERNEL && (tg_trace_name_flags(c->trace, e->name) & TG_NAME_COMM)) {
			out->category = "communication";
			out->source = TG_CAT_SRC_EVENT;
		} else if (e->kind == TG_KIND_MEMCPY || e->kind == TG_KIND_MEMSET) {
			out->category = e->kind == TG_KIND_MEMCPY ? "memcpy" : "memset";
			out->source = TG_CAT_SRC_EVENT;
		} else if (out->rule) {
			out->category = out->rule->category;
			out->source = TG_CAT_SRC_KERNEL;
		} else {
			out->category = "unlinked";
			out->source = TG_CAT_SRC_NONE;
		}
		return 0;
	}
	struct dec_slot *slot = &c->dec[launcher % DEC_SLOTS];
	if (slot->launcher != launcher) {
		slot->launcher = launcher;
		slot->d = decide(c, launcher, op_category);
	}
	const struct decision *d = &slot->d;
	if (d->category) {
		out->category = d->category;
		out->source = d->source;
		out->via = d->via;
	} else if (out->rule) {
		out->category = out->rule->category;
		out->source = TG_CAT_SRC_KERNEL;
	} else if (e->kind == TG_KIND_MEMCPY || e->kind == TG_KIND_MEMSET) {
		out->category = e->kind == TG_KIND_MEMCPY ? "memcpy" : "memset";
		out->source = TG_CAT_SRC_EVENT;
	} else {
		out->category = op_category ? op_category : "other";
		out->source = TG_CAT_SRC_NONE;
		out->via = launcher;
	}
	return 0;
}
