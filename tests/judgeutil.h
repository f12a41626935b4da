/*
 * judgeutil.h - for the judge's tests: the measures of two sides judged
 * under rules given as YAML, kept together so that a test can read the
 * judgement's items and free everything at once.
 */
#ifndef TG_JUDGEUTIL_H
#define TG_JUDGEUTIL_H

#include "testutil.h"

#include "../rules/judge.h"

struct judged {
	tg_atoms *keys;
	tg_measure *b, *n;
	tg_rules *rules;
	tg_judgement *j;
};

/* Judges the trees of each side (nb and nn of them) under yaml (NULL: the
 * default rules) with options o (may be NULL); fails the test on an error. */
static inline void judge_trees(struct judged *x, const tg_tree *const *bt, size_t nb, const tg_tree *const *nt,
                               size_t nn, const char *yaml, const tg_judge_opts *o)
{
	memset(x, 0, sizeof(*x));
	x->keys = tg_atoms_new();
	assert_non_null(x->keys);
	assert_int_equal(tg_measure_build(&x->b, bt, nb, x->keys), 0);
	assert_int_equal(tg_measure_build(&x->n, nt, nn, x->keys), 0);
	if (yaml ? tg_rules_load_mem(&x->rules, yaml, strlen(yaml), "test.yaml") : tg_rules_load_default(&x->rules))
		fail_msg("rules: %s", tg_error_last());
	if (tg_judge(&x->j, x->rules, x->b, x->n, x->keys, o))
		fail_msg("judge: %s", tg_error_last());
}

static inline void judged_free(struct judged *x)
{
	tg_judgement_free(x->j);
	tg_rules_free(x->rules);
	tg_measure_free(x->b);
	tg_measure_free(x->n);
	tg_atoms_free(x->keys);
}

/* The item it of rule rule in j; fails the test when there is none. */
static inline const tg_judged *judgement_item(const tg_judgement *j, const char *rule, const char *it)
{
	size_t n;
	const tg_judged *v = tg_judgement_items(j, &n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].rule->name, rule) && !strcmp(v[i].item, it))
			return &v[i];
	fail_msg("no item %s / '%s'", rule, it);
	return NULL;
}

static inline const tg_judged *item(const struct judged *x, const char *rule, const char *it)
{
	return judgement_item(x->j, rule, it);
}

#endif
