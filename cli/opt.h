/*
 * opt.h - the option tables of the tracegate subcommands: one table per
 * command says every option it takes (long name, short name, value name,
 * kind, help, where its value goes); one parser reads argv with it and one
 * printer makes `tracegate CMD --help` from it. Modelled on libgit2's
 * src/cli/opt.c (kinds of option, usage flags, a status per failure), with
 * four departures:
 *
 *   - a table is static const data and says where a value goes as an offset
 *     into the command's own arguments struct (offsetof), not as a pointer
 *     to a global: the parser gets the struct, so nothing global is written
 *     and a test can parse into a struct of its own;
 *   - a table may include another (TG_OPT_INCLUDE): the reading limits that
 *     report, diff, tree and modules share are one fragment (cli.h), placed
 *     at the offset of the tg_read_opts in each command's struct. An option
 *     named earlier in the walk shadows a later one of the same name
 *     (tests/test_opt.c's tables do; no command does since issue 23 gave
 *     each option name one meaning across commands);
 *   - options that exclude each other, or go only with another, say so in
 *     the table (entries of kind TG_OPT_EXCLUSIVE and TG_OPT_NEEDS), so that
 *     every command refuses them the same way, naming both ("daemon: --once
 *     and --check exclude each other: give one");
 *   - a value is converted and checked where it is read (a convert callback
 *     and the words `expect` that name what a good value is), so that every
 *     bad value gets the same one-line error naming the command and the
 *     option: "report: --format: 'xml' is not one of text, md, csv, json,
 *     html" (tracegate's "tracegate: " goes in front, as for every error).
 *
 * What the parser accepts: `--name VALUE`, `--name=VALUE`, `-o VALUE`, a
 * value taken as it is even when it begins with '-' (`--match -x`);
 * options and positional arguments in any order; "-" alone is positional;
 * `-h` and `--help` anywhere ask for the help. Arguments are read in order,
 * so the first problem is the one reported.
 *
 * Ownership: tables and strings are the caller's (static); the values stored
 * are pointers into argv, except the arrays of TG_OPT_LIST and TG_OPT_ARGS
 * (tg_opt_list), which tg_opt_parse allocates and tg_opt_free frees.
 */
#ifndef TG_OPT_H
#define TG_OPT_H

#include <stddef.h>
#include <stdio.h>

typedef enum tg_opt_kind {
	TG_OPT_END = 0,   /* ends a table */
	TG_OPT_SWITCH,    /* --name: sets an int to 1 */
	TG_OPT_VALUE,     /* --name VALUE: stores the string, or what convert makes of it */
	TG_OPT_LIST,      /* --name VALUE, repeatable: each value appended to a tg_opt_list */
	TG_OPT_ARG,       /* one positional argument (a char *), name is its usage name (TRACE) */
	TG_OPT_ARGS,      /* every positional argument left (a tg_opt_list) */
	TG_OPT_SEPARATOR, /* a "--" among the positional arguments (BASE... -- NEW...): where it
	                   * came goes to a tg_opt_split; options still follow it */
	TG_OPT_SECTION,   /* help only: a heading before the options after it (name) */
	TG_OPT_INCLUDE,   /* another table (include), its offsets counted from offset */
	TG_OPT_EXCLUSIVE, /* name: option names, space-separated (long ones without "--", a short
	                   * one as "-o"), of which one at most may be given ("once check");
	                   * {.kind = TG_OPT_EXCLUSIVE, .name = "..."} */
	TG_OPT_NEEDS      /* name: "A B": option A goes only with option B ("offline check") */
} tg_opt_kind;

/* Usage flags of an entry (tg_opt_spec.flags). */
enum {
	TG_OPT_REQUIRED = 1u << 0, /* missing: one line naming it (the help when nothing at all is
	                            * given), exit 2 */
	TG_OPT_IN_USAGE = 1u << 1  /* named on the usage line (the others are "[options]") */
};

/* Converts and checks one value into dst (the field at the entry's offset,
 * or the new slot of a list, a char **). Returns 0, or -1 when the value is
 * not what the entry's expect says. */
typedef int (*tg_opt_convert_fn)(void *dst, char *value);

