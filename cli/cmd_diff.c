/*
 * cmd_diff.c - `tracegate diff BASE NEW [--rules FILE] [--format text|md|json]
 * [-o FILE]`: compares two traces (or two sets: BASE... -- NEW...), judges
 * the differences with the rules and exits 0 (pass or warn), 1 (block),
 * 2 (usage or input error) or 3 (inconclusive). With -o FILE the document
 * goes there and stdout gets one line: the verdict and where it went.
 */
#include "../rules/gate.h"
#include "../render/diff_render.h"
#include "cli.h"
#include "commands.h"
#include "diff_load.h"
#include "../util/big.h"

#include <errno.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

enum format { FMT_TEXT, FMT_MD, FMT_JSON };

/* What the command line says, as the option table reads it. */
struct diff_opts {
	tg_read_opts ropts;
	tg_opt_list traces; /* BASE... NEW..., split at `split` */
	tg_opt_split split;
	char *rules_file, *out, *marker, *docs_url;
	enum format fmt;
	tg_opt_list accepts; /* RULE:REASON */
	tg_opt_list noise;
	int allow_hw;
	int no_tree_diff;
	int no_critical_path;
	size_t max_bytes; /* of the md comment (--max-comment-bytes); 0: the default */
};

/* The two sides and the accepted regressions, made from diff_opts. */
struct diff_args {
	const char *const *base, *const *next;
	size_t nbase, nnext;
	tg_accept *accepts;
	size_t naccepts;
};

static int convert_format(void *dst, char *value)
{
	static const char *const names[] = {"text", "md", "json"};
	for (int k = 0; k < 3; k++)
		if (!strcmp(value, names[k])) {
			*(enum format *)dst = (enum format)k;
			return 0;
		}
	return -1;
}

static int convert_md_bytes(void *dst, char *value)
{
	char *end;
	long long v = strtoll(value, &end, 10);
	if (end == value || *end || v < 1000)
		return -1;
	*(size_t *)dst = (size_t)v;
	return 0;
}

/* A docs URL the footer can link (tg_diff_docs_url_ok), or "" for none. */
static int convert_docs_url(void *dst, char *value)
{
	if (*value && !tg_diff_docs_url_ok(value))
		return -1;
	*(char **)dst = value;
	return 0;
}

/* RULE:REASON, both parts given; split later (accepts_from). */
static int convert_accept(void *dst, char *value)
{
	const char *colon = strchr(value, ':');
	if (!colon || colon == value || !colon[1])
		return -1;
	*(char **)dst = value;
	return 0;
}

static const tg_opt_spec diff_opts[] = {
	{TG_OPT_ARGS, "TRACE", 0, NULL, offsetof(struct diff_opts, traces), NULL, NULL, 0, NULL, NULL},
	{TG_OPT_SEPARATOR, "--", 0, NULL, offsetof(struct diff_opts, split), NULL, NULL, 0, NULL, NULL},
	{TG_OPT_VALUE, "rules", 0, "FILE", offsetof(struct diff_opts, rules_file), NULL, NULL, 0,
	 "threshold rules (docs/rules.md); default: the built-in contrib/rules/default.yaml", NULL},
	{TG_OPT_VALUE, "format", 0, "F", offsetof(struct diff_opts, fmt), convert_format, "one of text, md, json", 0,
	 "text (default), md (the pull-request comment) or json", NULL},
	{TG_OPT_VALUE, NULL, 'o', "FILE", offsetof(struct diff_opts, out), NULL, NULL, 0,
	 "write there (complete or not at all) instead of stdout", NULL},
	{TG_OPT_LIST, "accept", 0, "RULE:REASON", offsetof(struct diff_opts, accepts), convert_accept, "RULE:REASON", 0,
	 "accept a regression of RULE (repeatable)", NULL},
	{TG_OPT_LIST, "noise-from", 0, "RUN", offsetof(struct diff_opts, noise), NULL, NULL, 0,
	 "a run of the base's code (A/A, repeatable): the noise between it and the base runs widens the intervals",
	 NULL},
	{TG_OPT_SWITCH, "allow-hardware-change", 0, NULL, offsetof(struct diff_opts, allow_hw), NULL, NULL, 0,
	 "judge even when GPU, driver, runtime or world size differ", NULL},
	{TG_OPT_SWITCH, "no-tree-diff", 0, NULL, offsetof(struct diff_opts, no_tree_diff), NULL, NULL, 0,
	 "skip the alignment of the call trees (no divergence drawing, kernels judged under their own op's "
	 "category)",
	 NULL},
	{TG_OPT_SWITCH, "no-critical-path", 0, NULL, offsetof(struct diff_opts, no_critical_path), NULL, NULL, 0,
	 "skip the critical path of each trace (how it moved: docs/critical-path.md)", NULL},
	{TG_OPT_VALUE, "marker", 0, "TEXT", offsetof(struct diff_opts, marker), NULL, NULL, 0,
	 "md: a hidden first line <!-- TEXT --> to find the comment", NULL},
	/* the md comment's size: --max-bytes until issue 23, which made that
	 * name mean what it means in every command (the reading limit below);
	 * the daemon's key is limits.max_comment_bytes */
	{TG_OPT_VALUE, "max-comment-bytes", 0, "N", offsetof(struct diff_opts, max_bytes), convert_md_bytes,
	 "a number of bytes >= 1000", 0, "md: the comment's size limit (default 65000)", NULL},
	{TG_OPT_VALUE, "docs-url", 0, "URL", offsetof(struct diff_opts, docs_url), convert_docs_url,
	 "an http(s) URL of letters, digits and . _ ~ : / % + -", 0,
	 "md: tracegate's docs folder on a forge, for the footer's link to comment.md (default: the build's, "
	 "this clone's origin: contrib/docs-url.sh; \"\": none)",
	 NULL},
	{TG_OPT_INCLUDE, .offset = offsetof(struct diff_opts, ropts), .include = tg_cli_limit_opts},
	{.kind = TG_OPT_END},
};

