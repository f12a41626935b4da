/*
 * cmd_report.c - `tracegate report TRACE... [--format text|md|csv|json|html]
 * [-o DIR] [--step N] [--tracelens] [--include-unlinked]`: the perf report of
 * each trace.
 */
#include "../../core/collectives.h"
#include "../../core/ranks.h"
#include "../../core/report.h"
#include "../../core/report_html.h"
#include "../util.h"
#include "cli.h"
#include "commands.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
	"usage: tracegate report TRACE... [--format text|md|csv|json|html] [-o DIR]\n"
	"                        [--step N] [--tracelens] [--include-unlinked] [limits]\n"
	"\n"
	"The perf report of each TRACE: GPU timeline (overall and per device), kernel\n"
	"time by op category, by op, by op and shapes, by kernel; short kernels.\n"
	"With several traces (one per rank), also each top kernel's durations across\n"
	"ranks and its slowest rank.\n"
	"\n"
	"  --format F          text (default), md, csv, json or html (one self-contained\n"
	"                      page: charts of GPU time, op categories and top kernels,\n"
	"                      then every table; several traces share the page)\n"
	"  -o DIR              write there: csv gives one file per table, named like\n"
	"                      TraceLens's (gpu_timeline.csv, ops_summary.csv...); the\n"
	"                      other formats give report.txt, report.md, report.json,\n"
	"                      report.html. With several traces, csv gives one\n"
	"                      sub-folder per trace.\n"
	"  --step N            only ProfilerStep#N (its launches and their kernels),\n"
	"                      in every table, the collectives and the tables across\n"
	"                      ranks included; every trace must have that step\n"
	"  --tracelens         TraceLens's numbers: float64 microsecond arithmetic and\n"
	"                      its op categories (aten::_flash_attention_forward is\n"
	"                      'other' there, SDPA_fwd by default)\n"
	"  --include-unlinked  GPU timeline also counts device events without a launch\n"
	"  --gpu NAME          the GPU whose peaks the roofline columns use (H100 SXM,\n"
	"                      MI300X, ...: see docs/roofline.md); default: recognised\n"
	"                      from the trace's deviceProperties\n"
	"  --gpu-specs FILE    YAML file adding or overriding GPU peaks\n"
	"\n";

enum format { FMT_TEXT, FMT_MD, FMT_CSV, FMT_JSON, FMT_HTML };

/* mkdir -p with 0777 less the umask; -1 with errno (a path too long for
 * PATH_MAX fails, it is not cut short). */
static int mkdir_p(const char *dir)
{
	return tg_util_mkdir_p(NULL, 0, dir, 0777);
}

/* The trace file's name without its folder and .json/.gz suffixes. */
static void trace_stem(char *out, size_t cap, const char *path)
{
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s", path);
	snprintf(out, cap, "%s", basename(tmp));
	static const char *const suffixes[] = {".gz", ".json", ".pt.trace"};
	for (int k = 0; k < 3; k++) {
		size_t n = strlen(out), s = strlen(suffixes[k]);
		if (n > s && !strcmp(out + n - s, suffixes[k]))
			out[n - s] = 0;
	}
}

static int write_tables(const tg_report *r, enum format fmt, FILE *f)
{
	int rc = 0;
	for (size_t i = 0; i < r->n && !rc; i++) {
		switch (fmt) {
		case FMT_TEXT:
			rc = tg_table_write_text(r->tables[i], f, 80);
			fputc('\n', f);
			break;
		case FMT_MD:
			rc = tg_table_write_md(r->tables[i], f);
			break;
		case FMT_JSON:
			fprintf(f, "%s\"%s\":", i ? ",\n" : "", tg_table_name(r->tables[i]));
			rc = tg_table_write_json(r->tables[i], f);
			break;
		default:
			break;
		}
	}
	return rc;
}

