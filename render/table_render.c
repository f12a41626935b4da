/* table_render.c - tables as CSV, aligned text, Markdown and JSON.
 *
 * Written a character at a time with the unlocked stdio calls
 * (putc_unlocked, fputs_unlocked, fwrite_unlocked): a FILE here is only
 * ever written by the thread that writes the table, and once a program has
 * started a thread (the reader's, the report's) every locked putc takes
 * and drops the stream's lock: 8 % of a report's time (issue 24). */
#include "../core/analysis/table.h"
#include "../util/tg.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const double pow10_d[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

/* The fast path of tg_format_double, for the values reports are made of
 * (times in us with up to three decimals, counts, percentages): when v is
 * the double nearest to a decimal D with at most 15 significant digits,
 * 1e-4 <= |v| < 1e15, "%.15g" prints D itself (a decimal of 15 digits reads
 * back as v), so D is written with integer arithmetic, without printf's
 * exact arithmetic and strtod's check (4.7 % of a report as JSON). Returns
 * 0 when v is not such a value; the caller takes the general path. */
static int format_double_fast(char *buf, double v)
{
	double a = fabs(v);
	if (!(a >= 1e-4 && a < 1e15))
		return 0;
	int intdigits = 1;
	while (intdigits < 15 && a >= pow10_d[intdigits])
		intdigits++;
	for (int k = 0; intdigits + k <= 15 && k < 16; k++) {
		double r = nearbyint(a * pow10_d[k]);
		if (r / pow10_d[k] != a)
			continue;
		/* a is the double nearest r / 10^k: write r with k decimals */
		char digits[24], rev[24];
		uint64_t u = (uint64_t)r; /* below 10^15 */
		int n = 0, m = 0;
		do
			rev[m++] = (char)('0' + u % 10);
		while (u /= 10);
		while (m)
			digits[n++] = rev[--m];
		digits[n] = 0;
		while (k > 0 && digits[n - 1] == '0') /* %g drops trailing zeros */
			digits[--n] = 0, k--;
		char *o = buf;
		if (v < 0)
			*o++ = '-';
		if (n <= k) { /* below 1: 0.00ddd */
			*o++ = '0';
			*o++ = '.';
			for (int z = 0; z < k - n; z++)
				*o++ = '0';
			memcpy(o, digits, (size_t)n);
			o += n;
		} else {
			memcpy(o, digits, (size_t)(n - k));
			o += n - k;
			*o++ = '.';
			if (k) {
				memcpy(o, digits + n - k, (size_t)k);
				o += k;
			} else {
				*o++ = '0'; /* like Python: an integral float keeps a ".0" */
			}
		}
		*o = 0;
		return 1;
	}
	return 0;
}

/* "%.Pg" of the P significant digits d (ASCII) with decimal exponent x
 * (the value is d[0].d[1]... * 10^x), negative when neg: C's %g rules
 * (fixed when -4 <= x < P, else d.ddde+XX; trailing zeros dropped). */
static void g_style(char *buf, const char *d, int P, int x, int neg)
{
	int n = P;
	while (n > 1 && d[n - 1] == '0')
		n--;
	char *o = buf;
	if (neg)
		*o++ = '-';
	if (x < -4 || x >= P) {
		*o++ = d[0];
		if (n > 1) {
			*o++ = '.';
			memcpy(o, d + 1, (size_t)(n - 1));
			o += n - 1;
		}
		int ax = x < 0 ? -x : x;
		o += sprintf(o, "e%c%02d", x < 0 ? '-' : '+', ax);
	} else if (x >= 0) {
		for (int i = 0; i <= x; i++)
			*o++ = i < n ? d[i] : '0';
		if (n > x + 1) {
			*o++ = '.';
			memcpy(o, d + x + 1, (size_t)(n - x - 1));
			o += n - x - 1;
		}
	} else {
		*o++ = '0';
		*o++ = '.';
		for (int i = 0; i < -x - 1; i++)
			*o++ = '0';
		memcpy(o, d, (size_t)n);
		o += n;
	}
	*o = 0;
}

