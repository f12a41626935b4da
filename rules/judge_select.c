/*
 * judge_select.c - whether a rule's selectors take a kernel record
 * (judge_impl.h), with each pattern's answers kept per distinct name: a
 * side of 100,000 records asks fnmatch or regexec once per name.
 */
#include "judge_impl.h"

static const char *kstr(const tg_atoms *keys, uint32_t a)
{
	return a == TG_NONE ? "" : tg_atoms_str(keys, a);
}

/* A pattern's answer for atom a: 0 not asked yet, 1 matches, 2 does not.
 * NULL memo (no memory): asked every time. */
static int memo_match(uint8_t *memo, uint32_t natoms, const tg_pattern *p, const tg_atoms *keys, uint32_t a)
{
	if (!p->text)
		return 1;
	if (!memo || a == TG_NONE || a >= natoms)
		return tg_pattern_match(p, kstr(keys, a));
	if (!memo[a])
		memo[a] = tg_pattern_match(p, kstr(keys, a)) ? 1 : 2;
	return memo[a] == 1;
}

int tg_judge_rec_matches(const tg_rule *r, const tg_atoms *keys, const tg_kernel_rec *k, uint8_t *memo, uint32_t natoms)
{
	uint8_t *m = memo;
	return (r->stream < 0 || r->stream == k->stream) && (r->rank < 0 || r->rank == k->rank) &&
	       memo_match(m, natoms, &r->category, keys, k->category) &&
	       memo_match(m ? m + natoms : NULL, natoms, &r->op, keys, k->op) &&
	       memo_match(m ? m + 2 * (size_t)natoms : NULL, natoms, &r->kernel, keys, k->kernel) &&
	       memo_match(m ? m + 3 * (size_t)natoms : NULL, natoms, &r->module, keys, k->module) &&
	       memo_match(m ? m + 4 * (size_t)natoms : NULL, natoms, &r->shape, keys, k->op_shape);
}
