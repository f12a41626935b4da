/*
 * cli.h - what the subcommands of the tracegate command share: exit codes,
 * the reading limits every trace-reading command accepts (an option table
 * fragment, opt.h), loading a trace and its tree with a one-line error, and
 * printing names safely.
 */
#ifndef TG_CLI_H
#define TG_CLI_H

#include "../core/trace/trace.h"
#include "../core/tree/tree.h"
#include "opt.h"

#include <stdio.h>

enum tg_exit {
	TG_EXIT_OK = 0,
	TG_EXIT_BLOCKED = 1,
	TG_EXIT_USAGE = 2, /* usage or input error */
	TG_EXIT_INCONCLUSIVE = 3
};

/* Prints "tracegate: <message>" on stderr. */
void tg_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Gives the heap's free pages back to the system (malloc_trim where glibc
 * has it, else nothing): a command's heap policy at the point it names. */
void tg_cli_trim_heap(void);

/* Turns tg_cli_trim_heap and tg_cli_trim_heap_over on (the default) or
 * off for the rest of the process: a command's heap policy for inputs too
 * small for the memory a trim gives back to be worth its page faults
 * (cmd_diff.c). Not thread-safe: set it before any thread starts. */
void tg_cli_heap_trims(int on);

/* tg_cli_trim_heap, but only when the heap holds at least min_free bytes
 * free (glibc's count, mallinfo2, which includes pages an earlier trim
 * gave back): below that, what a trim gives back is soon faulted in again
 * and its page faults cost more than its memory is worth. Returns 1 when
 * it trimmed, 0 when it did not (too little free); where glibc cannot
 * count (before 2.33) it always trims. */
int tg_cli_trim_heap_over(size_t min_free);

/* The reading limits every trace-reading command accepts (--max-bytes SIZE,
 * --max-ratio N, --max-depth N, --max-events N, --max-string SIZE,
 * --single-thread), as a table fragment (opt.h) whose offsets are into a
 * tg_read_opts: a command includes it at its tg_read_opts's offset. A
 * value is positive; SIZE and N accept K, M, G suffixes (powers of 1024). */
extern const tg_opt_spec tg_cli_limit_opts[];

/* Reads path and builds its tree; the trace's flows and second ids (the
 * External ids and Python parent ids: tg_trace_drop_id1s) are given back
 * once the tree has read them. Prints the error and returns -1 on failure.
 * The caller frees both. */
int tg_cli_load(tg_trace **trace, tg_tree **tree, const char *path, const tg_read_opts *opts);

/* tg_cli_load of paths[0..n) into tr[i], trees[i], two traces at a time on
 * two threads (each read on its own thread: a diff's two sides take the two
 * cores); the first failure in path order is printed, as tg_cli_load one
 * after the other would print it. Returns 0 or -1; what was loaded is the
 * caller's to free either way. */
int tg_cli_load_many(tg_trace **tr, tg_tree **trees, const char *const *paths, size_t n, const tg_read_opts *opts);

/* Writes s with control characters as \n, \t or \xNN (names from traces are
 * untrusted). */
void tg_cli_put_name(FILE *f, const char *s);

/* Milliseconds / microseconds with fixed decimals for ns values. */
void tg_cli_put_duration(FILE *f, int64_t ns);

/* Writes len bytes of data to path, complete or not at all (a temporary
 * file in the same folder, renamed), or to stdout when path is NULL. A
 * path that is a device or a pipe (/dev/null, a FIFO) is written to as it
 * is, never replaced.
 * Returns 0 or -1 after printing the error. */
int tg_cli_write_file(const char *path, const char *data, size_t len);

/* Writes what fn(f, arg) puts on a FILE to path, complete or not at all,
 * as tg_cli_write_file does, without holding the document in memory when
 * path is a regular file or absent: fn writes into a temporary file in
 * path's folder ("<path>.tmp-XXXXXX", the mode of an ordinary new file),
 * which is fsync'd and renamed over path once fn and the writes succeeded,
 * and removed otherwise. To stdout (path NULL), a device or a pipe, the
 * document is formatted into memory first and written at once (nothing
 * partial reaches them). fn returns 0, or non-zero with tg_error set.
 * Returns 0; 1 when fn failed (nothing written: the caller words that
 * error); -1 after printing a write error. */
int tg_cli_stream_file(const char *path, int (*fn)(FILE *f, void *arg), void *arg);

/* Gives fd (a file just made by mkstemp, which makes it 0600) the mode an
 * ordinary new file gets: 0666 less the process's umask, so that a report
 * or a page is as readable as any file the user writes. Returns 0 or -1
 * (errno set). */
int tg_cli_fchmod_umask(int fd);

#endif
