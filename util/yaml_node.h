/*
 * yaml_node.h - reading the nodes of one parsed YAML document (core/
 * yaml_doc.h) for a loader: the rules (rules/rules_load.c), the daemon's
 * configuration (config/) and the GPU specs (core/models/gpu_specs.c) share
 * these helpers and their messages.
 *
 * Every error is one line, "FILE:LINE:COLUMN: message", at the node that
 * is wrong (libyaml keeps the position of every node), with TG_EFORMAT
 * unless said otherwise; messages that quote a value of the file pass it
 * through TG_YAML_SHOW (at most 60 bytes, control characters escaped).
 * `key` is how the caller names the value in messages ("settings.fdr",
 * "forges[1].token").
 *
 * It lives in core/ because rules/ and config/ both need it and may not
 * include each other (../shared/DESIGN.md, "The house"). Nothing here
 * allocates: nodes and strings stay the document's, valid until
 * tg_yaml_doc_close.
 */
#ifndef TG_YAML_NODE_H
#define TG_YAML_NODE_H

#include "yaml_doc.h"

#include <stddef.h>
#include <yaml.h>

/* What a loader reads: the input's name for messages and the document
 * (both borrowed), and how strict its text is. */
typedef struct tg_yaml_in {
	const char *file;
	yaml_document_t *doc;
	unsigned flags; /* TG_YAML_ONE_LINE */
} tg_yaml_in;

/* A value read as text must be one line: no control character (the
 * configuration, whose values end up in headers and logs). */
#define TG_YAML_ONE_LINE 1u

/* s (a string of the file) for a one-line message (tg_yaml_show). */
#define TG_YAML_SHOW(s) tg_yaml_show((char[80]){0}, 80, (s))

/* What a loader does with the document: reads in->doc into ctx. */
typedef int (*tg_yaml_loader_fn)(const tg_yaml_in *in, void *ctx);

/* Parses data (len bytes; NULL with len 0 is the empty input) as one YAML
 * document named name in messages, nesting at most max_depth
 * (tg_yaml_doc_open), hands it to load with flags, then refuses a second
 * document, and frees the document. Returns load's code, or the parse's
 * (TG_EFORMAT, TG_ENOMEM) with the message set; what load fills in ctx is
 * the caller's either way. */
int tg_yaml_read(const char *data, size_t len, const char *name, int max_depth, unsigned flags, tg_yaml_loader_fn load,
                 void *ctx);

/* Sets "FILE:LINE:COLUMN: message" at node n and returns TG_EFORMAT. */
int tg_yaml_error(const tg_yaml_in *in, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The same with another code (TG_EIO, TG_EINVAL). */
int tg_yaml_error_code(const tg_yaml_in *in, int code, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The node numbered id of the document (a key, a value, an item), or NULL. */
yaml_node_t *tg_yaml_node(const tg_yaml_in *in, int id);

/* The text of a scalar node, or NULL for another node (or NULL). */
const char *tg_yaml_scalar(const yaml_node_t *n);

/* 1 for YAML's null: an empty plain scalar, ~, null, Null, NULL. */
int tg_yaml_is_null(const yaml_node_t *n);

/* What a node is, for "expected X, got Y": "a mapping", "a list",
 * "nothing" (null), "a scalar". A static string. */
const char *tg_yaml_kind(const yaml_node_t *n);

/* names[0..n) as "a, b, c" into buf (cap bytes, cut when longer). */
void tg_yaml_join(char *buf, size_t cap, const char *const *names, size_t n);

/* The number of items of a sequence node (0 for another node). */
size_t tg_yaml_len(const yaml_node_t *seq);

/* Item i (< tg_yaml_len) of a sequence node. */
yaml_node_t *tg_yaml_item(const tg_yaml_in *in, const yaml_node_t *seq, size_t i);

/* The pair of the mapping map before p whose key is the same scalar as
 * p's, or NULL (p's key a scalar; other keys skipped). */
const yaml_node_pair_t *tg_yaml_earlier_key(const tg_yaml_in *in, const yaml_node_t *map, const yaml_node_pair_t *p);

/* The text of a scalar that is not null into *out ("KEY: expected WHAT,
 * got a list" otherwise); with TG_YAML_ONE_LINE, "KEY: contains a control
 * character (byte N)" for one. */
int tg_yaml_text(const char **out, const tg_yaml_in *in, const yaml_node_t *n, const char *key, const char *what);

/* Leaves an unknown key's name out of the message (secret mappings). */
#define TG_YAML_QUIET 1u

/* Walks the mapping map: every key a scalar ("WHERE: expected a key, got
 * a list"), one of keys[0..nkeys) ("unknown key 'K' in WHERE (expected
 * a, b)"), not repeated ("duplicate key 'K' in WHERE (first at line N)").
 * knode[i] and value[i] get the key and value nodes of keys[i], or NULL.
 * where names the mapping in messages ("settings", "a rule"). */
int tg_yaml_fields(const yaml_node_t **knode, const yaml_node_t **value, const tg_yaml_in *in, const yaml_node_t *map,
                   const char *where, const char *const *keys, size_t nkeys, unsigned flags);

/* true/yes or false/no (also True, TRUE, Yes, YES, ... as YAML 1.1 writes
 * them) as 1 or 0. */
int tg_yaml_bool(int *out, const tg_yaml_in *in, const yaml_node_t *n, const char *key);

/* One of names[0..nnames), as its index: "KEY: expected A_WHAT, got ..."
 * for a non-scalar, "KEY: unknown WHAT 'X' (expected a, b)" for another
 * word. */
int tg_yaml_keyword(int *out, const tg_yaml_in *in, const yaml_node_t *n, const char *key, const char *a_what,
                    const char *what, const char *const *names, size_t nnames);

#endif
