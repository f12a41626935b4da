/*
 * opt.c - the option parser and the help printer of the tracegate
 * subcommands (opt.h). A command's table, its includes unfolded, is first
 * made flat (entry, offset from the arguments struct), the earlier of two
 * options with one name kept; parsing and the help then walk that list.
 * Written by hand rather than with getopt_long: getopt keeps state in
 * globals, prints its own messages (which name no command and no value),
 * has no notion of where a value goes, of "BASE... -- NEW..." or of help.
 */
#include "opt.h"
#include "../util/tg.h"
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* More than any command has: a table beyond it is a programming error. */
#define MAX_ENTRIES 64

/* Options wider than this (with their value name) put their help on the
 * next line; the others align it in one column. */
#define MAX_LABEL 20

struct flat {
	const tg_opt_spec *s;
	size_t offset; /* from the arguments struct */
};

static int is_option(const tg_opt_spec *s)
{
	return s->kind == TG_OPT_SWITCH || s->kind == TG_OPT_VALUE || s->kind == TG_OPT_LIST;
}

static int is_positional(const tg_opt_spec *s)
{
	return s->kind == TG_OPT_ARG || s->kind == TG_OPT_ARGS;
}

/* 1 when an option of f[0..n) has s's long or short name. */
static int shadowed(const struct flat *f, size_t n, const tg_opt_spec *s)
{
	for (size_t i = 0; i < n; i++) {
		if (!is_option(f[i].s))
			continue;
		if (s->name && f[i].s->name && !strcmp(s->name, f[i].s->name))
			return 1;
		if (s->alias && s->alias == f[i].s->alias)
			return 1;
	}
	return 0;
}

/* Appends table's entries (includes unfolded, shadowed options left out) to
 * f[*n..]; returns 0 or TG_EINVAL when MAX_ENTRIES is passed. */
static int flatten(struct flat *f, size_t *n, const tg_opt_spec *table, size_t base)
{
	for (const tg_opt_spec *s = table; s->kind != TG_OPT_END; s++) {
		if (s->kind == TG_OPT_INCLUDE) {
			if (flatten(f, n, s->include, base + s->offset))
				return TG_EINVAL;
			continue;
		}
		if (is_option(s) && shadowed(f, *n, s))
			continue;
		if (*n == MAX_ENTRIES)
			return tg_error_set(TG_EINVAL, "option table over %d entries", MAX_ENTRIES);
		f[(*n)++] = (struct flat){s, base + s->offset};
	}
	return 0;
}

/* The option's name as the user writes it: --name, or -x. */
static void option_label(char *out, size_t cap, const tg_opt_spec *s)
{
	if (s->name)
		snprintf(out, cap, "--%s", s->name);
	else
		snprintf(out, cap, "-%c", s->alias);
}

/* The option that arg ("--name", "--name=value", "-x") names; *inline_value
 * is what follows '=' (NULL when none). */
static const struct flat *find_option(const struct flat *f, size_t n, char *arg, char **inline_value)
{
	*inline_value = NULL;
	if (arg[1] != '-') {
		for (size_t i = 0; arg[2] == 0 && i < n; i++)
			if (is_option(f[i].s) && f[i].s->alias == arg[1])
				return &f[i];
		return NULL;
	}
	const char *name = arg + 2;
	char *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	for (size_t i = 0; i < n; i++) {
		const tg_opt_spec *s = f[i].s;
		if (is_option(s) && s->name && strlen(s->name) == len && !strncmp(s->name, name, len)) {
			*inline_value = eq ? eq + 1 : NULL;
			return &f[i];
		}
	}
	return NULL;
}

/* Appends value to the list at dst, converted by s's convert when it has
 * one. Returns 0, -1 (a bad value) or TG_ENOMEM. */
static int list_append(tg_opt_list *l, const tg_opt_spec *s, char *value)
{
	char **v = realloc(l->v, (l->n + 1) * sizeof(char *));
	if (!v)
		return tg_error_set(TG_ENOMEM, "out of memory");
	l->v = v;
	v[l->n] = value;
	if (s->convert && s->convert(&v[l->n], value))
		return -1;
	l->n++;
	return 0;
}

