/*
 * cmd_diff.c - `tracegate diff BASE NEW [--rules FILE] [--format text|md|json]
 * [-o FILE]`: compares two traces (or two sets: BASE... -- NEW...), judges
 * the differences with the rules and exits 0 (pass or warn), 1 (block),
 * 2 (usage or input error) or 3 (inconclusive).
 */
#include "../../rules/gate.h"
#include "cli.h"
#include "commands.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static const char usage[] =
	"usage: tracegate diff BASE NEW [options]\n"
	"       tracegate diff BASE... -- NEW... [options]\n"
	"\n"
	"Compares NEW with BASE (traces of the same workload: several per side are\n"
	"ranks or repeated runs), judges the differences with threshold rules, and\n"
	"exits 0 (pass or warn), 1 (blocked), 2 (usage or input error) or\n"
	"3 (inconclusive: not comparable, or too few samples).\n"
	"\n"
	"  --rules FILE         threshold rules (docs/rules.md); default: the built-in\n"
	"                       contrib/rules/default.yaml\n"
	"  --format F           text (default), md (the pull-request comment) or json\n"
	"  -o FILE              write there (complete or not at all) instead of stdout\n"
	"  --accept RULE:REASON accept a regression of RULE (repeatable)\n"
	"  --noise-from RUN     a run of the base's code (A/A, repeatable): the noise\n"
	"                       between it and the base runs widens the intervals\n"
	"  --allow-hardware-change\n"
	"                       judge even when GPU, driver, runtime or world size differ\n"
	"  --no-tree-diff       skip the alignment of the call trees (no divergence\n"
	"                       drawing, kernels judged under their own op's category)\n"
	"  --marker TEXT        md: a hidden first line <!-- TEXT --> to find the comment\n"
	"  --max-bytes N        md: size limit (default 65000)\n"
	"\n";

enum format { FMT_TEXT, FMT_MD, FMT_JSON };

struct diff_args {
	const char **base, **next;
	size_t nbase, nnext;
	const char *rules_file, *out, *marker;
	enum format fmt;
	tg_accept *accepts;
	size_t naccepts;
	const char **noise;
	size_t nnoise;
	int allow_hw;
	int no_tree_diff;
	size_t max_bytes;
};

/* Parses argv; returns -1 (error printed), 1 (--help printed) or 0. */
static int parse(struct diff_args *a, int argc, char **argv, tg_read_opts *ropts)
{
	const char **pos = calloc((size_t)argc + 1, sizeof(char *));
	a->accepts = calloc((size_t)argc + 1, sizeof(tg_accept));
	a->noise = calloc((size_t)argc + 1, sizeof(char *));
	if (!pos || !a->accepts || !a->noise) {
		free(pos);
		tg_cli_error("out of memory");
		return -1;
	}
	size_t npos = 0, split = (size_t)-1;
	for (int i = 1; i < argc; i++) {
		/* --max-bytes is the md comment's size here (docs/diff.md), not
		 * the reading limit of the same name */
		int r = strcmp(argv[i], "--max-bytes") ? tg_cli_limit_option(ropts, argc, argv, &i) : 0;
		if (r < 0)
			goto fail;
		if (r)
			continue;
		const char *s = argv[i];
		int takes = !strcmp(s, "--rules") || !strcmp(s, "--format") || !strcmp(s, "-o") ||
		            !strcmp(s, "--accept") || !strcmp(s, "--marker") || !strcmp(s, "--max-bytes") ||
		            !strcmp(s, "--noise-from");
		if (takes && i + 1 >= argc) {
			tg_cli_error("%s needs a value", s);
			goto fail;
		}
		if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
			fputs(usage, stdout);
			/* the reading limits, less --max-bytes (the md size here) */
			for (const char *p = tg_cli_limits_help; *p;) {
				const char *e = strchr(p, '\n');
				size_t len = e ? (size_t)(e - p) + 1 : strlen(p);
				if (strncmp(p, "  --max-bytes ", 14))
					fwrite(p, 1, len, stdout);
				p += len;
			}
			free(pos);
			return 1;
		} else if (!strcmp(s, "--")) {
			if (split != (size_t)-1) {
				tg_cli_error("diff: '--' given twice");
				goto fail;
			}
			split = npos;
		} else if (!strcmp(s, "--rules")) {
			a->rules_file = argv[++i];
		} else if (!strcmp(s, "-o")) {
			a->out = argv[++i];
		} else if (!strcmp(s, "--marker")) {
			a->marker = argv[++i];
		} else if (!strcmp(s, "--max-bytes")) {
			char *end;
			long long v = strtoll(argv[++i], &end, 10);
			if (*end || v < 1000) {
				tg_cli_error("--max-bytes needs a number of bytes >= 1000");
				goto fail;
			}
			a->max_bytes = (size_t)v;
		} else if (!strcmp(s, "--noise-from")) {
			a->noise[a->nnoise++] = argv[++i];
		} else if (!strcmp(s, "--allow-hardware-change")) {
			a->allow_hw = 1;
		} else if (!strcmp(s, "--no-tree-diff")) {
			a->no_tree_diff = 1;
		} else if (!strcmp(s, "--format")) {
			const char *v = argv[++i];
			if (!strcmp(v, "text"))
				a->fmt = FMT_TEXT;
			else if (!strcmp(v, "md"))
				a->fmt = FMT_MD;
			else if (!strcmp(v, "json"))
				a->fmt = FMT_JSON;
			else {
				tg_cli_error("--format: '%s' is not one of text, md, json", v);
				goto fail;
			}
		} else if (!strcmp(s, "--accept")) {
			char *v = argv[++i];
			char *colon = strchr(v, ':');
			if (!colon || colon == v || !colon[1]) {
				tg_cli_error("--accept: '%s' is not RULE:REASON", v);
				goto fail;
			}
			*colon = 0;
			a->accepts[a->naccepts++] = (tg_accept){v, colon + 1, NULL};
		} else if (s[0] == '-' && s[1]) {
			tg_cli_error("diff: unknown option %s (see tracegate diff --help)", s);
			goto fail;
		} else {
			pos[npos++] = s;
		}
	}
	if (split == (size_t)-1) {
		if (npos != 2) {
			if (npos)
				tg_cli_error("diff: give BASE NEW, or BASE... -- NEW... (%zu traces given)", npos);
			else
				fputs(usage, stderr);
			goto fail;
		}
		split = 1;
	}
	if (split == 0 || split == npos) {
		tg_cli_error("diff: both sides need at least one trace");
		goto fail;
	}
	a->base = pos;
	a->nbase = split;
	a->next = pos + split;
	a->nnext = npos - split;
	return 0;
