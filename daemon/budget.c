/*
 * budget.c - one job's analysis in a child process, under the job's
 * budgets (daemon_impl.h: tg_daemon_budget_run). A trace is anyone's
 * upload: whatever it makes the analysis do (take minutes, take
 * gigabytes, or crash the reader), that job fails alone and the daemon
 * goes on with the others.
 *
 * Why a process: a time limit on a computation needs a way to stop it
 * at any point, and a memory limit needs allocations to fail without
 * taking the daemon's own state with them. A thread cannot be stopped
 * safely, and a process-wide limit would starve the daemon itself. So the
 * daemon forks; the child
 *
 *   - dies with the daemon (PR_SET_PDEATHSIG), and on SIGTERM, and lets go
 *     of the state folder's lock at once (a next daemon must get it);
 *   - limits what it may allocate with RLIMIT_DATA (daemon.job_memory):
 *     the heap and private writable mappings, that is what malloc hands
 *     out, but not libgit2's read-only mappings of pack files, which an
 *     address-space limit (RLIMIT_AS) would count in gigabytes. An
 *     allocation past it fails, the analysis returns TG_ENOMEM, and the
 *     job's outcome says which budget it exceeded;
 *   - opens connections of its own (the store, the storage, the forges:
 *     tg_daemon_reopen): a child must not use the parent's SQLite handle
 *     or a TLS connection whose state the parent would then lose track of;
 *   - runs the analysis, which keeps its outcome in the store and moves
 *     the job to posting under the daemon's lease, as before;
 *   - writes its return code, the job it waits for and its message to a
 *     pipe, and exits.
 *
 * The parent waits on the pipe, renews the job's lease every third of it
 * (an analysis may take longer than the lease), and kills the child with
 * SIGKILL when daemon.job_timeout runs out, or when the daemon is told to
 * stop (the job is then claimed again by the next daemon). A child that
 * dies by a signal it was not sent (the kernel's OOM killer, a crash) is
 * reported as such, and so is one that ends without its report. Forking costs about a millisecond next to an
 * analysis's tens of milliseconds at least.
 *
 * Built with the address sanitizer the memory budget is not applied: it maps
 * terabytes of shadow memory that RLIMIT_DATA would count (the daemon logs
 * it at start).
 */
#include "daemon_impl.h"
#include "../util/log.h"
#include "../util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define NO_DATA_LIMIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_DATA_LIMIT 1
#endif
#endif
#ifndef NO_DATA_LIMIT
#define NO_DATA_LIMIT 0
#endif

/* What the child reports through the pipe, followed by when it last
 * fetched each repository's mirror (d->fetched, one int64_t a repository:
 * the daemon keeps fetching once a period, not once a job), then the
 * count (uint32_t) and the list of the run data it decoded from the store
 * (struct tg_data_used: the daemon keeps it for the jobs after this one,
 * data_cache.c). */
struct report {
	int rc;
	int64_t blocker;
	char msg[1024];
};

int tg_daemon_budget_memory_applies(void)
{
	return !NO_DATA_LIMIT;
}

static int64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* In the child: the limits, its own connections, the analysis, the
 * report. Never returns. */
static void child(tg_daemon *d, tg_job *j, tg_daemon_budget_fn fn, void *arg, int out)
{
	struct report r;
	memset(&r, 0, sizeof(r));
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1) /* the daemon died before prctl */
		_exit(1);
	/* the state folder's lock is the daemon's: a child that outlived it
	 * (for the moment SIGKILL takes) must not keep the next daemon out */
	if (d->lock_fd >= 0)
		close(d->lock_fd);
	d->lock_fd = -1;
	d->in_child = 1;
	/* the metrics and the health are the daemon's: its endpoints' thread
	 * (not in this process) may have held their mutexes at the fork, and
	 * what the child would count never reaches the daemon anyway (the
	 * daemon counts the analysis from its report, analyse_budgeted) */
	d->metrics = NULL;
	d->health = NULL;
	d->endpoints = NULL;
	if (!NO_DATA_LIMIT && d->cfg->job_memory) {
		struct rlimit rl = {(rlim_t)d->cfg->job_memory, (rlim_t)d->cfg->job_memory};
		struct rlimit cur;
		if (!getrlimit(RLIMIT_DATA, &cur) && cur.rlim_max != RLIM_INFINITY && cur.rlim_max < rl.rlim_max)
			rl.rlim_cur = rl.rlim_max = cur.rlim_max;
		setrlimit(RLIMIT_DATA, &rl);
	}
	r.rc = tg_daemon_reopen(d);
	if (!r.rc)
		r.rc = fn(d, j, arg);
	r.blocker = d->blocker;
	snprintf(r.msg, sizeof(r.msg), "%s", r.rc ? tg_error_last() : "");
	tg_store_close(d->store); /* its own connection; the daemon's stay as they are */
	d->store = NULL;
	fflush(stderr);
	size_t nf = d->cfg->nrepos * sizeof(int64_t), nu = d->nused * sizeof(*d->used);
	uint32_t nused = (uint32_t)d->nused;
	char *buf = malloc(sizeof(r) + nf + sizeof(nused) + nu);
	if (buf) { /* the daemon reads it to the end of the pipe */
		memcpy(buf, &r, sizeof(r));
		memcpy(buf + sizeof(r), d->fetched, nf);
		memcpy(buf + sizeof(r) + nf, &nused, sizeof(nused));
		if (nu)
			memcpy(buf + sizeof(r) + nf + sizeof(nused), d->used, nu);
		tg_util_write_all(out, buf, sizeof(r) + nf + sizeof(nused) + nu);
	}
	_exit(0);
}