static const char *const diff_forms[] = {"BASE NEW", "BASE... -- NEW...", NULL};

const tg_opt_command tg_cmd_diff_opts = {
	"diff", diff_forms,
	"Compares NEW with BASE (traces of the same workload: several per side are ranks or repeated runs), judges "
	"the differences with threshold rules, and exits 0 (pass or warn), 1 (blocked), 2 (usage or input error) "
	"or 3 (inconclusive: not comparable, or too few samples).",
	NULL, diff_opts};

/* The two sides from the traces given: BASE NEW, or BASE... -- NEW....
 * Returns 0, or -1 after printing the error (or the help, when no trace is
 * given). */
static int sides_from(struct diff_args *a, const struct diff_opts *o)
{
	size_t n = o->traces.n, split = o->split.before;
	if (!o->split.given) {
		if (n != 2) {
			if (n)
				tg_cli_error("diff: give BASE NEW, or BASE... -- NEW... (%zu traces given)", n);
			else
				tg_opt_help_write(stderr, &tg_cmd_diff_opts);
			return -1;
		}
		split = 1;
	}
	if (split == 0 || split == n) {
		tg_cli_error("diff: both sides need at least one trace");
		return -1;
	}
	a->base = (const char *const *)o->traces.v;
	a->nbase = split;
	a->next = a->base + split;
	a->nnext = n - split;
	return 0;
}

/* --marker, --max-comment-bytes and --docs-url shape the md comment: refused, by
 * name, with another format (where they would do nothing). Returns 0 or
 * -1 after printing the error. */
static int md_only(const struct diff_opts *o)
{
	if (o->fmt == FMT_MD || (!o->marker && !o->max_bytes && !o->docs_url))
		return 0;
	tg_cli_error("diff: %s goes with --format md",
	             o->marker ? "--marker" : o->max_bytes ? "--max-comment-bytes" : "--docs-url");
	return -1;
}

/* Each --accept RULE:REASON as a tg_accept (the strings split in place)
 * into a->accepts, which the caller frees. Returns 0 or -1 after printing
 * the error. */
static int accepts_from(struct diff_args *a, const struct diff_opts *o)
{
	a->accepts = calloc(o->accepts.n + 1, sizeof(tg_accept));
	if (!a->accepts) {
		tg_cli_error("out of memory");
		return -1;
	}
	for (size_t i = 0; i < o->accepts.n; i++) {
		char *v = o->accepts.v[i], *colon = strchr(v, ':');
		*colon = 0;
		a->accepts[a->naccepts++] = (tg_accept){v, colon + 1, NULL};
	}
	return 0;
}

