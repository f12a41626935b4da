/*
 * test_opt.c - the option tables of the subcommands (cli/opt.c):
 * switches, values given as `--name VALUE`, `--name=VALUE` and `-o VALUE`,
 * converters and their one-line errors, repeatable values, unknown options,
 * missing values, the "--" of BASE... -- NEW..., positional counts, required
 * entries, included fragments and shadowing (the reading limits of
 * cli/cli.c), and the help made from a table: wrapped at 80 columns,
 * every option listed once, for a table of the test's and for each command
 * of the command table (cli/commands.c).
 */
#include "testutil.h"

#include "../util/tg.h"
#include "../cli/cli.h"
#include "../cli/commands.h"
#include "../cli/opt.h"

#include <stddef.h>

struct t_args {
	int flag;
	char *name;
	char *out;
	int num;
	tg_opt_list tags;
	tg_opt_list files;
	tg_opt_split split;
	tg_read_opts ropts;
	char *first;
};

static int convert_num(void *dst, char *value)
{
	char *end;
	long v = strtol(value, &end, 10);
	if (end == value || *end || v < 0 || v > 99)
		return -1;
	*(int *)dst = (int)v;
	return 0;
}

/* A tag is lower-case letters only. */
static int convert_tag(void *dst, char *value)
{
	for (const char *p = value; *p; p++)
		if (*p < 'a' || *p > 'z')
			return -1;
	*(char **)dst = value;
	return 0;
}

static const tg_opt_spec t_opts[] = {
	{TG_OPT_ARGS, "FILE", 0, NULL, offsetof(struct t_args, files), NULL, NULL, 0, NULL, NULL},
	{TG_OPT_SEPARATOR, "--", 0, NULL, offsetof(struct t_args, split), NULL, NULL, 0, NULL, NULL},
	{TG_OPT_SWITCH, "flag", 0, NULL, offsetof(struct t_args, flag), NULL, NULL, TG_OPT_IN_USAGE, "a switch", NULL},
	{TG_OPT_VALUE, "name", 0, "NAME", offsetof(struct t_args, name), NULL, NULL, 0, "a value", NULL},
	{TG_OPT_VALUE, NULL, 'o', "FILE", offsetof(struct t_args, out), NULL, NULL, 0, "short only", NULL},
	{TG_OPT_VALUE, "num", 0, "N", offsetof(struct t_args, num), convert_num, "a number from 0 to 99", 0,
	 "a converted value", NULL},
	{TG_OPT_LIST, "tag", 0, "TAG", offsetof(struct t_args, tags), convert_tag, "lower-case letters", 0,
	 "a repeatable value, checked", NULL},
	/* shadows the reading limit of the same name */
	{TG_OPT_SWITCH, "max-events", 0, NULL, offsetof(struct t_args, flag), NULL, NULL, 0, "shadowing", NULL},
	{TG_OPT_INCLUDE, .offset = offsetof(struct t_args, ropts), .include = tg_cli_limit_opts},
	{.kind = TG_OPT_END},
};

static const tg_opt_command t_cmd = {"t", NULL, "A command of the tests.", NULL, t_opts};

/* Parses the NULL-terminated arguments after "t" into *a (zeroed first). */
#define PARSE(a, ...) parse_args((a), (const char *[]){"t", __VA_ARGS__, NULL})

/* 1 when s begins with the literal lit. */
#define STARTS(s, lit) (!strncmp((s), (lit), sizeof(lit) - 1))

static char argbuf[32][128];

static int parse_args(struct t_args *a, const char **args)
{
	static char *argv[32];
	int argc = 0;
	for (; args[argc]; argc++) {
		snprintf(argbuf[argc], sizeof(argbuf[argc]), "%s", args[argc]);
		argv[argc] = argbuf[argc];
	}
	memset(a, 0, sizeof(*a));
	return tg_opt_parse(&t_cmd, a, argc, argv);
}

