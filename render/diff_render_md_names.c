/*
 * diff_render_md_names.c - the comment's Markdown for kernel names and
 * tables (diff_render_impl.h): a kernel's name as people call it
 * ("flash_fwd_kernel"), two names shortened to what differs between them
 * with the whole in a tooltip, the sentences and the table of the
 * divergences, and a table's first rows. Formatting only.
 */
#include "../util/escape.h"
#include "diff_render_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_MD TG_DIFF_NAME_MAX_MD

/* The name people call a kernel by: before its template or argument list,
 * after its return type and namespaces ("flash_fwd_kernel"). */
static size_t head_end(const char *s)
{
	size_t i = 0;
	for (; s[i]; i++) {
		if (!strncmp(s + i, "(anonymous namespace)", 21)) {
			i += 20;
			continue;
		}
		if (s[i] == '<' || s[i] == '(')
			break;
	}
	return i;
}

static void kernel_head(char *buf, size_t cap, const char *s)
{
	size_t end = head_end(s);
	size_t start = 0;
	for (size_t i = 0; i < end; i++)
		if (s[i] == ' ' || (s[i] == ':' && s[i + 1] == ':'))
			start = i + (s[i] == ' ' ? 1 : 2);
	size_t n = end > start ? end - start : 0;
	if (!n) { /* no head before a template or argument list: the name */
		start = 0;
		n = strlen(s);
	}
	if (n > 48) { /* an untemplated name runs long too (Cijk_Alik_..._MT256x128x64_...) */
		n = 47;
		while (n > 0 && ((unsigned char)s[start + n] & 0xc0) == 0x80)
			n--;
		snprintf(buf, cap, "%.*s\xe2\x80\xa6", (int)n, s + start);
		return;
	}
	snprintf(buf, cap, "%.*s", (int)n, s + start);
}

/* The heads of a kernel list as the divergence table writes it ("a + b",
 * "name x3"): "flash_fwd_splitkv_kernel + flash_fwd_combine_kernel". */
static void list_heads(char *buf, size_t cap, const char *s)
{
	size_t o = 0;
	buf[0] = 0;
	for (int first = 1; *s && o < cap; first = 0) {
		const char *plus = strstr(s, " + ");
		size_t len = plus ? (size_t)(plus - s) : strlen(s);
		char part[1024], head[128];
		snprintf(part, sizeof(part), "%.*s", (int)(len < sizeof(part) - 1 ? len : sizeof(part) - 1), s);
		/* a repeat count " x3" stays after the head */
		char *x = strrchr(part, ' ');
		const char *times = "";
		if (x && x[1] == 'x' && x[2] && strspn(x + 2, "0123456789") == strlen(x + 2)) {
			*x = 0;
			times = x + 1;
		}
		kernel_head(head, sizeof(head), part);
		o += (size_t)snprintf(buf + o, cap - o, "%s%s%s%s", first ? "" : " + ", head, *times ? " " : "", times);
		s += len;
		if (plus)
			s += 3;
	}
}

#define MAX_TOK 256

/* The tokens of a name after its first '<' (runs of characters other than
 * < > , ( ) and space); their count, at most MAX_TOK (more: 0). */
static size_t name_tokens(const char *s, const char **tok, size_t *len)
{
	const char *p = strchr(s, '<');
	size_t n = 0;
	if (!p)
		return 0;
	while (*p) {
		while (*p && strchr("<>,() ", *p))
			p++;
		if (!*p)
			break;
		size_t l = strcspn(p, "<>,() ");
		if (n == MAX_TOK)
			return 0;
		tok[n] = p;
		len[n++] = l;
		p += l;
	}
	return n;
}

/* The two names shortened to what differs: "flash_fwd_kernel<…128…>" and
 * "<…64…>" when the template arguments differ in at most 4 places; else
 * their heads. Returns 1 when the names differ at all. */
