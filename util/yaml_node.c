/*
 * yaml_node.c - the node helpers of the YAML loaders (see yaml_node.h).
 * The messages are the ones the rules and the configuration gave before
 * they shared this file; tests/test_rules_load.c, test_config.c and
 * test_gpu_specs.c hold them, tests/test_yaml_node.c the helpers alone.
 */
#include "yaml_node.h"
#include "tg.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int tg_yaml_read(const char *data, size_t len, const char *name, int max_depth, unsigned flags, tg_yaml_loader_fn load,
                 void *ctx)
{
	tg_yaml_doc y;
	int rc = tg_yaml_doc_open(&y, data, len, name, max_depth);
	if (rc)
		return rc;
	tg_yaml_in in = {.file = name, .doc = &y.doc, .flags = flags};
	rc = load(&in, ctx);
	if (!rc) /* a second document in the stream is not ours */
		rc = tg_yaml_doc_only_one(&y);
	tg_yaml_doc_close(&y);
	return rc;
}

static int verror(const tg_yaml_in *in, int code, const yaml_node_t *n, const char *fmt, va_list ap)
{
	char what[768];
	vsnprintf(what, sizeof(what), fmt, ap);
	return tg_error_set(code, "%s:%zu:%zu: %s", in->file, n->start_mark.line + 1, n->start_mark.column + 1, what);
}

int tg_yaml_error(const tg_yaml_in *in, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = verror(in, TG_EFORMAT, n, fmt, ap);
	va_end(ap);
	return rc;
}

int tg_yaml_error_code(const tg_yaml_in *in, int code, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = verror(in, code, n, fmt, ap);
	va_end(ap);
	return rc;
}

yaml_node_t *tg_yaml_node(const tg_yaml_in *in, int id)
{
	return yaml_document_get_node(in->doc, id);
}

const char *tg_yaml_scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

int tg_yaml_is_null(const yaml_node_t *n)
{
	const char *s = tg_yaml_scalar(n);
	return s && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL"));
}

const char *tg_yaml_kind(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_MAPPING_NODE: return "a mapping";
	case YAML_SEQUENCE_NODE: return "a list";
	default: return tg_yaml_is_null(n) ? "nothing" : "a scalar";
	}
}

void tg_yaml_join(char *buf, size_t cap, const char *const *names, size_t n)
{
	size_t len = 0;
	buf[0] = 0;
	for (size_t i = 0; i < n && len < cap; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", names[i]);
}

size_t tg_yaml_len(const yaml_node_t *seq)
{
	if (!seq || seq->type != YAML_SEQUENCE_NODE)
		return 0;
	return (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
}

yaml_node_t *tg_yaml_item(const tg_yaml_in *in, const yaml_node_t *seq, size_t i)
{
	return tg_yaml_node(in, seq->data.sequence.items.start[i]);
}

const yaml_node_pair_t *tg_yaml_earlier_key(const tg_yaml_in *in, const yaml_node_t *map, const yaml_node_pair_t *p)
{
	const char *k = tg_yaml_scalar(tg_yaml_node(in, p->key));
	for (const yaml_node_pair_t *q = map->data.mapping.pairs.start; k && q < p; q++) {
		const char *qk = tg_yaml_scalar(tg_yaml_node(in, q->key));
		if (qk && !strcmp(k, qk))
			return q;
	}
	return NULL;
}

int tg_yaml_text(const char **out, const tg_yaml_in *in, const yaml_node_t *n, const char *key, const char *what)
{
	*out = tg_yaml_scalar(n);
	if (!*out || tg_yaml_is_null(n))
		return tg_yaml_error(in, n, "%s: expected %s, got %s", key, what, tg_yaml_kind(n));
	if (!(in->flags & TG_YAML_ONE_LINE))
		return 0;
	for (size_t i = 0; i < n->data.scalar.length; i++) {
		unsigned char c = (unsigned char)(*out)[i];
		if (c < 0x20 || c == 0x7f) /* a value is one line, so is every message that names it */
			return tg_yaml_error(in, n, "%s: contains a control character (byte %zu)", key, i + 1);
	}
	return 0;
}

int tg_yaml_fields(const yaml_node_t **knode, const yaml_node_t **value, const tg_yaml_in *in, const yaml_node_t *map,
                   const char *where, const char *const *keys, size_t nkeys, unsigned flags)
{
	for (size_t i = 0; i < nkeys; i++)
		knode[i] = value[i] = NULL;
	for (const yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const yaml_node_t *kn = tg_yaml_node(in, p->key);
		const char *k = tg_yaml_scalar(kn);
		if (!k)
			return tg_yaml_error(in, kn, "%s: expected a key, got %s", where, tg_yaml_kind(kn));
		size_t i = 0;
		while (i < nkeys && strcmp(k, keys[i]))
			i++;
		if (i == nkeys) {
			char list[512];
			tg_yaml_join(list, sizeof(list), keys, nkeys);
			if (flags & TG_YAML_QUIET)
				return tg_yaml_error(in, kn, "unknown key in %s (expected %s)", where, list);
			return tg_yaml_error(in, kn, "unknown key '%s' in %s (expected %s)", TG_YAML_SHOW(k), where,
			                     list);
		}
		if (knode[i])
			return tg_yaml_error(in, kn, "duplicate key '%s' in %s (first at line %zu)", k, where,
			                     knode[i]->start_mark.line + 1);
		knode[i] = kn;
		value[i] = tg_yaml_node(in, p->value);
	}
	return 0;
}

int tg_yaml_bool(int *out, const tg_yaml_in *in, const yaml_node_t *n, const char *key)
{
	static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes", "YES"};
	static const char *const no[] = {"false", "False", "FALSE", "no", "No", "NO"};
	const char *s;
	int rc;
	if ((rc = tg_yaml_text(&s, in, n, key, "true or false")))
		return rc;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcmp(s, yes[i]))
			return *out = 1, 0;
		if (!strcmp(s, no[i]))
			return *out = 0, 0;
	}
	return tg_yaml_error(in, n, "%s: '%s' is not a boolean (expected true, false, yes or no)", key,
	                     TG_YAML_SHOW(s));
}

int tg_yaml_keyword(int *out, const tg_yaml_in *in, const yaml_node_t *n, const char *key, const char *a_what,
                    const char *what, const char *const *names, size_t nnames)
{
	const char *s;
	char list[256];
	int rc;
	if ((rc = tg_yaml_text(&s, in, n, key, a_what)))
		return rc;
	for (size_t i = 0; i < nnames; i++)
		if (!strcmp(s, names[i]))
			return *out = (int)i, 0;
	tg_yaml_join(list, sizeof(list), names, nnames);
	return tg_yaml_error(in, n, "%s: unknown %s '%s' (expected %s)", key, what, TG_YAML_SHOW(s), list);
}