static void test_switch_and_values(void **state)
{
	(void)state;
	struct t_args a;
	assert_int_equal(PARSE(&a, "--flag", "--name", "x", "-o", "out.txt", "--num=42"), 0);
	assert_int_equal(a.flag, 1);
	assert_string_equal(a.name, "x");
	assert_string_equal(a.out, "out.txt");
	assert_int_equal(a.num, 42);
	tg_opt_free(&t_cmd, &a);
	/* --name=VALUE, an empty value, and a value that looks like an option */
	assert_int_equal(PARSE(&a, "--name=a=b"), 0);
	assert_string_equal(a.name, "a=b");
	assert_int_equal(PARSE(&a, "--name="), 0);
	assert_string_equal(a.name, "");
	assert_int_equal(PARSE(&a, "--name", "--flag"), 0);
	assert_string_equal(a.name, "--flag");
	assert_int_equal(a.flag, 0);
	/* the last of two wins */
	assert_int_equal(PARSE(&a, "--num", "1", "--num", "2"), 0);
	assert_int_equal(a.num, 2);
}

static void test_bad_values(void **state)
{
	(void)state;
	struct t_args a;
	assert_int_equal(PARSE(&a, "--num", "100"), TG_EINVAL);
	assert_string_equal(tg_error_last(), "t: --num: '100' is not a number from 0 to 99");
	assert_int_equal(PARSE(&a, "--num="), TG_EINVAL);
	assert_string_equal(tg_error_last(), "t: --num: '' is not a number from 0 to 99");
	assert_int_equal(PARSE(&a, "--name"), TG_EINVAL);
	assert_string_equal(tg_error_last(), "t: --name needs a value");
	assert_int_equal(PARSE(&a, "f", "-o"), TG_EINVAL);
	assert_string_equal(tg_error_last(), "t: -o needs a value");
	assert_int_equal(PARSE(&a, "--flag=1"), TG_EINVAL);
	assert_string_equal(tg_error_last(), "t: --flag takes no value");
	/* the first problem is the one reported */
	assert_int_equal(PARSE(&a, "--num", "x", "--bogus"), TG_EINVAL);
	assert_string_equal(tg_error_last(), "t: --num: 'x' is not a number from 0 to 99");
}

static void test_unknown_options(void **state)
{
	(void)state;
	struct t_args a;
	assert_int_equal(PARSE(&a, "f", "--bogus"), TG_EINVAL);
	assert_string_equal(tg_error_last(), "t: unknown option --bogus (see tracegate t --help)");
	assert_int_equal(PARSE(&a, "--bogus=1"), TG_EINVAL);
	assert_string_equal(tg_error_last(), "t: unknown option --bogus=1 (see tracegate t --help)");
	assert_int_equal(PARSE(&a, "-x"), TG_EINVAL);
	assert_string_equal(tg_error_last(), "t: unknown option -x (see tracegate t --help)");
	/* a prefix is not the option; -o with its value glued is not -o */
	assert_int_equal(PARSE(&a, "--fla"), TG_EINVAL);
	assert_int_equal(PARSE(&a, "-ofile"), TG_EINVAL);
	assert_string_equal(tg_error_last(), "t: unknown option -ofile (see tracegate t --help)");
}

static void test_repeatable(void **state)
{
	(void)state;
	struct t_args a;
	assert_int_equal(PARSE(&a, "--tag", "a", "x.json", "--tag=b", "--tag", "c"), 0);
	assert_int_equal(a.tags.n, 3);
	assert_string_equal(a.tags.v[0], "a");
	assert_string_equal(a.tags.v[1], "b");
	assert_string_equal(a.tags.v[2], "c");
	assert_int_equal(a.files.n, 1);
	tg_opt_free(&t_cmd, &a);
	assert_null(a.tags.v);
	assert_int_equal(a.tags.n, 0);
	assert_null(a.files.v);
	/* a bad one: the error names it, the lists are freed */
	assert_int_equal(PARSE(&a, "--tag", "a", "--tag", "B"), TG_EINVAL);
	assert_string_equal(tg_error_last(), "t: --tag: 'B' is not lower-case letters");
	assert_null(a.tags.v);
	assert_int_equal(a.tags.n, 0);
}

