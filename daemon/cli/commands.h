/* commands.h - the subcommands of the tracegate command line. Each takes
 * argv from its own name on and returns the process exit code. */
#ifndef TG_COMMANDS_H
#define TG_COMMANDS_H

int tg_cmd_tree(int argc, char **argv);
int tg_cmd_modules(int argc, char **argv);
int tg_cmd_report(int argc, char **argv);
int tg_cmd_diff(int argc, char **argv);
int tg_cmd_daemon(int argc, char **argv);
int tg_cmd_history(int argc, char **argv);

#endif
