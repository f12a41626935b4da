/*
 * csv_files.c - implements csv_files.h: `report --format csv` writes one
 * file per table (28 for an h200-dev run), formatting every number, and
 * that was a serial stage of 3.2 ms of CPU after the report's parts (and
 * about 2 ms of file creation in the kernel): two threads take the tables
 * in turn, as the report's parts are taken (core/analysis/report.c). Each
 * table is formatted into memory of its own and written with one write,
 * so the threads share nothing but the next table's index; errors are kept per table and the first in order is printed, so
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
#include "../util/util.h"

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

/* Writes the len bytes of data to file from its first byte, without
 * truncating it first, and cuts a regular file that was longer at the new
 * end (see the design comment). 0, or -1 with errno set. */
static int write_over(const char *file, const char *data, size_t len)
{
	int fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		return -1;
	struct stat st;
	int rc = tg_util_write_all(fd, data, len);
	if (!rc && !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > (off_t)len)
		rc = ftruncate(fd, (off_t)len);
	int e = errno;
	if (close(fd) && !rc)
		return -1;
	errno = e;
	return rc;
}

/* Writes t as dir/<name>.csv; on failure msg holds the line to print. The
 * table is formatted in memory and written with one write: through a
 * FILE on the file, each took seven system calls and more (fdopen's
 * fcntl, a write per 4 KiB, ftello's lseek, two fstat): 224 for the 28
 * files of an h200-dev report, now 112. */
static void write_one(const tg_table *t, const char *dir, char *msg, size_t cap)
{
	char file[8192];
	snprintf(file, sizeof(file), "%.4000s/%.1000s.csv", dir, tg_table_name(t));
	char *data = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&data, &len);
	int bad = !mem || tg_table_write_csv(t, mem);
	if (mem && fclose(mem))
		bad = 1;
	if (bad || write_over(file, data, len))
		snprintf(msg, cap, "%s: cannot write: %s", file, strerror(errno));
	free(data);
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