static void test_positionals_and_separator(void **state)
{
	(void)state;
	struct t_args a;
	assert_int_equal(PARSE(&a, "b1", "--flag", "b2", "--", "n1", "-", "--num", "3"), 0);
	assert_int_equal(a.files.n, 4);
	assert_string_equal(a.files.v[0], "b1");
	assert_string_equal(a.files.v[1], "b2");
	assert_string_equal(a.files.v[2], "n1");
	assert_string_equal(a.files.v[3], "-"); /* "-" alone is an argument */
	assert_int_equal(a.split.given, 1);
	assert_int_equal(a.split.before, 2);
	assert_int_equal(a.flag, 1);
	assert_int_equal(a.num, 3); /* options still read after "--" */
	tg_opt_free(&t_cmd, &a);
	assert_int_equal(PARSE(&a, "--", "x"), 0);
	assert_int_equal(a.split.before, 0);
	tg_opt_free(&t_cmd, &a);
	assert_int_equal(PARSE(&a, "a"), 0);
	assert_int_equal(a.split.given, 0);
	tg_opt_free(&t_cmd, &a);
	assert_int_equal(PARSE(&a, "a", "--", "b", "--", "c"), TG_EINVAL);
	assert_string_equal(tg_error_last(), "t: '--' given twice");
	assert_null(a.files.v);
}

/* One TRACE, required; no "--". */
struct one_args {
	char *trace;
	int once;
};

static const tg_opt_spec one_opts[] = {
	{TG_OPT_ARG, "TRACE", 0, NULL, offsetof(struct one_args, trace), NULL, NULL, TG_OPT_REQUIRED, NULL, NULL},
	{TG_OPT_SWITCH, "once", 0, NULL, offsetof(struct one_args, once), NULL, NULL, 0, "once", NULL},
	{.kind = TG_OPT_END},
};
static const tg_opt_command one_cmd = {"one", NULL, NULL, NULL, one_opts};

/* No positional argument; a required option. */
struct none_args {
	char *config;
};

static const tg_opt_spec none_opts[] = {
	{TG_OPT_VALUE, "config", 0, "FILE", offsetof(struct none_args, config), NULL, NULL,
	 TG_OPT_REQUIRED | TG_OPT_IN_USAGE, "the configuration", NULL},
	{.kind = TG_OPT_END},
};
static const tg_opt_command none_cmd = {"none", NULL, NULL, NULL, none_opts};

static void test_positional_counts(void **state)
{
	(void)state;
	struct one_args o = {0};
	char *one[] = {"one", "a.json", "--once", NULL};
	assert_int_equal(tg_opt_parse(&one_cmd, &o, 3, one), 0);
	assert_string_equal(o.trace, "a.json");
	assert_int_equal(o.once, 1);
	char *two[] = {"one", "a.json", "b.json", NULL};
	assert_int_equal(tg_opt_parse(&one_cmd, &o, 3, two), TG_EINVAL);
	assert_string_equal(tg_error_last(), "one: one TRACE only (see tracegate one --help)");
	char *zero[] = {"one", "--once", NULL};
	assert_int_equal(tg_opt_parse(&one_cmd, &o, 2, zero), TG_OPT_MISSING);
	char *sep[] = {"one", "--", NULL};
	assert_int_equal(tg_opt_parse(&one_cmd, &o, 2, sep), TG_EINVAL);
	assert_string_equal(tg_error_last(), "one: unknown option -- (see tracegate one --help)");

	struct none_args n = {0};
	char *stray[] = {"none", "--config", "c.yaml", "extra", NULL};
	assert_int_equal(tg_opt_parse(&none_cmd, &n, 4, stray), TG_EINVAL);
	assert_string_equal(tg_error_last(), "none: unknown argument extra (see tracegate none --help)");
	char *missing[] = {"none", NULL};
	assert_int_equal(tg_opt_parse(&none_cmd, &n, 1, missing), TG_OPT_MISSING);
	char *ok[] = {"none", "--config=c.yaml", NULL};
	assert_int_equal(tg_opt_parse(&none_cmd, &n, 2, ok), 0);
	assert_string_equal(n.config, "c.yaml");
}

