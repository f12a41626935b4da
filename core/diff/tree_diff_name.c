/*
 * tree_diff_name.c - the names the tree diff compares (tree_diff.h,
 * tree_diff_impl.h): TraceLens's _normalize_name_for_comparison, written
 * by hand as two passes over the name instead of its regular expressions,
 * because it runs once per distinct name of both traces and a regex
 * library would add a dependency for four fixed patterns.
 */
#include "tree_diff_impl.h"

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* TraceLens's _normalize_name_for_comparison into b (reset first):
 *   re.sub(r"0x[0-9a-fA-F]+", "0xXXXX"), then re.sub(r"\.py\(\d+\):", ".py:"),
 *   with strip_details re.sub(r":\s+\S+$", "") and
 *   re.sub(r"^.*\/([^/]+\.py)$", r"\1"); then hipModuleLaunchKernel and
 *   cuLaunchKernel become __kernel_launch__. */
int tg_tree_diff_normalize(struct sbuf *b, struct sbuf *tmp, const char *s, int strip)
{
	size_t n = strlen(s);
	tmp->n = 0;
	if (sb_put(tmp, "", 0))
		return TG_ENOMEM;
	for (size_t i = 0; i < n;) {
		if (s[i] == '0' && i + 2 < n && s[i + 1] == 'x' && is_hex(s[i + 2])) {
			size_t k = i + 2;
			while (k < n && is_hex(s[k]))
				k++;
			if (sb_put(tmp, "0xXXXX", 6))
				return TG_ENOMEM;
			i = k;
			continue;
		}
		if (sb_put(tmp, s + i, 1))
			return TG_ENOMEM;
		i++;
	}
	b->n = 0;
	if (sb_put(b, "", 0))
		return TG_ENOMEM;
	const char *t = tmp->s;
	n = tmp->n;
	for (size_t i = 0; i < n;) {
		if (n - i >= 4 && !memcmp(t + i, ".py(", 4)) {
			size_t k = i + 4;
			while (k < n && t[k] >= '0' && t[k] <= '9')
				k++;
			if (k > i + 4 && k + 1 < n && t[k] == ')' && t[k + 1] == ':') {
				if (sb_put(b, ".py:", 4))
					return TG_ENOMEM;
				i = k + 2;
				continue;
			}
		}
		if (sb_put(b, t + i, 1))
			return TG_ENOMEM;
		i++;
	}
	if (strip) {
		/* leftmost ':' followed by \s+\S+ up to the end */
		n = b->n;
		for (size_t i = 0; i < n; i++) {
			if (b->s[i] != ':')
				continue;
			size_t k = i + 1;
			if (k >= n || !is_space(b->s[k]))
				continue;
			while (k < n && is_space(b->s[k]))
				k++;
			if (k >= n)
				continue;
			size_t q = k;
			while (q < n && !is_space(b->s[q]))
				q++;
			if (q == n) {
				b->n = i;
				b->s[i] = 0;
				break;
			}
		}
		n = b->n;
		if (n >= 3 && !memcmp(b->s + n - 3, ".py", 3)) {
			const char *slash = memrchr(b->s, '/', n);
			if (slash && (size_t)(b->s + n - (slash + 1)) >= 4) {
				size_t off = (size_t)(slash + 1 - b->s);
				memmove(b->s, b->s + off, n - off + 1);
				b->n = n - off;
			}
		}
	}
	if (!strcmp(b->s, "hipModuleLaunchKernel") || !strcmp(b->s, "cuLaunchKernel")) {
		b->n = 0;
		if (sb_put(b, "__kernel_launch__", 17))
			return TG_ENOMEM;
	}
	return 0;
}

size_t tg_diff_normalize_name(char *buf, size_t size, const char *name, int strip_details)
{
	struct sbuf b = {0}, tmp = {0};
	int ok = !tg_tree_diff_normalize(&b, &tmp, name, strip_details);
	size_t len = sb_copy_out(buf, size, ok ? &b : NULL);
	free(b.s);
	free(tmp.s);
	return len;
}
