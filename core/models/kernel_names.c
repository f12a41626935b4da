/*
 * kernel_names.c - the kernel-name table's matcher. The table itself is
 * data (core/models/kernel_names.tsv), turned into tg_kernel_name_rules[] at build
 * time; this file only matches names against it.
 */
#include "kernel_names.h"

#include <string.h>

/* Glob with '*' only: match the literal pieces between stars left to
 * right. The first piece is anchored at the start unless the pattern
 * starts with '*', the last at the end unless it ends with '*'; a middle
 * piece may go anywhere after the previous one, and taking its leftmost
 * occurrence is always safe (any later match leaves less room). */
int tg_glob_match(const char *pattern, const char *s)
{
	const char *p = pattern;
	size_t slen = strlen(s);
	const char *end = s + slen;
	/* leading literal */
	const char *star = strchr(p, '*');
	if (!star)
		return strcmp(p, s) == 0;
	size_t n = (size_t)(star - p);
	if (n > slen || memcmp(p, s, n))
		return 0;
	s += n;
	p = star + 1;
	for (;;) {
		star = strchr(p, '*');
		if (!star) {
			/* trailing literal: anchored at the end */
			size_t m = strlen(p);
			return (size_t)(end - s) >= m && memcmp(end - m, p, m) == 0;
		}
		n = (size_t)(star - p);
		if (n) {
			const char *hit = NULL;
			/* leftmost occurrence of p[0..n) in s */
			for (const char *q = s; (size_t)(end - q) >= n; q++) {
				q = memchr(q, p[0], (size_t)(end - q) - n + 1);
				if (!q)
					break;
				if (!memcmp(q, p, n)) {
					hit = q;
					break;
				}
			}
			if (!hit)
				return 0;
			s = hit + n;
		}
		p = star + 1;
	}
}

const tg_kernel_name_rule *tg_kernel_name_classify(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < tg_kernel_name_nrules; i++)
		if (tg_glob_match(tg_kernel_name_rules[i].pattern, name))
			return &tg_kernel_name_rules[i];
	return NULL;
}