static void test_help_asked(void **state)
{
	(void)state;
	struct t_args a;
	assert_int_equal(PARSE(&a, "x", "--help"), TG_OPT_HELP);
	assert_null(a.files.v); /* freed */
	assert_int_equal(PARSE(&a, "-h", "--bogus"), TG_OPT_HELP);
	/* an error before it wins; a value that reads --help is a value */
	assert_int_equal(PARSE(&a, "--bogus", "-h"), TG_EINVAL);
	assert_int_equal(PARSE(&a, "--name", "--help"), 0);
	assert_string_equal(a.name, "--help");
	/* help wins over a missing argument */
	struct one_args o = {0};
	char *help[] = {"one", "--help", NULL};
	assert_int_equal(tg_opt_parse(&one_cmd, &o, 2, help), TG_OPT_HELP);
}

static void test_reading_limits(void **state)
{
	(void)state;
	struct t_args a;
	assert_int_equal(PARSE(&a, "--max-bytes", "2K", "--max-ratio=8G", "--max-depth", "5000", "--max-string", "1M",
	                       "--single-thread"),
	                 0);
	assert_int_equal(a.ropts.source.max_bytes, 2048);
	assert_int_equal(a.ropts.source.max_ratio, UINT32_MAX); /* clamped */
	assert_int_equal(a.ropts.max_depth, 1000);              /* clamped */
	assert_int_equal(a.ropts.max_string, 1 << 20);
	assert_int_equal(a.ropts.source.single_thread, 1);
	/* --max-events is the test's own switch here: it shadows the limit */
	assert_int_equal(PARSE(&a, "--max-events"), 0);
	assert_int_equal(a.flag, 1);
	assert_int_equal(a.ropts.max_events, 0);
	assert_int_equal(PARSE(&a, "--max-bytes", "12x"), TG_EINVAL);
	assert_string_equal(tg_error_last(), "t: --max-bytes: '12x' is not a positive size (N, NK, NM or NG)");
	assert_int_equal(PARSE(&a, "--max-depth", "0"), TG_EINVAL);
	assert_string_equal(tg_error_last(), "t: --max-depth: '0' is not a positive number");
	assert_int_equal(PARSE(&a, "--max-bytes", "-1"), TG_EINVAL);
	assert_int_equal(PARSE(&a, "--max-bytes", "99999999999999999999"), TG_EINVAL);
	assert_int_equal(PARSE(&a, "--max-bytes", "17179869184G"), TG_EINVAL); /* 2^64: overflows */
}

/* The help of cmd as a string the caller frees. */
static char *help_of(const tg_opt_command *cmd)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(tg_opt_help_write(f, cmd), 0);
	fclose(f);
	return buf;
}

/* How many lines of help begin with "  " + label followed by a space or the
 * line's end: the option's entry in the list. */
static int entries_of(const char *help, const char *label)
{
	int n = 0;
	size_t len = strlen(label);
	for (const char *p = help; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, "  ", 2) && !strncmp(p + 2, label, len) && (p[2 + len] == ' ' || p[2 + len] == '\n'))
			n++;
	return n;
}

/* Every line of help at most TG_OPT_HELP_WIDTH columns; returns the longest. */
static size_t longest_line(const char *help)
{
	size_t most = 0;
	for (const char *p = help; *p;) {
		size_t len = strcspn(p, "\n");
		if (len > most)
			most = len;
		p += len + (p[len] == '\n');
	}
	return most;
}

/* Checks cmd's help: the usage line, no line over 80 columns, every option
 * of its table (includes unfolded) listed exactly once, an option that an
 * earlier one of the same name shadows not at all (seen: the names met so
 * far, *nseen of them). */
static void check_help(const tg_opt_command *cmd, const tg_opt_spec *table, const char *help, const char **seen,
                       size_t *nseen)
{
	char usage[128];
	snprintf(usage, sizeof(usage), "usage: tracegate %s ", cmd->name);
	assert_true(!strncmp(help, usage, strlen(usage)));
	assert_true(longest_line(help) <= TG_OPT_HELP_WIDTH);
	for (const tg_opt_spec *s = table; s->kind != TG_OPT_END; s++) {
		if (s->kind == TG_OPT_INCLUDE) {
			check_help(cmd, s->include, help, seen, nseen);
			continue;
		}
		if (s->kind == TG_OPT_SECTION) {
			assert_non_null(strstr(help, "\n\nReading limits"));
			continue;
		}
		if (s->kind != TG_OPT_SWITCH && s->kind != TG_OPT_VALUE && s->kind != TG_OPT_LIST)
			continue;
		char label[128];
		if (s->name)
			snprintf(label, sizeof(label), "--%s%s%s", s->name, s->kind == TG_OPT_SWITCH ? "" : " ",
			         s->kind == TG_OPT_SWITCH ? "" : s->value_name);
		else
			snprintf(label, sizeof(label), "-%c %s", s->alias, s->value_name);
		int shadowed = 0;
		for (size_t k = 0; s->name && k < *nseen; k++)
			shadowed |= !strcmp(seen[k], s->name);
		assert_int_equal(entries_of(help, label), shadowed ? 0 : 1);
		if (s->name && *nseen < 64)
			seen[(*nseen)++] = s->name;
	}
}