/* Stores one option's value at dst. Returns 0, -1 (a bad value, nothing
 * set as message) or TG_ENOMEM. */
static int store_value(char *dst, const tg_opt_spec *s, char *value)
{
	if (s->kind == TG_OPT_LIST)
		return list_append((tg_opt_list *)(void *)dst, s, value);
	if (s->convert)
		return s->convert(dst, value) ? -1 : 0;
	*(char **)(void *)dst = value;
	return 0;
}

/* The state of one parse. */
struct parser {
	const tg_opt_command *cmd;
	char *args;
	struct flat f[MAX_ENTRIES];
	unsigned char seen[MAX_ENTRIES];
	size_t n;
	size_t npositional; /* positional arguments so far */
	size_t next_pos;    /* the entry the next positional argument goes to */
};

/* Reads the option argv[*i] (and its value); returns 0 or TG_EINVAL /
 * TG_ENOMEM with the message. */
static int parse_option(struct parser *p, int argc, char **argv, int *i)
{
	const char *cmd = p->cmd->name;
	char *arg = argv[*i], *value, label[128];
	const struct flat *o = find_option(p->f, p->n, arg, &value);
	if (!o)
		return tg_error_set(TG_EINVAL, "%s: unknown option %s (see tracegate %s --help)", cmd, arg, cmd);
	p->seen[o - p->f] = 1;
	option_label(label, sizeof(label), o->s);
	if (o->s->kind == TG_OPT_SWITCH) {
		if (value)
			return tg_error_set(TG_EINVAL, "%s: %s takes no value", cmd, label);
		*(int *)(void *)(p->args + o->offset) = 1;
		return 0;
	}
	if (!value) {
		if (*i + 1 >= argc)
			return tg_error_set(TG_EINVAL, "%s: %s needs a value", cmd, label);
		value = argv[++*i];
	}
	int rc = store_value(p->args + o->offset, o->s, value);
	if (rc == -1)
		return tg_error_set(TG_EINVAL, "%s: %s: '%s' is not %s", cmd, label, value,
		                    o->s->expect ? o->s->expect : "a valid value");
	return rc;
}

/* The entry of the last positional argument when the table has exactly one
 * (tree's TRACE), else NULL. */
static const tg_opt_spec *single_arg(const struct parser *p)
{
	const tg_opt_spec *one = NULL;
	for (size_t k = 0; k < p->n; k++) {
		if (!is_positional(p->f[k].s))
			continue;
		if (one || p->f[k].s->kind != TG_OPT_ARG)
			return NULL;
		one = p->f[k].s;
	}
	return one;
}

/* Reads the positional argument arg; returns 0 or TG_EINVAL / TG_ENOMEM
 * with the message. */
static int parse_positional(struct parser *p, char *arg)
{
	const char *cmd = p->cmd->name;
	while (p->next_pos < p->n && !is_positional(p->f[p->next_pos].s))
		p->next_pos++;
	if (p->next_pos == p->n) {
		const tg_opt_spec *one = single_arg(p);
		if (one)
			return tg_error_set(TG_EINVAL, "%s: one %s only (see tracegate %s --help)", cmd, one->name,
			                    cmd);
		return tg_error_set(TG_EINVAL, "%s: unknown argument %s (see tracegate %s --help)", cmd, arg, cmd);
	}
	const struct flat *e = &p->f[p->next_pos];
	p->seen[p->next_pos] = 1;
	p->npositional++;
	if (e->s->kind == TG_OPT_ARG) {
		*(char **)(void *)(p->args + e->offset) = arg;
		p->next_pos++;
		return 0;
	}
	int rc = list_append((tg_opt_list *)(void *)(p->args + e->offset), e->s, arg);
	if (rc == -1)
		return tg_error_set(TG_EINVAL, "%s: %s: '%s' is not %s", cmd, e->s->name, arg,
		                    e->s->expect ? e->s->expect : "a valid value");
	return rc;
}

