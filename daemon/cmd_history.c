/*
 * cmd_history.c - `tracegate history --config FILE --repo REPO --branch
 * BRANCH [--metric M] [--workload W] [--limit N] [--format F] [-o FILE]`:
 * the numbers of every analysed run of a branch, from the daemon's store.
 */
#include "../config/config.h"
#include "cli.h"
#include "commands.h"
#include "history_render.h"
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: tracegate history --config FILE --repo REPO --branch BRANCH [options]\n"
	"\n"
	"The performance history of a branch: the numbers the daemon recorded for each\n"
	"analysed run (GPU busy time per step, kernel time per category, each rule's\n"
	"value, ...), oldest first.\n"
	"\n"
	"  --config FILE    the daemon's configuration (its database is read)\n"
	"  --repo REPO      owner/repo\n"
	"  --branch BRANCH  a branch (main)\n"
	"  --metric M       one metric (gpu_busy_ms, rule:sdpa-forward, ...); a trailing *\n"
	"                   matches a prefix (kernel_time_ms:*); default: every metric\n"
	"  --workload W     one workload; default: every workload\n"
	"  --limit N        the latest N runs of each series (default: all)\n"
	"  --format F       text (default), csv, json, or html (one page, a chart per series)\n"
	"  -o FILE          write there (complete or not at all) instead of stdout\n"
	"  --changes        find the change points of each series (E-divisive means):\n"
	"                   listed in text, \"changes\" in json, marked on the html charts\n";

int tg_cmd_history(int argc, char **argv)
{
	const char *config = NULL, *repo = NULL, *branch = NULL, *metric = NULL, *workload = NULL, *out = NULL;
	size_t limit = 0;
	tg_history_format fmt = TG_HISTORY_TEXT;
	tg_history_opts hopts = {0};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			return TG_EXIT_OK;
		}
		if (!strcmp(a, "--changes")) {
			hopts.changes = 1;
			continue;
		}
		int takes = !strcmp(a, "--config") || !strcmp(a, "--repo") || !strcmp(a, "--branch") ||
		            !strcmp(a, "--metric") || !strcmp(a, "--workload") || !strcmp(a, "--limit") ||
		            !strcmp(a, "--format") || !strcmp(a, "-o");
		if (!takes) {
			tg_cli_error("history: unknown argument %s (see tracegate history --help)", a);
			return TG_EXIT_USAGE;
		}
		if (i + 1 >= argc) {
			tg_cli_error("%s needs a value", a);
			return TG_EXIT_USAGE;
		}
		const char *v = argv[++i];
		if (!strcmp(a, "--config"))
			config = v;
		else if (!strcmp(a, "--repo"))
			repo = v;
		else if (!strcmp(a, "--branch"))
			branch = v;
		else if (!strcmp(a, "--metric"))
			metric = v;
		else if (!strcmp(a, "--workload"))
			workload = v;
		else if (!strcmp(a, "-o"))
			out = v;
		else if (!strcmp(a, "--limit")) {
			char *end;
			long long n = strtoll(v, &end, 10);
			if (*end || n < 1) {
				tg_cli_error("--limit: '%s' is not a positive number", v);
				return TG_EXIT_USAGE;
			}
			limit = (size_t)n;
		} else if (tg_history_format_parse(&fmt, v)) {
			tg_cli_error("%s", tg_error_last());
			return TG_EXIT_USAGE;
		}
	}
	if (!config || !repo || !branch) {
		fputs(usage, stderr);
		return TG_EXIT_USAGE;
	}
	tg_config *cfg;
	if (tg_config_load_file(&cfg, config)) {
		tg_cli_error("%s", tg_error_last());
		return TG_EXIT_USAGE;
	}
	char *url = NULL;
	if (cfg->sqlite) {
		size_t n = strlen(cfg->sqlite) + 8;
		url = malloc(n);
		if (url)
			snprintf(url, n, "sqlite:%s", cfg->sqlite);
	}
	tg_store *s = NULL;
	int rc = tg_store_open(&s, url ? url : cfg->postgresql.value);
	free(url);
	tg_config_free(cfg);
	if (rc) {
		tg_cli_error("%s", tg_error_last());
		return TG_EXIT_USAGE;
	}
	tg_history_point *p = NULL;
	size_t n = 0;
	char *doc = NULL;
	size_t len = 0;
	int ex = TG_EXIT_USAGE;
	if (tg_store_history(s, repo, branch, workload, metric, limit, &p, &n)) {
		tg_cli_error("%s", tg_error_last());
		goto done;
	}
	FILE *f = open_memstream(&doc, &len);
	if (!f)
		goto done;
	int wr = tg_history_write_ex(f, fmt, repo, branch, p, n, &hopts);
	if (fclose(f) || wr) {
		tg_cli_error("history: %s", tg_error_last());
		goto done;
	}
	if (!n)
		fprintf(stderr, "tracegate: no history for %s on %s%s%s\n", repo, branch, metric ? " matching " : "",
		        metric ? metric : "");
	if (tg_cli_write_file(out, doc, len) == 0)
		ex = TG_EXIT_OK;
done:
	free(doc);
	tg_history_free(p, n);
	tg_store_close(s);
	return ex;
}
