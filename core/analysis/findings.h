/*
 * findings.h - what a trace shows is wrong, and what to change: the
 * patterns performance engineers check by eye in Perfetto (the GPU idle
 * while the host waits, a DataLoader stall, launch-bound steps,
 * communication that does not overlap, a straggler rank, pageable copies,
 * attention on the math path, misaligned GEMMs, ...), each turned into a
 * checked finding with its evidence, the time it costs per step and a
 * one-line fix. docs/findings.md describes every finding, its threshold
 * and the source of its fix.
 *
 * Every finding is computed from what the trace shows: the analyses the
 * report already makes (host_syncs.h, the perf sheets and roofline,
 * collectives.h, the device busy intervals) and nothing guessed. A finding
 * that cannot be evaluated on a trace (no CPU side, one rank, no steps,
 * GPU not recognised) is listed as not evaluated with the reason, never
 * silently absent. Findings are pure functions of the trees and the
 * thresholds; the list owns everything in it (fixed-size strings, static
 * names and fixes), freed with tg_findings_free.
 *
 * One file per job: findings.c (a trace's list, a side's list),
 * findings_ctx.c (the context and the helpers the families share),
 * findings_names.c (names, fixes, default thresholds), one file per family
 * of checks: findings_host.c (host syncs, DataLoader), findings_gaps.c
 * (launch-bound, idle gaps, the first step), findings_ops.c (pageable
 * copies, attention backend, GEMM alignment, low efficiency),
 * findings_ranks.c (communication overlap, straggler, all ranks idle);
 * findings_compare.c (two sides: new, worse, gone) and findings_render.c
 * (text, md, json, the csv and html table).
 */
#ifndef TG_FINDINGS_H
#define TG_FINDINGS_H

#include "../models/gpu_specs.h"
#include "table.h"
#include "../tree/tree.h"

#include <stdio.h>

/* The findings, in the order they are checked. */
typedef enum tg_finding_id {
	TG_FINDING_HOST_SYNC = 0,     /* "host-sync" */
	TG_FINDING_DATALOADER_STALL,  /* "dataloader-stall" */
	TG_FINDING_LAUNCH_BOUND,      /* "launch-bound" */
	TG_FINDING_IDLE_GAP,          /* "idle-gap" */
	TG_FINDING_FIRST_STEP_SLOW,   /* "first-step-slow" */
	TG_FINDING_PAGEABLE_MEMCPY,   /* "pageable-memcpy" */
	TG_FINDING_ATTENTION_BACKEND, /* "attention-backend" */
	TG_FINDING_GEMM_ALIGNMENT,    /* "gemm-alignment" */
	TG_FINDING_LOW_EFFICIENCY,    /* "low-efficiency" */
	TG_FINDING_NO_COMM_OVERLAP,   /* "no-comm-overlap" */
	TG_FINDING_STRAGGLER,         /* "straggler" (across ranks) */
	TG_FINDING_ALL_RANKS_IDLE,    /* "all-ranks-idle" (across ranks) */
	TG_FINDING_COUNT
} tg_finding_id;

/* "host-sync", ... (static strings), NULL when out of range. */
const char *tg_finding_name(tg_finding_id id);

/* The id named name (exact), or -1. */
int tg_finding_parse(const char *name);

/* The words a sentence uses ("host sync", "DataLoader stall"); static. */
const char *tg_finding_title(tg_finding_id id);

/* The one-line fix (static string). */
const char *tg_finding_fix(tg_finding_id id);

/* 1 for the findings computed across the ranks of a job (straggler,
 * all-ranks-idle), 0 for those of one trace. */
int tg_finding_across_ranks(tg_finding_id id);

/* The thresholds of one finding (the rules' `findings:` section). */
typedef struct tg_finding_limits {
	int enabled;     /* 0: not checked, not listed */
	double min_cost; /* percent of the step time the finding must cost to fire */
	double param;    /* its own threshold, by finding (tg_findings_opts_default):
	                    launch-bound: largest gap counted as launch overhead, ns;
	                    idle-gap: shortest gap counted, ns;
	                    first-step-slow: first step / median step at least;
	                    gemm-alignment: the alignment in bytes (16);
	                    low-efficiency: percent of the roofline at most;
	                    straggler: percent of the collectives it must arrive last at;
	                    others: unused (0) */
} tg_finding_limits;

