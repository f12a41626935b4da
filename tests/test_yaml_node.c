/* test_yaml_node.c - the YAML node helpers the rules, the configuration
 * and the GPU specs share (util/yaml_node.c): each helper's value and
 * each message with its exact file:line:column. */
#include "testutil.h"

#include "../util/yaml_node.h"

static tg_yaml_doc doc;
static tg_yaml_in in;

/* Parses yaml into the file's doc and in (flags for in). */
static void open_doc(const char *yaml, unsigned flags)
{
	if (tg_yaml_doc_open(&doc, yaml, strlen(yaml), "t.yaml", 32))
		fail_msg("%s", tg_error_last());
	in = (tg_yaml_in){.file = "t.yaml", .doc = &doc.doc, .flags = flags};
}

static yaml_node_t *root(void)
{
	return yaml_document_get_root_node(&doc.doc);
}

/* The value of key k in the root mapping. */
static yaml_node_t *get(const char *k)
{
	yaml_node_t *m = root();
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++)
		if (!strcmp(tg_yaml_scalar(tg_yaml_node(&in, p->key)), k))
			return tg_yaml_node(&in, p->value);
	fail_msg("no key %s", k);
	return NULL;
}

static void expect_error(int rc, const char *msg)
{
	assert_int_equal(rc, TG_EFORMAT);
	assert_string_equal(tg_error_last(), msg);
}

static void test_kinds(void **state)
{
	(void)state;
	open_doc("a: 1\nb: ~\nc:\nd: null\ne: ''\nf: [x, y, z]\ng: {k: v}\nh: NULL\n", 0);
	assert_string_equal(tg_yaml_scalar(get("a")), "1");
	assert_null(tg_yaml_scalar(get("f")));
	assert_null(tg_yaml_scalar(NULL));
	assert_false(tg_yaml_is_null(get("a")));
	assert_true(tg_yaml_is_null(get("b")));
	assert_true(tg_yaml_is_null(get("c")));
	assert_true(tg_yaml_is_null(get("d")));
	assert_true(tg_yaml_is_null(get("h")));
	assert_false(tg_yaml_is_null(get("e"))); /* quoted: an empty string, not null */
	assert_false(tg_yaml_is_null(get("g")));
	assert_string_equal(tg_yaml_kind(get("a")), "a scalar");
	assert_string_equal(tg_yaml_kind(get("b")), "nothing");
	assert_string_equal(tg_yaml_kind(get("f")), "a list");
	assert_string_equal(tg_yaml_kind(get("g")), "a mapping");
	/* sequences */
	assert_int_equal(tg_yaml_len(get("f")), 3);
	assert_string_equal(tg_yaml_scalar(tg_yaml_item(&in, get("f"), 2)), "z");
	assert_int_equal(tg_yaml_len(get("g")), 0);
	assert_int_equal(tg_yaml_len(NULL), 0);
	/* errors at a node: line and column of its start, 1-based */
	expect_error(tg_yaml_error(&in, get("g"), "%s: %d", "bad", 7), "t.yaml:7:4: bad: 7");
	assert_int_equal(tg_yaml_error_code(&in, TG_EIO, get("f"), "gone"), TG_EIO);
	assert_string_equal(tg_error_last(), "t.yaml:6:4: gone");
	tg_yaml_doc_close(&doc);
}

static void test_join_and_keys(void **state)
{
	(void)state;
	static const char *const names[] = {"alpha", "beta", "gamma"};
	char buf[64];
	tg_yaml_join(buf, sizeof(buf), names, 3);
	assert_string_equal(buf, "alpha, beta, gamma");
	tg_yaml_join(buf, sizeof(buf), names, 0);
	assert_string_equal(buf, "");
	tg_yaml_join(buf, 10, names, 3);
	assert_string_equal(buf, "alpha, be"); /* cut, terminated */

	open_doc("a: 1\nb: 2\na: 3\n[k]: 4\nb: 5\n", 0);
	yaml_node_t *m = root();
	yaml_node_pair_t *p = m->data.mapping.pairs.start;
	assert_null(tg_yaml_earlier_key(&in, m, &p[0]));
	assert_null(tg_yaml_earlier_key(&in, m, &p[1]));
	assert_ptr_equal(tg_yaml_earlier_key(&in, m, &p[2]), &p[0]);
	assert_null(tg_yaml_earlier_key(&in, m, &p[3])); /* not a scalar key */
	assert_ptr_equal(tg_yaml_earlier_key(&in, m, &p[4]), &p[1]);
	tg_yaml_doc_close(&doc);
}

