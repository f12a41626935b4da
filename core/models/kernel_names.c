/*
 * kernel_names.c - the kernel-name table's matcher. The table itself is
 * data (core/models/kernel_names.tsv), turned into tg_kernel_name_rules[] at build
 * time; this file only matches names against it.
 */
#include "kernel_names.h"

#include <pthread.h>
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

/* ------------------------------------------------------------ the prefilter
 *
 * Each of the ~190 rules was a glob match of the name (about 200
 * instructions: 39,000 a distinct kernel name, 2 M of a compiled h200-dev
 * report's 146 M, 8 M of a 128-rank HTA sample's small report). A rule can
 * only match a name that holds every pair of adjacent bytes of the rule's
 * longest literal piece; so each name's pairs go into a set of 1,024 bits
 * (a hash of the pair: equal pairs, equal bits; a collision only lets a
 * rule through to its glob), and a rule whose pairs are not all in it is
 * skipped without its glob. Built once, on the first classification. */

#define PAIR_BITS 1024
#define RULE_PAIRS 8 /* a piece's first distinct pairs are enough to tell */
#define MAX_FILTERED 1024 /* rules past this many are globbed without a filter */

static unsigned pair_hash(unsigned char a, unsigned char b) { return (a * 37u + b) & (PAIR_BITS - 1); }

struct rule_pairs {
	uint16_t pair[RULE_PAIRS];
	uint8_t n; /* 0: the rule has no piece of two bytes, always globbed */
};

static struct rule_pairs rule_pairs[MAX_FILTERED];
static pthread_once_t rule_pairs_once = PTHREAD_ONCE_INIT;

/* The pairs of rule i's longest literal piece (between stars). */
static void rule_pairs_build(void)
{
	size_t n = tg_kernel_name_nrules < MAX_FILTERED ? tg_kernel_name_nrules : MAX_FILTERED;
	for (size_t i = 0; i < n; i++) {
		const char *p = tg_kernel_name_rules[i].pattern, *best = p;
		size_t best_len = 0;
		while (*p) {
			size_t len = strcspn(p, "*");
			if (len > best_len) {
				best = p;
				best_len = len;
			}
			p += len;
			while (*p == '*')
				p++;
		}
		struct rule_pairs *rp = &rule_pairs[i];
		for (size_t k = 0; k + 1 < best_len && rp->n < RULE_PAIRS; k++) {
			uint16_t h = (uint16_t)pair_hash((unsigned char)best[k], (unsigned char)best[k + 1]);
			int seen = 0;
			for (size_t j = 0; j < rp->n && !seen; j++)
				seen = rp->pair[j] == h;
			if (!seen)
				rp->pair[rp->n++] = h;
		}
	}
}

const tg_kernel_name_rule *tg_kernel_name_classify(const char *name)
{
	if (!name)
		return NULL;
	pthread_once(&rule_pairs_once, rule_pairs_build);
	uint64_t have[PAIR_BITS / 64] = {0};
	for (const unsigned char *u = (const unsigned char *)name; u[0] && u[1]; u++) {
		unsigned h = pair_hash(u[0], u[1]);
		have[h / 64] |= UINT64_C(1) << (h % 64);
	}
	for (size_t i = 0; i < tg_kernel_name_nrules; i++) {
		if (i < MAX_FILTERED) {
			const struct rule_pairs *rp = &rule_pairs[i];
			size_t k = 0;
			while (k < rp->n && (have[rp->pair[k] / 64] >> (rp->pair[k] % 64) & 1))
				k++;
			if (k < rp->n)
				continue; /* a pair of its longest piece is not in the name */
		}
		if (tg_glob_match(tg_kernel_name_rules[i].pattern, name))
			return &tg_kernel_name_rules[i];
	}
	return NULL;
}
