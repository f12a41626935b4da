/*
 * bench_run.h - running one command for the bench tools (bench_pair.c,
 * peak_split.c): spawned with its output to /dev/null, then reaped with
 * its peak RSS and CPU time. A command that cannot start, or fails (not
 * exit 0, or 1, which is a blocking diff), stops the tool with status 2
 * and a message naming the tool (bench_tool) and the command.
 */
#ifndef TG_BENCH_RUN_H
#define TG_BENCH_RUN_H

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>

extern char **environ;
static const char *bench_tool; /* set by main: the tool's name, for messages */

/* Starts argv (argv[0] looked up in PATH) with stdout and stderr to
 * /dev/null; its pid. Exits on failure. */
static pid_t bench_spawn(char **argv)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	pid_t pid;
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) != 0) {
		fprintf(stderr, "%s: cannot run %s\n", bench_tool, argv[0]);
		exit(2);
	}
	posix_spawn_file_actions_destroy(&fa);
	return pid;
}

/* Waits for pid (the command argv0) to end: its peak RSS in *rss_kb and
 * its user + system time (its threads' and children's) in *cpu_s. Exits
 * when it failed. */
static void bench_reap(pid_t pid, const char *argv0, long *rss_kb, double *cpu_s)
{
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0) {
		fprintf(stderr, "%s: ", bench_tool);
		perror("wait4");
		exit(2);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) > 1) {
		fprintf(stderr, "%s: %s failed (status %d)\n", bench_tool, argv0, status);
		exit(2);
	}
	*rss_kb = ru.ru_maxrss;
	*cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	         (double)ru.ru_stime.tv_usec / 1e6;
}

#endif