fail:
	free(pos);
	return -1;
}

/* Loads a side; returns 0 or -1 after printing the error. */
static int load_side(tg_trace **tr, tg_tree **tree, const char **paths, size_t n, const tg_read_opts *ro)
{
	for (size_t i = 0; i < n; i++)
		if (tg_cli_load(&tr[i], &tree[i], paths[i], ro))
			return -1;
	return 0;
}

int tg_cmd_diff(int argc, char **argv)
{
	double t_start = now_s();
	struct diff_args a;
	memset(&a, 0, sizeof(a));
	tg_read_opts ropts = {0};
	int pr = parse(&a, argc, argv, &ropts);
	if (pr) {
		free(a.accepts);
		free(a.noise);
		return pr > 0 ? TG_EXIT_OK : TG_EXIT_USAGE;
	}
	int rc = TG_EXIT_USAGE;
	tg_rules *rules = NULL;
	tg_gate *g = NULL;
	char *doc = NULL;
	size_t doclen = 0;
	size_t ntr = a.nbase + a.nnext + a.nnoise;
	tg_trace **tr = calloc(ntr, sizeof(*tr));
	tg_tree **trees = calloc(ntr, sizeof(*trees));
	if (!tr || !trees)
		goto out;
	if (a.rules_file ? tg_rules_load_file(&rules, a.rules_file) : tg_rules_load_default(&rules)) {
		tg_cli_error("%s", tg_error_last());
		goto out;
	}
	for (size_t i = 0; i < a.naccepts; i++)
		if (!tg_rules_find(rules, a.accepts[i].rule)) {
			tg_cli_error("--accept: no rule named '%s' in %s", a.accepts[i].rule, tg_rules_source(rules));
			goto out;
		}
	if (load_side(tr, trees, a.base, a.nbase, &ropts) ||
	    load_side(tr + a.nbase, trees + a.nbase, a.next, a.nnext, &ropts) ||
	    load_side(tr + a.nbase + a.nnext, trees + a.nbase + a.nnext, a.noise, a.nnoise, &ropts))
		goto out;
	tg_gate_opts go = {a.accepts, a.naccepts, a.allow_hw, a.no_tree_diff, 0,
	                   (const tg_tree *const *)trees + a.nbase + a.nnext, a.nnoise, NULL, 0, NULL, 0};
	if (tg_gate_run(&g, rules, (const tg_tree *const *)trees, a.nbase, (const tg_tree *const *)trees + a.nbase,
	                a.nnext, &go)) {
		tg_cli_error("diff: %s", tg_error_last());
		goto out;
	}
	tg_diff_doc d = tg_gate_doc(g, a.base, a.nbase, a.next, a.nnext, a.marker, NULL);
	FILE *f = open_memstream(&doc, &doclen);
	if (!f)
		goto out;
	int wr = a.fmt == FMT_MD ? tg_diff_write_md(f, &d, a.max_bytes)
	         : a.fmt == FMT_JSON ? tg_diff_write_json(f, &d) : tg_diff_write_text(f, &d);
	if (fclose(f) || wr) {
		tg_cli_error("diff: %s", tg_error_last());
		goto out;
	}
	if (tg_cli_write_file(a.out, doc, doclen))
		goto out;
	/* TG_DIFF_TIMING=1: the share of the statistics (make bench) */
	const char *timing = getenv("TG_DIFF_TIMING");
	if (timing && *timing && strcmp(timing, "0")) {
		double total = now_s() - t_start, st = tg_gate_stats_seconds(g);
		fprintf(stderr, "tracegate: timing: total %.3f s, statistics %.3f s (%.1f %%)\n", total, st,
		        total > 0 ? 100 * st / total : 0);
	}
	switch (tg_gate_verdict(g)) {
	case TG_VERDICT_BLOCK: rc = TG_EXIT_BLOCKED; break;
	case TG_VERDICT_INCONCLUSIVE: rc = TG_EXIT_INCONCLUSIVE; break;
	default: rc = TG_EXIT_OK;
	}
out:
	free(doc);
	tg_gate_free(g);
	for (size_t i = 0; tr && trees && i < ntr; i++) {
		tg_tree_free(trees[i]);
		tg_trace_free(tr[i]);
	}
	free(tr);
	free(trees);
	tg_rules_free(rules);
	free(a.base);
	free(a.accepts);
	free(a.noise);
	return rc;
}