/* The second path of tg_format_double, for values that need 16 or 17
 * digits (means, ratios): one printf of 17 digits, then 15 and 16 digits
 * rounded from them in decimal, each tried with strtod as the general path
 * tries "%.15g" and "%.16g" (printf does its exact arithmetic once, not
 * three times). Rounding the 17 digits again is only exact away from a
 * tie: a rounding whose dropped digits are exactly "5" or "50", or that
 * carries into a new digit, returns 0 for the general path. */
static int format_double_digits(char *buf, double v)
{
	char e17[40];
	snprintf(e17, sizeof(e17), "%.16e", v);
	const char *s = e17;
	int neg = *s == '-';
	s += neg;
	if (s[0] < '0' || s[0] > '9' || s[1] != '.')
		return 0; /* inf, nan */
	char d[18];
	d[0] = s[0];
	memcpy(d + 1, s + 2, 16);
	d[17] = 0;
	if (s[18] != 'e')
		return 0;
	int x = atoi(s + 19);
	for (int P = 15; P <= 16; P++) {
		const char *tail = d + P;
		if ((P == 16 && tail[0] == '5') || (P == 15 && tail[0] == '5' && tail[1] == '0'))
			return 0;
		char r[18];
		memcpy(r, d, (size_t)P);
		if (tail[0] >= '5') {
			int i = P - 1;
			while (i >= 0 && r[i] == '9')
				r[i--] = '0';
			if (i < 0)
				return 0;
			r[i]++;
		}
		char cand[48], *c = cand; /* "-d.ddde-x" */
		if (neg)
			*c++ = '-';
		*c++ = r[0];
		*c++ = '.';
		memcpy(c, r + 1, (size_t)(P - 1));
		c += P - 1;
		sprintf(c, "e%d", x);
		if (strtod(cand, NULL) == v) {
			g_style(buf, r, P, x, neg);
			return 1;
		}
	}
	g_style(buf, d, 17, x, neg);
	return 1;
}

void tg_format_double(char *buf, double v)
{
	if (v == 0) {
		strcpy(buf, "0.0");
		return;
	}
	if (format_double_fast(buf, v) || format_double_digits(buf, v)) {
		if (!strpbrk(buf, ".eEn"))
			strcat(buf, ".0");
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, 32, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	/* like Python: an integral float keeps a ".0" */
	if (!strpbrk(buf, ".eEn"))
		strcat(buf, ".0");
}

static void put_cell_plain(FILE *f, const tg_cell *c)
{
	char num[32];
	switch (c->type) {
	case TG_CELL_INT:
		fprintf(f, "%lld", (long long)c->v.i);
		break;
	case TG_CELL_NUM:
		tg_format_double(num, c->v.d);
		fputs_unlocked(num, f);
		break;
	case TG_CELL_STR:
		fputs_unlocked(c->v.s, f);
		break;
	default:
		break;
	}
}

static void put_csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs_unlocked(s, f);
		return;
	}
	putc_unlocked('"', f);
	for (; *s; s++) {
		if (*s == '"')
			putc_unlocked('"', f);
		putc_unlocked(*s, f);
	}
	putc_unlocked('"', f);
}

int tg_table_write_csv(const tg_table *t, FILE *f)
{
	size_t nc = tg_table_ncols(t), nr = tg_table_nrows(t);
	for (size_t c = 0; c < nc; c++) {
		if (c)
			putc_unlocked(',', f);
		put_csv_field(f, tg_table_column(t, c));
	}
	putc_unlocked('\n', f);
	for (size_t r = 0; r < nr; r++) {
		for (size_t c = 0; c < nc; c++) {
			if (c)
				putc_unlocked(',', f);
			const tg_cell *x = tg_table_cell(t, r, c);
			if (x->type == TG_CELL_STR)
				put_csv_field(f, x->v.s);
			else
				put_cell_plain(f, x);
		}
		putc_unlocked('\n', f);
	}
	return ferror(f) ? tg_error_set(TG_EIO, "write error") : 0;
}

