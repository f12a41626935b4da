/*
 * fuzz_rules.c - libFuzzer target for the threshold rules loader
 * (rules/rules_load.c, with the units of rules/units.c).
 *
 * Input: the YAML text, given to tg_rules_load_mem under the name
 * "<fuzz>". The seeds in tests/fuzz/corpus/rules/ are real rules files
 * (contrib/rules/default.yaml, the examples of docs/rules.md) and a few
 * broken ones; tests/fuzz/rules.dict holds the format's words.
 *
 * Beyond the sanitizers, the target aborts when the loader breaks one of
 * its documented promises (rules.h):
 *   - a failure returns TG_EFORMAT or TG_ENOMEM, leaves *out NULL and one
 *     message line; a TG_EFORMAT one is "<fuzz>:LINE:COLUMN: ..." with
 *     LINE and COLUMN >= 1 and LINE at most the input's lines + 1;
 *   - loaded rules hold what the format allows: settings in their ranges
 *     (confidence and fdr in their open intervals, min_samples >= 2), each
 *     rule named [A-Za-z0-9_.-]+ and unique (tg_rules_find finds it), a
 *     known metric, aggregate and grouping, at least one of block_above and
 *     warn_above, warn <= block, percents and min_delta finite and >= 0,
 *     stream and rank -1 or >= 0, no selector but rank on a per-step
 *     metric and no `each` there, patterns set and non-empty or unset;
 *   - every pattern can be matched (globs through fnmatch, regexes
 *     compiled) without a crash;
 *   - loading is deterministic: the same input loads the same rules again.
 *
 * Build and run: make fuzz FUZZ_TARGETS=rules (build-fuzz/fuzz_rules).
 */
#include "../../util/tg.h"
#include "../../rules/rules.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "<fuzz>"