typedef struct tg_opt_spec {
	tg_opt_kind kind;
	const char *name;          /* long name without "--" (NULL: short only); ARG and ARGS: the
	                            * name in usage and messages; SECTION: the heading */
	char alias;                /* short name ('o' for -o), 0 if none */
	const char *value_name;    /* VALUE and LIST: the value's name in help (FILE) */
	size_t offset;             /* where the value goes in the arguments struct */
	tg_opt_convert_fn convert; /* VALUE and LIST: NULL stores the string (a char *) */
	const char *expect;        /* what a good value is, for "'x' is not <expect>" */
	unsigned flags;            /* TG_OPT_REQUIRED, TG_OPT_IN_USAGE */
	const char *help;          /* one paragraph, wrapped by the help printer */
	const struct tg_opt_spec *include; /* INCLUDE: the table included */
} tg_opt_spec;

/* The values of a TG_OPT_LIST or TG_OPT_ARGS entry, in the order given. */
typedef struct tg_opt_list {
	char **v;
	size_t n;
} tg_opt_list;

/* Where a TG_OPT_SEPARATOR came: given is 1 once "--" was seen, before is
 * the number of positional arguments before it. */
typedef struct tg_opt_split {
	int given;
	size_t before;
} tg_opt_split;

/* A subcommand: its name, the argument forms of its usage lines
 * ("BASE NEW", "BASE... -- NEW..."; NULL: made from its ARG and ARGS
 * entries), what it does and what follows the options (paragraphs
 * separated by "\n\n", wrapped by the printer), and its table. */
typedef struct tg_opt_command {
	const char *name;
	const char *const *forms; /* NULL-terminated, or NULL */
	const char *description;
	const char *epilog; /* NULL if none */
	const tg_opt_spec *table;
} tg_opt_command;

/* What tg_opt_parse found besides success. */
enum {
	TG_OPT_HELP = 1,   /* -h or --help: the caller prints the help on stdout */
	TG_OPT_MISSING = 2 /* a required entry is missing (tg_error_last names it): the caller says
	                    * so, or prints the help on stderr when no argument was given */
};

/* The width the help is wrapped to: no line of it is longer. */
#define TG_OPT_HELP_WIDTH 80

/* Parses argv[1..argc-1] (argv[0] is the command's name) into args, the
 * command's arguments struct, whose fields the table's offsets name and
 * whose defaults the caller set. Returns 0; TG_OPT_HELP; TG_OPT_MISSING; or
 * TG_EINVAL with the one-line message (tg_error_last) naming the command and
 * the option ("diff: --max-bytes: '10' is not a number of bytes >= 1000",
 * "tree: unknown option --x (see tracegate tree --help)"). On any return but
 * 0 the lists are freed and zeroed; on 0 the caller frees them with
 * tg_opt_free. After argv is read: a missing required entry is
 * TG_OPT_MISSING ("daemon: --config FILE is required (see tracegate daemon
 * --help)"), two options that exclude each other or one without the one it
 * needs TG_EINVAL ("daemon: --once and --check exclude each other: give
 * one", "daemon: --offline goes with --check"). */
int tg_opt_parse(const tg_opt_command *cmd, void *args, int argc, char **argv);

/* Frees the arrays of every TG_OPT_LIST and TG_OPT_ARGS entry of cmd's
 * table in args and zeroes them (nothing else is owned). */
void tg_opt_free(const tg_opt_command *cmd, void *args);

/* tg_opt_parse for a subcommand: on --help prints the help on stdout and
 * sets *exit_code to 0; on a missing argument its line, or the help on
 * stderr when no argument at all was given, on an error its line
 * ("tracegate: ..."), and sets *exit_code to 2. Returns 1
 * when the command stops there, 0 when it goes on (then the caller owns the
 * lists, freed with tg_opt_free). */
int tg_opt_parse_cli(int *exit_code, const tg_opt_command *cmd, void *args, int argc, char **argv);

/* Writes `tracegate CMD --help` made from cmd: the usage lines, the
 * description, the options (in table order, sections as headings, each help
 * wrapped beside its option's name) and the epilog, no line longer than
 * TG_OPT_HELP_WIDTH. Returns 0 or -1 (a write error, errno set). */
int tg_opt_help_write(FILE *f, const tg_opt_command *cmd);

/* Writes text's words on f from column *col on (*col is where the line
 * already ends, and is left where it ends), breaking before a word that
 * would pass width onto a new line indented by indent; a paragraph break
 * ("\n\n") in text gives a blank line. The helps and the top-level usage
 * (commands.c) are wrapped with it. */
void tg_opt_put_wrapped(FILE *f, const char *text, size_t *col, size_t indent, size_t width);

#endif
