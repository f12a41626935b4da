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
int tg_tree_diff_normalize(tg_buf *b, tg_buf *tmp, const char *s, int strip)
{
	size_t n = strlen(s);
	tg_buf_reset(tmp);
	if (tg_buf_append(tmp, "", 0))
		return TG_ENOMEM;
	for (size_t i = 0; i < n;) {
		if (s[i] == '0' && i + 2 < n && s[i + 1] == 'x' && is_hex(s[i + 2])) {
			size_t k = i + 2;
			while (k < n && is_hex(s[k]))
				k++;
			if (tg_buf_append(tmp, "0xXXXX", 6))
				return TG_ENOMEM;
			i = k;
			continue;
		}
		if (tg_buf_append(tmp, s + i, 1))
			return TG_ENOMEM;
		i++;
	}
	tg_buf_reset(b);
	if (tg_buf_append(b, "", 0))
		return TG_ENOMEM;
	const char *t = tmp->data;
	n = tmp->len;
	for (size_t i = 0; i < n;) {
		if (n - i >= 4 && !memcmp(t + i, ".py(", 4)) {
			size_t k = i + 4;
			while (k < n && t[k] >= '0' && t[k] <= '9')
				k++;
			if (k > i + 4 && k + 1 < n && t[k] == ')' && t[k + 1] == ':') {
				if (tg_buf_append(b, ".py:", 4))
					return TG_ENOMEM;
				i = k + 2;
				continue;
			}
		}
		if (tg_buf_append(b, t + i, 1))
			return TG_ENOMEM;
		i++;
	}
	if (strip) {
		/* leftmost ':' followed by \s+\S+ up to the end */
		n = b->len;
		for (size_t i = 0; i < n; i++) {
			if (b->data[i] != ':')
				continue;
			size_t k = i + 1;
			if (k >= n || !is_space(b->data[k]))
				continue;
			while (k < n && is_space(b->data[k]))
				k++;
			if (k >= n)
				continue;
			size_t q = k;
			while (q < n && !is_space(b->data[q]))
				q++;
			if (q == n) {
				buf_cut(b, i);
				break;
			}
		}
		n = b->len;
		if (n >= 3 && !memcmp(b->data + n - 3, ".py", 3)) {
			const char *slash = memrchr(b->data, '/', n);
			if (slash && (size_t)(b->data + n - (slash + 1)) >= 4) {
				size_t off = (size_t)(slash + 1 - b->data);
				memmove(b->data, b->data + off, n - off + 1);
				b->len = n - off;
			}
		}
	}
	if (!strcmp(tg_buf_str(b), "hipModuleLaunchKernel") || !strcmp(tg_buf_str(b), "cuLaunchKernel")) {
		tg_buf_reset(b);
		if (tg_buf_append(b, "__kernel_launch__", 17))
			return TG_ENOMEM;
	}
	return 0;
}

size_t tg_diff_normalize_name(char *buf, size_t size, const char *name, int strip_details)
{
	tg_buf b = TG_BUF_INIT, tmp = TG_BUF_INIT;
	int ok = !tg_tree_diff_normalize(&b, &tmp, name, strip_details);
	size_t len = tg_buf_copy_out(buf, size, ok ? &b : NULL);
	tg_buf_free(&b);
	tg_buf_free(&tmp);
	return len;
}