/* Printable text of a cell for text and markdown: numbers with at most 3
 * decimals (6 significant below 1), control characters escaped. */
static void cell_text(char *buf, size_t cap, const tg_cell *c)
{
	switch (c->type) {
	case TG_CELL_INT:
		snprintf(buf, cap, "%lld", (long long)c->v.i);
		break;
	case TG_CELL_NUM: {
		double a = fabs(c->v.d);
		if (a != 0 && a < 0.001)
			snprintf(buf, cap, "%.3g", c->v.d);
		else
			snprintf(buf, cap, "%.3f", c->v.d);
		break;
	}
	case TG_CELL_STR: {
		size_t o = 0;
		for (const unsigned char *s = (const unsigned char *)c->v.s; *s && o + 5 < cap; s++) {
			if (*s < 0x20 || *s == 0x7f)
				o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", *s);
			else
				buf[o++] = (char)*s;
		}
		buf[o] = 0;
		break;
	}
	default:
		buf[0] = 0;
	}
}

void tg_table_cell_text(char *buf, size_t cap, const tg_cell *c)
{
	cell_text(buf, cap, c);
}

/* Display width of UTF-8 text (code points). */
static size_t text_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

/* Cuts s to at most width code points, ending with "..." when cut. */
static void cut_text(char *s, size_t width)
{
	if (!width || text_width(s) <= width)
		return;
	size_t w = 0, i = 0;
	for (; s[i]; i++) {
		if (((unsigned char)s[i] & 0xC0) != 0x80) {
			if (w == width - 3)
				break;
			w++;
		}
	}
	strcpy(s + i, "...");
}

int tg_table_write_text(const tg_table *t, FILE *f, size_t width)
{
	return tg_table_write_text_rows(t, f, width, SIZE_MAX);
}

int tg_table_write_text_rows(const tg_table *t, FILE *f, size_t width, size_t rows)
{
	size_t nc = tg_table_ncols(t), nr = tg_table_nrows(t);
	if (nr > rows)
		nr = rows;
	size_t *w = calloc(nc ? nc : 1, sizeof(size_t));
	char buf[4096];
	if (!w)
		return tg_error_set(TG_ENOMEM, "out of memory");
	for (size_t c = 0; c < nc; c++)
		w[c] = text_width(tg_table_column(t, c));
	for (size_t r = 0; r < nr; r++)
		for (size_t c = 0; c < nc; c++) {
			cell_text(buf, sizeof(buf), tg_table_cell(t, r, c));
			cut_text(buf, width);
			size_t x = text_width(buf);
			if (x > w[c])
				w[c] = x;
		}
	fprintf(f, "%s\n", tg_table_title(t));
	for (size_t c = 0; c < nc; c++) {
		const char *h = tg_table_column(t, c);
		fprintf(f, "%s%s%*s", c ? "  " : "", h, (int)(w[c] - text_width(h)), "");
	}
	putc_unlocked('\n', f);
	for (size_t r = 0; r < nr; r++) {
		for (size_t c = 0; c < nc; c++) {
			const tg_cell *x = tg_table_cell(t, r, c);
			cell_text(buf, sizeof(buf), x);
			cut_text(buf, width);
			int pad = (int)(w[c] - text_width(buf));
			if (c)
				fputs_unlocked("  ", f);
			if (x->type == TG_CELL_STR || x->type == TG_CELL_EMPTY)
				fprintf(f, "%s%*s", buf, c + 1 < nc ? pad : 0, "");
			else
				fprintf(f, "%*s%s", pad, "", buf);
		}
		putc_unlocked('\n', f);
	}
	free(w);
	return ferror(f) ? tg_error_set(TG_EIO, "write error") : 0;
}

