/*
 * store_sqlite_jobs.c - the job queue on SQLite: adding a job once per key,
 * claiming in BEGIN IMMEDIATE, leases (renew, release, expire), state steps
 * as compare-and-set, results, listing.
 */
#include "store_sqlite_impl.h"
#include "../../util/tg.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------------- jobs */

int tg_store__sq_job_add(tg_store *s, const tg_job *j, int64_t now, int64_t *id, int *created)
{
	sq_store *b = sq(s);
	int rc = sq_begin(b);
	if (rc)
		return rc;
	/* a known run first: an INSERT that conflicts still uses up an id
	 * (AUTOINCREMENT), and every restart adds every manifest again */
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_ID_BY_KEY);
	if (!st) {
		rc = TG_EIO;
		goto fail;
	}
	bind_text(st, 1, j->key);
	if ((rc = tg_store__sq_step(b, st, "add job")) < 0)
		goto fail;
	if (rc == 1) {
		*id = sqlite3_column_int64(st, 0);
		*created = 0;
		tg_store__sq_done(st);
		if ((rc = tg_store__sq_commit(s)))
			goto fail;
		return 0;
	}
	tg_store__sq_done(st);
	if (!(st = tg_store__sq_stmt(b, SQ_ADD))) {
		rc = TG_EIO;
		goto fail;
	}
	bind_text(st, 1, j->key);
	bind_text(st, 2, j->prefix);
	bind_text(st, 3, j->repo);
	bind_text(st, 4, j->commit);
	bind_text(st, 5, j->branch);
	bind_text(st, 6, j->target_branch);
	sqlite3_bind_int64(st, 7, j->pr);
	bind_text(st, 8, j->workload);
	bind_text(st, 9, j->run_id);
	bind_text(st, 10, j->manifest);
	sqlite3_bind_int64(st, 11, now);
	sqlite3_bind_int64(st, 12, j->run_time ? j->run_time : now);
	sqlite3_bind_int(st, 13, j->trusted != 0);
	bind_text(st, 14, j->origin);
	if ((rc = tg_store__sq_step(b, st, "add job")) < 0)
		goto fail;
	tg_store__sq_done(st);
	if (sqlite3_changes(b->db) == 1) {
		*id = sqlite3_last_insert_rowid(b->db);
		*created = 1;
	} else {
		if (!(st = tg_store__sq_stmt(b, SQ_ID_BY_KEY))) {
			rc = TG_EIO;
			goto fail;
		}
		bind_text(st, 1, j->key);
		if ((rc = tg_store__sq_step(b, st, "add job")) < 0)
			goto fail;
		*id = rc == 1 ? sqlite3_column_int64(st, 0) : 0;
		tg_store__sq_done(st);
	}
	if ((rc = tg_store__sq_commit(s)))
		goto fail;
	return 0;
fail:
	tg_store__sq_rollback(s);
	*id = 0;
	*created = 0;
	return rc;
}

int tg_store__sq_job_get(tg_store *s, int64_t id, const char *key, tg_job *out)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = tg_store__sq_stmt(b, key ? SQ_GET_KEY : SQ_GET_ID);
	if (!st)
		return TG_EIO;
	if (key)
		bind_text(st, 1, key);
	else
		sqlite3_bind_int64(st, 1, id);
	int rc = tg_store__sq_step(b, st, "get job");
	if (rc == 1)
		rc = tg_store__sq_job_row(st, out);
	else if (rc == 0)
		rc = key ? tg_error_set(TG_ENOTFOUND, "store: no job with key %.64s", key)
		         : tg_error_set(TG_ENOTFOUND, "store: no job %lld", (long long)id);
	tg_store__sq_done(st);
	return rc;
}

int tg_store__sq_job_claim(tg_store *s, const char *owner, int64_t now, int64_t until, int64_t want, tg_job *out)
{
	sq_store *b = sq(s);
	int rc = sq_begin(b);
	if (rc)
		return rc;
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_CLAIM_PICK);
	if (!st) {
		rc = TG_EIO;
		goto fail;
	}
	sqlite3_bind_int64(st, 1, now);
	sqlite3_bind_int64(st, 2, want);
	if ((rc = tg_store__sq_step(b, st, "claim")) <= 0) {
		if (rc == 0)
			rc = tg_error_set(TG_ENOTFOUND, "store: no job to claim");
		goto fail;
	}
	int64_t id = sqlite3_column_int64(st, 0);
	tg_store__sq_done(st);
	if (!(st = tg_store__sq_stmt(b, SQ_CLAIM_TAKE))) {
		rc = TG_EIO;
		goto fail;
	}
	bind_text(st, 1, owner);
	sqlite3_bind_int64(st, 2, until);
	sqlite3_bind_int64(st, 3, now);
	sqlite3_bind_int64(st, 4, id);
	if ((rc = tg_store__sq_step(b, st, "claim")) <= 0) {
		if (rc == 0)
			rc = tg_error_set(TG_EIO, "store %s: claim: job %lld vanished", s->describe, (long long)id);
		goto fail;
	}
	if ((rc = tg_store__sq_job_row(st, out)))
		goto fail;
	if ((rc = tg_store__sq_step(b, st, "claim")) < 0) /* RETURNING finishes on the next step */
		goto fail;
	tg_store__sq_done(st);
	if ((rc = tg_store__sq_commit(s)))
		goto fail;
	return 0;
