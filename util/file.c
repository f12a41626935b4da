/*
 * file.c - reading a small file whole (see file.h).
 */
#include "file.h"
#include "tg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tg_file_read_all(char **out, size_t *len, const char *path, size_t max)
{
	*out = NULL;
	*len = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return tg_error_set(TG_EIO, "%s: cannot open: %s", path, strerror(errno));
	char *buf = NULL;
	size_t n = 0, cap = 0;
	int err = 0;
	for (;;) {
		if (tg_grow((void **)&buf, &cap, n + 65536, 1)) {
			free(buf);
			fclose(f);
			return TG_ENOMEM;
		}
		/* keep one byte for the NUL */
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0) {
			err = ferror(f) ? (errno ? errno : EIO) : 0;
			break;
		}
		if (max && n > max) {
			free(buf);
			fclose(f);
			return tg_error_set(TG_ELIMIT, "%s: larger than %zu bytes", path, max);
		}
	}
	fclose(f);
	if (err) {
		free(buf);
		return tg_error_set(TG_EIO, "%s: cannot read: %s", path, strerror(err));
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}