static void test_help_of_the_test_table(void **state)
{
	(void)state;
	char *help = help_of(&t_cmd);
	assert_true(STARTS(help, "usage: tracegate t [FILE...] [--flag] [options]\n\nA command of the tests.\n\n"));
	assert_non_null(strstr(help, "\n  --flag             a switch\n"));
	assert_non_null(strstr(help, "\n  -o FILE            short only\n"));
	/* the shadowed limit is listed once, as the test's switch */
	assert_non_null(strstr(help, "\n  --max-events       shadowing\n"));
	assert_null(strstr(help, "--max-events N"));
	assert_int_equal(entries_of(help, "--max-bytes SIZE"), 1);
	free(help);
}

/* A help text of 60 words wraps into lines of at most 80 columns, each
 * indented under the option column, no word lost or cut. */
static void test_help_wraps(void **state)
{
	(void)state;
	char text[2048] = "";
	for (int i = 0; i < 60; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "%sword%d", i ? " " : "", i);
	const tg_opt_spec opts[] = {
		{TG_OPT_SWITCH, "long-help", 0, NULL, 0, NULL, NULL, 0, text, NULL},
		{TG_OPT_SWITCH, "a-switch-wider-than-the-column", 0, NULL, 0, NULL, NULL, 0, "below its name", NULL},
		{.kind = TG_OPT_END},
	};
	const tg_opt_command cmd = {"w", NULL, text, NULL, opts};
	char *help = help_of(&cmd);
	assert_true(longest_line(help) <= TG_OPT_HELP_WIDTH);
	assert_true(longest_line(help) > 70); /* filled, not cut short */
	/* the option's help: its lines after the first indented by 15 */
	const char *p = strstr(help, "  --long-help  word0 ");
	assert_non_null(p);
	char words[2048] = "";
	for (int line = 0; *p && strncmp(p, "  --a-switch", 12); line++) {
		size_t len = strcspn(p, "\n");
		assert_true(len > 15);
		if (line)
			assert_true(!strncmp(p, "               ", 15) && p[15] != ' ');
		snprintf(words + strlen(words), sizeof(words) - strlen(words), "%s%.*s", *words ? " " : "", (int)(len - 15),
		         p + 15);
		p += len + 1;
	}
	assert_string_equal(words, text);
	assert_non_null(strstr(help, "\n  --a-switch-wider-than-the-column\n               below its name\n"));
	free(help);
}

/* The option table of every command in the command table (cli/commands.c),
 * in its order, into cmds[0..max); returns how many. */
static size_t commands_of(const tg_opt_command **cmds, size_t max)
{
	size_t n = 0;
	for (const tg_command *c = tg_commands; c->name; c++) {
		assert_true(n < max);
		cmds[n++] = c->options;
	}
	assert_int_equal(n, 9);
	return n;
}

