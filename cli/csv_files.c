/*
 * csv_files.c - implements csv_files.h: `report --format csv` writes one
 * file per table (28 for an h200-dev run), formatting every number, and
 * that was a serial stage of 3.2 ms of CPU after the report's parts (and
 * about 2 ms of file creation in the kernel): two threads take the tables
 * in turn, as the report's parts are taken (core/analysis/report.c). Each
 * table is formatted into memory of its own and written with one write,
 * so the threads share nothing but the next table's index and the first
 * that failed.
 *
 * The tables are taken largest first (their bytes estimated from their
 * strings' lengths): in the order of the report, the largest of an
 * h200-dev report (frequent_kernel_sequences, 650 kB of the 720) came
 * last, and it was the stage's serial tail while the other thread had
 * little left to take. The failures still read as a one-thread write in
 * the report's order: after a table fails, those after it in that order
 * are no longer taken, those before it still are, and the first that
 * failed in that order is the one printed.
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
#include "../util/park.h"
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
	size_t *order; /* the tables' indexes, the largest first */
	size_t *size;  /* per table: its bytes, estimated (table_bytes) */
	pthread_mutex_t mu;
	size_t next;   /* the next table nobody has taken */
	size_t first_bad; /* the first table in order that failed; n: none */
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

/* A table's bytes in memory: a FILE (fopencookie) that appends to data,
 * which starts at the table's estimated size and doubles when short. Not
 * open_memstream's: that grows its buffer by copying it into one twice as
 * large and zeroing the new half, which touched each page of a large
 * table three times (a quarter of an h200-dev report's page faults, for
 * its 650 kB table). */
struct mem_out {
	char *data;
	size_t len, cap;
};

static ssize_t mem_write(void *cookie, const char *buf, size_t n)
{
	struct mem_out *m = cookie;
	if (n > m->cap - m->len) {
		size_t cap = m->cap * 2 > m->len + n ? m->cap * 2 : m->len + n;
		char *d = realloc(m->data, cap);
		if (!d)
			return 0; /* a write error: ferror, then fclose, fail */
		m->data = d;
		m->cap = cap;
	}
	memcpy(m->data + m->len, buf, n);
	m->len += n;
	return (ssize_t)n;
}

/* Writes t as dir/<name>.csv; on failure msg holds the line to print. The
 * table is formatted in memory (about guess bytes) and written with one
 * write: through a FILE on the file, each took seven system calls and
 * more (fdopen's fcntl, a write per 4 KiB, ftello's lseek, two fstat):
 * 224 for the 28 files of an h200-dev report, now 112. */
static void write_one(const tg_table *t, const char *dir, size_t guess, char *msg, size_t cap)
{
	char file[8192];
	snprintf(file, sizeof(file), "%.4000s/%.1000s.csv", dir, tg_table_name(t));
	struct mem_out m = {.cap = guess + guess / 4 + 4096};
	m.data = malloc(m.cap);
	FILE *mem = m.data ? fopencookie(&m, "w", (cookie_io_functions_t){.write = mem_write}) : NULL;
	int bad = !mem || tg_table_write_csv(t, mem);
	if (mem && fclose(mem))
		bad = 1;
	if (bad)
		errno = ENOMEM; /* memory is all a FILE in memory can lack */
	if (bad || write_over(file, m.data, m.len))
		snprintf(msg, cap, "%s: cannot write: %s", file, strerror(errno));
	free(m.data);
}

static void *take_tables(void *arg)
{
	struct csv_work *w = arg;
	for (;;) {
		pthread_mutex_lock(&w->mu);
		size_t k = w->next++, first_bad = w->first_bad;
		pthread_mutex_unlock(&w->mu);
		if (k >= w->n)
			return NULL;
		size_t i = w->order[k];
		if (i > first_bad)
			continue; /* after a failed one: a one-thread write stops before it */
		write_one(w->tables[i], w->dir, w->size[i], w->msg[i], sizeof(w->msg[i]));
		if (w->msg[i][0]) {
			pthread_mutex_lock(&w->mu);
			if (i < w->first_bad)
				w->first_bad = i;
			pthread_mutex_unlock(&w->mu);
		}
	}
}

/* About how many bytes t's csv takes: its strings' lengths, and 8 for
 * every other cell (a strlen of each string: 30 us for an h200-dev
 * report's, against the 1 ms its largest table takes to write). */
static size_t table_bytes(const tg_table *t)
{
	size_t nc = tg_table_ncols(t), nr = tg_table_nrows(t), bytes = 0;
	for (size_t r = 0; r < nr; r++)
		for (size_t c = 0; c < nc; c++) {
			const tg_cell *x = tg_table_cell(t, r, c);
			bytes += x->type == TG_CELL_STR ? strlen(x->v.s) + 1 : 8;
		}
	return bytes;
}

/* order[0..n) := the indexes of tables, the largest first, and size[i]
 * the bytes of tables[i] (table_bytes; equal ones in the report's order). */
static void order_tables(size_t *order, size_t *size, const tg_table *const *tables, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size[i] = table_bytes(tables[i]);
		size_t k = i;
		for (; k > 0 && size[order[k - 1]] < size[i]; k--)
			order[k] = order[k - 1];
		order[k] = i;
	}
}

int tg_cli_csv_files_write(const tg_table *const *tables, size_t n, const char *dir)
{
	struct csv_work w = {.tables = tables, .n = n, .dir = dir, .mu = PTHREAD_MUTEX_INITIALIZER, .first_bad = n};
	if (n == 0)
		return 0;
	w.msg = calloc(n, sizeof(*w.msg));
	w.order = malloc(2 * n * sizeof(size_t));
	if (!w.msg || !w.order) {
		free(w.msg);
		free(w.order);
		tg_cli_error("out of memory");
		return -1;
	}
	w.size = w.order + n;
	order_tables(w.order, w.size, tables, n);
	tg_park *th; /* the report's second thread, parked again (util/park.h) */
	int threaded = n > 1 && tg_park_run(&th, take_tables, &w) == 0;
	take_tables(&w); /* no thread to be had: every table here */
	if (threaded)
		tg_park_join(th);
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++)
		if (w.msg[i][0]) {
			tg_cli_error("%s", w.msg[i]);
			rc = -1;
		}
	free(w.msg);
	free(w.order);
	return rc;
}