static void test_text(void **state)
{
	(void)state;
	const char *s = NULL;
	open_doc("a: hello\nb: [1]\nc: ~\nd: \"tab\\there\"\ne: ''\n", 0);
	assert_int_equal(tg_yaml_text(&s, &in, get("a"), "top.a", "a word"), 0);
	assert_string_equal(s, "hello");
	expect_error(tg_yaml_text(&s, &in, get("b"), "top.b", "a word"),
	             "t.yaml:2:4: top.b: expected a word, got a list");
	expect_error(tg_yaml_text(&s, &in, get("c"), "top.c", "a word"),
	             "t.yaml:3:4: top.c: expected a word, got nothing");
	assert_int_equal(tg_yaml_text(&s, &in, get("d"), "top.d", "a word"), 0); /* control characters allowed */
	assert_string_equal(s, "tab\there");
	assert_int_equal(tg_yaml_text(&s, &in, get("e"), "top.e", "a word"), 0);
	assert_string_equal(s, "");
	tg_yaml_doc_close(&doc);

	open_doc("a: hello\nd: \"tab\\there\"\n", TG_YAML_ONE_LINE);
	assert_int_equal(tg_yaml_text(&s, &in, get("a"), "a", "a word"), 0);
	expect_error(tg_yaml_text(&s, &in, get("d"), "x.d", "a word"),
	             "t.yaml:2:4: x.d: contains a control character (byte 4)");
	tg_yaml_doc_close(&doc);
}

static void test_fields(void **state)
{
	(void)state;
	static const char *const keys[] = {"name", "size", "mode"};
	const yaml_node_t *kn[3], *v[3];
	open_doc(
		"ok: {size: 3, name: x}\n"
		"unknown: {name: x, colour: red}\n"
		"dup: {name: x,\n  name: y}\n"
		"badkey: {[1]: x}\n"
		"secret: {tok\\nen: 1}\n",
		0);
	assert_int_equal(tg_yaml_fields(kn, v, &in, get("ok"), "ok", keys, 3, 0), 0);
	assert_string_equal(tg_yaml_scalar(v[0]), "x");
	assert_string_equal(tg_yaml_scalar(kn[0]), "name");
	assert_int_equal(kn[0]->start_mark.column + 1, 15);
	assert_string_equal(tg_yaml_scalar(v[1]), "3");
	assert_null(kn[2]);
	assert_null(v[2]);
	expect_error(tg_yaml_fields(kn, v, &in, get("unknown"), "the thing", keys, 3, 0),
	             "t.yaml:2:20: unknown key 'colour' in the thing (expected name, size, mode)");
	expect_error(tg_yaml_fields(kn, v, &in, get("unknown"), "secret", keys, 3, TG_YAML_QUIET),
	             "t.yaml:2:20: unknown key in secret (expected name, size, mode)");
	expect_error(tg_yaml_fields(kn, v, &in, get("dup"), "dup", keys, 3, 0),
	             "t.yaml:4:3: duplicate key 'name' in dup (first at line 3)");
	expect_error(tg_yaml_fields(kn, v, &in, get("badkey"), "badkey", keys, 3, 0),
	             "t.yaml:5:10: badkey: expected a key, got a list");
	tg_yaml_doc_close(&doc);
}

