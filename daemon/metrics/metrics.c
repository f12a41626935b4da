/*
 * metrics.c - counters, gauges and histograms behind one mutex, written out
 * in Prometheus's text exposition format (metrics.h).
 *
 * Hand-written rather than a client library: Debian has none for C, and
 * what the daemon needs is a few dozen series, a mutex and a printf; the
 * format is https://prometheus.io/docs/instrumenting/exposition_formats/
 * (label values escaped as \\, \" and \n; values as Go's ParseFloat reads
 * them: +Inf, -Inf, NaN), and `promtool check metrics` checks what it
 * writes (tests/it_endpoints.sh).
 */
#include "metrics.h"
#include "../../util/tg.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct series {
	char *v[2];        /* label values (NULL: the family has no such label) */
	double value;      /* counter, gauge; a histogram's sum */
	uint64_t count;    /* histogram */
	uint64_t *buckets; /* histogram: per bound, not cumulative */
};

struct family_state {
	struct series *s;
	size_t n, cap;
};

struct tg_metrics {
	pthread_mutex_t mu;
	const tg_metrics_family *fam;
	size_t nfam;
	struct family_state *st;
};

static struct series *series_at(tg_metrics *m, size_t f, const char *v0, const char *v1, int create);

static int name_ok(const char *s, int colon)
{
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
		      (colon && *s == ':')))
			return 0;
	return 1;
}

/* 0, or TG_EINVAL naming what is wrong with family f. */
static int family_check(const tg_metrics_family *fam, size_t f)
{
	const tg_metrics_family *x = &fam[f];
	if (!name_ok(x->name, 1) || !x->help || strchr(x->help, '\n'))
		return tg_error_set(TG_EINVAL, "metrics: family %zu: a bad name or help", f);
	for (size_t i = 0; i < f; i++)
		if (!strcmp(fam[i].name, x->name))
			return tg_error_set(TG_EINVAL, "metrics: %s: defined twice", x->name);
	if ((x->label[0] && !name_ok(x->label[0], 0)) || (x->label[1] && (!x->label[0] || !name_ok(x->label[1], 0))) ||
	    (x->label[0] && !strcmp(x->label[0], "le")) || (x->label[1] && !strcmp(x->label[1], "le")))
		return tg_error_set(TG_EINVAL, "metrics: %s: a bad label name", x->name);
	if (x->type == TG_METRICS_HISTOGRAM) {
		if (!x->nbuckets || !x->buckets)
			return tg_error_set(TG_EINVAL, "metrics: %s: a histogram without buckets", x->name);
		for (size_t i = 0; i < x->nbuckets; i++)
			if (!isfinite(x->buckets[i]) || (i && x->buckets[i] <= x->buckets[i - 1]))
				return tg_error_set(TG_EINVAL, "metrics: %s: buckets not finite and ascending",
				                    x->name);
	}
	return 0;
}

int tg_metrics_new(tg_metrics **out, const tg_metrics_family *families, size_t n)
{
	*out = NULL;
	for (size_t f = 0; f < n; f++) {
		int rc = family_check(families, f);
		if (rc)
			return rc;
	}
	tg_metrics *m = tg_calloc(1, sizeof(*m));
	if (!m)
		return TG_ENOMEM;
	if (!(m->st = tg_calloc(n ? n : 1, sizeof(*m->st)))) {
		free(m);
		return TG_ENOMEM;
	}
	pthread_mutex_init(&m->mu, NULL);
	m->fam = families;
	m->nfam = n;
	/* a family without labels has its one series from the start, at 0 */
	for (size_t f = 0; f < n; f++)
		if (!families[f].label[0] && !series_at(m, f, NULL, NULL, 1)) {
			tg_metrics_free(m);
			return tg_error_set(TG_ENOMEM, "out of memory");
		}
	*out = m;
	return 0;
}

void tg_metrics_free(tg_metrics *m)
{
	if (!m)
		return;
	for (size_t f = 0; f < m->nfam; f++) {
		for (size_t i = 0; i < m->st[f].n; i++) {
			free(m->st[f].s[i].v[0]);
			free(m->st[f].s[i].v[1]);
			free(m->st[f].s[i].buckets);
		}
		free(m->st[f].s);
	}
	free(m->st);
	pthread_mutex_destroy(&m->mu);
	free(m);
}

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* The series (v0, v1) of family f, created when new; NULL when the label
 * values do not fit the family, there are too many series, or no memory.
 * Called with the mutex held. */
static struct series *series_at(tg_metrics *m, size_t f, const char *v0, const char *v1, int create)
{
	const tg_metrics_family *x = &m->fam[f];
	const char *v[2] = {x->label[0] ? v0 : NULL, x->label[1] ? v1 : NULL};
	if ((x->label[0] && !v0) || (x->label[1] && !v1))
		return NULL;
	struct family_state *st = &m->st[f];
	for (size_t i = 0; i < st->n; i++)
		if (same(st->s[i].v[0], v[0]) && same(st->s[i].v[1], v[1]))
			return &st->s[i];
	if (!create || st->n >= TG_METRICS_MAX_SERIES || tg_grow((void **)&st->s, &st->cap, st->n + 1, sizeof(*st->s)))
		return NULL;
	struct series *s = &st->s[st->n];
	memset(s, 0, sizeof(*s));
	if ((v[0] && !(s->v[0] = strdup(v[0]))) || (v[1] && !(s->v[1] = strdup(v[1]))) ||
	    (x->type == TG_METRICS_HISTOGRAM && !(s->buckets = calloc(x->nbuckets, sizeof(uint64_t))))) {
		free(s->v[0]);
		free(s->v[1]);
		return NULL;
	}
	st->n++;
	return s;
}

