/*
 * cp_diff_render.c - how the critical path moved (cp_diff.h), as a section
 * of the diff's text, of the pull-request comment (md) and of its json
 * ("critical_path", docs/diff.md), and the sentence that says it in words.
 * diff_render.c calls these; the numbers, and the bound the sentence names
 * (tg_cp_diff.moved), are cp_diff.c's.
 */
#include "../rules/cp_diff.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A signed change in ms with as many decimals as its size needs. */
static void signed_ms(char *buf, size_t cap, double ns)
{
	double ms = ns / 1e6, a = fabs(ms);
	snprintf(buf, cap, a >= 10 ? "%+.1f ms" : a >= 1 ? "%+.2f ms" : "%+.3f ms", ms);
}

static void plain_ms(char *buf, size_t cap, double ns)
{
	double ms = ns / 1e6;
	snprintf(buf, cap, ms >= 10 ? "%.1f ms" : ms >= 1 ? "%.2f ms" : "%.3f ms", ms);
}

void tg_cp_diff_sentence(char *buf, size_t cap, const tg_cp_diff *d, const char *arrow)
{
	if (!d->base.ok || !d->next.ok) {
		snprintf(buf, cap, "critical path not compared: %s", !d->base.ok ? d->base.why : d->next.why);
		return;
	}
	char a[32], b[32], mv[32];
	plain_ms(a, sizeof(a), d->base.length_ns);
	plain_ms(b, sizeof(b), d->next.length_ns);
	tg_cp_bound m = d->moved; /* chosen where the diff was built */
	double delta = d->next.bound_ns[m] - d->base.bound_ns[m], dl = d->next.length_ns - d->base.length_ns;
	signed_ms(mv, sizeof(mv), delta);
	if (d->next.dominant != d->base.dominant) {
		snprintf(buf, cap, "the step became %s: %s of %s (critical path %s %s %s a step)",
		         tg_cp_bound_label(d->next.dominant), mv, tg_cp_bound_name(m), a, arrow, b);
	} else if (fabs(dl) < 1000 && fabs(dl) <= 0.001 * d->base.length_ns) {
		snprintf(buf, cap, "the critical path did not move (%s a step, %s)", b,
		         tg_cp_bound_label(d->next.dominant));
	} else {
		double pct = d->base.length_ns > 0 ? 100.0 * dl / d->base.length_ns : 0;
		snprintf(buf, cap,
		         "the step stays %s; critical path %s %s %s a step (%+.1f %%), most of the move %s of %s",
		         tg_cp_bound_label(d->next.dominant), a, arrow, b, pct, mv, tg_cp_bound_name(m));
	}
}

void tg_cp_diff_write_text(FILE *f, const tg_cp_diff *d)
{
	if (!d)
		return;
	char s[512];
	tg_cp_diff_sentence(s, sizeof(s), d, "->");
	fprintf(f, "\nCritical path (HTA): %s\n", s);
	if (!d->base.ok || !d->next.ok)
		return;
	fprintf(f, "%-28s %14s %14s %12s\n", "bound_by (ms a step)", "base", "new", "change");
	for (int k = 0; k < TG_CP_DEPENDENCY; k++) {
		double b = d->base.bound_ns[k] / 1e6, n = d->next.bound_ns[k] / 1e6;
		if (b != 0 || n != 0)
			fprintf(f, "%-28s %14.3f %14.3f %+12.3f\n", tg_cp_bound_name(k), b, n, n - b);
	}
	fprintf(f, "%-28s %14.3f %14.3f %+12.3f\n", "length", d->base.length_ns / 1e6, d->next.length_ns / 1e6,
	        (d->next.length_ns - d->base.length_ns) / 1e6);
}

void tg_cp_diff_write_md(FILE *f, const tg_cp_diff *d)
{
	if (!d)
		return;
	char s[512];
	tg_cp_diff_sentence(s, sizeof(s), d, "\xe2\x86\x92");
	fprintf(f, "\n#### What bounds the step (critical path)\n\n%c%s.\n",
	        s[0] >= 'a' && s[0] <= 'z' ? s[0] - 32 : s[0], s + 1);
	if (!d->base.ok || !d->next.ok)
		return;
	fputs("\n| bound_by | base ms a step | new ms a step | change |\n| --- | ---: | ---: | ---: |\n", f);
	for (int k = 0; k < TG_CP_DEPENDENCY; k++) {
		double b = d->base.bound_ns[k] / 1e6, n = d->next.bound_ns[k] / 1e6;
		if (b != 0 || n != 0)
			fprintf(f, "| `%s` | %.3f | %.3f | %+.3f |\n", tg_cp_bound_name(k), b, n, n - b);
	}
	fprintf(f, "| length | %.3f | %.3f | %+.3f |\n", d->base.length_ns / 1e6, d->next.length_ns / 1e6,
	        (d->next.length_ns - d->base.length_ns) / 1e6);
}

static json_t *side_json(const tg_cp_side *s)
{
	json_t *o = json_object();
	json_object_set_new(o, "ok", json_boolean(s->ok));
	if (!s->ok) {
		json_object_set_new(o, "why", json_string(s->why));
		return o;
	}
	json_object_set_new(o, "traces", json_integer((json_int_t)s->traces));
	json_object_set_new(o, "steps", json_real(s->steps));
	json_object_set_new(o, "length_ms_per_step", json_real(s->length_ns / 1e6));
	json_object_set_new(o, "bound_by", json_string(tg_cp_bound_name(s->dominant)));
	json_t *b = json_object();
	for (int k = 0; k < TG_CP_DEPENDENCY; k++)
		json_object_set_new(b, tg_cp_bound_name(k), json_real(s->bound_ns[k] / 1e6));
	json_object_set_new(o, "breakdown_ms_per_step", b);
	return o;
}

json_t *tg_cp_diff_json(const tg_cp_diff *d)
{
	char s[512];
	tg_cp_diff_sentence(s, sizeof(s), d, "->");
	json_t *o = json_object();
	json_object_set_new(o, "sentence", json_string(s));
	json_object_set_new(o, "base", side_json(&d->base));
	json_object_set_new(o, "new", side_json(&d->next));
	if (d->base.ok && d->next.ok) {
		json_object_set_new(o, "became",
		                    d->base.dominant != d->next.dominant
		                            ? json_string(tg_cp_bound_name(d->next.dominant))
		                            : json_null());
		json_t *c = json_object();
		for (int k = 0; k < TG_CP_DEPENDENCY; k++)
			json_object_set_new(c, tg_cp_bound_name(k),
			                    json_real((d->next.bound_ns[k] - d->base.bound_ns[k]) / 1e6));
		json_object_set_new(o, "change_ms_per_step", c);
		json_object_set_new(o, "length_change_ms_per_step",
		                    json_real((d->next.length_ns - d->base.length_ns) / 1e6));
	}
	return o;
}
