/*
 * store_rows.c - what both backends share below the interface: a job row,
 * a history row, a branch row and a count row turned into their structs (the columns in the order
 * store_impl.h gives), the state names, growing a result array, and the
 * structs' free functions. store.c calls the backends and the backends
 * call these, never store.c: the room's files call one another without a
 * circle.
 */
#include "store_impl.h"
#include "../../util/tg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const state_names[TG_STORE_NSTATES] = {"seen", "analysing", "posting", "done", "failed"};

const char *tg_job_state_name(tg_job_state s)
{
	return (unsigned)s < TG_STORE_NSTATES ? state_names[s] : "unknown";
}

static int state_from_name(const char *name, tg_job_state *out)
{
	for (int i = 0; i < TG_STORE_NSTATES; i++)
		if (name && !strcmp(name, state_names[i])) {
			*out = (tg_job_state)i;
			return 0;
		}
	return -1;
}

void tg_job_clear(tg_job *j)
{
	if (!j)
		return;
	free(j->prefix);
	free(j->repo);
	free(j->commit);
	free(j->branch);
	free(j->target_branch);
	free(j->workload);
	free(j->run_id);
	free(j->manifest);
	free(j->error);
	free(j->verdict);
	free(j->summary);
	free(j->baseline_commit);
	free(j->tampered);
	free(j->origin);
	free(j->judged_target);
	free(j->judged_merge_base);
	memset(j, 0, sizeof(*j));
}

void tg_store_jobs_free(tg_job *j, size_t n)
{
	for (size_t i = 0; j && i < n; i++)
		tg_job_clear(&j[i]);
	free(j);
}

void tg_history_free(tg_history_point *p, size_t n)
{
	for (size_t i = 0; p && i < n; i++) {
		free(p[i].workload);
		free(p[i].metric);
	}
	free(p);
}

static int dup_opt(char **dst, const char *v)
{
	if (!v)
		return 0;
	if (!(*dst = strdup(v)))
		return tg_error_set(TG_ENOMEM, "out of memory");
	return 0;
}

static int64_t to_i64(const char *v, int64_t dflt)
{
	return v ? (int64_t)strtoll(v, NULL, 10) : dflt;
}

int tg_store__job_from_row(tg_job *out, const char *const *v)
{
	memset(out, 0, sizeof(*out));
	out->id = to_i64(v[0], 0);
	snprintf(out->key, sizeof(out->key), "%s", v[1] ? v[1] : "");
	int rc;
	if ((rc = dup_opt(&out->prefix, v[2])) || (rc = dup_opt(&out->repo, v[3])) ||
	    (rc = dup_opt(&out->commit, v[4])) || (rc = dup_opt(&out->branch, v[5])) ||
	    (rc = dup_opt(&out->target_branch, v[6])) || (rc = dup_opt(&out->workload, v[8])) ||
	    (rc = dup_opt(&out->run_id, v[9])) || (rc = dup_opt(&out->manifest, v[10])) ||
	    (rc = dup_opt(&out->error, v[13])) || (rc = dup_opt(&out->verdict, v[14])) ||
	    (rc = dup_opt(&out->summary, v[15])) || (rc = dup_opt(&out->baseline_commit, v[16])) ||
	    (rc = dup_opt(&out->tampered, v[23])) || (rc = dup_opt(&out->origin, v[24])) ||
	    (rc = dup_opt(&out->judged_target, v[26])) || (rc = dup_opt(&out->judged_merge_base, v[27]))) {
		tg_job_clear(out);
		return rc;
	}
	out->pr = to_i64(v[7], 0);
	if (state_from_name(v[11], &out->state)) {
		rc = tg_error_set(TG_EFORMAT, "store: run %lld has unknown state '%.40s'", (long long)out->id,
		                  v[11] ? v[11] : "(null)");
		tg_job_clear(out);
		return rc;
	}
	out->attempts = (int)to_i64(v[12], 0);
	out->baseline_distance = (int)to_i64(v[17], -1);
	out->comment_id = to_i64(v[18], 0);
	out->created_at = to_i64(v[19], 0);
	out->updated_at = to_i64(v[20], 0);
	out->run_time = to_i64(v[21], 0);
	out->trusted = (int)to_i64(v[22], 0);
	out->origin_ok = (int)to_i64(v[25], 0);
	out->posted_ms = to_i64(v[28], 0);
	return 0;
}

int tg_store__history_from_row(tg_history_point *p, const char *const *v)
{
	memset(p, 0, sizeof(*p));
	p->run = to_i64(v[0], 0);
	p->run_time = to_i64(v[1], 0);
	snprintf(p->commit, sizeof(p->commit), "%s", v[2] ? v[2] : "");
	int rc;
	if ((rc = dup_opt(&p->workload, v[3])) || (rc = dup_opt(&p->metric, v[4]))) {
		free(p->workload);
		free(p->metric);
		memset(p, 0, sizeof(*p));
		return rc;
	}
	p->value = v[TG_STORE_HISTORY_VALUE] ? strtod(v[TG_STORE_HISTORY_VALUE], NULL) : 0.0;
	p->pr = to_i64(v[6], 0);
	return 0;
}

int tg_store__branch_from_row(tg_store_branch *b, const char *const *v)
{
	memset(b, 0, sizeof(*b));
	int rc;
	if ((rc = dup_opt(&b->branch, v[0])) || (rc = dup_opt(&b->workload, v[1])) || (rc = dup_opt(&b->verdict, v[6]))) {
		free(b->branch);
		free(b->workload);
		free(b->verdict);
		memset(b, 0, sizeof(*b));
		return rc;
	}
	b->runs = to_i64(v[2], 0);
	b->run = to_i64(v[3], 0);
	snprintf(b->commit, sizeof(b->commit), "%s", v[4] ? v[4] : "");
	b->run_time = to_i64(v[5], 0);
	b->pr = to_i64(v[7], 0);
	return 0;
}

void tg_store_branches_free(tg_store_branch *b, size_t n)
{
	for (size_t i = 0; b && i < n; i++) {
		free(b[i].branch);
		free(b[i].workload);
		free(b[i].verdict);
	}
	free(b);
}

int tg_store__counts_add_row(tg_store_counts *out, const char *const *v)
{
	tg_job_state st;
	if (state_from_name(v[0], &st))
		return tg_error_set(TG_EFORMAT, "store: a job has unknown state '%.40s'", v[0] ? v[0] : "(null)");
	out->jobs[st] = to_i64(v[1], 0);
	int64_t oldest = to_i64(v[2], 0);
	if (st != TG_JOB_DONE && st != TG_JOB_FAILED && oldest > 0 &&
	    (!out->oldest_unfinished || oldest < out->oldest_unfinished))
		out->oldest_unfinished = oldest;
	return 0;
}

void *tg_store__push(void **items, size_t *n, size_t *cap, size_t item_size)
{
	if (tg_grow(items, cap, *n + 1, item_size))
		return NULL;
	char *p = (char *)*items + *n * item_size;
	memset(p, 0, item_size);
	(*n)++;
	return p;
}
