/*
 * path_suffix.c - the shortest distinguishing suffix of each path
 * (path_suffix.h). Quadratic in the number of paths, which are a diff's
 * traces (a few ranks or runs a side): simpler than a suffix trie and
 * never the cost that matters.
 */
#include "path_suffix.h"

#include <string.h>

/* The start of the last k components of p (k >= 1), or p itself when it
 * has no more than k. */
static const char *last_components(const char *p, size_t k)
{
	const char *s = p + strlen(p);
	while (s > p && s[-1] == '/') /* a trailing slash ends no component */
		s--;
	for (; s > p; s--)
		if (s[-1] == '/' && --k == 0)
			return s;
	return p;
}

/* 1 when path a ends with the suffix s at a component boundary. */
static int ends_with_component(const char *a, const char *s)
{
	size_t la = strlen(a), ls = strlen(s);
	if (ls > la || strcmp(a + la - ls, s))
		return 0;
	return la == ls || a[la - ls - 1] == '/';
}

void tg_path_unique_suffixes(const char **out, const char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *p = paths[i];
		out[i] = p;
		for (size_t k = 1;; k++) {
			const char *s = last_components(p, k);
			int clash = 0;
			for (size_t j = 0; j < n && !clash; j++)
				clash = j != i && strcmp(paths[j], p) && ends_with_component(paths[j], s);
			if (!clash || s == p) {
				out[i] = s;
				break;
			}
		}
	}
}