typedef struct tg_findings_opts {
	tg_finding_limits limits[TG_FINDING_COUNT];
	double worse_above;            /* percent: a finding on both sides of a diff is worse when its
	                       cost per step grew by more than this */
	const tg_gpu_spec *gpu;        /* peaks for low-efficiency; NULL: not evaluated */
	const tg_table *const *sheets; /* the report's perf sheets (GEMM, SDPA_fwd, ...) of the
	                                  same tree and step, to reuse; NULL: computed here */
	size_t nsheets;
} tg_findings_opts;

/* The defaults (also those of contrib/rules/default.yaml: tests check that
 * the two agree). */
void tg_findings_opts_default(tg_findings_opts *o);

typedef enum tg_finding_status {
	TG_FINDING_OK = 0,       /* evaluated, below its threshold */
	TG_FINDING_FIRED,        /* evaluated, at or above its threshold */
	TG_FINDING_NOT_EVALUATED /* the trace lacks what it needs: evidence says what */
} tg_finding_status;

/* "ok", "fired", "not evaluated" (static strings). */
const char *tg_finding_status_name(tg_finding_status s);

/* One finding of one trace (or of the ranks of one job). */
typedef struct tg_finding {
	tg_finding_id id;
	tg_finding_status status;
	char subject[192];        /* what it is about ("Block.forward: aten::item"), "" for the trace as a whole */
	char key[192];            /* subject without what moves between runs (source line numbers):
	                       matches the finding across two traces */
	char evidence[640];       /* the ops, kernels, streams, ranks and numbers it rests on; or, not
	                       evaluated, why; ok, what was measured */
	char basis[160];          /* how cost_ns was estimated ("" when it is not) */
	int64_t rank;             /* the trace's rank (distributedInfo), else -1; across ranks: the rank
	                       it names (straggler), else -1 */
	int64_t start_ns, end_ns; /* the time span of the evidence, trace timestamps in ns (for the
	                             augmented trace's instant events); 0, 0 when none */
	double count;             /* occurrences per step (syncs, copies, calls, gaps); 0 when not counted */
	double cost_ns;           /* estimated time it costs per step, ns; NAN when not estimated */
	double step_ns;           /* the mean step time (or the trace's span without steps) */
	double cost_pct;          /* 100 * cost_ns / step_ns; NAN when either is unknown */
	double threshold;         /* the min_cost that applied, percent */
} tg_finding;

typedef struct tg_findings tg_findings;

/* The findings of one trace, for step (-1: every ProfilerStep, or the
 * whole trace without steps; else a step index of tg_tree_steps): every
 * enabled finding of one trace, fired (several for host-sync, one per
 * place), ok or not evaluated; straggler and all-ranks-idle are "not
 * evaluated: one rank" when with_across is set (a report of one trace),
 * left out otherwise. opts NULL: the defaults. *out is the caller's,
 * freed with tg_findings_free. Returns 0, TG_EINVAL (bad step) or
 * TG_ENOMEM. */
int tg_findings_compute(tg_findings **out, const tg_tree *tree, const tg_findings_opts *opts, int32_t step,
                        int with_across);

/* The findings across the ranks of one job (one tree per rank, ranks from
 * distributedInfo, else the position): straggler and all-ranks-idle; not
 * evaluated with fewer than two distinct ranks. step_number: -1 for every
 * step, else ProfilerStep#step_number. *out as above. Returns 0 or
 * TG_ENOMEM. */
int tg_findings_across(tg_findings **out, const tg_tree *const *trees, size_t n, const tg_findings_opts *opts,
                       int64_t step_number);

/* One side of a comparison: the findings of its n traces (per_trace[i],
 * of rank ranks[i]) and of its ranks together (across, may be NULL), as
 * one list: per finding (id and key) the cost is the mean over the runs
 * of one rank (a run where it is ok counts its cost, one where it is not
 * evaluated does not) and the largest over the ranks; it fires when it
 * fired in any trace; the evidence is the costliest trace's. *out as
 * above. Returns 0 or TG_ENOMEM. */
int tg_findings_side(tg_findings **out, const tg_findings *const *per_trace, const int64_t *ranks, size_t n,
                     const tg_findings *across);

/* The findings in order: fired first (largest cost first), then not
 * evaluated, then ok, each by id; borrowed from f. */
const tg_finding *tg_findings_list(const tg_findings *f, size_t *n);

/* How many have each status. */
size_t tg_findings_count(const tg_findings *f, tg_finding_status s);

/* The step count and mean step time (ns) the findings were measured over. */
size_t tg_findings_steps(const tg_findings *f, double *step_ns);

void tg_findings_free(tg_findings *f);