/* Loads the rules (--rules FILE, or the built-in ones) into *rules, which
 * the caller frees, and checks that every --accept names one of them.
 * Returns 0 or -1 after printing the error. */
static int load_rules(tg_rules **rules, const struct diff_args *a, const struct diff_opts *o)
{
	if (o->rules_file ? tg_rules_load_file(rules, o->rules_file) : tg_rules_load_default(rules)) {
		tg_cli_error("%s", tg_error_last());
		return -1;
	}
	for (size_t i = 0; i < a->naccepts; i++)
		if (!tg_rules_find(*rules, a->accepts[i].rule)) {
			tg_cli_error("--accept: no rule named '%s' in %s", a->accepts[i].rule, tg_rules_source(*rules));
			return -1;
		}
	return 0;
}

/* With -o FILE, the one line on stdout that says what was judged and where
 * it went (stdout holds nothing else then): "tracegate diff: <verdict>
 * (md written to FILE)". */
static void say_written(const tg_gate *g, const struct diff_opts *o)
{
	static const char *const names[] = {"text", "md", "json"};
	printf("tracegate diff: %s (%s written to %s)\n", tg_judgement_summary(tg_gate_judgement(g)), names[o->fmt],
	       o->out);
	fflush(stdout);
}

/* Writes the verdict's document in the format asked for to -o FILE or
 * stdout, complete or not at all. Returns 0 or -1 after printing the
 * error. */
static int write_doc(const tg_gate *g, const struct diff_args *a, const struct diff_opts *o)
{
	char *doc = NULL;
	size_t doclen = 0;
	tg_diff_doc d = tg_gate_doc(g, a->base, a->nbase, a->next, a->nnext, o->marker, NULL);
	d.docs_url = o->docs_url;
	FILE *f = open_memstream(&doc, &doclen);
	if (!f)
		return -1;
	int wr = o->fmt == FMT_MD ? tg_diff_write_md(f, &d, o->max_bytes)
	         : o->fmt == FMT_JSON ? tg_diff_write_json(f, &d) : tg_diff_write_text(f, &d);
	int rc = 0;
	if (fclose(f) || wr) {
		tg_cli_error("diff: %s", tg_error_last());
		rc = -1;
	}
	if (!rc && tg_cli_write_file(o->out, doc, doclen))
		rc = -1;
	if (!rc && o->out)
		say_written(g, o);
	free(doc);
	return rc;
}

/* TG_DIFF_TIMING=1: the share of the statistics on stderr (make bench). */
static void print_timing(const tg_gate *g, double t_start)
{
	const char *timing = getenv("TG_DIFF_TIMING");
	if (timing && *timing && strcmp(timing, "0")) {
		double total = now_s() - t_start, st = tg_gate_stats_seconds(g);
		fprintf(stderr, "tracegate: timing: total %.3f s, statistics %.3f s (%.1f %%)\n", total, st,
		        total > 0 ? 100 * st / total : 0);
	}
}

/* The run data parts the gate reads of a side's trace under o: the
 * findings (on the second core while the measures and the skeleton are
 * built), the skeleton unless --no-tree-diff, the critical path unless
 * --no-critical-path (found last: diff_load.c). */
static unsigned side_parts(const struct diff_opts *o)
{
	return TG_RUNDATA_FINDINGS | TG_RUNDATA_THREADS | (o->no_tree_diff ? 0 : TG_RUNDATA_SKELETON) |
	       (o->no_critical_path ? 0 : TG_RUNDATA_CP);
}

/* Reads the base, new and --noise-from traces, in that order, one at a
 * time into the run data of sides[0..2] (diff_load.h; a --noise-from
 * run's measures alone), the run data of those read held compact while
 * the next one is read (tg_cli_side_hold), all of it given back once the
 * last is read, but for the measures of base and new with a tree diff:
 * the gate gives them back (tg_gate_opts.expand_measure). Each trace's
 * events and arguments, freed, are left mapped for the next trace's
 * reader (diff_load.h: their pages reused, not faulted in again); the
 * last trace's are unmapped here.
 * Returns 0 or -1 after printing the error. */