static int names_differ(char *a, char *b, size_t cap, const char *x, const char *y)
{
	char head[128];
	kernel_head(head, sizeof(head), x);
	if (!strcmp(x, y)) {
		list_heads(a, cap, x);
		list_heads(b, cap, y);
		return 0;
	}
	const char *tx[MAX_TOK], *ty[MAX_TOK]; /* 8 KiB of stack in all */
	size_t lx[MAX_TOK], ly[MAX_TOK];
	size_t nx = name_tokens(x, tx, lx), ny = name_tokens(y, ty, ly), diffs = 0;
	char hy[128];
	kernel_head(hy, sizeof(hy), y);
	if (nx && nx == ny && !strcmp(head, hy)) {
		size_t oa = (size_t)snprintf(a, cap, "%s<", head), ob = (size_t)snprintf(b, cap, "<");
		for (size_t i = 0; i < nx; i++) {
			if (lx[i] == ly[i] && !memcmp(tx[i], ty[i], lx[i]))
				continue;
			if (++diffs > 4)
				break;
			if (oa < cap)
				oa += (size_t)snprintf(a + oa, cap - oa, "\xe2\x80\xa6%.*s", (int)lx[i], tx[i]);
			if (ob < cap)
				ob += (size_t)snprintf(b + ob, cap - ob, "\xe2\x80\xa6%.*s", (int)ly[i], ty[i]);
		}
		if (diffs && diffs <= 4) {
			if (oa < cap)
				snprintf(a + oa, cap - oa, "\xe2\x80\xa6>");
			if (ob < cap)
				snprintf(b + ob, cap - ob, "\xe2\x80\xa6>");
			return 1;
		}
	}
	list_heads(a, cap, x);
	list_heads(b, cap, y);
	return 1;
}

/* A short name as code with the whole name in a tooltip. */
static void md_titled(FILE *f, const char *shown, const char *full)
{
	if (!strcmp(shown, full)) {
		tg_md_code(f, full);
		return;
	}
	fputs("<span title=\"", f);
	tg_html_attr_escape(f, full);
	fputs("\">", f);
	tg_md_code(f, shown);
	fputs("</span>", f);
}

/* A kernel name as code: from the name people call it by (no return type
 * or namespaces), shortened to NAME_MAX_MD with the whole in a tooltip. */
static void md_kernel_name(FILE *f, const char *s)
{
	size_t end = head_end(s), start = 0;
	for (size_t i = 0; i < end; i++)
		if (s[i] == ' ' || (s[i] == ':' && s[i + 1] == ':'))
			start = i + (s[i] == ' ' ? 1 : 2);
	if (!start || start >= end) {
		tg_md_name(f, s, NAME_MAX_MD);
		return;
	}
	char shown[NAME_MAX_MD * 4];
	size_t n = strlen(s + start);
	if (n < NAME_MAX_MD) {
		snprintf(shown, sizeof(shown), "%s", s + start);
	} else {
		size_t k = NAME_MAX_MD - 1;
		while (k > 0 && ((unsigned char)s[start + k] & 0xc0) == 0x80)
			k--;
		snprintf(shown, sizeof(shown), "%.*s\xe2\x80\xa6", (int)k, s + start);
	}
	md_titled(f, shown, s);
}

/* One sentence per kind of divergence whose time changed (the largest 3):
 * "aten::_flash_attention_forward: flash_fwd_kernel<…128…> became <…64…>,
 * +23.7 % (87.2 us -> 107.9 us per step, 12 places)". Returns how many. */
int tg_diff_md_divergence_sentences(FILE *f, const tg_table *t)
{
	size_t nr = t ? tg_table_nrows(t) : 0;
	int said = 0;
	for (size_t r = 0; r < nr && said < 3; r++) {
		const char *where = tg_table_cell(t, r, 0)->v.s, *kb = tg_table_cell(t, r, 2)->v.s,
		           *kn = tg_table_cell(t, r, 3)->v.s;
		int64_t count = tg_table_cell(t, r, 4)->v.i;
		double bu = tg_table_cell(t, r, 5)->v.d, nu = tg_table_cell(t, r, 6)->v.d;
		double pct = bu > 0 ? 100.0 * (nu - bu) / bu : INFINITY;
		/* the top level (ops added or removed there, kernels no op
		 * launched) is said by the no-launcher line and the table */
		if (!kb || !kn || (isfinite(pct) && fabs(pct) < 1.0) || !strcmp(where, "(top level)"))
			continue;
		if (!strcmp(kb, "(none)"))
			kb = "";
		if (!strcmp(kn, "(none)"))
			kn = "";
		char a[512], b[512], pc[32], vb[48], vn[48];
		tg_diff_fmt_pct(pc, sizeof(pc), pct);
		tg_diff_format_value(vb, sizeof(vb), TG_METRIC_KERNEL_TIME, bu * 1e3);
		tg_diff_format_value(vn, sizeof(vn), TG_METRIC_KERNEL_TIME, nu * 1e3);
		fputs("- ", f);
		tg_md_name(f, where, NAME_MAX_MD);
		fputs(": ", f);
		if (!kb[0]) {
			fputs("new kernels ", f);
			tg_md_name(f, kn, NAME_MAX_MD);
		} else if (!kn[0]) {
			tg_md_name(f, kb, NAME_MAX_MD);
			fputs(" gone", f);
		} else if (names_differ(a, b, sizeof(a), kb, kn)) {
			md_titled(f, a, kb);
			fputs(" became ", f);
			md_titled(f, b, kn);
			fputs(",", f);
		} else {
			md_titled(f, a, kb);
			fputs(" (the same kernel) took", f);
		}
		fprintf(f, " %s (%s \xe2\x86\x92 %s per step, in %lld place%s).\n", pc, vb, vn, (long long)count,
		        count == 1 ? "" : "s");
		said++;
	}
	return said;
}

