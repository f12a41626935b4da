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
 * gzip -dc of it ~33 ms (docs/scale.md). The daemon's malloc is asked for
 * transparent huge pages (huge_pages below).
 *
 * The commands, the top-level usage and where each command runs are the
 * command table's (commands.h); main looks the command up in it.
 */
#include "../util/tg.h"
#include "cli.h"
#include "commands.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef TG_CLI_EXEC_DAEMON
/* The daemon's malloc madvises transparent huge pages (glibc's tunable
 * glibc.malloc.hugetlb=1, added to GLIBC_TUNABLES unless it names one
 * already): each job's process touches tens of megabytes afresh (the
 * baseline's measures, the merged tree), and with 4 KiB pages their
 * faults took a fifth of the CPU of a tiny pull request against a 250 MB
 * baseline (docs/scale.md, "Judging"). Where the kernel's THP mode is
 * "never" it changes nothing. Best effort. */
static void huge_pages(void)
{
	const char *t = getenv("GLIBC_TUNABLES");
	char *v = NULL;
	if (t && strstr(t, "glibc.malloc.hugetlb"))
		return;
	if (asprintf(&v, "%s%sglibc.malloc.hugetlb=1", t ? t : "", t && *t ? ":" : "") < 0)
		return;
	setenv("GLIBC_TUNABLES", v, 1);
	free(v);
}

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
	huge_pages();
	execv(path, argv);
	tg_cli_error("%s: cannot run %s: %s", argv[1], path, strerror(errno));
	return TG_EXIT_USAGE;
}
#endif

int main(int argc, char **argv)
{
	if (argc < 2) {
		tg_commands_usage_write(stderr);
		return TG_EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help"))
		return tg_commands_usage_write(stdout) ? TG_EXIT_USAGE : TG_EXIT_OK;
	if (!strcmp(name, "--version") || !strcmp(name, "version")) {
		printf("tracegate %s\n", TG_VERSION);
		return TG_EXIT_OK;
	}
	const tg_command *c = tg_commands_find(name);
	if (!c) {
		tg_cli_error("unknown command '%s' (see tracegate --help)", name);
		return TG_EXIT_USAGE;
	}
#ifdef TG_CLI_EXEC_DAEMON
	if (c->flags & TG_COMMAND_IN_DAEMON)
		return exec_daemon_binary(argv);
#endif
	return c->run(argc - 1, argv + 1);
}