static int load_sides(tg_cli_side *sides, const struct diff_args *a, const struct diff_opts *o,
                      const tg_rules *rules)
{
	unsigned parts = side_parts(o);
	int rc = tg_cli_side_load(&sides[0], a->base, a->nbase, parts, 1, rules, &o->ropts) ||
	         tg_cli_side_hold(&sides[0]) ||
	         tg_cli_side_load(&sides[1], a->next, a->nnext, parts, 1, rules, &o->ropts) ||
	         (o->noise.n && tg_cli_side_hold(&sides[1])) ||
	         tg_cli_side_load(&sides[2], (const char *const *)o->noise.v, o->noise.n, 0, 0, rules, &o->ropts);
	tg_big_keep(0);
	/* the last trace's model is freed: the gate reads them whole, but
	 * for the measures of base and new, held compact through the tree
	 * diffs' build (the gate's peak) until the gate copies them
	 * (tg_gate_opts.expand_measure): 1 GB pair -19 MB there */
	int hold_measures = !o->no_tree_diff;
	if (!rc && hold_measures && !o->noise.n) /* its skeleton not compacted only to be given back */
		rc = tg_cli_side_hold_measures(&sides[1]);
	for (size_t i = 0; !rc && i < 3; i++)
		rc = hold_measures && i < 2 ? tg_cli_side_expand_skeletons(&sides[i]) : tg_cli_side_expand(&sides[i]);
	return rc ? -1 : 0;
}

/* The gate's heap policy (tg_gate_opts.heap_hint), every stage alike:
 * the heap a stage freed is given back (tg_cmd_diff keeps freed memory
 * otherwise) before the next one grows. Once the pairs are aligned and
 * the judgement's measures have their room (TG_GATE_ALIGNED), so that the
 * alignment's leftovers do not sit beside the measures: 228.5 -> 210 MB
 * at 1 GB (docs/scale.md, i30gate); the base side's run data measures
 * freed (TG_GATE_RELEASED, i31gate); before and while each tree diff is
 * built (TG_GATE_DIFF_SCRATCH), so that the views and the merged tree do
 * not grow beside the loads' and their own freed pages: the build's
 * peak 207 -> 190 MB (i33gate), 138-149 -> 129 MB for the views (i35gate);
 * between the judgement's stages (TG_GATE_JUDGE_STAGE, i33gate). Only
 * for large traces (heap_trims_for). */
static void gate_heap_hint(void *ctx, enum tg_gate_stage stage)
{
	(void)ctx;
	(void)stage;
	tg_cli_trim_heap();
}

/* Whether any of the n files at paths is 8 MiB or more (gzip or not: a
 * gzip file of 8 MiB holds about 80 MB of JSON, where issue 24's memory
 * target starts; as cmd_report.c's heap_policy). */
static int any_large(const char *const *paths, size_t n)
{
	struct stat st;
	for (size_t i = 0; i < n; i++)
		if (!stat(paths[i], &st) && S_ISREG(st.st_mode) && st.st_size >= 8 * 1024 * 1024)
			return 1;
	return 0;
}

/* The diff's trims (load_one's before each read, between the parts of a
 * trace's run data, before its critical path, and the gate's callbacks:
 * gate_heap_hint) only when a trace is large: each trim's pages are
 * faulted in again by the next stage, and on the real H200 pairs (0.8 MB
 * of gzip a trace, 12 MB of JSON, peaks of 8 MB) the round's trims had
 * made that 2,034 -> 2,610 page faults and 82-85 -> 104-123 ms of
 * task-clock (perf stat -r 15; 77-81 ms with every trim off), for memory
 * no target asks of them (docs/scale.md, "Where the tenth round ends"). */
static void heap_trims_for(const struct diff_args *a, const struct diff_opts *o)
{
	tg_cli_heap_trims(any_large(a->base, a->nbase) || any_large(a->next, a->nnext) ||
	                  any_large((const char *const *)o->noise.v, o->noise.n));
}

/* Loads the traces (base, new, then the --noise-from runs) one at a time,
 * judges their run data and writes the document. Returns the exit code. */