/* Reads "--": where the table has a separator, notes where it came. */
static int parse_separator(struct parser *p)
{
	const char *cmd = p->cmd->name;
	for (size_t k = 0; k < p->n; k++) {
		if (p->f[k].s->kind != TG_OPT_SEPARATOR)
			continue;
		tg_opt_split *sp = (tg_opt_split *)(void *)(p->args + p->f[k].offset);
		if (sp->given)
			return tg_error_set(TG_EINVAL, "%s: '--' given twice", cmd);
		sp->given = 1;
		sp->before = p->npositional;
		return 0;
	}
	return tg_error_set(TG_EINVAL, "%s: unknown option -- (see tracegate %s --help)", cmd, cmd);
}

void tg_opt_free(const tg_opt_command *cmd, void *args)
{
	struct flat f[MAX_ENTRIES];
	size_t n = 0;
	if (!args || flatten(f, &n, cmd->table, 0))
		return;
	for (size_t k = 0; k < n; k++) {
		if (f[k].s->kind != TG_OPT_LIST && f[k].s->kind != TG_OPT_ARGS)
			continue;
		tg_opt_list *l = (tg_opt_list *)(void *)((char *)args + f[k].offset);
		free(l->v);
		l->v = NULL;
		l->n = 0;
	}
}

/* The entry of the option named name (its long name, or "-x" for a short
 * one), or NULL. */
static const struct flat *by_name(const struct parser *p, const char *name, size_t len)
{
	for (size_t k = 0; k < p->n; k++) {
		const tg_opt_spec *s = p->f[k].s;
		if (!is_option(s))
			continue;
		if (len == 2 && name[0] == '-' && s->alias == name[1])
			return &p->f[k];
		if (s->name && strlen(s->name) == len && !strncmp(s->name, name, len))
			return &p->f[k];
	}
	return NULL;
}

/* The first required entry not given, as TG_OPT_MISSING with the message
 * naming it; 0 when none. */
static int check_required(const struct parser *p)
{
	const char *cmd = p->cmd->name;
	for (size_t k = 0; k < p->n; k++) {
		const tg_opt_spec *s = p->f[k].s;
		if (!(s->flags & TG_OPT_REQUIRED) || p->seen[k])
			continue;
		char label[160];
		option_label(label, sizeof(label), s);
		if (is_positional(s))
			tg_error_set(TG_EINVAL, "%s: %s is missing (see tracegate %s --help)", cmd, s->name, cmd);
		else if (s->value_name)
			tg_error_set(TG_EINVAL, "%s: %s %s is required (see tracegate %s --help)", cmd, label,
			             s->value_name, cmd);
		else
			tg_error_set(TG_EINVAL, "%s: %s is required (see tracegate %s --help)", cmd, label, cmd);
		return TG_OPT_MISSING;
	}
	return 0;
}

/* The option named by the word at *w (advanced past it and its spaces),
 * when it was given, else NULL. */
static const struct flat *given_word(const struct parser *p, const char **w)
{
	size_t len = strcspn(*w, " ");
	const struct flat *o = by_name(p, *w, len);
	*w += len;
	*w += strspn(*w, " ");
	return o && p->seen[o - p->f] ? o : NULL;
}

/* The options given together that exclude each other (TG_OPT_EXCLUSIVE),
 * or without the one they need (TG_OPT_NEEDS): TG_EINVAL naming both, the
 * table's first relation broken; 0 when none. */
static int check_relations(const struct parser *p)
{
	const char *cmd = p->cmd->name;
	for (size_t k = 0; k < p->n; k++) {
		const tg_opt_spec *s = p->f[k].s;
		const char *w = s->name;
		char la[128], lb[128];
		if (s->kind == TG_OPT_EXCLUSIVE) {
			const struct flat *first = NULL, *o;
			while (w && *w) {
				if (!(o = given_word(p, &w)))
					continue;
				if (first) {
					option_label(la, sizeof(la), first->s);
					option_label(lb, sizeof(lb), o->s);
					return tg_error_set(TG_EINVAL, "%s: %s and %s exclude each other: give one", cmd, la, lb);
				}
				first = o;
			}
		} else if (s->kind == TG_OPT_NEEDS && w) {
			const struct flat *a = given_word(p, &w), *b = by_name(p, w, strcspn(w, " "));
			if (a && b && !given_word(p, &w)) {
				option_label(la, sizeof(la), a->s);
				option_label(lb, sizeof(lb), b->s);
				return tg_error_set(TG_EINVAL, "%s: %s goes with %s", cmd, la, lb);
			}
		}
	}
	return 0;
}