fail:
	tg_store__sq_done(st);
	tg_store__sq_rollback(s);
	tg_job_clear(out);
	return rc;
}

int tg_store__sq_job_renew(tg_store *s, int64_t id, const char *owner, int64_t now, int64_t until)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_RENEW);
	if (!st)
		return TG_EIO;
	sqlite3_bind_int64(st, 1, until);
	sqlite3_bind_int64(st, 2, now);
	sqlite3_bind_int64(st, 3, id);
	bind_text(st, 4, owner);
	int changed = 0, rc = tg_store__sq_update(b, st, "renew", &changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: job %lld: %s holds no lease on it", (long long)id, owner);
	return rc;
}

int tg_store__sq_job_release(tg_store *s, int64_t id, const char *owner, int64_t now)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_RELEASE);
	if (!st)
		return TG_EIO;
	sqlite3_bind_int64(st, 1, now);
	sqlite3_bind_int64(st, 2, id);
	bind_text(st, 3, owner);
	int changed = 0, rc = tg_store__sq_update(b, st, "release", &changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: job %lld: %s holds no lease on it", (long long)id, owner);
	return rc;
}

int tg_store__sq_leases(tg_store *s, int64_t now, tg_lease **out, size_t *n)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_LEASES);
	if (!st)
		return TG_EIO;
	sqlite3_bind_int64(st, 1, now);
	size_t cap = 0;
	int rc;
	while ((rc = tg_store__sq_step(b, st, "leases")) == 1) {
		tg_lease *l = tg_store__push((void **)out, n, &cap, sizeof(**out));
		if (!l) {
			rc = TG_ENOMEM;
			break;
		}
		const char *o = (const char *)sqlite3_column_text(st, 1);
		l->id = sqlite3_column_int64(st, 0);
		snprintf(l->owner, sizeof(l->owner), "%s", o ? o : "");
		l->until = sqlite3_column_int64(st, 2);
	}
	tg_store__sq_done(st);
	if (rc < 0) {
		free(*out);
		*out = NULL;
		*n = 0;
		return rc;
	}
	return 0;
}

int tg_store__sq_lease_expire(tg_store *s, int64_t id, const char *owner, int64_t now)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_LEASE_EXPIRE);
	if (!st)
		return TG_EIO;
	sqlite3_bind_int64(st, 1, now);
	sqlite3_bind_int64(st, 2, id);
	bind_text(st, 3, owner);
	int changed = 0, rc = tg_store__sq_update(b, st, "expire lease", &changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: job %lld: %s holds no lease on it", (long long)id, owner);
	return rc;
}

int tg_store__sq_job_advance(tg_store *s, int64_t id, const char *owner, const char *from, const char *to, int release,
                             const char *error, int64_t now)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_ADVANCE);
	if (!st)
		return TG_EIO;
	bind_text(st, 1, to);
	sqlite3_bind_int64(st, 2, now);
	bind_text(st, 3, error);
	sqlite3_bind_int(st, 4, release);
	sqlite3_bind_int64(st, 5, id);
	bind_text(st, 6, from);
	bind_text(st, 7, owner);
	int changed = 0, rc = tg_store__sq_update(b, st, "advance", &changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: job %lld is not %s under a lease of %s", (long long)id, from,
		                  owner);
	return rc;
}

int tg_store__sq_job_set_result(tg_store *s, int64_t id, const tg_job *j, int64_t now)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_SET_RESULT);
	if (!st)
		return TG_EIO;
	bind_text(st, 1, j->verdict);
	bind_text(st, 2, j->summary);
	bind_text(st, 3, j->baseline_commit);
	sqlite3_bind_int(st, 4, j->baseline_distance);
	sqlite3_bind_int64(st, 5, j->comment_id);
	sqlite3_bind_int64(st, 6, now);
	sqlite3_bind_int64(st, 7, id);
	sqlite3_bind_int(st, 8, j->origin_ok != 0);
	bind_text(st, 9, j->judged_target);
	bind_text(st, 10, j->judged_merge_base);
	sqlite3_bind_int64(st, 11, j->posted_ms);
	int changed = 0, rc = tg_store__sq_update(b, st, "set result", &changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: no job %lld", (long long)id);
	return rc;
}

int tg_store__sq_jobs_list(tg_store *s, const char *const states[5], tg_job **out, size_t *n)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_LIST);
	if (!st)
		return TG_EIO;
	for (int i = 0; i < 5; i++)
		bind_text(st, i + 1, states[i]);
	return tg_store__sq_jobs_collect(b, st, "list jobs", out, n);
}