static void test_help_of_every_command(void **state)
{
	(void)state;
	const tg_opt_command *cmds[16];
	size_t ncmds = commands_of(cmds, sizeof(cmds) / sizeof(cmds[0]));
	for (size_t i = 0; i < ncmds; i++) {
		char *help = help_of(cmds[i]);
		const char *seen[64];
		size_t nseen = 0;
		check_help(cmds[i], cmds[i]->table, help, seen, &nseen);
		free(help);
	}
	/* what the tests/cli_*.sh suites and users grep for */
	char *h = help_of(&tg_cmd_diff_opts);
	assert_true(STARTS(h, "usage: tracegate diff BASE NEW [options]\n       tracegate diff BASE... -- NEW... [options]\n"));
	/* --max-bytes is the reading limit here too (issue 23: it was the md
	 * size in diff alone); the comment's size has its own name */
	assert_int_equal(entries_of(h, "--max-bytes SIZE"), 1);
	assert_non_null(strstr(h, "most bytes of JSON"));
	assert_int_equal(entries_of(h, "--max-comment-bytes N"), 1);
	free(h);
	h = help_of(&tg_cmd_report_opts);
	assert_non_null(strstr(h, "[--format text|md|csv|json|html]"));
	assert_non_null(strstr(h, "most bytes of JSON"));
	free(h);
	h = help_of(&tg_cmd_critical_path_opts);
	assert_true(STARTS(h, "usage: tracegate critical-path TRACE [--format text|json|html] [-o FILE]\n"));
	assert_non_null(strstr(h, "--zero-weight-launch-edges"));
	assert_non_null(strstr(h, "CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=1"));
	free(h);
	h = help_of(&tg_cmd_history_opts);
	assert_true(STARTS(h, "usage: tracegate history --config FILE --repo REPO --branch BRANCH [options]\n"));
	free(h);
	h = help_of(&tg_cmd_augment_opts);
	assert_true(STARTS(h, "usage: tracegate augment TRACE -o FILE [--diff BASE] [options]\n"));
	free(h);
	h = help_of(&tg_cmd_replay_opts);
	assert_true(STARTS(h, "usage: tracegate replay TRACE --op NAME [--match REGEX] [--index N] [-o DIR]\n"));
	free(h);
}

/* The value name and help of option name in cmd's table (includes
 * unfolded, the first of a name winning as the parser has it); NULL when
 * it has none. */
static const tg_opt_spec *option_in(const tg_opt_spec *table, const char *name, char alias)
{
	for (const tg_opt_spec *s = table; s->kind != TG_OPT_END; s++) {
		if (s->kind == TG_OPT_INCLUDE) {
			const tg_opt_spec *in = option_in(s->include, name, alias);
			if (in)
				return in;
			continue;
		}
		if (s->kind != TG_OPT_SWITCH && s->kind != TG_OPT_VALUE && s->kind != TG_OPT_LIST)
			continue;
		if ((name && s->name && !strcmp(s->name, name)) || (alias && s->alias == alias))
			return s;
	}
	return NULL;
}

/* One meaning per option across commands (issue 23): every command that
 * takes -o writes one FILE (report's csv and replay's scripts, many files,
 * go in a folder, said in their help); --max-bytes, --config and the other
 * reading limits are the same entry wherever they are taken. */
static void test_one_meaning_per_option(void **state)
{
	(void)state;
	const tg_opt_command *cmds[16];
	size_t ncmds = commands_of(cmds, sizeof(cmds) / sizeof(cmds[0]));
	size_t with_o = 0, with_limit = 0;
	for (size_t i = 0; i < ncmds; i++) {
		const tg_opt_spec *o = option_in(cmds[i]->table, NULL, 'o');
		/* replay writes one script per invocation: a folder, as csv's tables */
		const char *want = cmds[i] == &tg_cmd_replay_opts ? "DIR" : "FILE";
		if (o) {
			with_o++;
			if (strcmp(o->value_name, want))
				fail_msg("%s: -o %s, not -o %s", cmds[i]->name, o->value_name, want);
		}
		const tg_opt_spec *mb = option_in(cmds[i]->table, "max-bytes", 0);
		if (mb) {
			with_limit++;
			assert_ptr_equal(mb, option_in(tg_cli_limit_opts, "max-bytes", 0));
		}
		const tg_opt_spec *cf = option_in(cmds[i]->table, "config", 0);
		if (cf)
			assert_string_equal(cf->value_name, "FILE");
	}
	assert_int_equal(with_o, 6); /* report, diff, history, replay, augment, critical-path */
	assert_int_equal(with_limit, 7); /* and tree, modules (no -o) */
	assert_non_null(
		strstr(option_in(tg_cmd_report_opts.table, NULL, 'o')->help, "with --format csv, FILE is a folder"));
}

/* Options that exclude each other, or go only with another, are refused
 * naming both; a missing required entry is named in one line. */