static void test_bool_keyword(void **state)
{
	(void)state;
	static const char *const in_yaml =
		"t1: true\nt2: YES\nf1: False\nf2: no\nbad: maybe\nlist: [1]\n"
		"lv: warn\nlbad: loud\n";
	static const char *const levels[] = {"debug", "info", "warn", "error"};
	int b = -1, k = -1;
	open_doc(in_yaml, 0);
	assert_int_equal(tg_yaml_bool(&b, &in, get("t1"), "t1"), 0);
	assert_int_equal(b, 1);
	assert_int_equal(tg_yaml_bool(&b, &in, get("f1"), "f1"), 0);
	assert_int_equal(b, 0);
	assert_int_equal(tg_yaml_bool(&b, &in, get("t2"), "t2"), 0);
	assert_int_equal(b, 1);
	assert_int_equal(tg_yaml_bool(&b, &in, get("f2"), "f2"), 0);
	assert_int_equal(b, 0);
	expect_error(tg_yaml_bool(&b, &in, get("bad"), "s.bad"),
	             "t.yaml:5:6: s.bad: 'maybe' is not a boolean (expected true, false, yes or no)");
	expect_error(tg_yaml_bool(&b, &in, get("list"), "s.list"),
	             "t.yaml:6:7: s.list: expected true or false, got a list");
	assert_int_equal(tg_yaml_keyword(&k, &in, get("lv"), "log.level", "a level", "level", levels, 4), 0);
	assert_int_equal(k, 2);
	expect_error(tg_yaml_keyword(&k, &in, get("lbad"), "log.level", "a level", "level", levels, 4),
	             "t.yaml:8:7: log.level: unknown level 'loud' (expected debug, info, warn, error)");
	expect_error(tg_yaml_keyword(&k, &in, get("list"), "log.level", "a level", "level", levels, 4),
	             "t.yaml:6:7: log.level: expected a level, got a list");
	tg_yaml_doc_close(&doc);
}

/* A loader that counts its calls and reads the root's scalar "k". */
struct seen {
	int calls;
	unsigned flags;
	char k[16];
};

static int read_k(const tg_yaml_in *in, void *ctx)
{
	struct seen *s = ctx;
	s->calls++;
	s->flags = in->flags;
	const yaml_node_t *kn[1], *v[1];
	static const char *const keys[] = {"k"};
	yaml_node_t *r = yaml_document_get_root_node(in->doc);
	if (!r)
		return tg_error_set(TG_EFORMAT, "%s: empty", in->file);
	int rc = tg_yaml_fields(kn, v, in, r, "the file", keys, 1, 0);
	if (!rc && v[0])
		snprintf(s->k, sizeof(s->k), "%s", tg_yaml_scalar(v[0]));
	return rc;
}

static void test_read(void **state)
{
	(void)state;
	struct seen s = {0};
	const char *ok = "k: v\n";
	assert_int_equal(tg_yaml_read(ok, strlen(ok), "r.yaml", 8, TG_YAML_ONE_LINE, read_k, &s), 0);
	assert_int_equal(s.calls, 1);
	assert_int_equal(s.flags, TG_YAML_ONE_LINE);
	assert_string_equal(s.k, "v");
	/* the loader's error comes first, and no second document is read after it */
	const char *two_bad = "x: 1\n---\nk: 2\n";
	expect_error(tg_yaml_read(two_bad, strlen(two_bad), "r.yaml", 8, 0, read_k, &s),
	             "r.yaml:1:1: unknown key 'x' in the file (expected k)");
	/* a second document after a good first one */
	const char *two = "k: 1\n---\nk: 2\n";
	s.calls = 0;
	expect_error(tg_yaml_read(two, strlen(two), "r.yaml", 8, 0, read_k, &s),
	             "r.yaml:3:1: only one YAML document is allowed");
	assert_int_equal(s.calls, 1);
	/* a syntax error or too deep: the loader is not called */
	const char *bad = "k: [1\n";
	s.calls = 0;
	assert_int_equal(tg_yaml_read(bad, strlen(bad), "r.yaml", 8, 0, read_k, &s), TG_EFORMAT);
	assert_non_null(strstr(tg_error_last(), "r.yaml:2:1: bad YAML: "));
	const char *deep = "k: [[[1]]]\n";
	assert_int_equal(tg_yaml_read(deep, strlen(deep), "r.yaml", 3, 0, read_k, &s), TG_EFORMAT);
	assert_string_equal(tg_error_last(), "r.yaml:1:6: nested deeper than 3 levels");
	assert_int_equal(s.calls, 0);
	/* the empty input: a document without a root */
	s.calls = 0;
	assert_int_equal(tg_yaml_read(NULL, 0, "r.yaml", 8, 0, read_k, &s), TG_EFORMAT);
	assert_string_equal(tg_error_last(), "r.yaml: empty");
	assert_int_equal(s.calls, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),  cmocka_unit_test(test_join_and_keys), cmocka_unit_test(test_text),
		cmocka_unit_test(test_fields), cmocka_unit_test(test_bool_keyword),  cmocka_unit_test(test_read),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
