/*
 * cmd_report.c - `tracegate report TRACE... [--format text|md|csv|json|html]
 * [-o FILE] [--step N] [--tracelens] [--include-unlinked] [--rules FILE]
 * [--wide]`: the perf report of each trace, its findings first
 * (docs/findings.md). -o means what it means for diff and history, a file,
 * except for csv, whose tables are one file each in the folder it names.
 */
#include "../core/analysis/collectives.h"
#include "../core/analysis/findings.h"
#include "../core/analysis/ranks.h"
#include "../core/analysis/report.h"
#include "../render/report_html.h"
#include "../render/report_text.h"
#include "../rules/rules.h"
#include "../util/park.h"
#include "../util/util.h"
#include "cli.h"
#include "commands.h"
#include "csv_files.h"

#include <errno.h>
#include <libgen.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

enum format { FMT_TEXT, FMT_MD, FMT_CSV, FMT_JSON, FMT_HTML };

struct report_args {
	tg_read_opts ropts;
	tg_opt_list paths;
	enum format fmt;
	char *out; /* -o: the file, or the folder of the csv files */
	int64_t step_number; /* -1: every step */
	int tracelens, include_unlinked;
	int wide; /* text: every column and row (the summary first all the same) */
	char *gpu, *specs_file, *rules_file;
};

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