/* Waits for the child: what it wrote into *r (*have bytes, malloc'd), its
 * end in *status; kills it when the deadline passes (*timed_out) or
 * the daemon is stopping (*stopped). The lease of job j is renewed on the
 * way. */
static void wait_child(char **r, size_t *have, int *status, int64_t *peak_kb, int *timed_out, int *stopped,
                       tg_daemon *d, const tg_job *j, pid_t pid, int in)
{
	int64_t deadline = now_ms() + d->cfg->job_timeout_ms, lease_ms = d->cfg->lease_ms;
	int64_t renew_every = lease_ms / 3 > 1000 ? lease_ms / 3 : 1000, next_renew = now_ms() + renew_every;
	size_t cap = 0;
	*have = 0;
	*timed_out = *stopped = 0;
	for (;;) {
		int64_t now = now_ms(), wait = deadline - now;
		if (next_renew - now < wait)
			wait = next_renew - now;
		if (wait > 250 && d->o.stop)
			wait = 250; /* notice a stop within a quarter of a second */
		struct pollfd p = {in, POLLIN, 0};
		int n = poll(&p, 1, wait > 0 ? (int)wait : 0);
		if (n > 0) {
			if (*have + 65536 > cap && tg_grow((void **)r, &cap, *have + 65536, 1))
				break;
			ssize_t k = read(in, *r + *have, cap - *have);
			if (k > 0 && *have + (size_t)k <= (64u << 20)) { /* a report is kilobytes */
				*have += (size_t)k;
				continue;
			}
			break; /* the child's end (EOF) */
		}
		if (n < 0 && errno != EINTR)
			break;
		if (d->o.stop && *d->o.stop) {
			*stopped = 1;
			break;
		}
		now = now_ms();
		if (now >= deadline) {
			*timed_out = 1;
			break;
		}
		if (now >= next_renew) {
			int lease_s = (int)(lease_ms / 1000) > 0 ? (int)(lease_ms / 1000) : 1;
			if (tg_store_job_renew(d->store, j->id, d->owner, lease_s))
				tg_log(TG_LOG_WARN, "job %lld: renewing its lease: %s", (long long)j->id,
				       tg_error_last());
			else /* the loop is alive: it watches an analysis that job_timeout bounds */
				tg_health_beat(d->health);
			next_renew = now + renew_every;
		}
	}
	if (*timed_out || *stopped)
		kill(pid, SIGKILL);
	struct rusage ru;
	memset(&ru, 0, sizeof(ru));
	while (wait4(pid, status, 0, &ru) < 0 && errno == EINTR)
		;
	*peak_kb = ru.ru_maxrss;
}

/* The daemon keeps the run data a job decoded (data_cache.c): decoded
 * again here, once, for the jobs after it, with the tree diff's view of
 * what a job read for a baseline. Best effort: a failure only costs the
 * next job the decoding (or the view). */
static void keep_used(tg_daemon *d, const struct tg_data_used *u, uint32_t n)
{
	for (uint32_t i = 0; d->cache && i < n; i++) {
		char digest[65];
		memcpy(digest, u[i].digest, sizeof(digest));
		digest[64] = 0;
		if (tg_data_cache_has(d->cache, digest, u[i].trusted)) {
			if (u[i].base)
				tg_data_cache_make_view(d->cache, digest);
			continue;
		}
		void *blob = NULL;
		size_t len = 0;
		tg_rundata *rd = NULL;
		if (!tg_store_trace_data_get(&blob, &len, d->store, digest, TG_RUNDATA_FORMAT, u[i].trusted) &&
		    !tg_rundata_decode(&rd, blob, len, 0, digest))
			tg_data_cache_put(d->cache, digest, u[i].trusted, u[i].base, rd);
		free(blob);
	}
	size_t ne;
	uint64_t bytes = tg_data_cache_bytes(d->cache, &ne);
	if (n)
		tg_log(TG_LOG_DEBUG, "run data kept for the next jobs: %zu entries, %llu MiB", ne,
		       (unsigned long long)(bytes >> 20));
}

/* The child's report from the have bytes of buf into *r, its mirrors'
 * fetch times into d, the run data it decoded into the cache. 1 when the
 * report came whole. */