/* A findings list made of the n findings v (allocated with malloc, owned by
 * the list from now on, even on failure), measured over nsteps steps of
 * step_ns each: what a stored copy of a list (run data) reads back. *out is
 * the caller's, freed with tg_findings_free. Returns 0 or TG_ENOMEM. */
int tg_findings_adopt(tg_findings **out, tg_finding *v, size_t n, size_t nsteps, double step_ns);

/* The findings across ranks as not evaluated, saying why (traces that can
 * no longer be read together), under fo (NULL: the defaults). *out is
 * the caller's, freed with tg_findings_free. 0 or TG_ENOMEM. */
int tg_findings_across_unknown(tg_findings **out, const tg_findings_opts *fo, const char *why);

/* ------------------------------------------------------------ two sides */

typedef enum tg_finding_change {
	TG_FINDING_NEW = 0, /* fires in the new side only */
	TG_FINDING_WORSE,   /* fires on both, costs more than worse_above % more */
	TG_FINDING_GONE,    /* fired in the base only */
	TG_FINDING_BETTER,  /* fires on both, costs more than worse_above % less */
	TG_FINDING_SAME     /* fires on both, within worse_above % */
} tg_finding_change;

/* "new", "worse", "gone", "better", "same" (static strings). */
const char *tg_finding_change_name(tg_finding_change c);

typedef struct tg_finding_delta {
	tg_finding_change change;
	const tg_finding *base, *next; /* borrowed; NULL on the side where it is absent */
	const char *note;              /* static: "the base could not evaluate it" when new or
	                                  gone for want of data on the other side; else "" */
} tg_finding_delta;

/* The findings that fire on either side, matched by id and key: new,
 * worse, gone, better or the same, in that order, largest cost first.
 * *out is an array of *n entries the caller frees with free() (NULL when
 * none); they borrow from base and next, which must outlive them.
 * worse_above from opts (NULL: the default). Returns 0 or TG_ENOMEM. */
int tg_findings_compare(tg_finding_delta **out, size_t *n, const tg_findings *base, const tg_findings *next,
                        const tg_findings_opts *opts);

/* ------------------------------------------------------------ rendering */

/* The findings as the table "findings" (findings.csv): finding, status,
 * subject, rank, per_step, cost_per_step(us), cost_pct, threshold_pct,
 * start(us), end(us) (trace timestamps), evidence, basis, fix. The caller
 * frees the table. Returns 0 or TG_ENOMEM. */
int tg_findings_table(tg_table **out, const tg_findings *f);

/* The findings as a report section: text (a terminal: the fired ones with
 * their cost, evidence and fix, wrapped at width columns (0: 100); the
 * others by name), md (a heading, a table of the fired ones, the others by
 * name; every string escaped), json (an array of objects: id, status,
 * subject, key, rank, count_per_step, cost_per_step_us, cost_pct, step_us,
 * threshold_pct, start_us, end_us (trace timestamps), evidence, basis,
 * fix; null for what is unknown). Each returns 0 or TG_EIO (a write error
 * on f). The html report renders tg_findings_table (report_html.h). */
int tg_findings_write_text(FILE *f, const tg_findings *fs, size_t width);
int tg_findings_write_md(FILE *f, const tg_findings *fs);
int tg_findings_write_json(FILE *f, const tg_findings *fs);

/* One sentence for a change ("new: host sync in Block.forward (aten::item,
 * 8 per step) costs 0.35 ms a step (4.4 % of the step); fix: ...") into
 * buf, plain text. */
void tg_finding_delta_sentence(char *buf, size_t cap, const tg_finding_delta *d);

/* f's cost in words ("0.35 ms a step (1.6 % of the step)"), into buf of cap bytes. */
void tg_finding_cost_words(char *buf, size_t cap, const tg_finding *f);

/* 1 when a finding of this id counts occurrences (its count is shown). */
int tg_finding_counted(tg_finding_id id);

/* The changes as the diff shows them: text (new, worse and gone each a
 * sentence with the fix; better and same counted), md (a section of the
 * pull-request comment, names as inline code, escaped), json (an array of
 * objects: change, id, subject, note, fix, base and new: the finding's
 * numbers or null). Return 0 or TG_EIO. */
int tg_findings_compare_write_text(FILE *f, const tg_finding_delta *d, size_t n);
int tg_findings_compare_write_md(FILE *f, const tg_finding_delta *d, size_t n);
int tg_findings_compare_write_json(FILE *f, const tg_finding_delta *d, size_t n);

#endif
