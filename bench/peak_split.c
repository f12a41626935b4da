/*
 * peak_split.c - a command's peak resident memory split into what it
 * allocated (anonymous pages) and what it maps from files (its code and
 * the libraries', shared with every other process that maps them), for
 * `make bench` (bench/scale.sh prints it; it judges nothing).
 *
 * Why: the kernel maps a file's pages around each one a process touches
 * (fault-around, 64 KiB), so a run that touches a little of libc's, libm's
 * and its own code has about 3 MB of them resident, counted in its peak
 * RSS like its own data (docs/scale.md, "Sixteenth round"). At 100 MB of
 * JSON that is 3 % of the 15 % target.
 *
 * The peak RSS is exact (wait4's ru_maxrss). The kernel keeps no peak of
 * the anonymous pages alone, so it is sampled: /proc/PID/statm read while
 * the command runs, 20 us apart (a sample every ~70 us on this project's
 * 2-core VM, the command's threads on both cores), the resident less the
 * shared pages; a peak shorter than that may be missed, so it reads low by
 * what a few microseconds allocate. Three runs of the 100 MB diff read
 * 14,112-14,128 KiB. Sampling takes part of a core: use it apart from
 * timed runs.
 *
 * Prints one line: PEAK_RSS_KB PEAK_ANON_KB SAMPLES
 * Usage: peak_split CMD...   (the command's output goes to /dev/null; a
 * command that fails, not exit 0 or 1, stops with its status)
 */
#include "bench_run.h"

#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

/* The anonymous resident KiB of pid from its statm, or -1 once it is gone
 * (a zombie reads all zero). */
static long anon_kb(const char *path, long page_kb)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	char buf[128];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	long size, resident, shared;
	if (sscanf(buf, "%ld %ld %ld", &size, &resident, &shared) != 3 || resident == 0)
		return -1;
	return (resident - shared) * page_kb;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: peak_split CMD...\n");
		return 2;
	}
	bench_tool = "peak_split";
	pid_t pid = bench_spawn(argv + 1);
	char path[64];
	snprintf(path, sizeof(path), "/proc/%ld/statm", (long)pid);
	long page_kb = sysconf(_SC_PAGESIZE) / 1024, peak = 0, samples = 0, a;
	struct timespec pause = {0, 20000};
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL); /* 20 us, not the default 50 us more */
	while ((a = anon_kb(path, page_kb)) >= 0) {
		peak = a > peak ? a : peak;
		samples++;
		nanosleep(&pause, NULL);
	}
	long rss;
	double cpu;
	bench_reap(pid, argv[1], &rss, &cpu);
	printf("%ld %ld %ld\n", rss, peak, samples);
	return 0;
}