static int read_report(struct report *r, tg_daemon *d, const char *buf, size_t have)
{
	size_t nf = d->cfg->nrepos * sizeof(int64_t);
	uint32_t nused = 0;
	if (have < sizeof(*r) + nf + sizeof(nused))
		return 0;
	memcpy(r, buf, sizeof(*r));
	r->msg[sizeof(r->msg) - 1] = 0;
	for (size_t i = 0; i < d->cfg->nrepos; i++) {
		int64_t f;
		memcpy(&f, buf + sizeof(*r) + i * sizeof(f), sizeof(f));
		if (f > d->fetched[i])
			d->fetched[i] = f;
	}
	memcpy(&nused, buf + sizeof(*r) + nf, sizeof(nused));
	size_t at = sizeof(*r) + nf + sizeof(nused);
	if (nused > (have - at) / sizeof(struct tg_data_used))
		return 0;
	struct tg_data_used *u = tg_malloc((nused ? nused : 1) * sizeof(*u));
	if (u) {
		memcpy(u, buf + at, nused * sizeof(*u));
		keep_used(d, u, nused);
		free(u);
	}
	return 1;
}

int tg_daemon_budget_run(tg_daemon_budget *out, tg_daemon *d, tg_job *j, tg_daemon_budget_fn fn, void *arg)
{
	memset(out, 0, sizeof(*out));
	int fds[2];
	if (pipe2(fds, O_CLOEXEC))
		return tg_error_set(TG_EIO, "job %lld: pipe: %s", (long long)j->id, strerror(errno));
	fflush(stderr);
	int64_t t0 = now_ms();
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return tg_error_set(TG_EIO, "job %lld: fork: %s", (long long)j->id, strerror(errno));
	}
	if (pid == 0) {
		close(fds[0]);
		child(d, j, fn, arg, fds[1]);
	}
	close(fds[1]);
	char *buf = NULL;
	size_t have = 0;
	int status = 0, timed_out = 0, stopped = 0;
	wait_child(&buf, &have, &status, &out->peak_kb, &timed_out, &stopped, d, j, pid, fds[0]);
	close(fds[0]);
	struct report r;
	memset(&r, 0, sizeof(r));
	int got = read_report(&r, d, buf, have);
	free(buf);
	out->ms = now_ms() - t0;
	tg_log(TG_LOG_INFO,
	       "job %lld: its analysis took %lld ms and %lld MiB at its peak (daemon.job_memory: %llu MiB)",
	       (long long)j->id, (long long)out->ms, (long long)(out->peak_kb / 1024),
	       (unsigned long long)(d->cfg->job_memory >> 20));
	if (stopped)
		return tg_error_set(TG_EAGAIN, "job %lld: the daemon is stopping: its analysis was stopped",
		                    (long long)j->id);
	if (timed_out) {
		out->over = TG_BUDGET_TIME;
		return 0;
	}
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		if (sig == SIGTERM || sig == SIGINT) /* stopped with the daemon (its process group) */
			return tg_error_set(TG_EAGAIN, "job %lld: its analysis was stopped (signal %d)",
			                    (long long)j->id, sig);
		out->over = TG_BUDGET_SIGNAL;
		out->signal = sig;
		return 0;
	}
	/* the report decides (a checker such as valgrind may set the exit
	 * code); none: the analysis ended abnormally (a sanitizer's report, an
	 * exit in a library), a failure of this run like a crash */
	if (!got) {
		out->over = TG_BUDGET_EXIT;
		out->signal = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		return 0;
	}
	out->rc = r.rc;
	out->blocker = r.blocker;
	if (r.rc)
		tg_error_set(r.rc, "%s", r.msg);
	return 0;
}

void tg_daemon_budget_why(char *buf, size_t cap, const tg_daemon *d, const tg_daemon_budget *b, int memory)
{
	char size[32];
	uint64_t m = d->cfg->job_memory;
	if (m % (UINT64_C(1) << 30) == 0)
		snprintf(size, sizeof(size), "%llu GiB", (unsigned long long)(m >> 30));
	else
		snprintf(size, sizeof(size), "%llu MiB", (unsigned long long)(m >> 20));
	if (memory)
		snprintf(buf, cap, "the analysis needed more memory than its budget (daemon.job_memory: %s)", size);
	else if (b->over == TG_BUDGET_TIME && d->cfg->job_timeout_ms % 1000)
		snprintf(buf, cap,
		         "the analysis took longer than its budget (daemon.job_timeout: %lld ms) and was stopped",
		         (long long)d->cfg->job_timeout_ms);
	else if (b->over == TG_BUDGET_TIME)
		snprintf(buf, cap,
		         "the analysis took longer than its budget (daemon.job_timeout: %lld s) and was stopped",
		         (long long)(d->cfg->job_timeout_ms / 1000));
	else if (b->over == TG_BUDGET_EXIT)
		snprintf(buf, cap, "the analysis ended without its report (exit %d)", b->signal);
	else if (b->signal == SIGKILL)
		snprintf(buf, cap,
		         "the analysis was killed (signal 9: the system ran out of memory? daemon.job_memory: %s)",
		         size);
	else
		snprintf(buf, cap, "the analysis crashed (signal %d: %s)", b->signal, strsignal(b->signal));
}