#define ZWSP "\xe2\x80\x8b" /* U+200B, zero-width space */

static int alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Writes what keeps s (from its first character on) from starting a
 * mention, a reference or an autolink on a forge: returns how many
 * characters of s it wrote (0: none, the caller writes s[0]). */
static size_t inert(FILE *f, const char *s)
{
	if ((s[0] == 'w' || s[0] == 'W') && !strncasecmp(s, "www.", 4)) {
		fwrite_unlocked(s, 1, 3, f);
		fputs_unlocked(ZWSP, f);
		return 3;
	}
	if (s[0] == ':' && s[1] == '/' && s[2] == '/') {
		fputs_unlocked(":" ZWSP, f);
		return 1;
	}
	if (s[0] == '@' || (strchr("#!~$%", s[0]) && (alnum(s[1]) || s[1] == '"'))) {
		putc_unlocked(s[0], f);
		fputs_unlocked(ZWSP, f);
		return 1;
	}
	return 0;
}

void tg_md_code(FILE *f, const char *s)
{
	fputs_unlocked("<code>", f);
	tg_md_escape(f, s);
	fputs_unlocked("</code>", f);
}

void tg_md_name(FILE *f, const char *s, size_t max)
{
	size_t n = strlen(s);
	if (!max || n <= max) {
		tg_md_code(f, s);
		return;
	}
	fputs_unlocked("<span title=\"", f);
	tg_html_attr_escape(f, s);
	fputs_unlocked("\">", f);
	size_t k = max > 1 ? max - 1 : 1;
	while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80) /* a whole UTF-8 character */
		k--;
	char *cut = strndup(s, k);
	fputs_unlocked("<code>", f);
	tg_md_escape(f, cut ? cut : "");
	fputs_unlocked("\xe2\x80\xa6</code></span>", f);
	free(cut);
}

void tg_html_attr_escape(FILE *f, const char *s)
{
	for (const char *p = s; *p; p++) {
		/* a forge links no attribute, but a copied tooltip stays inert too */
		size_t k = inert(f, p);
		if (k) {
			p += k - 1;
			continue;
		}
		switch (*p) {
		case '&': fputs_unlocked("&amp;", f); break;
		case '<': fputs_unlocked("&lt;", f); break;
		case '>': fputs_unlocked("&gt;", f); break;
		case '"': fputs_unlocked("&quot;", f); break;
		case '\'': fputs_unlocked("&#x27;", f); break;
		case '|': fputs_unlocked("&#x7c;", f); break;
		default:
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				putc_unlocked(' ', f);
			else
				putc_unlocked(*p, f);
		}
	}
}

void tg_html_escape_inert(FILE *f, const char *s)
{
	while (*s) {
		size_t k = inert(f, s);
		if (k) {
			s += k;
			continue;
		}
		switch (*s) {
		case '<': fputs_unlocked("&lt;", f); break;
		case '>': fputs_unlocked("&gt;", f); break;
		case '&': fputs_unlocked("&amp;", f); break;
		default: putc_unlocked(*s, f);
		}
		s++;
	}
}

void tg_md_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '$') { /* GitHub's math */
			fputs_unlocked("\\$", f);
			continue;
		}
		size_t k = inert(f, s);
		if (k) {
			s += k - 1;
			continue;
		}
		switch (*s) {
		case '|': fputs_unlocked("\\|", f); break;
		case '`': fputs_unlocked("\\`", f); break;
		case '*': fputs_unlocked("\\*", f); break;
		case '_': fputs_unlocked("\\_", f); break;
		case '[': fputs_unlocked("\\[", f); break;
		case ']': fputs_unlocked("\\]", f); break;
		case '\\': fputs_unlocked("\\\\", f); break;
		case '<': fputs_unlocked("&lt;", f); break;
		case '>': fputs_unlocked("&gt;", f); break;
		case '&': fputs_unlocked("&amp;", f); break;
		case '\n': case '\r': case '\t': putc_unlocked(' ', f); break;
		default:
			if ((unsigned char)*s < 0x20)
				fprintf(f, "\\x%02x", (unsigned char)*s);
			else
				putc_unlocked(*s, f);
		}
	}
}

