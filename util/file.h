/*
 * file.h - reading a small file (rules, configuration, GPU specs) whole.
 *
 * Traces never go through here: the trace reader streams them.
 */
#ifndef TG_FILE_H
#define TG_FILE_H

#include <stddef.h>

/* Reads the whole file at path into *out (NUL-terminated; *len bytes, the
 * NUL not counted). The caller owns *out and frees it with free(). Fails
 * with TG_EIO ("PATH: cannot open: REASON" or "PATH: cannot read: REASON"),
 * TG_ELIMIT when the file holds more than max bytes (0: no limit), or
 * TG_ENOMEM; *out is NULL then. */
int tg_file_read_all(char **out, size_t *len, const char *path, size_t max);

#endif
