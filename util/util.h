/*
 * util.h - what the daemon's rooms may share (../shared/DESIGN.md, "The
 * house"): a file written whole or not at all, a folder made with its
 * parents, a path cut into its folders, a hex check. Nothing else: a helper that one room alone needs
 * stays in that room.
 *
 * The functions speak errno, not tg_error: each caller words its own
 * message (its module's name, the folder that failed), so a message reads
 * the same whichever room wrote it. Nothing here allocates what the caller
 * must free; nothing keeps state.
 */
#ifndef TG_UTIL_H
#define TG_UTIL_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Writes all len bytes of data to fd, again after EINTR and short writes.
 * 0; or -1 with errno set (EIO when write wrote nothing). */
int tg_util_write_all(int fd, const char *data, size_t len);

/* Writes the len bytes of data to path atomically: a temporary file made by
 * mkstemp in path's folder ("<path>.tmp-XXXXXX"), given mode (fchmod, so the
 * umask does not apply), written whole, fsync'd, closed and renamed over
 * path. Readers see the old file or the new one, never a part. 0; or -1
 * with errno set, the temporary file removed and path untouched. The
 * caller keeps data. */
int tg_util_write_atomic(const char *path, const char *data, size_t len, mode_t mode);

/* A file written as a stream and put in place whole, as
 * tg_util_write_atomic does for one it is given in memory: a temporary
 * file made by mkstemp in path's folder ("<path>.tmp-XXXXXX", its name
 * written into tmp, cap bytes), given mode. Its FILE, to be ended by
 * tg_util_atomic_close; or NULL with errno set (ENAMETOOLONG when tmp is
 * too small) and nothing left behind. */
FILE *tg_util_atomic_open(char *tmp, size_t cap, const char *path, mode_t mode);

/* Ends f from tg_util_atomic_open (tmp its name): when keep, flushed,
 * fsync'd, closed and renamed over path: 0, or -1 with errno set, the
 * temporary file removed and path untouched; when not keep, closed and
 * removed: 0. */
int tg_util_atomic_close(FILE *f, const char *tmp, const char *path, int keep);

/* The mode a file created now gets by default: 0666 less the process's
 * umask (read by setting it back at once: call it from one thread). */
mode_t tg_util_umask_mode(void);

/* mkdir -p: creates path and its missing parents, each with mode (the umask
 * applies); folders that exist are fine. 0; or -1 with errno set and the
 * folder that could not be made copied into failed (cap bytes; failed may
 * be NULL): a path of PATH_MAX bytes or more is refused whole with
 * ENAMETOOLONG (failed = path), never cut short. */
int tg_util_mkdir_p(char *failed, size_t cap, const char *path, mode_t mode);

/* The longest folder segment tg_util_path_segments takes, in bytes. */
#define TG_UTIL_SEGMENT_MAX 1024

/* Copies the first n '/'-terminated segments of path ("a/b/c/rest") into
 * seg[0..n-1], each NUL-terminated. Returns what follows the n-th '/' (a
 * pointer into path, "" when path ends there); or NULL with errno EINVAL
 * when path has fewer than n slashes or a segment longer than
 * TG_UTIL_SEGMENT_MAX (seg then holds the segments before it). Empty
 * segments ("a//b") are kept as "". */
const char *tg_util_path_segments(char (*seg)[TG_UTIL_SEGMENT_MAX + 1], size_t n, const char *path);

/* 1 when s is exactly n hex digits (either case), else 0. NULL is 0. */
int tg_util_is_hex(const char *s, size_t n);

#endif
