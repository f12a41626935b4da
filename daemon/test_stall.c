/*
 * test_stall.c - a test hook (daemon_impl.h: tg_daemon_test_stall):
 * TRACEGATE_TEST_STALL=<point>:<seconds> makes the daemon log "stall at
 * <point>" and sleep there, so that the fault and attack tests can kill it,
 * or change a file under it, at a chosen point (docs/daemon.md, "Testing
 * hooks"). Unset in production; read on each use.
 */
#include "daemon_impl.h"
#include "../util/log.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void tg_daemon_test_stall(const char *point, int64_t job)
{
	const char *v = getenv("TRACEGATE_TEST_STALL");
	if (!v)
		return;
	size_t n = strlen(point);
	if (strncmp(v, point, n) || v[n] != ':')
		return;
	long s = strtol(v + n + 1, NULL, 10);
	tg_log(TG_LOG_INFO, "job %lld: stall at %s for %ld s (TRACEGATE_TEST_STALL)", (long long)job, point, s);
	sleep((unsigned)(s > 0 && s < 3600 ? s : 0));
}