int tg_opt_parse(const tg_opt_command *cmd, void *args, int argc, char **argv)
{
	struct parser p = {.cmd = cmd, .args = args};
	int rc = flatten(p.f, &p.n, cmd->table, 0);
	for (int i = 1; i < argc && !rc; i++) {
		char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h"))
			rc = TG_OPT_HELP;
		else if (!strcmp(a, "--"))
			rc = parse_separator(&p);
		else if (a[0] == '-' && a[1])
			rc = parse_option(&p, argc, argv, &i);
		else
			rc = parse_positional(&p, a);
	}
	if (!rc)
		rc = check_relations(&p);
	if (!rc)
		rc = check_required(&p);
	if (rc)
		tg_opt_free(cmd, args);
	return rc;
}

int tg_opt_parse_cli(int *exit_code, const tg_opt_command *cmd, void *args, int argc, char **argv)
{
	int rc = tg_opt_parse(cmd, args, argc, argv);
	if (!rc)
		return 0;
	if (rc == TG_OPT_HELP) {
		*exit_code = tg_opt_help_write(stdout, cmd) || fflush(stdout) ? TG_EXIT_USAGE : TG_EXIT_OK;
		return 1;
	}
	if (rc == TG_OPT_MISSING && argc <= 1)
		tg_opt_help_write(stderr, cmd); /* nothing given: how to call it */
	else
		tg_cli_error("%s", tg_error_last());
	*exit_code = TG_EXIT_USAGE;
	return 1;
}

/* ------------------------------------------------------------------ help */

void tg_opt_put_wrapped(FILE *f, const char *text, size_t *col, size_t indent, size_t width)
{
	const char *p = text;
	int first = 1;
	while (*p) {
		if (p[0] == '\n' && p[1] == '\n') {
			fprintf(f, "\n\n%*s", (int)indent, "");
			*col = indent;
			first = 1;
			p += 2;
			continue;
		}
		if (*p == ' ' || *p == '\n') {
			p++;
			continue;
		}
		size_t len = strcspn(p, " \n");
		if (!first && *col + 1 + len > width) {
			fprintf(f, "\n%*s", (int)indent, "");
			*col = indent;
			first = 1;
		}
		if (!first) {
			fputc(' ', f);
			(*col)++;
		}
		fwrite(p, 1, len, f);
		*col += len;
		first = 0;
		p += len;
	}
}

/* An option as help and usage show it: "--name VALUE", "-o DIR". */
static void usage_label(char *out, size_t cap, const tg_opt_spec *s)
{
	char name[100];
	option_label(name, sizeof(name), s);
	if (s->kind == TG_OPT_SWITCH || !s->value_name)
		snprintf(out, cap, "%s", name);
	else
		snprintf(out, cap, "%s %s", name, s->value_name);
}

/* The words of a usage line, each kept whole when the line wraps. */
struct usage_words {
	char w[32][160];
	size_t n;
};

static void add_word(struct usage_words *u, const char *open, const char *word, const char *suffix, const char *close)
{
	if (u->n < sizeof(u->w) / sizeof(u->w[0]))
		snprintf(u->w[u->n++], sizeof(u->w[0]), "%s%s%s%s", open, word, suffix, close);
}

/* Writes one usage line for form (its arguments, split at spaces; NULL:
 * made from the ARG and ARGS entries), then the options flagged
 * TG_OPT_IN_USAGE and "[options]" for the others, wrapped under the
 * command's name. */