struct rel_args {
	char *config;
	int once, check, offline;
};

static const tg_opt_spec rel_opts[] = {
	{TG_OPT_VALUE, "config", 0, "FILE", offsetof(struct rel_args, config), NULL, NULL, TG_OPT_REQUIRED, "c", NULL},
	{TG_OPT_SWITCH, "once", 0, NULL, offsetof(struct rel_args, once), NULL, NULL, 0, "o", NULL},
	{TG_OPT_SWITCH, "check", 0, NULL, offsetof(struct rel_args, check), NULL, NULL, 0, "c", NULL},
	{TG_OPT_SWITCH, "offline", 0, NULL, offsetof(struct rel_args, offline), NULL, NULL, 0, "f", NULL},
	{.kind = TG_OPT_EXCLUSIVE, .name = "once check"},
	{.kind = TG_OPT_NEEDS, .name = "offline check"},
	{.kind = TG_OPT_END},
};
static const tg_opt_command rel_cmd = {"rel", NULL, NULL, NULL, rel_opts};

static void test_relations_and_missing(void **state)
{
	(void)state;
	struct rel_args r = {0};
	char *both[] = {"rel", "--config", "c", "--check", "--once", NULL};
	assert_int_equal(tg_opt_parse(&rel_cmd, &r, 5, both), TG_EINVAL);
	assert_string_equal(tg_error_last(), "rel: --once and --check exclude each other: give one");
	char *alone[] = {"rel", "--config", "c", "--offline", NULL};
	assert_int_equal(tg_opt_parse(&rel_cmd, &r, 4, alone), TG_EINVAL);
	assert_string_equal(tg_error_last(), "rel: --offline goes with --check");
	memset(&r, 0, sizeof(r));
	char *fine[] = {"rel", "--config", "c", "--offline", "--check", NULL};
	assert_int_equal(tg_opt_parse(&rel_cmd, &r, 5, fine), 0);
	assert_int_equal(r.offline + r.check + r.once, 2);
	/* a short option in a relation: its "-o" */
	char *rep[] = {"replay", "t.json", "--op", "aten::mm", "--list", "-o", "out", NULL};
	union {
		char bytes[8192]; /* room for replay's arguments struct, whatever it holds */
		void *align;
	} any;
	memset(&any, 0, sizeof(any));
	assert_int_equal(tg_opt_parse(&tg_cmd_replay_opts, &any, 7, rep), TG_EINVAL);
	assert_string_equal(tg_error_last(), "replay: --list and -o exclude each other: give one");
	char *missing[] = {"rel", "--check", NULL};
	assert_int_equal(tg_opt_parse(&rel_cmd, &r, 2, missing), TG_OPT_MISSING);
	assert_string_equal(tg_error_last(), "rel: --config FILE is required (see tracegate rel --help)");
	struct one_args o = {0};
	char *zero[] = {"one", "--once", NULL};
	assert_int_equal(tg_opt_parse(&one_cmd, &o, 2, zero), TG_OPT_MISSING);
	assert_string_equal(tg_error_last(), "one: TRACE is missing (see tracegate one --help)");
	/* the real table: daemon --once --check (its arguments struct's layout) */
	char *daemon_both[] = {"daemon", "--config", "c.yaml", "--once", "--check", NULL};
	struct {
		char *config;
		int once, check, offline;
	} d = {0};
	assert_int_equal(tg_opt_parse(&tg_cmd_daemon_opts, &d, 5, daemon_both), TG_EINVAL);
	assert_string_equal(tg_error_last(), "daemon: --once and --check exclude each other: give one");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_switch_and_values),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_unknown_options),
		cmocka_unit_test(test_repeatable),
		cmocka_unit_test(test_positionals_and_separator),
		cmocka_unit_test(test_positional_counts),
		cmocka_unit_test(test_help_asked),
		cmocka_unit_test(test_reading_limits),
		cmocka_unit_test(test_help_of_the_test_table),
		cmocka_unit_test(test_help_wraps),
		cmocka_unit_test(test_help_of_every_command),
		cmocka_unit_test(test_one_meaning_per_option),
		cmocka_unit_test(test_relations_and_missing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