/* t's first rows as a Markdown table (diff_render_impl.h): numbers to 3
 * decimals, counts as integers when they are. */
void tg_diff_md_table_rows(FILE *f, const tg_table *t, size_t rows)
{
	size_t nc = tg_table_ncols(t), nr = tg_table_nrows(t);
	fputs("|", f);
	for (size_t c = 0; c < nc; c++) {
		fputs(" ", f);
		tg_md_escape(f, tg_table_column(t, c));
		fputs(" |", f);
	}
	fputs("\n|", f);
	for (size_t c = 0; c < nc; c++) {
		const tg_cell *x = nr ? tg_table_cell(t, 0, c) : NULL;
		fputs(x && x->type == TG_CELL_STR ? " --- |" : " ---: |", f);
	}
	fputs("\n", f);
	for (size_t r = 0; r < nr && r < rows; r++) {
		fputs("|", f);
		for (size_t c = 0; c < nc; c++) {
			const tg_cell *x = tg_table_cell(t, r, c);
			fputs(" ", f);
			const char *col = tg_table_column(t, c);
			if (x->type == TG_CELL_STR && x->v.s[0] && (!strcmp(col, "kernel") || strstr(col, "kernels"))) {
				md_kernel_name(f, x->v.s);
			} else if (x->type == TG_CELL_STR && x->v.s[0]) {
				/* the first column is the key (a name); the others short words */
				if (c == 0 || strlen(x->v.s) > NAME_MAX_MD)
					tg_md_name(f, x->v.s, NAME_MAX_MD);
				else
					tg_md_escape(f, x->v.s);
			} else if (x->type == TG_CELL_INT) {
				fprintf(f, "%lld", (long long)x->v.i);
			} else if (x->type == TG_CELL_NUM) {
				fprintf(f, "%.3f", x->v.d);
			}
			fputs(" |", f);
		}
		fputs("\n", f);
	}
}

/* The divergence table for people: where, category, the kernels (base ->
 * new, shortened to what differs, whole names in tooltips), places, base
 * and new per step, change. */
void tg_diff_md_divergence_table(FILE *f, const tg_table *t, size_t rows)
{
	size_t nr = tg_table_nrows(t);
	fputs("| where (category) | kernels: base \xe2\x86\x92 new | places | base \xe2\x86\x92 new per step | change |\n"
	      "| --- | --- | ---: | ---: | ---: |\n",
	      f);
	for (size_t r = 0; r < nr && r < rows; r++) {
		const char *where = tg_table_cell(t, r, 0)->v.s, *cat = tg_table_cell(t, r, 1)->v.s,
		           *kb = tg_table_cell(t, r, 2)->v.s, *kn = tg_table_cell(t, r, 3)->v.s;
		double bu = tg_table_cell(t, r, 5)->v.d, nu = tg_table_cell(t, r, 6)->v.d;
		char a[512], b[512], vb[48], vn[48], pc[32];
		if (kb && !strcmp(kb, "(none)"))
			kb = "";
		if (kn && !strcmp(kn, "(none)"))
			kn = "";
		fputs("| ", f);
		tg_md_name(f, where, NAME_MAX_MD);
		if (cat && cat[0]) {
			fputs(" (", f);
			tg_md_escape(f, cat);
			fputs(")", f);
		}
		fputs(" | ", f);
		if (kb && kn && kb[0] && kn[0]) {
			names_differ(a, b, sizeof(a), kb, kn);
			md_titled(f, a, kb);
			fputs(" \xe2\x86\x92 ", f);
			md_titled(f, b, kn);
		} else {
			if (kb && kb[0])
				md_kernel_name(f, kb);
			else
				fputs("(none)", f);
			fputs(" \xe2\x86\x92 ", f);
			if (kn && kn[0])
				md_kernel_name(f, kn);
			else
				fputs("(none)", f);
		}
		tg_diff_format_value(vb, sizeof(vb), TG_METRIC_KERNEL_TIME, bu * 1e3);
		tg_diff_format_value(vn, sizeof(vn), TG_METRIC_KERNEL_TIME, nu * 1e3);
		tg_diff_fmt_pct(pc, sizeof(pc), bu > 0 ? 100.0 * (nu - bu) / bu : nu > 0 ? INFINITY : NAN);
		fprintf(f, " | %lld | %s \xe2\x86\x92 %s | %s |\n", (long long)tg_table_cell(t, r, 4)->v.i, vb, vn, pc);
	}
}