static void put_usage_line(FILE *f, const tg_opt_command *cmd, const struct flat *fl, size_t n, const char *form,
                           const char *lead)
{
	struct usage_words u = {.n = 0};
	for (const char *p = form; p && *p;) {
		size_t len = strcspn(p, " ");
		if (len && len < sizeof(u.w[0]) && u.n < sizeof(u.w) / sizeof(u.w[0])) {
			memcpy(u.w[u.n], p, len);
			u.w[u.n++][len] = 0;
		}
		p += len + (p[len] == ' ');
	}
	int others = 0;
	for (size_t k = 0; k < n; k++) {
		const tg_opt_spec *s = fl[k].s;
		int req = (s->flags & TG_OPT_REQUIRED) != 0;
		if (is_positional(s) && !form)
			add_word(&u, req ? "" : "[", s->name, s->kind == TG_OPT_ARGS ? "..." : "", req ? "" : "]");
		if (!is_option(s))
			continue;
		if (!(s->flags & TG_OPT_IN_USAGE)) {
			others = 1;
			continue;
		}
		char label[140];
		usage_label(label, sizeof(label), s);
		add_word(&u, req ? "" : "[", label, "", req ? "" : "]");
	}
	if (others)
		add_word(&u, "", "[options]", "", "");
	size_t indent = strlen("usage: tracegate ") + strlen(cmd->name);
	fprintf(f, "%stracegate %s", lead, cmd->name);
	size_t col = indent;
	for (size_t k = 0; k < u.n; k++) {
		size_t len = strlen(u.w[k]);
		if (k && col + 1 + len > TG_OPT_HELP_WIDTH) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		}
		fprintf(f, " %s", u.w[k]);
		col += 1 + len;
	}
	fputc('\n', f);
}

/* The width of the option column: the widest label up to MAX_LABEL. */
static size_t label_width(const struct flat *fl, size_t n)
{
	size_t w = 0;
	for (size_t k = 0; k < n; k++) {
		const tg_opt_spec *s = fl[k].s;
		if (!(is_option(s) || (is_positional(s) && s->help)))
			continue;
		char label[160];
		if (is_option(s))
			usage_label(label, sizeof(label), s);
		else
			snprintf(label, sizeof(label), "%s", s->name);
		size_t len = strlen(label);
		if (len <= MAX_LABEL && len > w)
			w = len;
	}
	return w;
}

/* Writes one option of the list: its label, then its help wrapped in the
 * column after the labels (on the next line when the label is wider). */
static void put_option(FILE *f, const tg_opt_spec *s, size_t width)
{
	char label[160];
	if (is_option(s))
		usage_label(label, sizeof(label), s);
	else
		snprintf(label, sizeof(label), "%s", s->name);
	size_t indent = 2 + width + 2, len = strlen(label);
	fprintf(f, "  %s", label);
	size_t col = 2 + len;
	if (len > width) {
		fprintf(f, "\n%*s", (int)indent, "");
	} else {
		fprintf(f, "%*s", (int)(indent - col), "");
	}
	col = indent;
	tg_opt_put_wrapped(f, s->help ? s->help : "", &col, indent, TG_OPT_HELP_WIDTH);
	fputc('\n', f);
}

int tg_opt_help_write(FILE *f, const tg_opt_command *cmd)
{
	struct flat fl[MAX_ENTRIES];
	size_t n = 0;
	if (flatten(fl, &n, cmd->table, 0)) {
		errno = EINVAL;
		return -1;
	}
	if (cmd->forms) {
		for (size_t k = 0; cmd->forms[k]; k++)
			put_usage_line(f, cmd, fl, n, cmd->forms[k], k ? "       " : "usage: ");
	} else {
		put_usage_line(f, cmd, fl, n, NULL, "usage: ");
	}
	size_t col = 0;
	if (cmd->description) {
		fputc('\n', f);
		tg_opt_put_wrapped(f, cmd->description, &col, 0, TG_OPT_HELP_WIDTH);
		fputc('\n', f);
	}
	size_t width = label_width(fl, n);
	int in_list = 0;
	for (size_t k = 0; k < n; k++) {
		const tg_opt_spec *s = fl[k].s;
		if (s->kind == TG_OPT_SECTION) {
			fputc('\n', f);
			col = 0;
			tg_opt_put_wrapped(f, s->name, &col, 0, TG_OPT_HELP_WIDTH);
			fputs(":\n", f);
			in_list = 1;
			continue;
		}
		if (!is_option(s) && !(is_positional(s) && s->help))
			continue;
		if (!in_list)
			fputc('\n', f);
		in_list = 1;
		put_option(f, s, width);
	}
	if (cmd->epilog) {
		fputc('\n', f);
		col = 0;
		tg_opt_put_wrapped(f, cmd->epilog, &col, 0, TG_OPT_HELP_WIDTH);
		fputc('\n', f);
	}
	return ferror(f) ? -1 : 0;
}
