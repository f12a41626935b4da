/*
 * csv_files.c - implements csv_files.h: `report --format csv` writes one
 * file per table (28 for an h200-dev run), formatting every number, and
 * that was a serial stage of 3.2 ms of CPU after the report's parts (and
 * about 2 ms of file creation in the kernel): two threads take the tables
 * in turn, as the report's parts are taken (core/analysis/report.c). Each
 * file is its own FILE, so the threads share nothing but the next table's
 * index; errors are kept per table and the first in order is printed, so
 * the message is the one a one-thread write prints.
 *
 * A file that is there already (a report written again into the same
 * folder, as CI and `make bench` do) is written over from its first byte
 * and then cut at the new end if it was longer, not truncated first: ext4
 * flushes a file truncated to nothing and written again when it is closed
 * (auto_da_alloc), which cost 1.2 ms of CPU and 2.5 ms of wall time for 28
 * files of an h200-dev report, against 0.17 ms written over. The bytes
 * left are the same; a write that fails leaves a damaged file either way,
 * and the command fails naming it.
 */
#include "csv_files.h"
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct csv_work {
	const tg_table *const *tables;
	size_t n;
	const char *dir;
	pthread_mutex_t mu;
	size_t next;   /* the next table nobody has taken */
	int failed;    /* a table failed: take no more */
	char (*msg)[8448]; /* per table: its error, "" when written */
};

/* Opens file for writing from its first byte without truncating it (see
 * the design comment); NULL with errno set. */
static FILE *open_over(const char *file)
{
	int fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return f;
}

/* Cuts f's file (a regular one) at what was written, when it was longer. */
static int cut_at_end(FILE *f)
{
	struct stat st;
	off_t end = ftello(f);
	int fd = fileno(f);
	if (end < 0 || fstat(fd, &st))
		return -1;
	return S_ISREG(st.st_mode) && st.st_size > end ? ftruncate(fd, end) : 0;
}

/* Writes t as dir/<name>.csv; on failure msg holds the line to print. */
static void write_one(const tg_table *t, const char *dir, char *msg, size_t cap)
{
	char file[8192];
	snprintf(file, sizeof(file), "%.4000s/%.1000s.csv", dir, tg_table_name(t));
	FILE *out = open_over(file);
	if (!out || tg_table_write_csv(t, out) || fflush(out) || cut_at_end(out) || fclose(out)) {
		snprintf(msg, cap, "%s: cannot write: %s", file, strerror(errno));
		if (out)
			fclose(out);
		return;
	}
}

static void *take_tables(void *arg)
{
	struct csv_work *w = arg;
	for (;;) {
		pthread_mutex_lock(&w->mu);
		size_t i = w->failed ? w->n : w->next++;
		pthread_mutex_unlock(&w->mu);
		if (i >= w->n)
			return NULL;
		write_one(w->tables[i], w->dir, w->msg[i], sizeof(w->msg[i]));
		if (w->msg[i][0]) {
			pthread_mutex_lock(&w->mu);
			w->failed = 1;
			pthread_mutex_unlock(&w->mu);
		}
	}
}

int tg_cli_csv_files_write(const tg_table *const *tables, size_t n, const char *dir)
{
	struct csv_work w = {.tables = tables, .n = n, .dir = dir, .mu = PTHREAD_MUTEX_INITIALIZER};
	if (n == 0)
		return 0;
	w.msg = calloc(n, sizeof(*w.msg));
	if (!w.msg) {
		tg_cli_error("out of memory");
		return -1;
	}
	pthread_t th;
	int threaded = n > 1 && pthread_create(&th, NULL, take_tables, &w) == 0;
	take_tables(&w); /* no thread to be had: every table here */
	if (threaded)
		pthread_join(th, NULL);
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++)
		if (w.msg[i][0]) {
			tg_cli_error("%s", w.msg[i]);
			rc = -1;
		}
	free(w.msg);
	return rc;
}