/* The tables of r in md or json (text: tg_report_write_text). */
static int write_tables(const tg_report *r, enum format fmt, FILE *f)
{
	int rc = 0;
	for (size_t i = 0; i < r->n && !rc; i++) {
		switch (fmt) {
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

/* Every table of r, and its findings as findings.csv, into dir (two
 * threads: cli/csv_files.c). */
static int write_csv_files(const tg_report *r, const char *dir)
{
	const tg_table **all = malloc((r->n + 1) * sizeof(*all));
	tg_table *ft = NULL;
	if (!all) {
		tg_cli_error("out of memory");
		return -1;
	}
	size_t n = 0;
	for (size_t i = 0; i < r->n; i++)
		all[n++] = r->tables[i];
	if (r->findings) {
		if (tg_findings_table(&ft, r->findings)) {
			tg_cli_error("%s", tg_error_last());
			free(all);
			return -1;
		}
		all[n++] = ft;
	}
	int rc = tg_cli_csv_files_write(all, n, dir);
	tg_table_free(ft);
	free(all);
	return rc;
}

/* The findings of r as the section of the format that opens its report. */
static int write_findings(const tg_report *r, enum format fmt, FILE *f)
{
	if (!r->findings)
		return 0;
	switch (fmt) {
	case FMT_TEXT: return tg_findings_write_text(f, r->findings, 100);
	case FMT_MD: return tg_findings_write_md(f, r->findings);
	case FMT_JSON: return tg_findings_write_json(f, r->findings);
	default: return 0;
	}
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

/* One trace's text report: its summary (the step of --step, or every
 * step), then its tables, fitted to a terminal unless a->wide. */
static int write_text(const struct report_args *a, const tg_report *r, const tg_tree *tree, FILE *f)
{
	tg_report_summary s;
	int32_t step = a->step_number >= 0 ? tg_tree_step_index(tree, a->step_number) : -1;
	tg_report_summary_build(&s, r, tree, step);
	return tg_report_write_text(f, r, &s, a->wide);
}

/* One trace's report to f (text, md, json) or to dir (csv). Returns 0 or
 * -1 after printing the error. */
static int report_one(const struct report_args *a, const char *path, const tg_tree *tree,
                      const tg_report_opts *opts, const char *dir, FILE *f, int first)
{
	tg_report r;
	enum format fmt = a->fmt;
	if (build_one(&r, path, tree, opts, a->step_number))
		return -1;
	int rc = 0;
	if (fmt == FMT_CSV) {
		rc = write_csv_files(&r, dir);
	} else {
		if (fmt == FMT_JSON)
			fputs(first ? "" : ",\n", f), fputs("{\"file\":", f), put_json_str(f, path),
				fputs(",\"findings\":", f);
		else if (fmt == FMT_MD)
			fprintf(f, "## Perf report: %s\n\n", path);
		else
			fprintf(f, "== Perf report: %s\n\n", path);
		if (fmt == FMT_TEXT) {
			rc = write_text(a, &r, tree, f);
		} else {
			if (!write_findings(&r, fmt, f) && fmt == FMT_JSON && !r.findings)
				fputs("[]", f);
			if (fmt == FMT_JSON)
				fputs(",\"tables\":{", f);
			rc = write_tables(&r, fmt, f);
		}
		if (rc) {
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
static int build_across(tg_report *out, tg_tree *const *trees, size_t n, int64_t step_number,
                        const tg_report_opts *opts)
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
	if (!opts->no_findings &&
	    tg_findings_across(&out->findings, (const tg_tree *const *)trees, n, opts->findings, step_number)) {
		tg_cli_error("%s", tg_error_last());
		tg_report_free(out);
		return -1;
	}
	return 0;
}

/* The tables comparing ranks, after the per-trace reports. */
static int report_ranks(const struct report_args *a, tg_tree *const *trees, size_t n, FILE *f,
                        const tg_report_opts *opts)
{
	tg_report r;
	enum format fmt = a->fmt;
	const char *dir = a->out;
	if (build_across(&r, trees, n, a->step_number, opts))
		return -1;
	int rc = 0;
	if (fmt == FMT_CSV) {
		rc = write_csv_files(&r, dir);
	} else {
		if (fmt == FMT_JSON)
			fputs("],\"across_ranks_findings\":", f);
		else if (fmt == FMT_MD)
			fputs("## Across ranks\n\n", f);
		else
			fputs("== Across ranks\n\n", f);
		if (fmt == FMT_TEXT) {
			if (tg_report_write_text(f, &r, NULL, a->wide))
				rc = -1;
		} else {
			if (!write_findings(&r, fmt, f) && fmt == FMT_JSON && !r.findings)
				fputs("[]", f);
			if (fmt == FMT_JSON)
				fputs(",\"across_ranks\":{", f);
			if (write_tables(&r, fmt, f))
				rc = -1;
		}
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
		if (build_across(&reps[n], trees, n, step_number, opts))
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


static int convert_format(void *dst, char *value)
{
	static const char *const names[] = {"text", "md", "csv", "json", "html"};
	for (int k = 0; k < 5; k++)
		if (!strcmp(value, names[k])) {
			*(enum format *)dst = (enum format)k;
			return 0;
		}
	return -1;
}

static int convert_step(void *dst, char *value)
{
	char *end;
	long long v = strtoll(value, &end, 10);
	if (end == value || *end || v < 0)
		return -1;
	*(int64_t *)dst = v;
	return 0;
}

static const tg_opt_spec report_opts[] = {
	{TG_OPT_ARGS, "TRACE", 0, NULL, offsetof(struct report_args, paths), NULL, NULL, TG_OPT_REQUIRED, NULL, NULL},
	{TG_OPT_VALUE, "format", 0, "text|md|csv|json|html", offsetof(struct report_args, fmt), convert_format,
	 "one of text, md, csv, json, html", TG_OPT_IN_USAGE,
	 "text (default), md, csv, json or html (one self-contained page: charts of GPU time, op categories and "
	 "top kernels, then every table; several traces share the page)",
	 NULL},
	{TG_OPT_VALUE, NULL, 'o', "FILE", offsetof(struct report_args, out), NULL, NULL, TG_OPT_IN_USAGE,
	 "write the report to FILE (complete or not at all) instead of stdout; with --format csv, FILE is a "
	 "folder: one file per table, named like TraceLens's (gpu_timeline.csv, ops_summary.csv...), and one "
	 "sub-folder per trace with several traces",
	 NULL},
	{TG_OPT_VALUE, "step", 0, "N", offsetof(struct report_args, step_number), convert_step,
	 "a step number (N of ProfilerStep#N)", TG_OPT_IN_USAGE,
	 "only ProfilerStep#N (its launches and their kernels), in every table, the collectives and the tables "
	 "across ranks included; every trace must have that step",
	 NULL},
	{TG_OPT_SWITCH, "tracelens", 0, NULL, offsetof(struct report_args, tracelens), NULL, NULL, TG_OPT_IN_USAGE,
	 "TraceLens's numbers: float64 microsecond arithmetic and its op categories (aten::_flash_attention_forward "
	 "is 'other' there, SDPA_fwd by default)",
	 NULL},
	{TG_OPT_SWITCH, "include-unlinked", 0, NULL, offsetof(struct report_args, include_unlinked), NULL, NULL,
	 TG_OPT_IN_USAGE, "GPU timeline also counts device events without a launch", NULL},
	{TG_OPT_SWITCH, "wide", 0, NULL, offsetof(struct report_args, wide), NULL, NULL, TG_OPT_IN_USAGE,
	 "text: every column and row of every table, under TraceLens's column names (by default the text "
	 "report fits 120 columns: readable headings, the telling columns, 20 rows a table)",
	 NULL},
	{TG_OPT_VALUE, "gpu", 0, "NAME", offsetof(struct report_args, gpu), NULL, NULL, 0,
	 "the GPU whose peaks the roofline columns use (H100 SXM, MI300X, ...: see docs/roofline.md); default: "
	 "recognised from the trace's deviceProperties",
	 NULL},
	{TG_OPT_VALUE, "gpu-specs", 0, "FILE", offsetof(struct report_args, specs_file), NULL, NULL, 0,
	 "YAML file adding or overriding GPU peaks", NULL},
	{TG_OPT_VALUE, "rules", 0, "FILE", offsetof(struct report_args, rules_file), NULL, NULL, TG_OPT_IN_USAGE,
	 "rules whose findings: section sets the findings' thresholds (docs/findings.md); default: those of the "
	 "built-in contrib/rules/default.yaml",
	 NULL},
	{TG_OPT_INCLUDE, .offset = offsetof(struct report_args, ropts), .include = tg_cli_limit_opts},
	{.kind = TG_OPT_END},
};

const tg_opt_command tg_cmd_report_opts = {
	"report", NULL,
	"The perf report of each TRACE: first its findings (what the trace shows is wrong, what it costs a step, "
	"the fix: docs/findings.md), then the GPU timeline (overall and per device), kernel time by op category, by "
	"op, by op and shapes, by kernel; short kernels. With several traces (one per rank), also each top kernel's "
	"durations across ranks and its slowest rank, and the findings across ranks (straggler, all ranks idle).",
	NULL, report_opts};

/* Where the report goes: stdout, or (with -o FILE, not csv) memory, written
 * to FILE when complete (tg_cli_write_file: a temporary file renamed), so
 * that a failure never leaves a partial report behind. */
struct output {
	FILE *f;
	const char *file;
	char *buf;
	size_t len;
};

/* Opens out for fmt and -o path; returns 0 or -1 after printing the error
 * (a path that is a folder, outside csv, is one: -o names a file). */
static int output_open(struct output *out, enum format fmt, const char *path)
{
	memset(out, 0, sizeof(*out));
	out->f = stdout;
	if (!path || fmt == FMT_CSV)
		return 0;
	struct stat st;
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		tg_cli_error("report: -o %s: is a folder; -o names the file to write (a folder only with --format csv)",
		             path);
		return -1;
	}
	out->file = path;
	if (!(out->f = open_memstream(&out->buf, &out->len))) {
		tg_cli_error("out of memory");
		return -1;
	}
	return 0;
}

/* Closes out: the report written to its file when rc is TG_EXIT_OK.
 * Returns rc, or TG_EXIT_USAGE after printing a write error. */
static int output_close(struct output *out, int rc)
{
	if (out->f == stdout)
		return rc;
	if (fclose(out->f) && rc == TG_EXIT_OK) {
		tg_cli_error("%s: cannot write: %s", out->file, strerror(errno));
		rc = TG_EXIT_USAGE;
	}
	if (rc == TG_EXIT_OK && tg_cli_write_file(out->file, out->buf, out->len))
		rc = TG_EXIT_USAGE;
	free(out->buf);
	return rc;
}

/* The GPU peaks (built in, and --gpu-specs FILE's) into *specs, which the
 * caller frees; checks that --gpu names one. Returns 0 or -1 after printing
 * the error. */
static int load_gpu_specs(tg_gpu_specs **specs, const struct report_args *a)
{
	if (tg_gpu_specs_new(specs) || (a->specs_file && tg_gpu_specs_load_file(*specs, a->specs_file))) {
		tg_cli_error("%s", tg_error_last());
		return -1;
	}
	const tg_gpu_spec *g;
	if (a->gpu && tg_gpu_specs_find(&g, *specs, a->gpu)) {
		tg_cli_error("--gpu: no GPU named '%s' (see docs/roofline.md, or add it with --gpu-specs)", a->gpu);
		return -1;
	}
	return 0;
}

/* Loads every trace and its tree into traces[i], trees[i]; with --step N,
 * checks that each has ProfilerStep#N. Returns 0 or -1 after printing the
 * error (what was loaded is the caller's to free all the same). */
static int load_all(tg_trace **traces, tg_tree **trees, const char *const *paths, size_t n,
                    const tg_read_opts *ropts, int64_t step_number)
{
	if (tg_cli_load_many(traces, trees, paths, n, ropts))
		return -1;
	/* --step N needs ProfilerStep#N in every trace: a rank without it
	 * fails the command before any table is written, rather than leaving
	 * a report whose ranks cover different work */
	for (size_t i = 0; i < n; i++)
		if (check_step(paths[i], trees[i], step_number))
			return -1;
	return 0;
}

/* The folder of trace i's csv files: DIR itself, or DIR/<trace's stem>
 * with several traces; made if missing. Returns 0 or -1 after printing
 * the error. */
static int csv_folder(char *sub, size_t cap, const char *dir, const char *path, size_t ntraces)
{
	char stem[1024];
	trace_stem(stem, sizeof(stem), path);
	if (ntraces > 1)
		snprintf(sub, cap, "%.3000s/%.1000s", dir, stem);
	else
		snprintf(sub, cap, "%s", dir);
	if (mkdir_p(sub)) {
		tg_cli_error("%s: cannot create: %s", sub, strerror(errno));
		return -1;
	}
	return 0;
}

/* Every trace's report, then the tables across ranks, in text, md, json
 * or csv (html: report_html). Returns 0 or -1 after printing the error. */
static int report_all(const struct report_args *a, const char *const *paths, tg_tree *const *trees, size_t n,
                      const tg_report_opts *opts, FILE *f)
{
	if (a->fmt == FMT_JSON)
		fputs("{\"tracegate_report\":1,\"traces\":[", f);
	for (size_t i = 0; i < n; i++) {
		char sub[4096] = "";
		if (a->fmt == FMT_CSV && csv_folder(sub, sizeof(sub), a->out, paths[i], n))
			return -1;
		if (report_one(a, paths[i], trees[i], opts, sub, f, i == 0))
			return -1;
	}
	if (n > 1 && report_ranks(a, trees, n, f, opts))
		return -1;
	if (a->fmt == FMT_JSON)
		fputs(n > 1 ? "}\n" : "]}\n", f);
	return 0;
}

/* Loads the traces and writes their reports to f. Returns the exit code. */
static int load_and_report(const struct report_args *a, const tg_report_opts *opts, FILE *f)
{
	const char *const *paths = (const char *const *)a->paths.v;
	size_t n = a->paths.n;
	tg_trace **traces = calloc(n, sizeof(tg_trace *));
	tg_tree **trees = calloc(n, sizeof(tg_tree *));
	int rc = TG_EXIT_USAGE;
	if (traces && trees && !load_all(traces, trees, paths, n, &a->ropts, a->step_number)) {
		int bad = a->fmt == FMT_HTML ? report_html(paths, trees, n, opts, a->step_number, f)
		                             : report_all(a, paths, trees, n, opts, f);
		rc = bad ? TG_EXIT_USAGE : TG_EXIT_OK;
	}
	for (size_t i = 0; traces && trees && i < n; i++) {
		tg_tree_free(trees[i]);
		tg_trace_free(traces[i]);
	}
	free(traces);
	free(trees);
	return rc;
}

/* The heap's policy for a report of the traces at paths: whether they are
 * large (8 MiB of files or more, gzip or not), and glibc's mmap threshold
 * for them: blocks from it up in mappings of their own, unmapped when
 * freed. glibc otherwise raises the threshold to each big block freed (up
 * to 32 MiB) and the next ones land in the heaps of the report's two
 * threads, which keep them: 14 % more peak at 1 GB. For large traces the
 * threshold is 64 KiB, not 1 MiB: the blocks between (0.2-1 MB each at
 * 100 MB of JSON: a launcher's or a device event's lists, the tree's
 * arrays) stayed resident in the arena of the thread that freed them, of
 * no use to the other (peak at 100 MB 16.5-16.8 -> 15.9-16.3 MB, at 1 GB
 * 128.8 -> 125.1 MB), for about 500 page faults more at 100 MB (each
 * block's pages faulted in anew): 2-3 % of the CPU there (gzip: 182-186 ms
 * -> 186-190), none measurable at 1 GB. A small trace's report, whose time
 * matters more than its few megabytes (h200-dev's 0.6-0.8 MB of gzip),
 * keeps 1 MiB. A report allocates each big block about once, so the
 * mappings cost little; the diff, whose critical paths allocate and free
 * big blocks over and over, keeps glibc's default (measured: 10 % less
 * peak for 10 % more CPU there).
 * One arena for every thread, as the diff has (cmd_diff.c; set before the
 * parked thread starts): the parked thread's own arena grew a page range
 * at a time, 20-30 mprotect calls of a small report's 40, and what one
 * thread freed there the other could not reuse. With one: 7 (the
 * loader's), a compiled_r1 report 2.9 % faster and base_r1 2.0 %, xdit_sd_3.5
 * 3.3 %, the 100 MB report 0.8 % (both ways round), peak RSS the same or
 * less (compiled_r1 6.06 -> 5.81 MB; 100 MB 13.5-13.7 MB either way). */
static int heap_policy(const tg_opt_list *paths)
{
	uint64_t bytes = 0;
	struct stat st;
	for (size_t i = 0; i < paths->n; i++)
		if (!stat(paths->v[i], &st) && S_ISREG(st.st_mode))
			bytes += (uint64_t)st.st_size;
	int large = bytes >= 8 * 1024 * 1024;
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, large ? 64 * 1024 : 1024 * 1024);
	mallopt(M_ARENA_MAX, 1);
#endif
	return large;
}

int tg_cmd_report(int argc, char **argv)
{
	struct report_args a = {.fmt = FMT_TEXT, .step_number = -1};
	int rc;
	if (tg_opt_parse_cli(&rc, &tg_cmd_report_opts, &a, argc, argv))
		return rc;
	int large = heap_policy(&a.paths);
	rc = TG_EXIT_USAGE;
	tg_gpu_specs *specs = NULL;
	tg_rules *rules = NULL;
	struct output out;
	if (a.wide && a.fmt != FMT_TEXT) {
		tg_cli_error("report: --wide goes with --format text");
		goto done;
	}
	if (a.fmt == FMT_CSV && !a.out) {
		tg_cli_error("report: --format csv writes one file per table: give -o FOLDER");
		goto done;
	}
	if (a.rules_file && tg_rules_load_file(&rules, a.rules_file)) {
		tg_cli_error("%s", tg_error_last());
		goto done;
	}
	if (load_gpu_specs(&specs, &a) || output_open(&out, a.fmt, a.out))
		goto done;
	/* the second thread of the read (its feeder), the tree, the report and
	 * the csv files, parked between them: woken, it runs at once, where a
	 * thread created then is queued behind the machine's other programs */
	tg_park_start();
	/* after each part of a large trace's report (heap_policy): the pages of
	 * the part's scratch given back (tg_cli_trim_heap). The two threads
	 * allocate in arenas of their own, and a block under the mmap threshold
	 * freed in one stays resident there, of no use to the other: at 100 MB
	 * of JSON 0.4-0.6 MB of the peak with a threshold of 1 MiB, 0.1-0.3 MB
	 * with 64 KiB. A trim walks the arenas' free lists (no CPU time
	 * measurable at 1 GB: 1,642-1,656 ms with it, 1,688-1,749 without, load
	 * 3-6), and what it gave back is faulted in again when used: on a small
	 * trace's report (h200-dev compiled_r1) it cost 300 page faults and
	 * 1.8 ms of its 14 ms of CPU, hence large traces only */
	tg_report_opts opts = {.step = -1, .tracelens = a.tracelens, .include_unlinked = a.include_unlinked,
	                       .gpu = a.gpu, .gpu_specs = specs, .findings = rules ? tg_rules_findings(rules) : NULL,
	                       .findings_alone = a.paths.n == 1, .streams = a.fmt == FMT_HTML,
	                       .part_done = large ? tg_cli_trim_heap : NULL};
	rc = output_close(&out, load_and_report(&a, &opts, out.f));
done:
	tg_rules_free(rules);
	tg_gpu_specs_free(specs);
	tg_opt_free(&tg_cmd_report_opts, &a);
	return rc;
}