static int judge(const struct diff_args *a, const struct diff_opts *o, double t_start)
{
	tg_cli_side sides[3];
	memset(sides, 0, sizeof(sides));
	tg_rules *rules = NULL;
	tg_gate *g = NULL;
	int rc = TG_EXIT_USAGE;
	heap_trims_for(a, o);
	if (load_rules(&rules, a, o) || load_sides(sides, a, o, rules))
		goto out;
	tg_gate_data base = tg_cli_side_gate(&sides[0]), next = tg_cli_side_gate(&sides[1]),
	             noise = tg_cli_side_gate(&sides[2]);
	tg_gate_opts go = {.accepts = a->accepts,
	                   .naccepts = a->naccepts,
	                   .allow_hardware_change = o->allow_hw,
	                   .no_tree_diff = o->no_tree_diff,
	                   .noise_data = o->noise.n ? &noise : NULL,
	                   .no_critical_path = o->no_critical_path,
	                   /* judged once: the gate frees each part of the run data it has read */
	                   .release_data = 1,
	                   .heap_hint = gate_heap_hint,
	                   .expand_measure = o->no_tree_diff ? NULL : tg_cli_expand_measure};
	if (tg_gate_run_data(&g, rules, &base, &next, &go)) {
		tg_cli_error("diff: %s", tg_error_last());
		goto out;
	}
	if (write_doc(g, a, o))
		goto out;
	print_timing(g, t_start);
	switch (tg_gate_verdict(g)) {
	case TG_VERDICT_BLOCK: rc = TG_EXIT_BLOCKED; break;
	case TG_VERDICT_INCONCLUSIVE: rc = TG_EXIT_INCONCLUSIVE; break;
	default: rc = TG_EXIT_OK;
	}
out:
	tg_gate_free(g);
	for (size_t i = 0; i < 3; i++)
		tg_cli_side_free(&sides[i]);
	tg_rules_free(rules);
	return rc;
}

int tg_cmd_diff(int argc, char **argv)
{
	double t_start = now_s();
#ifdef __GLIBC__
	/* Blocks up to 32 MiB from the heap, and freed memory kept there: the
	 * traces are read one after the other (diff_load.h), and each one's
	 * model, tree and critical-path graph reuse the pages of the one
	 * before instead of mapping and faulting in fresh ones. Measured on
	 * the generated pairs (2026-11-27, load 4-5): CPU -4 % at 100 MB
	 * (554 -> 530 ms) and -7 % at 1 GB (6.87 -> 6.40 s), half the page
	 * faults, for 2-6 % more peak (84 -> 86 MB, 638 -> 675 MB). Measured
	 * again in issue 24's sixth round: glibc's default thresholds cost
	 * 3-11 % more CPU at 100 MB.
	 * One arena for every thread (before any is started): the memory the
	 * reader's, the tree's and the findings' threads free goes back to
	 * the heap the gate allocates from, instead of staying in arenas of
	 * their own that no other thread reuses and nothing trims. Peak RSS
	 * 61.9-64.8 -> 52.8-53.6 MB at 100 MB, 514-526 -> 466-474 MB at 1 GB,
	 * the same CPU (docs/scale.md, sixth round, i26side). */
	mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
	mallopt(M_TRIM_THRESHOLD, INT_MAX);
	mallopt(M_ARENA_MAX, 1);
#endif
	/* Blocks from 512 KiB up are mappings (util/big.h), not only those
	 * from 4 MiB, and the critical path sorts keys of that size in place
	 * (cp_sort_keys): with freed memory kept in the heap, a 100 MB trace's
	 * critical-path and run-data arrays (0.5-4 MB each at 320k events)
	 * and the sorts' scratch stayed resident as freed heap under the next
	 * stage's; as mappings they go back to the OS as they are freed.
	 * 100 MB pair: peak RSS 20.3-22.7 -> 17.8-18.0 MB, the same CPU; an
	 * h200-dev pair 8.3 -> 6.8 MB, 1,450 -> 1,100 page faults,
	 * instructions +0.07 %; the 1 GB pair's peak the same (146.1 -> 145.8
	 * MB: its arrays are mappings either way; docs/scale.md, thirteenth
	 * round). */
	tg_big_set_min((size_t)512 << 10);
	struct diff_opts o = {.fmt = FMT_TEXT};
	struct diff_args a = {0};
	int rc;
	if (tg_opt_parse_cli(&rc, &tg_cmd_diff_opts, &o, argc, argv))
		return rc;
	rc = TG_EXIT_USAGE;
	if (!md_only(&o) && !sides_from(&a, &o) && !accepts_from(&a, &o))
		rc = judge(&a, &o, t_start);
	free(a.accepts);
	tg_opt_free(&tg_cmd_diff_opts, &o);
	return rc;
}
