/*
 * lease_reclaim.c - leases of dead daemons (daemon_impl.h:
 * tg_daemon_reclaim_leases).
 *
 * A daemon killed mid-job (kill -9, OOM, a reboot) leaves its jobs leased
 * until the lease runs out (daemon.lease, minutes), and the pull request
 * sits `pending` all that time. A lease owner is "host:pid:start"
 * (daemon.c): when the host is this one and no process has that pid, the
 * holder is dead and its lease is ended at once (the job keeps its
 * attempts, so a job that kills every daemon still runs out of them).
 * Any other lease is waited for, and the wait is logged once per lease:
 * a live daemon on this host, or one on another host that this one cannot
 * see.
 */
#include "daemon_impl.h"
#include "../util/log.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Splits owner "host:pid:start" (the host may hold ':'): 0, or -1 when it
 * is not of that form. */
static int parse_owner(const char *owner, char *host, size_t cap, long *pid)
{
	const char *last = strrchr(owner, ':');
	if (!last || last == owner)
		return -1;
	const char *p = last - 1;
	while (p > owner && *p != ':')
		p--;
	if (*p != ':' || p == owner)
		return -1;
	char *end;
	*pid = strtol(p + 1, &end, 10);
	if (end != last || *pid <= 0)
		return -1;
	snprintf(host, cap, "%.*s", (int)(p - owner), owner);
	return 0;
}

/* 1 when no process has pid on this host (kill's ESRCH); a process we may
 * not signal (EPERM) is alive. */
static int pid_dead(long pid)
{
	return kill((pid_t)pid, 0) && errno == ESRCH;
}

int tg_daemon_reclaim_leases(size_t *reclaimed, tg_daemon *d)
{
	tg_lease *l = NULL;
	size_t n = 0, k = 0;
	if (reclaimed)
		*reclaimed = 0;
	int rc = tg_store_leases(&l, &n, d->store);
	if (rc)
		return rc;
	char me[128] = "host";
	gethostname(me, sizeof(me) - 1);
	me[sizeof(me) - 1] = 0;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(l[i].owner, d->owner))
			continue;
		char host[192];
		long pid;
		int ours = !parse_owner(l[i].owner, host, sizeof(host), &pid) && !strcmp(host, me);
		if (ours && pid_dead(pid)) {
			if (!tg_store_lease_expire(d->store, l[i].id, l[i].owner)) {
				tg_log(TG_LOG_WARN, "job %lld: its lease holder %s is dead (no process %ld on this host): "
				                    "reclaimed now",
				       (long long)l[i].id, l[i].owner, pid);
				tg_metrics_add(d->metrics, TG_DM_LEASE_RECLAIMS, NULL, NULL, 1);
				k++;
			}
			continue;
		}
		/* a wait: said once per job and holder */
		char key[256];
		int len = snprintf(key, sizeof(key), "lease\x1f%lld\x1f%s", (long long)l[i].id, l[i].owner);
		size_t klen = len < 0 ? 0 : (size_t)len >= sizeof(key) ? sizeof(key) - 1 : (size_t)len;
		uint32_t before = tg_atoms_count(d->seen), id;
		if (tg_atoms_intern(&id, d->seen, key, klen) || tg_atoms_count(d->seen) == before)
			continue;
		long long left = (long long)(l[i].until - (int64_t)time(NULL));
		tg_log(TG_LOG_INFO, "job %lld is leased by %s (%s) for %llds more: waiting for it", (long long)l[i].id,
		       l[i].owner, ours ? "a live process on this host" : "another host", left > 0 ? left : 0);
	}
	free(l);
	if (reclaimed)
		*reclaimed = k;
	return 0;
}