int tg_table_write_md(const tg_table *t, FILE *f)
{
	size_t nc = tg_table_ncols(t), nr = tg_table_nrows(t);
	char buf[4096];
	fputs_unlocked("### ", f);
	tg_md_escape(f, tg_table_title(t));
	fputs_unlocked("\n\n|", f);
	for (size_t c = 0; c < nc; c++) {
		putc_unlocked(' ', f);
		tg_md_escape(f, tg_table_column(t, c));
		fputs_unlocked(" |", f);
	}
	fputs_unlocked("\n|", f);
	for (size_t c = 0; c < nc; c++) {
		int numeric = nr && tg_table_cell(t, 0, c)->type != TG_CELL_STR;
		fputs_unlocked(numeric ? " ---: |" : " --- |", f);
	}
	putc_unlocked('\n', f);
	for (size_t r = 0; r < nr; r++) {
		putc_unlocked('|', f);
		for (size_t c = 0; c < nc; c++) {
			cell_text(buf, sizeof(buf), tg_table_cell(t, r, c));
			putc_unlocked(' ', f);
			tg_md_escape(f, buf);
			fputs_unlocked(" |", f);
		}
		putc_unlocked('\n', f);
	}
	putc_unlocked('\n', f);
	return ferror(f) ? tg_error_set(TG_EIO, "write error") : 0;
}

static void put_json_string(FILE *f, const char *s)
{
	putc_unlocked('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs_unlocked("\\\"", f); break;
		case '\\': fputs_unlocked("\\\\", f); break;
		case '\n': fputs_unlocked("\\n", f); break;
		case '\r': fputs_unlocked("\\r", f); break;
		case '\t': fputs_unlocked("\\t", f); break;
		case '<': fputs_unlocked("\\u003c", f); break; /* safe inside HTML <script> */
		case '>': fputs_unlocked("\\u003e", f); break;
		case '&': fputs_unlocked("\\u0026", f); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				putc_unlocked(*p, f);
		}
	}
	putc_unlocked('"', f);
}

int tg_table_write_json(const tg_table *t, FILE *f)
{
	size_t nc = tg_table_ncols(t), nr = tg_table_nrows(t);
	char num[32];
	fputs_unlocked("{\"name\":", f);
	put_json_string(f, tg_table_name(t));
	fputs_unlocked(",\"title\":", f);
	put_json_string(f, tg_table_title(t));
	fputs_unlocked(",\"columns\":[", f);
	for (size_t c = 0; c < nc; c++) {
		if (c)
			putc_unlocked(',', f);
		put_json_string(f, tg_table_column(t, c));
	}
	fputs_unlocked("],\"rows\":[", f);
	for (size_t r = 0; r < nr; r++) {
		fputs_unlocked(r ? ",\n[" : "\n[", f);
		for (size_t c = 0; c < nc; c++) {
			const tg_cell *x = tg_table_cell(t, r, c);
			if (c)
				putc_unlocked(',', f);
			switch (x->type) {
			case TG_CELL_INT: fprintf(f, "%lld", (long long)x->v.i); break;
			case TG_CELL_NUM:
				if (isfinite(x->v.d)) {
					tg_format_double(num, x->v.d);
					fputs_unlocked(num, f);
				} else {
					fputs_unlocked("null", f);
				}
				break;
			case TG_CELL_STR: put_json_string(f, x->v.s); break;
			default: fputs_unlocked("null", f);
			}
		}
		putc_unlocked(']', f);
	}
	fputs_unlocked("]}", f);
	return ferror(f) ? tg_error_set(TG_EIO, "write error") : 0;
}