static int write_csv_files(const tg_report *r, const char *dir)
{
	for (size_t i = 0; i < r->n; i++) {
		char file[8192];
		snprintf(file, sizeof(file), "%.4000s/%.1000s.csv", dir, tg_table_name(r->tables[i]));
		FILE *out = fopen(file, "w");
		if (!out || tg_table_write_csv(r->tables[i], out) || fclose(out)) {
			tg_cli_error("%s: cannot write: %s", file, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static void put_json_str(FILE *f, const char *s)
{
	putc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putc('\\', f);
		if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			putc(*s, f);
	}
	putc('"', f);
}

/* Whether the trace at path has ProfilerStep#step_number (or no step is
 * asked for: step_number < 0). Returns 0, or -1 after printing the error. */
static int check_step(const char *path, const tg_tree *tree, int64_t step_number)
{
	if (step_number < 0 || tg_tree_step_index(tree, step_number) >= 0)
		return 0;
	size_t ns;
	tg_tree_steps(tree, &ns);
	tg_cli_error("%s: no ProfilerStep#%lld in this trace (%zu steps)", path, (long long)step_number, ns);
	return -1;
}

/* Builds the report of one trace into *r (the caller frees it), for step
 * step_number (-1: the whole trace). Returns 0 or -1 after printing the
 * error. */
static int build_one(tg_report *r, const char *path, const tg_tree *tree, const tg_report_opts *opts_in,
                     int64_t step_number)
{
	tg_report_opts opts = *opts_in;
	if (check_step(path, tree, step_number))
		return -1;
	if (step_number >= 0)
		opts.step = tg_tree_step_index(tree, step_number);
	if (tg_report_build(r, tree, &opts)) {
		tg_cli_error("%s: %s", path, tg_error_last());
		return -1;
	}
	return 0;
}

/* One trace's report to f (text, md, json) or to dir (csv). Returns 0 or
 * -1 after printing the error. */
static int report_one(const char *path, const tg_tree *tree, const tg_report_opts *opts,
                      int64_t step_number, enum format fmt, const char *dir, FILE *f, int first)
{
	tg_report r;
	if (build_one(&r, path, tree, opts, step_number))
		return -1;
	int rc = 0;
	if (fmt == FMT_CSV) {
		rc = write_csv_files(&r, dir);
	} else {
		if (fmt == FMT_JSON)
			fputs(first ? "" : ",\n", f), fputs("{\"file\":", f), put_json_str(f, path),
				fputs(",\"tables\":{", f);
		else if (fmt == FMT_MD)
			fprintf(f, "## Perf report: %s\n\n", path);
		else
			fprintf(f, "== Perf report: %s\n\n", path);
		if (write_tables(&r, fmt, f)) {
			tg_cli_error("write error: %s", strerror(errno));
			rc = -1;
		}
		if (fmt == FMT_JSON)
			fputs("}}", f);
	}
	tg_report_free(&r);
	return rc;
}

/* The tables comparing ranks into *out (the caller frees it with
 * tg_report_free): each top kernel's durations across ranks, and the
 * collectives matched across ranks (implicit sync, skew, stragglers) when
 * the traces have any; for ProfilerStep#step_number only when it is >= 0.
 * Returns 0 or -1 after printing the error. */
static int build_across(tg_report *out, tg_tree *const *trees, size_t n, int64_t step_number)
{
	memset(out, 0, sizeof(*out));
	out->tables = calloc(5, sizeof(tg_table *));
	if (!out->tables) {
		tg_cli_error("out of memory");
		return -1;
	}
	tg_table *sync[3];
	tg_collectives_sync_info info;
	if (tg_ranks_kernel_tables(out->tables, (const tg_tree *const *)trees, n, 20, step_number)) {
		tg_cli_error("%s", tg_error_last());
		tg_report_free(out);
		return -1;
	}
	out->n = 2;
	if (tg_collectives_sync_tables(sync, &info, (const tg_tree *const *)trees, n, step_number)) {
		tg_cli_error("%s", tg_error_last());
		tg_report_free(out);
		return -1;
	}
	for (int i = 0; i < 3; i++) {
		if (tg_table_nrows(sync[i]))
			out->tables[out->n++] = sync[i];
		else
			tg_table_free(sync[i]);
	}
	return 0;
}

/* The tables comparing ranks, after the per-trace reports. */
static int report_ranks(tg_tree *const *trees, size_t n, int64_t step_number, enum format fmt,
                        const char *dir, FILE *f)
{
	tg_report r;
	if (build_across(&r, trees, n, step_number))
		return -1;
	int rc = 0;
	if (fmt == FMT_CSV) {
		rc = write_csv_files(&r, dir);
	} else {
		if (fmt == FMT_JSON)
			fputs("],\"across_ranks\":{", f);
		else if (fmt == FMT_MD)
			fputs("## Across ranks\n\n", f);
		else
			fputs("== Across ranks\n\n", f);
		if (write_tables(&r, fmt, f))
			rc = -1;
		if (fmt == FMT_JSON)
			fputs("}", f);
	}
	tg_report_free(&r);
	return rc;
}

/* Every trace's report and, with several traces, the tables comparing
 * ranks (as one more section), as one HTML page on f. Returns 0 or -1
 * after printing the error. */
static int report_html(const char *const *paths, tg_tree *const *trees, size_t n,
                       const tg_report_opts *opts, int64_t step_number, FILE *f)
{
	tg_report *reps = calloc(n + 1, sizeof(*reps));
	const tg_report **list = calloc(n + 1, sizeof(*list));
	const char **names = calloc(n + 1, sizeof(*names));
	size_t built = 0, nlist = n;
	int rc = -1;
	if (!reps || !list || !names) {
		tg_cli_error("out of memory");
		goto done;
	}
	for (; built < n; built++) {
		if (build_one(&reps[built], paths[built], trees[built], opts, step_number))
			goto done;
		list[built] = &reps[built];
		names[built] = paths[built];
	}
	if (n > 1) {
		if (build_across(&reps[n], trees, n, step_number))
			goto done;
		built++;
		list[n] = &reps[n];
		names[n] = "Across ranks";
		nlist++;
	}
	if (tg_report_write_html(f, list, names, nlist)) {
		tg_cli_error("%s", tg_error_last());
		goto done;
	}
	rc = 0;
done:
	for (size_t i = 0; i < built; i++)
		tg_report_free(&reps[i]);
	free(reps);
	free(list);
	free(names);
	return rc;
}

int tg_cmd_report(int argc, char **argv)
{
	tg_read_opts ropts = {0};
	tg_report_opts opts = {.step = -1};
	tg_gpu_specs *specs = NULL;
	const char *specs_file = NULL;
	enum format fmt = FMT_TEXT;
	const char *dir = NULL;
	int64_t step_number = -1;
	const char **paths = calloc((size_t)argc, sizeof(char *));
	size_t npaths = 0;
	int rc = TG_EXIT_USAGE;
	if (!paths)
		return TG_EXIT_USAGE;
	for (int i = 1; i < argc; i++) {
		int r = tg_cli_limit_option(&ropts, argc, argv, &i);
		if (r < 0)
			goto out;
		if (r)
			continue;
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			fputs(tg_cli_limits_help, stdout);
			rc = TG_EXIT_OK;
			goto out;
		} else if (!strcmp(a, "--tracelens")) {
			opts.tracelens = 1;
		} else if (!strcmp(a, "--include-unlinked")) {
			opts.include_unlinked = 1;
		} else if ((!strcmp(a, "--format") || !strcmp(a, "-o") || !strcmp(a, "--step") || !strcmp(a, "--gpu") ||
		            !strcmp(a, "--gpu-specs")) &&
		           i + 1 >= argc) {
			tg_cli_error("%s needs a value", a);
			goto out;
		} else if (!strcmp(a, "--format")) {
			const char *v = argv[++i];
			if (!strcmp(v, "text"))
				fmt = FMT_TEXT;
			else if (!strcmp(v, "md"))
				fmt = FMT_MD;
			else if (!strcmp(v, "csv"))
				fmt = FMT_CSV;
			else if (!strcmp(v, "json"))
				fmt = FMT_JSON;
			else if (!strcmp(v, "html"))
				fmt = FMT_HTML;
			else {
				tg_cli_error("--format: '%s' is not one of text, md, csv, json, html", v);
				goto out;
			}
		} else if (!strcmp(a, "-o")) {
			dir = argv[++i];
		} else if (!strcmp(a, "--gpu")) {
			opts.gpu = argv[++i];
		} else if (!strcmp(a, "--gpu-specs")) {
			specs_file = argv[++i];
		} else if (!strcmp(a, "--step")) {
			char *end;
			step_number = strtoll(argv[++i], &end, 10);
			if (*end || step_number < 0) {
				tg_cli_error("--step needs a step number (N of ProfilerStep#N)");
				goto out;
			}
		} else if (a[0] == '-' && a[1]) {
			tg_cli_error("report: unknown option %s (see tracegate report --help)", a);
			goto out;
		} else {
			paths[npaths++] = a;
		}
	}
	if (!npaths) {
		fputs(usage, stderr);
		goto out;
	}
	if (fmt == FMT_CSV && !dir) {
		tg_cli_error("report: --format csv writes one file per table: give -o DIR");
		goto out;
	}
	if (tg_gpu_specs_new(&specs) || (specs_file && tg_gpu_specs_load_file(specs, specs_file))) {
		tg_cli_error("%s", tg_error_last());
		goto out;
	}
	opts.gpu_specs = specs;
	if (opts.gpu) {
		const tg_gpu_spec *g;
		if (tg_gpu_specs_find(&g, specs, opts.gpu)) {
			tg_cli_error("--gpu: no GPU named '%s' (see docs/roofline.md, or add it with --gpu-specs)", opts.gpu);
			goto out;
		}
	}
	/* a report file is written under a temporary name and renamed when
	 * complete: a failure never leaves a partial report behind */
	FILE *f = stdout;
	char file[4096], tmpfile[4200];
	if (dir && fmt != FMT_CSV) {
		if (mkdir_p(dir)) {
			tg_cli_error("%s: cannot create: %s", dir, strerror(errno));
			goto out;
		}
		snprintf(file, sizeof(file), "%.4000s/report.%s", dir,
		         fmt == FMT_MD ? "md" : fmt == FMT_JSON ? "json" : fmt == FMT_HTML ? "html" : "txt");
		snprintf(tmpfile, sizeof(tmpfile), "%.4000s/.report.XXXXXX", dir);
		int fd = mkstemp(tmpfile);
		f = fd >= 0 && !tg_cli_fchmod_umask(fd) ? fdopen(fd, "w") : NULL;
		if (!f) {
			tg_cli_error("%s: cannot write: %s", file, strerror(errno));
			if (fd >= 0) {
				close(fd);
				unlink(tmpfile);
			}
			goto out;
		}
	}
	tg_trace **traces = calloc(npaths, sizeof(tg_trace *));
	tg_tree **trees = calloc(npaths, sizeof(tg_tree *));
	if (!traces || !trees) {
		free(traces);
		free(trees);
		goto out;
	}
	rc = TG_EXIT_OK;
	for (size_t i = 0; i < npaths && rc == TG_EXIT_OK; i++)
		if (tg_cli_load(&traces[i], &trees[i], paths[i], &ropts))
			rc = TG_EXIT_USAGE;
	/* --step N needs ProfilerStep#N in every trace: a rank without it
	 * fails the command before any table is written, rather than leaving
	 * a report whose ranks cover different work */
	for (size_t i = 0; i < npaths && rc == TG_EXIT_OK; i++)
		if (check_step(paths[i], trees[i], step_number))
			rc = TG_EXIT_USAGE;
	if (rc == TG_EXIT_OK && fmt == FMT_HTML &&
	    report_html(paths, trees, npaths, &opts, step_number, f))
		rc = TG_EXIT_USAGE;
	if (rc == TG_EXIT_OK && fmt == FMT_JSON)
		fputs("{\"tracegate_report\":1,\"traces\":[", f);
	for (size_t i = 0; i < npaths && rc == TG_EXIT_OK && fmt != FMT_HTML; i++) {
		char sub[4096];
		if (fmt == FMT_CSV) {
			char stem[1024];
			trace_stem(stem, sizeof(stem), paths[i]);
			if (npaths > 1)
				snprintf(sub, sizeof(sub), "%.3000s/%.1000s", dir, stem);
			else
				snprintf(sub, sizeof(sub), "%s", dir);
			if (mkdir_p(sub)) {
				tg_cli_error("%s: cannot create: %s", sub, strerror(errno));
				rc = TG_EXIT_USAGE;
				break;
			}
		}
		if (report_one(paths[i], trees[i], &opts, step_number, fmt, sub, f, i == 0))
			rc = TG_EXIT_USAGE;
	}
	if (rc == TG_EXIT_OK && npaths > 1 && fmt != FMT_HTML && report_ranks(trees, npaths, step_number, fmt, dir, f))
		rc = TG_EXIT_USAGE;
	if (rc == TG_EXIT_OK && fmt == FMT_JSON)
		fputs(npaths > 1 ? "}\n" : "]}\n", f);
	for (size_t i = 0; i < npaths; i++) {
		tg_tree_free(trees[i]);
		tg_trace_free(traces[i]);
	}
	free(traces);
	free(trees);
	if (f != stdout) {
		if (fclose(f) && rc == TG_EXIT_OK) {
			tg_cli_error("%s: cannot write: %s", file, strerror(errno));
			rc = TG_EXIT_USAGE;
		}
		if (rc == TG_EXIT_OK && rename(tmpfile, file)) {
			tg_cli_error("%s: cannot write: %s", file, strerror(errno));
			rc = TG_EXIT_USAGE;
		}
		if (rc != TG_EXIT_OK)
			unlink(tmpfile);
	}
out:
	tg_gpu_specs_free(specs);
	free(paths);
	return rc;
}
