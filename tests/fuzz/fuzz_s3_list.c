/*
 * fuzz_s3_list.c - libFuzzer target for what the S3 client reads from the
 * network: a ListObjectsV2 answer (tg_s3_parse_list, over the XML walker
 * of daemon/storage/xml_walk.c). The input is the whole document.
 *
 * Beyond the sanitizers, the target aborts when the parser breaks one of
 * its documented promises:
 *   - it returns 0, TG_EFORMAT or TG_ENOMEM, nothing else;
 *   - a TG_EFORMAT message is one line ending in " at byte N", N within
 *     the input;
 *   - a failure appends nothing and leaves no token;
 *   - every listed object has a non-empty NUL-terminated key without NUL
 *     bytes inside; a token is returned only with success;
 *   - parsing appends: a second parse of the same input doubles the list.
 *
 * Build and run: make fuzz FUZZ_TARGETS=s3_list (build-fuzz/fuzz_s3_list;
 * the Makefile's FUZZ_SRC_s3_list names the daemon sources it links).
 */
#include "../../util/tg.h"
#include "../../daemon/storage/s3.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                                       \
	do {                                                                                  \
		if (!(cond)) {                                                                    \
			fprintf(stderr, "fuzz_s3_list: broken promise: %s (%s)\n", #cond, tg_error_last()); \
			abort();                                                                      \
		}                                                                                 \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tg_s3_object *o = NULL;
	size_t n = 0, cap = 0;
	char *tok = NULL;
	int rc = tg_s3_parse_list(&o, &n, &cap, &tok, (const char *)data, size);
	CHECK(rc == 0 || rc == TG_EFORMAT || rc == TG_ENOMEM);
	if (rc) {
		CHECK(n == 0 && tok == NULL);
		if (rc == TG_EFORMAT) {
			/* the message ends in " at byte N" (what it quotes may hold those words) */
			const char *msg = tg_error_last(), *at = NULL;
			for (const char *p = strstr(msg, " at byte "); p; p = strstr(p + 1, " at byte "))
				at = p;
			CHECK(at != NULL);
			CHECK(strchr(msg, '\n') == NULL && strchr(msg, '\r') == NULL);
			char *end;
			CHECK(strtoull(at + 9, &end, 10) <= size && end > at + 9 && *end == 0);
		}
		tg_s3_objects_free(o, n);
		return 0;
	}
	CHECK(n <= cap);
	for (size_t i = 0; i < n; i++)
		CHECK(o[i].key && o[i].key[0]);
	free(tok);
	tok = NULL;
	size_t first = n;
	rc = tg_s3_parse_list(&o, &n, &cap, &tok, (const char *)data, size);
	CHECK(rc == 0 || rc == TG_ENOMEM);
	if (!rc) {
		CHECK(n == 2 * first);
		for (size_t i = 0; i < first; i++)
			CHECK(!strcmp(o[i].key, o[first + i].key) && o[i].size == o[first + i].size &&
			      o[i].mtime == o[first + i].mtime);
	}
	tg_s3_objects_free(o, n);
	free(tok);
	return 0;
}
