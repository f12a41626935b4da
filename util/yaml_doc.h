/*
 * yaml_doc.h - loading one small YAML document for a loader (the rules,
 * the configuration, the GPU specs), with the guards and the one-line
 * messages they share:
 *
 *   - collections nested deeper than a limit are refused in a first pass
 *     over the events, before the document is built: libyaml's scanner
 *     slows down with the square of the nesting depth (16,000 '[' take a
 *     second, 65,536 minutes);
 *   - a syntax error is "NAME:LINE:COLUMN: bad YAML: PROBLEM CONTEXT";
 *   - a second document in the stream is refused, after the caller has
 *     read the first one (its own errors come first).
 */
#ifndef TG_YAML_DOC_H
#define TG_YAML_DOC_H

#include <stddef.h>
#include <yaml.h>

typedef struct tg_yaml_doc {
	yaml_parser_t parser;
	yaml_document_t doc; /* the first document: the caller reads it */
	const char *name;    /* the input's name in messages (borrowed) */
} tg_yaml_doc;

/* Parses the first document of data (len bytes; NULL with len 0 is the
 * empty input) into y->doc, refusing nesting deeper than max_depth. name
 * must outlive y. 0, or TG_EFORMAT / TG_ENOMEM with the message set and
 * nothing left to close. */
int tg_yaml_doc_open(tg_yaml_doc *y, const char *data, size_t len, const char *name, int max_depth);

/* Refuses a second document after the first: 0 or TG_EFORMAT/TG_ENOMEM. */
int tg_yaml_doc_only_one(tg_yaml_doc *y);

/* Frees what tg_yaml_doc_open made. */
void tg_yaml_doc_close(tg_yaml_doc *y);

/* s (a scalar of the file) for a one-line message: at most 60 bytes then
 * "...", line breaks and tabs as \n and \t, other control characters as
 * '?', into buf (cap bytes; 80 are enough). Returns buf. */
const char *tg_yaml_show(char *buf, size_t cap, const char *s);

#endif
