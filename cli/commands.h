/* commands.h - the subcommands of the tracegate command line. Each takes
 * argv from its own name on and returns the process exit code; each has an
 * option table (opt.h) from which its --help is made, public so that the
 * tests can check every help. */
#ifndef TG_COMMANDS_H
#define TG_COMMANDS_H

#include "opt.h"

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
