/*
 * commands.c - the command table of the tracegate command line and the
 * top-level usage made from it (commands.h).
 *
 * The usage lists each row as "  NAME SYNOPSIS" padded to one column (the
 * longest plus three spaces) and its summary wrapped beside that column to
 * TG_OPT_HELP_WIDTH (opt.c's wrapper, as for every --help); what tracegate
 * is, how to get help and the exit codes around it are fixed text.
 *
 * Compiled twice (Makefile): once into libtgcli.a for tracegate-daemon and
 * the tests, once with TG_CLI_EXEC_DAEMON for tracegate, where the rows
 * marked TG_COMMAND_IN_DAEMON name neither their handler nor their table,
 * so that the linker takes nothing of the daemon into tracegate.
 */
#include "commands.h"

#include <string.h>

#ifdef TG_CLI_EXEC_DAEMON
#define IN_DAEMON(x) NULL
#else
#define IN_DAEMON(x) x
#endif

const tg_command tg_commands[] = {
	{"tree", tg_cmd_tree, &tg_cmd_tree_opts, "TRACE [--depth N] [--match REGEX]",
	 "the event tree: python -> cpu op -> launch -> kernels", 0},
	{"modules", tg_cmd_modules, &tg_cmd_modules_opts, "TRACE", "GPU time per nn.Module", 0},
	{"report", tg_cmd_report, &tg_cmd_report_opts, "TRACE... [--format F] [-o DIR]",
	 "the perf report: GPU timeline, kernel time by category, op and kernel", 0},
	{"critical-path", tg_cmd_critical_path, &tg_cmd_critical_path_opts, "TRACE [--format F]",
	 "what bounds a step: HTA's critical path and its breakdown", 0},
	{"diff", tg_cmd_diff, &tg_cmd_diff_opts, "BASE NEW [--rules F] [--format F]",
	 "compare two traces and judge the difference with threshold rules", 0},
	{"daemon", IN_DAEMON(tg_cmd_daemon), IN_DAEMON(&tg_cmd_daemon_opts), "--config FILE [--once|--check]",
	 "watch the artifact storage, judge new runs, post each verdict to the forge", TG_COMMAND_IN_DAEMON},
	{"history", IN_DAEMON(tg_cmd_history), IN_DAEMON(&tg_cmd_history_opts), "--config F --repo R --branch B",
	 "a branch's performance history", TG_COMMAND_IN_DAEMON},
	{"replay", tg_cmd_replay, &tg_cmd_replay_opts, "TRACE --op NAME [-o DIR]",
	 "a PyTorch script per distinct call of an op that replays and times it", 0},
	{"augment", tg_cmd_augment, &tg_cmd_augment_opts, "TRACE -o OUT [--diff BASE]",
	 "TRACE with counter tracks and what a diff found, for a timeline viewer", 0},
	{NULL, NULL, NULL, NULL, NULL, 0},
};

static const char usage_head[] =
	"usage: tracegate COMMAND [ARGS]\n"
	"\n"
	"A performance regression gate for GPU workloads: reads PyTorch profiler\n"
	"traces (Kineto / Chrome-trace JSON, plain or gzip).\n"
	"\n"
	"Commands:\n";

static const char usage_tail[] =
	"\n"
	"  tracegate COMMAND --help    help on a command\n"
	"  tracegate --version         the version\n"
	"\n"
	"Exit codes: 0 success (diff: pass or warn), 1 diff blocked, 2 usage or input\n"
	"error (one line on stderr naming the file and, for a malformed trace, the\n"
	"byte offset), 3 diff inconclusive.\n";

const tg_command *tg_commands_find(const char *name)
{
	for (const tg_command *c = tg_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int tg_commands_usage_write(FILE *f)
{
	size_t width = 0;
	for (const tg_command *c = tg_commands; c->name; c++) {
		size_t len = strlen(c->name) + 1 + strlen(c->synopsis);
		if (len > width)
			width = len;
	}
	size_t column = 2 + width + 3;
	fputs(usage_head, f);
	for (const tg_command *c = tg_commands; c->name; c++) {
		int len = fprintf(f, "  %s %s", c->name, c->synopsis);
		fprintf(f, "%*s", (int)column - (len > 0 ? len : 0), "");
		size_t col = column;
		tg_opt_put_wrapped(f, c->summary, &col, column, TG_OPT_HELP_WIDTH);
		fputc('\n', f);
	}
	fputs(usage_tail, f);
	return ferror(f) ? -1 : 0;
}
