/*
 * test_commands.c - the command table of the tracegate command line
 * (cli/commands.c): every row complete and its name unique, the lookup,
 * the top-level usage made from it (every command once, in table order,
 * the summaries in one column, no line over 80 columns), each command's
 * help printable from its row and naming what the row's synopsis names,
 * and which rows run in tracegate-daemon. tests/cli_commands.sh checks the
 * same from the two binaries.
 */
#include "testutil.h"

#include "../cli/commands.h"
#include "../cli/opt.h"

#include <ctype.h>
#include <string.h>

static size_t rows(void)
{
	size_t n = 0;
	while (tg_commands[n].name)
		n++;
	return n;
}

/* What tg_commands_usage_write writes, NUL-terminated; the caller frees.
 * Not inlined: gcc takes the memory stream's buffer for a local. */
__attribute__((noinline)) static char *usage_text(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(tg_commands_usage_write(f), 0);
	fclose(f);
	return buf;
}

__attribute__((noinline)) static char *help_text(const tg_opt_command *cmd)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(tg_opt_help_write(f, cmd), 0);
	fclose(f);
	return buf;
}

static void test_rows_complete(void **state)
{
	(void)state;
	assert_int_equal(rows(), 9);
	for (const tg_command *c = tg_commands; c->name; c++) {
		assert_true(c->name[0]);
		assert_non_null(c->run);
		assert_non_null(c->options);
		assert_string_equal(c->options->name, c->name);
		assert_non_null(c->options->table);
		assert_non_null(c->synopsis);
		assert_true(c->synopsis[0]);
		assert_non_null(c->summary);
		assert_true(c->summary[0]);
		assert_int_equal(c->flags & ~(unsigned)TG_COMMAND_IN_DAEMON, 0);
		for (const char *p = c->name; *p; p++)
			if (!islower((unsigned char)*p) && *p != '-')
				fail_msg("%s: a command name is lower case words joined by '-'", c->name);
	}
}

static void test_names_unique_and_found(void **state)
{
	(void)state;
	for (const tg_command *c = tg_commands; c->name; c++) {
		for (const tg_command *d = c + 1; d->name; d++)
			if (!strcmp(c->name, d->name))
				fail_msg("%s: two rows", c->name);
		assert_ptr_equal(tg_commands_find(c->name), c);
	}
	assert_null(tg_commands_find("nosuch"));
	assert_null(tg_commands_find(""));
	assert_null(tg_commands_find("--help"));
	assert_null(tg_commands_find("tre"));
	assert_null(tg_commands_find("tree "));
}

/* The usage lists "  NAME SYNOPSIS" once per row in table order, every
 * summary from the same column, its words in order; no line over 80. */
static void test_usage(void **state)
{
	(void)state;
	char *u = usage_text();
	assert_true(!strncmp(u, "usage: tracegate COMMAND [ARGS]\n", 32));
	assert_non_null(strstr(u, "\n  tracegate COMMAND --help    help on a command\n"));
	for (const char *l = u; *l;) {
		size_t len = strcspn(l, "\n");
		if (len > TG_OPT_HELP_WIDTH)
			fail_msg("a line of %zu columns: %.*s", len, (int)len, l);
		l += len + (l[len] == '\n');
	}
	const char *at = strstr(u, "\nCommands:\n");
	assert_non_null(at);
	long column = -1;
	for (const tg_command *c = tg_commands; c->name; c++) {
		char head[128];
		snprintf(head, sizeof(head), "\n  %s %s   ", c->name, c->synopsis);
		const char *line = strstr(at, head);
		if (!line)
			fail_msg("%s: not listed after the previous command", c->name);
		line++;
		const char *summary = line + strlen(head) - 1;
		while (*summary == ' ')
			summary++;
		if (column < 0)
			column = summary - line;
		assert_int_equal(summary - line, column);
		/* the summary's words, wrapped onto lines indented to the column */
		const char *w = c->summary, *s = summary;
		while (*w) {
			size_t n = strcspn(w, " ");
			assert_memory_equal(s, w, n);
			w += n + (w[n] == ' ');
			s += n;
			if (*w && *s == ' ')
				s++;
			else if (*w) {
				assert_int_equal(*s, '\n');
				for (long k = 1; k <= column; k++)
					assert_int_equal(s[k], ' ');
				s += column + 1;
			}
		}
		assert_int_equal(*s, '\n');
		at = s;
	}
	/* nothing but the table's rows between "Commands:" and the blank line */
	size_t listed = 0;
	for (const char *l = strstr(u, "\nCommands:\n") + 11; *l && *l != '\n'; l = strchr(l, '\n') + 1)
		listed += l[2] != ' ';
	assert_int_equal(listed, rows());
	free(u);
}

/* Each option the synopsis names (--depth, -o; "--once|--check" is two)
 * is one of the command's, and its help says so and begins with the
 * command's usage line. */
static void test_help_names_synopsis(void **state)
{
	(void)state;
	for (const tg_command *c = tg_commands; c->name; c++) {
		char *h = help_text(c->options);
		char want[64];
		snprintf(want, sizeof(want), "usage: tracegate %s ", c->name);
		if (strncmp(h, want, strlen(want)))
			fail_msg("%s: its help begins %.40s", c->name, h);
		char syn[256];
		snprintf(syn, sizeof(syn), "%s", c->synopsis);
		for (char *save = NULL, *tok = strtok_r(syn, " []|", &save); tok; tok = strtok_r(NULL, " []|", &save)) {
			if (tok[0] != '-')
				continue;
			char entry[64];
			snprintf(entry, sizeof(entry), "\n  %s", tok);
			if (!strstr(h, entry))
				fail_msg("%s: the synopsis names %s, which its help does not list", c->name, tok);
		}
		free(h);
	}
}

/* tracegate links core's libraries only (Makefile): the commands that need
 * the daemon's (curl, libgit2, SQLite, libpq) run in tracegate-daemon. */
static void test_in_daemon_rows(void **state)
{
	(void)state;
	for (const tg_command *c = tg_commands; c->name; c++) {
		int daemon = !strcmp(c->name, "daemon") || !strcmp(c->name, "history");
		if (!!(c->flags & TG_COMMAND_IN_DAEMON) != daemon)
			fail_msg("%s: %s tracegate-daemon", c->name, daemon ? "runs in" : "does not need");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_complete),
		cmocka_unit_test(test_names_unique_and_found),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_help_names_synopsis),
		cmocka_unit_test(test_in_daemon_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