/* op 0: add, 1: set, 2: observe. */
static void update(tg_metrics *m, size_t f, const char *v0, const char *v1, double x, int op)
{
	if (!m || f >= m->nfam)
		return;
	tg_metrics_type t = m->fam[f].type;
	if ((op == 2) != (t == TG_METRICS_HISTOGRAM) || (op == 1 && t != TG_METRICS_GAUGE) ||
	    (op == 0 && t == TG_METRICS_COUNTER && !(x >= 0)))
		return;
	pthread_mutex_lock(&m->mu);
	struct series *s = series_at(m, f, v0, v1, 1);
	if (s && op == 0)
		s->value += x;
	else if (s && op == 1)
		s->value = x;
	else if (s) {
		const tg_metrics_family *fam = &m->fam[f];
		for (size_t b = 0; b < fam->nbuckets; b++)
			if (x <= fam->buckets[b]) {
				s->buckets[b]++;
				break;
			}
		s->count++;
		s->value += x;
	}
	pthread_mutex_unlock(&m->mu);
}

void tg_metrics_add(tg_metrics *m, size_t family, const char *v0, const char *v1, double delta)
{
	update(m, family, v0, v1, delta, 0);
}

void tg_metrics_set(tg_metrics *m, size_t family, const char *v0, const char *v1, double value)
{
	update(m, family, v0, v1, value, 1);
}

void tg_metrics_observe(tg_metrics *m, size_t family, const char *v0, const char *v1, double value)
{
	update(m, family, v0, v1, value, 2);
}

double tg_metrics_get(tg_metrics *m, size_t family, const char *v0, const char *v1)
{
	if (!m || family >= m->nfam)
		return 0;
	pthread_mutex_lock(&m->mu);
	const struct series *s = series_at(m, family, v0, v1, 0);
	double v = !s ? 0 : m->fam[family].type == TG_METRICS_HISTOGRAM ? (double)s->count : s->value;
	pthread_mutex_unlock(&m->mu);
	return v;
}

/* ------------------------------------------------------------ the text */

/* A value as Prometheus reads it: integers without an exponent, the rest
 * exactly (%.17g), and Go's words for the infinities and NaN. */
static void put_value(FILE *f, double v)
{
	if (isnan(v))
		fputs("NaN", f);
	else if (isinf(v))
		fputs(v > 0 ? "+Inf" : "-Inf", f);
	else if (v == floor(v) && fabs(v) < 9007199254740992.0)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.17g", v);
}

static void put_label_value(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\')
			fputs("\\\\", f);
		else if (*v == '"')
			fputs("\\\"", f);
		else if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

/* "{a="x",b="y",le="0.5"}" or nothing; le may be NULL. */
static void put_labels(FILE *f, const tg_metrics_family *x, const struct series *s, const char *le)
{
	if (!x->label[0] && !le)
		return;
	fputc('{', f);
	const char *sep = "";
	for (int i = 0; i < 2 && x->label[i]; i++) {
		fprintf(f, "%s%s=\"", sep, x->label[i]);
		put_label_value(f, s->v[i]);
		fputc('"', f);
		sep = ",";
	}
	if (le)
		fprintf(f, "%sle=\"%s\"", sep, le);
	fputc('}', f);
}

static void put_histogram(FILE *f, const tg_metrics_family *x, const struct series *s)
{
	uint64_t cum = 0;
	for (size_t b = 0; b < x->nbuckets; b++) {
		char le[64];
		cum += s->buckets[b];
		snprintf(le, sizeof(le), "%.17g", x->buckets[b]);
		fprintf(f, "%s_bucket", x->name);
		put_labels(f, x, s, le);
		fprintf(f, " %llu\n", (unsigned long long)cum);
	}
	fprintf(f, "%s_bucket", x->name);
	put_labels(f, x, s, "+Inf");
	fprintf(f, " %llu\n%s_sum", (unsigned long long)s->count, x->name);
	put_labels(f, x, s, NULL);
	fputc(' ', f);
	put_value(f, s->value);
	fprintf(f, "\n%s_count", x->name);
	put_labels(f, x, s, NULL);
	fprintf(f, " %llu\n", (unsigned long long)s->count);
}

static void put_family(FILE *f, const tg_metrics_family *x, const struct family_state *st)
{
	static const char *const types[] = {"counter", "gauge", "histogram"};
	fprintf(f, "# HELP %s ", x->name);
	for (const char *h = x->help; *h; h++) {
		if (*h == '\\')
			fputc('\\', f);
		fputc(*h, f);
	}
	fprintf(f, "\n# TYPE %s %s\n", x->name, types[x->type]);
	for (size_t i = 0; i < st->n; i++) {
		const struct series *s = &st->s[i];
		if (x->type == TG_METRICS_HISTOGRAM) {
			put_histogram(f, x, s);
			continue;
		}
		fputs(x->name, f);
		put_labels(f, x, s, NULL);
		fputc(' ', f);
		put_value(f, s->value);
		fputc('\n', f);
	}
}

int tg_metrics_write(char **out, size_t *len, tg_metrics *m)
{
	*out = NULL;
	*len = 0;
	FILE *f = open_memstream(out, len);
	if (!f)
		return tg_error_set(TG_ENOMEM, "out of memory");
	if (m) {
		pthread_mutex_lock(&m->mu);
		for (size_t i = 0; i < m->nfam; i++)
			put_family(f, &m->fam[i], &m->st[i]);
		pthread_mutex_unlock(&m->mu);
	}
	if (fclose(f) || !*out) {
		free(*out);
		*out = NULL;
		*len = 0;
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	return 0;
}
