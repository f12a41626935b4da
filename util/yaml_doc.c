/*
 * yaml_doc.c - one YAML document with depth guard and one-line errors
 * (see yaml_doc.h).
 */
#include "yaml_doc.h"
#include "tg.h"

#include <string.h>

/* The "bad YAML" message of a failed parse. */
static int parse_error(const yaml_parser_t *p, const char *name)
{
	yaml_mark_t m = p->problem_mark;
	return tg_error_set(p->error == YAML_MEMORY_ERROR ? TG_ENOMEM : TG_EFORMAT, "%s:%zu:%zu: bad YAML: %s%s%s",
	                    name, m.line + 1, m.column + 1, p->problem ? p->problem : "syntax error",
	                    p->context ? " " : "", p->context ? p->context : "");
}

/* Refuses collections nested deeper than max_depth. A syntax error is
 * left to the document loader, which reports it. */
static int depth_ok(const char *data, size_t len, const char *name, int max_depth)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	int depth = 0, rc = 0, done = 0;
	if (!yaml_parser_initialize(&parser))
		return tg_error_set(TG_ENOMEM, "%s: cannot initialise the YAML parser", name);
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	while (!done && !rc && yaml_parser_parse(&parser, &ev)) {
		if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT) {
			if (++depth > max_depth)
				rc = tg_error_set(TG_EFORMAT, "%s:%zu:%zu: nested deeper than %d levels", name,
				                  ev.start_mark.line + 1, ev.start_mark.column + 1, max_depth);
		} else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT)
			depth--;
		done = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return rc;
}

int tg_yaml_doc_open(tg_yaml_doc *y, const char *data, size_t len, const char *name, int max_depth)
{
	if (!data)
		data = "";
	y->name = name;
	int rc = depth_ok(data, len, name, max_depth);
	if (rc)
		return rc;
	if (!yaml_parser_initialize(&y->parser))
		return tg_error_set(TG_ENOMEM, "%s: cannot initialise the YAML parser", name);
	yaml_parser_set_input_string(&y->parser, (const unsigned char *)data, len);
	if (!yaml_parser_load(&y->parser, &y->doc)) {
		rc = parse_error(&y->parser, name);
		yaml_parser_delete(&y->parser);
	}
	return rc;
}

int tg_yaml_doc_only_one(tg_yaml_doc *y)
{
	yaml_document_t next;
	if (!yaml_parser_load(&y->parser, &next))
		return parse_error(&y->parser, y->name);
	yaml_node_t *r = yaml_document_get_root_node(&next);
	int rc = 0;
	if (r)
		rc = tg_error_set(TG_EFORMAT, "%s:%zu:%zu: only one YAML document is allowed", y->name,
		                  r->start_mark.line + 1, r->start_mark.column + 1);
	yaml_document_delete(&next);
	return rc;
}

const char *tg_yaml_show(char *buf, size_t cap, const char *s)
{
	size_t o = 0;
	for (; *s && o + 8 < cap; s++) {
		if (o >= 60) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		unsigned char c = (unsigned char)*s;
		if (c == '\n' || c == '\t') {
			buf[o++] = '\\';
			buf[o++] = c == '\n' ? 'n' : 't';
		} else
			buf[o++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	buf[o] = 0;
	return buf;
}

void tg_yaml_doc_close(tg_yaml_doc *y)
{
	yaml_document_delete(&y->doc);
	yaml_parser_delete(&y->parser);
}
