/*
 * pyrepr.h - JSON argument text (Input Dims, Input type, Concrete Inputs...)
 * written the way Python prints the same value after TraceLens turned lists
 * into tuples: "[[512], [141, 512], []]" -> "((512,), (141, 512), ())",
 * ["", "1"] -> "('', '1')". TraceLens's CSVs key rows by these strings.
 */
#ifndef TG_PYREPR_H
#define TG_PYREPR_H

#include <stddef.h>

/* Converts the JSON text json (a value as stored by the reader) into buf
 * (cap bytes, always NUL-terminated; cut when too long). Returns 0, or -1
 * when json is not valid JSON (buf then holds json unchanged). */
int tg_pyrepr(char *buf, size_t cap, const char *json);

#endif
