/*
 * commands.h - the command table of the tracegate command line: one row
 * per subcommand (its name, its handler, its option table, the synopsis
 * and the summary the top-level usage shows, where it runs). main looks a
 * command up in it, the top-level usage (`tracegate --help`) is made from
 * it, and `tracegate CMD --help` from the row's option table (opt.h). A
 * command is added by writing its cmd_<name>.c (a handler and an exported
 * tg_opt_command) and one row in commands.c.
 *
 * Built twice, like main.c (its design comment says why): in
 * tracegate-daemon every row has its handler and its table; in tracegate
 * (TG_CLI_EXEC_DAEMON) a row marked TG_COMMAND_IN_DAEMON has neither, so
 * that nothing the daemon needs is linked there, and main runs
 * tracegate-daemon for it.
 */
#ifndef TG_COMMANDS_H
#define TG_COMMANDS_H

#include "opt.h"

#include <stdio.h>

/* A subcommand's handler: takes argv from its own name on, returns the
 * process exit code (cli.h's tg_exit). */
typedef int (*tg_command_fn)(int argc, char **argv);

/* Flags of a row (tg_command.flags). */
enum {
	TG_COMMAND_IN_DAEMON = 1u << 0 /* runs in tracegate-daemon: it needs the daemon's libraries */
};

typedef struct tg_command {
	const char *name;              /* what follows "tracegate" */
	tg_command_fn run;             /* NULL in tracegate for a TG_COMMAND_IN_DAEMON row */
	const tg_opt_command *options; /* its --help and parsing; NULL where run is */
	const char *synopsis;          /* the arguments the usage shows after the name */
	const char *summary;           /* what it does, one sentence the usage wraps */
	unsigned flags;                /* TG_COMMAND_IN_DAEMON */
} tg_command;

/* The commands in the order the usage lists them, ended by a row whose
 * name is NULL. Static data. */
extern const tg_command tg_commands[];

/* The row named name, or NULL when there is none. */
const tg_command *tg_commands_find(const char *name);

/* Writes the top-level usage made from tg_commands: what tracegate is,
 * each command's name and synopsis in one column and its summary wrapped
 * beside it, no line longer than TG_OPT_HELP_WIDTH, then how to get help
 * and the exit codes. Returns 0 or -1 (a write error, errno set). */
int tg_commands_usage_write(FILE *f);

int tg_cmd_tree(int argc, char **argv);
int tg_cmd_modules(int argc, char **argv);
int tg_cmd_report(int argc, char **argv);
int tg_cmd_diff(int argc, char **argv);
int tg_cmd_daemon(int argc, char **argv);
int tg_cmd_history(int argc, char **argv);
int tg_cmd_critical_path(int argc, char **argv);
int tg_cmd_replay(int argc, char **argv);
int tg_cmd_augment(int argc, char **argv);

extern const tg_opt_command tg_cmd_tree_opts;
extern const tg_opt_command tg_cmd_modules_opts;
extern const tg_opt_command tg_cmd_report_opts;
extern const tg_opt_command tg_cmd_diff_opts;
extern const tg_opt_command tg_cmd_daemon_opts;
extern const tg_opt_command tg_cmd_history_opts;
extern const tg_opt_command tg_cmd_critical_path_opts;
extern const tg_opt_command tg_cmd_replay_opts;
extern const tg_opt_command tg_cmd_augment_opts;

#endif
