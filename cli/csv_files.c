/*
 * csv_files.c - implements csv_files.h: `report --format csv` writes one
 * file per table (28 for an h200-dev run), formatting every number, and
 * that was a serial stage of 3.2 ms of CPU after the report's parts (and
 * about 2 ms of file creation in the kernel): two threads take the tables
 * in turn, as the report's parts are taken (core/analysis/report.c), the
 * second one the report's parked thread (util/park.h). Each thread
 * formats a table into a 64 KiB buffer of its own, written to the file
 * when full and at the end (one write for all but the largest table), so
 * the threads share nothing but the next table's index and the first
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
	pthread_mutex_t mu;
	size_t next;   /* the next table nobody has taken */
	size_t first_bad; /* the first table in order that failed; n: none */
	int *err; /* per table: the errno of its failure, 0 when written */
};

/* Where a table's csv goes: its file, through a FILE whose buffer is the
 * writing thread's (fopencookie). */
struct file_out {
	int fd;
	off_t len; /* bytes written */
};

static ssize_t fd_write(void *cookie, const char *buf, size_t n)
{
	struct file_out *o = cookie;
	if (tg_util_write_all(o->fd, buf, n))
		return 0; /* a write error, errno set: ferror, and fclose fails */
	o->len += (off_t)n;
	return (ssize_t)n;
}

/* Writes t's csv over file from its first byte, without truncating it
 * first, and cuts a regular file that was longer at the new end (see the
 * design comment); through a FILE on the file whose buffer is buf (cap
 * bytes): a table shorter than buf in one write. 0, or -1 with errno set.
 *
 * Not through a FILE of stdio's own on the file (fdopen): each took seven
 * system calls and more (fdopen's fcntl, a write per 4 KiB, ftello's
 * lseek, two fstat), 224 for the 28 files of an h200-dev report, 112 now.
 * Not formatted into memory first (open_memstream): that grows by
 * copying into a buffer twice as large and zeroing its new half, so that
 * the 650 kB kernel sequences of an h200-dev report touched fresh pages
 * three times over (a quarter of the report's page faults). */
static int write_over(const char *file, const tg_table *t, char *buf, size_t cap)
{
	int fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		return -1;
	struct file_out o = {fd, 0};
	FILE *f = fopencookie(&o, "w", (cookie_io_functions_t){.write = fd_write});
	int rc = 0;
	if (!f) {
		errno = ENOMEM;
		rc = -1;
	} else {
		setvbuf(f, buf, _IOFBF, cap);
		errno = 0;
		rc = tg_table_write_csv(t, f) ? -1 : 0;
		if (fclose(f))
			rc = -1;
		if (rc && !errno)
			errno = EIO;
	}
	struct stat st;
	if (!rc && !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > o.len)
		rc = ftruncate(fd, o.len);
	int e = errno;
	if (close(fd) && !rc)
		return -1;
	errno = e;
	return rc;
}

/* dir/<t's name>.csv into file (cap bytes). */
static void file_name(char *file, size_t cap, const char *dir, const tg_table *t)
{
	snprintf(file, cap, "%.4000s/%.1000s.csv", dir, tg_table_name(t));
}

static void *take_tables(void *arg)
{
	struct csv_work *w = arg;
	char buf[64 * 1024], file[8192]; /* the FILE's buffer: the tables of an h200-dev report but one in a write */
	for (;;) {
		pthread_mutex_lock(&w->mu);
		size_t k = w->next++, first_bad = w->first_bad;
		pthread_mutex_unlock(&w->mu);
		if (k >= w->n)
			return NULL;
		size_t i = w->order[k];
		if (i > first_bad)
			continue; /* after a failed one: a one-thread write stops before it */
		file_name(file, sizeof(file), w->dir, w->tables[i]);
		if (write_over(file, w->tables[i], buf, sizeof(buf))) {
			w->err[i] = errno ? errno : EIO;
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

/* order[0..n) := the indexes of tables, the largest first (by
 * table_bytes; equal ones in the report's order). size[] is scratch. */
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
	w.err = calloc(n, sizeof(*w.err));
	w.order = malloc(2 * n * sizeof(size_t));
	if (!w.err || !w.order) {
		free(w.err);
		free(w.order);
		tg_cli_error("out of memory");
		return -1;
	}
	order_tables(w.order, w.order + n, tables, n);
	tg_park *th; /* the report's second thread, parked again (util/park.h) */
	int threaded = n > 1 && tg_park_run(&th, take_tables, &w) == 0;
	take_tables(&w); /* no thread to be had: every table here */
	if (threaded)
		tg_park_join(th);
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++)
		if (w.err[i]) {
			char file[8192];
			file_name(file, sizeof(file), dir, tables[i]);
			tg_cli_error("%s: cannot write: %s", file, strerror(w.err[i]));
			rc = -1;
		}
	free(w.err);
	free(w.order);
	return rc;
}
