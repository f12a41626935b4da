/*
 * publish.h - the published history (history.publish; docs/operations.md,
 * "Published history"): after every judged run, the page of its branch
 * (and, for a pull request's run, of the branch it merges into, which
 * marks it) and the index of every repository's branches, written where a
 * static web server or a bucket website serves them (publish.c).
 *
 *   <publish>/index.html
 *   <publish>/<owner>/<repo>/<branch file>.html   (history_index.h)
 *
 * A folder gets each file whole or not at all (a temporary file renamed
 * over the old one), world-readable (0644; folders it makes 0755); a
 * bucket gets each page by PUT, the index last. Publishing is best effort:
 * a failure is logged and counted (tracegate_history_publish_errors_total)
 * and never fails the job; the next judged run of the branch writes its
 * page again.
 */
#ifndef TG_PUBLISH_H
#define TG_PUBLISH_H

#include "daemon_impl.h"

/* Opens what publishing needs (d->cfg's history.publish): the folder made
 * (mode 0755 where it is new), or an S3 client on storage.s3's endpoint
 * and keys for the bucket. Nothing when publishing is off. Returns 0 or
 * TG_EIO (a folder that cannot be made), TG_EINVAL, TG_ENOMEM. */
int tg_daemon_publish_open(tg_daemon *d);

/* Frees what tg_daemon_publish_open made (d->publish); NULL is fine. */
void tg_daemon_publish_close(tg_daemon *d);

/* Job j is judged (done): publishes its branch's page, its target
 * branch's for a pull request's run, and the index. */
void tg_daemon_publish_run(tg_daemon *d, const tg_job *j);

/* Publishes every branch's page of every repository, then the index (at
 * start, so that a folder newly configured is whole at once). */
void tg_daemon_publish_all(tg_daemon *d);

#endif
