/*
 * gate_render.h - for the tests that compare two ways of judging to the
 * byte (test_rundata.c, test_diff_load.c): a gate's whole document in
 * every format, as one string.
 */
#ifndef TG_TESTS_GATE_RENDER_H
#define TG_TESTS_GATE_RENDER_H

#include <stdio.h>

/* Renders g as text, md and json into one string (the caller frees), with
 * the sides named "a" and "b". */
static inline char *gt_gate_render(const tg_gate *g)
{
	const char *files[2] = {"a", "b"};
	tg_diff_doc doc = tg_gate_doc(g, files, 1, files + 1, 1, "m", NULL);
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	assert_non_null(f);
	assert_int_equal(tg_diff_write_text(f, &doc), 0);
	assert_int_equal(tg_diff_write_md(f, &doc, 0), 0);
	assert_int_equal(tg_diff_write_json(f, &doc), 0);
	fclose(f);
	return s;
}

#endif
