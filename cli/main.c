/*
 * main.c - the tracegate command line: dispatches to a subcommand.
 *
 * Built twice (Makefile). tracegate-daemon holds every command and links
 * what the daemon and history need: curl, libgit2, SQLite, libpq and the
 * forty-odd libraries they bring. tracegate (TG_CLI_EXEC_DAEMON) holds the
 * commands that read traces and links only jansson, libyaml, zlib and
 * ISA-L; for daemon and history it executes tracegate-daemon beside it
 * with the same arguments. Why: loading those libraries costs ~6 ms of
 * CPU and ~7 MB of memory at every start (44 shared objects, 12,000
 * symbol relocations); a report of an 11 MB trace costs about as much, and
 * gzip -dc of it ~33 ms (docs/scale.md).
 */
#include "../util/tg.h"
#include "cli.h"
#include "commands.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: tracegate COMMAND [ARGS]\n"
	"\n"
	"A performance regression gate for GPU workloads: reads PyTorch profiler\n"
	"traces (Kineto / Chrome-trace JSON, plain or gzip).\n"
	"\n"
	"Commands:\n"
	"  tree TRACE [--depth N] [--match REGEX]   the event tree: python -> cpu op ->\n"
	"                                           launch -> kernels\n"
	"  modules TRACE                            GPU time per nn.Module\n"
	"  report TRACE... [--format F] [-o DIR]    the perf report: GPU timeline, kernel\n"
	"                                           time by category, op and kernel\n"
	"  critical-path TRACE [--format F]         what bounds a step: HTA's critical\n"
	"                                           path and its breakdown\n"
	"  diff BASE NEW [--rules F] [--format F]   compare two traces and judge the\n"
	"                                           difference with threshold rules\n"
	"  daemon --config FILE [--once|--check]    watch the artifact storage, judge each\n"
	"                                           new run, post the verdict to the forge\n"
	"  history --config F --repo R --branch B   a branch's performance history\n"
	"  replay TRACE --op NAME [-o DIR]          a PyTorch script per distinct call of\n"
	"                                           an op that replays and times it\n"
	"  augment TRACE -o OUT [--diff BASE]       TRACE with counter tracks and what a\n"
	"                                           diff found, for a timeline viewer\n"
	"\n"
	"  tracegate COMMAND --help    help on a command\n"
	"  tracegate --version         the version\n"
	"\n"
	"Exit codes: 0 success (diff: pass or warn), 1 diff blocked, 2 usage or input\n"
	"error (one line on stderr naming the file and, for a malformed trace, the\n"
	"byte offset), 3 diff inconclusive.\n";

#ifdef TG_CLI_EXEC_DAEMON
/* Runs tracegate-daemon, from the folder this binary is in, with argv;
 * returns only on failure, with the exit code. */
static int exec_daemon_binary(char **argv)
{
	char self[PATH_MAX], path[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		tg_cli_error("%s: cannot find this program's folder: %s", argv[1], strerror(errno));
		return TG_EXIT_USAGE;
	}
	self[n] = 0;
	char *slash = strrchr(self, '/');
	snprintf(path, sizeof(path), "%.*s/tracegate-daemon", slash ? (int)(slash - self) : 1, slash ? self : ".");
	execv(path, argv);
	tg_cli_error("%s: cannot run %s: %s", argv[1], path, strerror(errno));
	return TG_EXIT_USAGE;
}

int tg_cmd_daemon(int argc, char **argv)
{
	(void)argc;
	return exec_daemon_binary(argv - 1);
}

int tg_cmd_history(int argc, char **argv)
{
	(void)argc;
	return exec_daemon_binary(argv - 1);
}
#endif

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage, stderr);
		return TG_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		fputs(usage, stdout);
		return TG_EXIT_OK;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("tracegate %s\n", TG_VERSION);
		return TG_EXIT_OK;
	}
	if (!strcmp(cmd, "tree"))
		return tg_cmd_tree(argc - 1, argv + 1);
	if (!strcmp(cmd, "diff"))
		return tg_cmd_diff(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return tg_cmd_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "daemon"))
		return tg_cmd_daemon(argc - 1, argv + 1);
	if (!strcmp(cmd, "history"))
		return tg_cmd_history(argc - 1, argv + 1);
	if (!strcmp(cmd, "critical-path"))
		return tg_cmd_critical_path(argc - 1, argv + 1);
	if (!strcmp(cmd, "augment"))
		return tg_cmd_augment(argc - 1, argv + 1);
	if (!strcmp(cmd, "replay"))
		return tg_cmd_replay(argc - 1, argv + 1);
	if (!strcmp(cmd, "modules"))
		return tg_cmd_modules(argc - 1, argv + 1);
	tg_cli_error("unknown command '%s' (see tracegate --help)", cmd);
	return TG_EXIT_USAGE;
}
