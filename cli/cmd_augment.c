/*
 * cmd_augment.c - `tracegate augment TRACE -o OUT.json.gz [--diff BASE]
 * [--rules FILE] [--no-counters]`: writes TRACE again with HTA's counter
 * tracks (queue length per stream, memcpy / memset bandwidth) and, given
 * --diff BASE, the diff's regressed ops marked in their args and its
 * verdict, rule results and regressions as instant events
 * (core/analysis/augment.h, rules/diff_augment.h, docs/augment.md). TRACE is read
 * twice from one open file: once into the model, once to be copied.
 */
#include "../core/analysis/augment.h"
#include "../rules/diff_augment.h"
#include "cli.h"
#include "commands.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct augment_args {
	tg_read_opts ropts;
	char *path, *out, *base, *rules_file;
	int no_counters;
};

static const tg_opt_spec augment_opts[] = {
	{TG_OPT_ARG, "TRACE", 0, NULL, offsetof(struct augment_args, path), NULL, NULL, TG_OPT_REQUIRED, NULL, NULL},
	{TG_OPT_VALUE, NULL, 'o', "FILE", offsetof(struct augment_args, out), NULL, NULL,
         TG_OPT_REQUIRED | TG_OPT_IN_USAGE,
         "write the augmented trace there (gzip when the name ends in .gz; complete or not at all)", NULL},
	{TG_OPT_VALUE, "diff", 0, "BASE", offsetof(struct augment_args, base), NULL, NULL, TG_OPT_IN_USAGE,
         "compare TRACE with BASE as `tracegate diff BASE TRACE` does, and mark what it found: the regressed ops and "
         "their kernels in their args, the verdict, the rules that warn or block and each regressed op as instant "
         "events",
         NULL},
	{TG_OPT_VALUE, "rules", 0, "FILE", offsetof(struct augment_args, rules_file), NULL, NULL, 0,
         "with --diff: the threshold rules (default: the built-in contrib/rules/default.yaml)", NULL},
	{TG_OPT_SWITCH, "no-counters", 0, NULL, offsetof(struct augment_args, no_counters), NULL, NULL, 0,
         "add no counter tracks", NULL},
	{TG_OPT_INCLUDE, .offset = offsetof(struct augment_args, ropts), .include = tg_cli_limit_opts},
	{.kind = TG_OPT_NEEDS, .name = "rules diff"},
	{.kind = TG_OPT_END},
};

const tg_opt_command tg_cmd_augment_opts = {
	"augment", NULL,
	"Writes TRACE again, every event as it was, with counter tracks added (HTA's augmented counters: the launch "
	"queue length of each stream, the memcpy and memset bandwidth of each kind), so that a timeline viewer "
	"(ui.perfetto.dev, chrome://tracing) shows them under the GPU. With --diff BASE it also shows where TRACE "
	"lost time against BASE: the ops whose kernel time per step got significantly worse, and the kernels they "
	"launched, carry args.tracegate (their numbers); instant events mark the verdict, each rule that warns or "
	"blocks, each finding new or worse in TRACE (docs/findings.md) and each regressed op's first call of every "
	"step.",
	"Exit status: 0 written; 2 usage or input error (nothing written). docs/augment.md describes the tracks.",
	augment_opts};

/* Reads the trace at path from its open file fd into *t and *tree;
 * returns -1 after printing the error. */
static int load_fd(tg_trace **t, tg_tree **tree, int fd, const char *path, const tg_read_opts *ro)
{
	*t = NULL;
	*tree = NULL;
	if (tg_trace_read_fd_named(t, fd, path, ro)) {
		tg_cli_error("%s", tg_error_last());
		return -1;
	}
	if (tg_tree_build(tree, *t)) {
		tg_cli_error("%s: %s", path, tg_error_last());
		return -1;
	}
	return 0;
}

/* The gate of BASE against TRACE and what it adds (*d); returns -1 after
 * printing the error. */
static int diff_of(tg_diff_augment **d, const tg_tree *tree, const struct augment_args *a)
{
	tg_trace *bt = NULL;
	tg_tree *btree = NULL;
	tg_rules *rules = NULL;
	tg_gate *g = NULL;
	int rc = -1;
	if (a->rules_file ? tg_rules_load_file(&rules, a->rules_file) : tg_rules_load_default(&rules)) {
		tg_cli_error("%s", tg_error_last());
		goto out;
	}
	if (tg_cli_load(&bt, &btree, a->base, &a->ropts))
		goto out;
	const tg_tree *b = btree;
	if (tg_gate_run(&g, rules, &b, 1, &tree, 1, NULL) || tg_diff_augment_build(d, g, tree)) {
		tg_cli_error("augment: %s", tg_error_last());
		goto out;
	}
	size_t n;
	const char *const *ops = tg_diff_augment_ops(*d, &n);
	printf("diff against ");
	tg_cli_put_name(stdout, a->base);
	printf(": %s; %zu regressed op%s marked", tg_verdict_name(tg_gate_verdict(g)), n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", " : ": ", stdout);
		tg_cli_put_name(stdout, ops[i]);
	}
	putchar('\n');
	rc = 0;
out:
	tg_gate_free(g);
	tg_rules_free(rules);
	tg_tree_free(btree);
	tg_trace_free(bt);
	return rc;
}

/* 1 when out is the file open on fd (it would be replaced while read). */
static int same_file(const char *out, int fd)
{
	struct stat a, b;
	return stat(out, &a) == 0 && fstat(fd, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int tg_cmd_augment(int argc, char **argv)
{
	struct augment_args a = {0};
	int rc;
	if (tg_opt_parse_cli(&rc, &tg_cmd_augment_opts, &a, argc, argv))
		return rc;
	tg_trace *t = NULL;
	tg_tree *tree = NULL;
	tg_diff_augment *d = NULL;
	rc = TG_EXIT_USAGE;
	int fd = open(a.path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		tg_cli_error("%s: cannot open: %s", a.path, strerror(errno));
		return TG_EXIT_USAGE;
	}
	if (same_file(a.out, fd)) {
		tg_cli_error("augment: -o %s is TRACE itself: write the augmented trace elsewhere", a.out);
		goto out;
	}
	if (load_fd(&t, &tree, fd, a.path, &a.ropts) || (a.base && diff_of(&d, tree, &a)))
		goto out;
	tg_augment_opts o = {.no_counters = a.no_counters, .source = a.ropts.source, .max_unit = a.ropts.max_unit};
	if (d)
		tg_diff_augment_opts(&o, d);
	tg_augment_stats st;
	if (tg_augment_write(&st, a.out, fd, a.path, tree, &o)) {
		tg_cli_error("%s", tg_error_last());
		goto out;
	}
	fputs("wrote ", stdout);
	tg_cli_put_name(stdout, a.out);
	printf(": %llu trace events copied (%llu marked), %llu counter events in %llu tracks, %llu instant events\n",
	       (unsigned long long)st.elements, (unsigned long long)st.marked, (unsigned long long)st.counters,
	       (unsigned long long)st.series, (unsigned long long)st.instants);
	rc = TG_EXIT_OK;
out:
	tg_diff_augment_free(d);
	tg_tree_free(tree);
	tg_trace_free(t);
	close(fd);
	return rc;
}
