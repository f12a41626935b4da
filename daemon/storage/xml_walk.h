/*
 * xml_walk.h - a small, strict walker over an XML document held in memory,
 * for the answers of S3 servers (ListBucketResult, Error). Not a general
 * XML library: no DTD (a DOCTYPE is refused), no custom entities, no
 * namespaces beyond dropping an element's "prefix:".
 *
 * It checks well-formedness (tags nest and match, one root element,
 * attributes quoted, entities known, no control characters) and calls the
 * handler at each element's start and end, the end with the element's
 * character data: entities (&amp; &lt; &gt; &quot; &apos; &#NN; &#xNN;)
 * decoded and CDATA sections included. Comments and processing
 * instructions are skipped. Bounded: 64 levels of nesting, 64 KiB of
 * character data between two tags.
 */
#ifndef TG_XML_WALK_H
#define TG_XML_WALK_H

#include <stddef.h>

#define TG_XML_MAX_DEPTH 64
#define TG_XML_MAX_TEXT 65536

typedef struct tg_xml_handler {
	/* An element starts. name: its local name (prefix dropped), len bytes,
	 * not NUL-terminated; depth: 1 for the root; off: the byte offset of
	 * its '<'. Returns 0 to go on, or a TG_E* code (message set) to stop.
	 * May be NULL. */
	int (*start)(void *ud, const char *name, size_t len, int depth, size_t off);
	/* An element ends. text: its character data (NUL-terminated, tlen
	 * bytes; only meaningful when leaf, i.e. it had no child element);
	 * off: the byte offset of its start tag, as for start. */
	int (*end)(void *ud, const char *name, size_t len, int depth, const char *text, size_t tlen, int leaf,
	           size_t off);
} tg_xml_handler;

/* Walks len bytes of xml. Returns 0; TG_EFORMAT with the message
 * "<what>: <reason> at byte N"; TG_ENOMEM; or the first non-zero code a
 * handler returned. */
int tg_xml_walk(const char *xml, size_t len, const tg_xml_handler *h, void *ud, const char *what);

/* 1 when name (len bytes, as a handler gets it) equals the string s. */
int tg_xml_is(const char *name, size_t len, const char *s);

#endif
