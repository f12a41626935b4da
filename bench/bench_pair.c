/*
 * bench_pair.c - times two commands in alternation, for `make bench`: a
 * run of A (the reference: gzip -dc), then one of B (tracegate), RUNS times
 * after one warm-up of each, so that both meet the same load on a shared
 * machine (hyperfine runs all of one command, then all of the other).
 * Prints one line:
 *
 *   MEDIAN_RATIO MIN_RATIO MAX_RATIO MEDIAN_A_S MEDIAN_B_S MAX_RSS_B_KB MEDIAN_B_CPU_S
 *
 * where each ratio is B's wall time over A's in the same pair, and B's CPU
 * time is its user and system time (its threads' and children's
 * together: what it costs, where its wall depends on how many cores it
 * found free). A command's
 * output goes to /dev/null; a command that fails (not exit 0 or 1, which
 * is a blocking diff) stops the bench with its status.
 *
 * Usage: bench_pair RUNS CMD_A... -- CMD_B...
 */
#include "bench_run.h"

#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs argv (bench_run.h); its wall time in seconds, its peak RSS in
 * *rss_kb and its user + system time in *cpu_s. Exits on failure. */
static double run(char **argv, long *rss_kb, double *cpu_s)
{
	double t0 = now();
	bench_reap(bench_spawn(argv), argv[0], rss_kb, cpu_s);
	return now() - t0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	int sep = 0;
	for (int i = 2; i < argc && !sep; i++)
		if (!strcmp(argv[i], "--"))
			sep = i;
	int runs = argc > 1 ? atoi(argv[1]) : 0;
	if (runs < 1 || !sep || sep == 2 || sep == argc - 1) {
		fprintf(stderr, "usage: bench_pair RUNS CMD_A... -- CMD_B...\n");
		return 2;
	}
	bench_tool = "bench_pair";
	argv[sep] = NULL;
	char **a = argv + 2, **b = argv + sep + 1;
	double *ta = calloc((size_t)runs, sizeof(double)), *tb = calloc((size_t)runs, sizeof(double));
	double *r = calloc((size_t)runs, sizeof(double)), *cb = calloc((size_t)runs, sizeof(double)), cpu;
	if (!ta || !tb || !r || !cb) {
		fprintf(stderr, "bench_pair: out of memory\n");
		return 2;
	}
	long rss, rss_b = 0;
	run(a, &rss, &cpu);
	run(b, &rss, &cpu);
	for (int i = 0; i < runs; i++) {
		ta[i] = run(a, &rss, &cpu);
		tb[i] = run(b, &rss, &cb[i]);
		if (rss > rss_b)
			rss_b = rss;
		r[i] = tb[i] / ta[i];
	}
	double lo = r[0], hi = r[0];
	for (int i = 1; i < runs; i++) {
		lo = r[i] < lo ? r[i] : lo;
		hi = r[i] > hi ? r[i] : hi;
	}
	double mr = median(r, runs), ma = median(ta, runs), mb = median(tb, runs), mc = median(cb, runs);
	printf("%.4f %.4f %.4f %.4f %.4f %ld %.4f\n", mr, lo, hi, ma, mb, rss_b, mc);
	free(cb);
	free(ta);
	free(tb);
	free(r);
	return 0;
}