#define CHECK(cond)                                                                                    \
	do {                                                                                           \
		if (!(cond)) {                                                                         \
			fprintf(stderr, "fuzz_rules: %s:%d: broken promise: %s (%s)\n", __FILE__, __LINE__, \
			        #cond, tg_error_last());                                                     \
			abort();                                                                       \
		}                                                                                      \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__ubsan_default_options(void);

const char *__ubsan_default_options(void) { return "print_stacktrace=1"; }

static void check_error(int rc, const uint8_t *data, size_t size)
{
	const char *msg = tg_error_last();
	CHECK(rc == TG_EFORMAT || rc == TG_ENOMEM);
	CHECK(tg_error_last_code() == rc);
	CHECK(strchr(msg, '\n') == NULL && strchr(msg, '\r') == NULL);
	if (rc != TG_EFORMAT)
		return;
	CHECK(strncmp(msg, NAME ":", strlen(NAME ":")) == 0);
	/* an upper bound of the lines libyaml counts: it also breaks lines at
	 * a lone CR, NEL (C2 85), LS and PS (E2 80 A8, E2 80 A9) */
	size_t lines = 1;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n' || data[i] == '\r' || data[i] == 0x85 || data[i] == 0xa8 || data[i] == 0xa9;
	char *end;
	unsigned long line = strtoul(msg + strlen(NAME ":"), &end, 10);
	CHECK(*end == ':');
	unsigned long col = strtoul(end + 1, &end, 10);
	CHECK(*end == ':' && end[1] == ' ');
	CHECK(line >= 1 && line <= lines + 1 && col >= 1);
}

static int valid_name(const char *s)
{
	if (!s || !*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' ||
		      *s == '.' || *s == '-'))
			return 0;
	return 1;
}

static int per_step(tg_rule_metric m)
{
	return m == TG_METRIC_GPU_BUSY || m == TG_METRIC_GPU_IDLE || m == TG_METRIC_EXPOSED_COMM ||
	       m == TG_METRIC_EXPOSED_MEMCPY || m == TG_METRIC_HOST_SYNCS || m == TG_METRIC_PEAK_MEMORY;
}

static int pct_ok(double v) { return isnan(v) || (isfinite(v) && v >= 0); }

static void check_pattern(const tg_pattern *p, const char *name)
{
	static const char *const subjects[] = {"", "aten::mm", "void flash_fwd_kernel<128>(Params)",
	                                       "nn.Module: Attention_0", "((4, 8, 1024, 64), (64,))"};
	CHECK(p->text == NULL || *p->text);
	CHECK(p->is_regex == 0 || p->is_regex == 1);
	CHECK(p->text != NULL || !p->is_regex);
	volatile int sink = 0;
	sink += tg_pattern_match(p, name);
	sink += tg_pattern_match(p, p->text);
	for (size_t i = 0; i < sizeof(subjects) / sizeof(subjects[0]); i++)
		sink += tg_pattern_match(p, subjects[i]);
	sink += tg_pattern_match(p, NULL);
	(void)sink;
}

static void check_rules(const tg_rules *rs)
{
	const tg_rules_settings *s = tg_rules_settings_get(rs);
	CHECK(!strcmp(tg_rules_source(rs), NAME));
	CHECK(s->confidence > 0.5 && s->confidence < 1);
	CHECK(s->min_samples >= 2);
	CHECK(s->fdr > 0 && s->fdr < 1);
	CHECK(s->allow_hardware_change == 0 || s->allow_hardware_change == 1);
	size_t n;
	const tg_rule *list = tg_rules_list(rs, &n);
	CHECK(n == 0 || list != NULL);
	for (size_t i = 0; i < n; i++) {
		const tg_rule *r = &list[i];
		CHECK(valid_name(r->name));
		CHECK(tg_rules_find(rs, r->name) == r);
		CHECK(r->line >= 1 && r->column >= 1);
		CHECK((int)r->metric >= 0 && r->metric < TG_METRIC_COUNT_ && tg_rule_metric_name(r->metric));
		CHECK(r->aggregate == TG_AGG_TOTAL || r->aggregate == TG_AGG_EACH);
		CHECK(tg_rule_by_name(r->by) != NULL);
		CHECK(!isnan(r->block_above) || !isnan(r->warn_above));
		CHECK(pct_ok(r->block_above) && pct_ok(r->warn_above) && pct_ok(r->improvement_below));
		CHECK(isnan(r->block_above) || isnan(r->warn_above) || r->warn_above <= r->block_above);
		CHECK(isfinite(r->min_delta) && r->min_delta >= 0);
		CHECK(r->stream >= -1 && r->rank >= -1);
		if (per_step(r->metric)) {
			CHECK(r->aggregate == TG_AGG_TOTAL);
			CHECK(!r->category.text && !r->op.text && !r->kernel.text && !r->module.text && !r->shape.text);
			CHECK(r->stream == -1);
		}
		check_pattern(&r->category, r->name);
		check_pattern(&r->op, r->name);
		check_pattern(&r->kernel, r->name);
		check_pattern(&r->module, r->name);
		check_pattern(&r->shape, r->name);
	}
}

static int same_pattern(const tg_pattern *a, const tg_pattern *b)
{
	return a->is_regex == b->is_regex && (a->text == NULL) == (b->text == NULL) &&
	       (!a->text || !strcmp(a->text, b->text));
}

static int same_double(double a, double b) { return (isnan(a) && isnan(b)) || a == b; }

static void check_same(const tg_rules *a, const tg_rules *b)
{
	const tg_rules_settings *sa = tg_rules_settings_get(a), *sb = tg_rules_settings_get(b);
	CHECK(sa->confidence == sb->confidence && sa->min_samples == sb->min_samples && sa->fdr == sb->fdr &&
	      sa->allow_hardware_change == sb->allow_hardware_change);
	size_t na, nb;
	const tg_rule *la = tg_rules_list(a, &na), *lb = tg_rules_list(b, &nb);
	CHECK(na == nb);
	for (size_t i = 0; i < na; i++) {
		const tg_rule *x = &la[i], *y = &lb[i];
		CHECK(!strcmp(x->name, y->name) && x->line == y->line && x->column == y->column);
		CHECK(x->metric == y->metric && x->aggregate == y->aggregate && x->by == y->by);
		CHECK(x->stream == y->stream && x->rank == y->rank);
		CHECK(same_double(x->block_above, y->block_above) && same_double(x->warn_above, y->warn_above) &&
		      same_double(x->improvement_below, y->improvement_below) && x->min_delta == y->min_delta);
		CHECK(same_pattern(&x->category, &y->category) && same_pattern(&x->op, &y->op) &&
		      same_pattern(&x->kernel, &y->kernel) && same_pattern(&x->module, &y->module) &&
		      same_pattern(&x->shape, &y->shape));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tg_rules *rs = (tg_rules *)1;
	int rc = tg_rules_load_mem(&rs, (const char *)data, size, NAME);
	if (rc) {
		CHECK(rs == NULL);
		check_error(rc, data, size);
		return 0;
	}
	CHECK(rs != NULL);
	check_rules(rs);
	tg_rules *again = NULL;
	CHECK(tg_rules_load_mem(&again, (const char *)data, size, NAME) == 0);
	check_same(rs, again);
	tg_rules_free(again);
	tg_rules_free(rs);
	return 0;
}
