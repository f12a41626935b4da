/*
 * plant.c - tg-plant: plants a known change into a real trace, so that the
 * gate's verdicts on real traces of every kind (inference engines, CUDA
 * graphs, torch.compile, ROCm, several ranks) are measured, not guessed
 * (tests/cli_verdicts.sh, docs/generator.md "Planting changes").
 *
 *   tg-plant [--seed N] [--jitter PCT] [--scale CAT=F]... [--kernel GLOB=F]... IN OUT
 *
 * Every kernel's duration is multiplied by a jitter factor uniform in
 * [1 - PCT/100, 1 + PCT/100] (a hash of the seed and the kernel's position
 * in the file: the same options give the same bytes), and by F when its
 * category (tracegate's default classification, read through core/ as the
 * gate reads it) matches the glob CAT, or its name the glob GLOB. Nothing
 * else changes: a kernel keeps its start, so a slower kernel may overlap
 * the next one on its stream (the kernel-time rules sum durations; the
 * union of GPU activity grows by less than the sum). One file is one rank:
 * to slow one rank of a job, plant into that rank's file only.
 *
 * Why not tg-gen: tg-gen writes a synthetic trace from a model; the point
 * here is the real traces of ../shared/traces with their own layouts,
 * graphs and engines. Why not a JSON library: the output must keep every
 * byte of the input but the durations it changes (numbers as written,
 * integers beyond int64, key order), so the file is scanned as text and
 * only the "dur" values of kernel events are rewritten; the categories come
 * from core/'s reader and measure on the same bytes, matched to the text's
 * events by start time and name.
 *
 * Exit codes: 0 written, 1 input or I/O error, 2 usage error (one line on
 * stderr). --summary prints, per category, the kernels and their time
 * before and after on stderr.
 */
#include "../../core/diff/measure.h"
#include "../../core/trace/trace.h"
#include "../../core/tree/tree.h"

#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MAX_SCALES 32

struct scale {
	const char *glob;
	double f;
	int by_name; /* --kernel: the glob is over the kernel name */
};

struct opts {
	uint64_t seed;
	double jitter; /* fraction */
	struct scale sc[MAX_SCALES];
	size_t nsc;
	int summary;
	const char *in, *out;
};

/* One kernel of core's reading: start, name, category. */
struct kern {
	int64_t ts;
	const char *name;     /* the trace's atom string */
	const char *category; /* the key table's string */
	int used;
};

/* A replacement of bytes [from, to) of the input by text. */
struct subst {
	size_t from, to;
	char text[40];
};

struct cat_sum {
	const char *category;
	size_t n;
	double before_us, after_us;
};

/* One line on stderr, then exit with code (1: input or I/O, 2: usage). */
static void die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void die(int code, const char *fmt, ...)
{
	va_list ap;
	fputs("tg-plant: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die(1, "out of memory");
	return p;
}

/* ------------------------------------------------------------ options */

static int parse_opts(struct opts *o, int argc, char **argv)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		char *end;
		if (!strcmp(a, "--help")) {
			printf("usage: tg-plant [--seed N] [--jitter PCT] [--scale CATEGORY=F]... [--kernel GLOB=F]...\n"
			       "                [--summary] IN OUT\n"
			       "Multiplies every kernel's duration by a seeded jitter in [1-PCT/100, 1+PCT/100] and\n"
			       "by F when its tracegate category (or its name) matches the glob. OUT: .gz gzips.\n");
			exit(0);
		} else if (!strcmp(a, "--summary")) {
			o->summary = 1;
		} else if (!strcmp(a, "--seed") && i + 1 < argc) {
			o->seed = strtoull(argv[++i], &end, 10);
			if (*end || !*argv[i])
				die(2, "--seed: '%s' is not an integer", argv[i]);
		} else if (!strcmp(a, "--jitter") && i + 1 < argc) {
			o->jitter = strtod(argv[++i], &end) / 100;
			if (*end || !*argv[i] || !(o->jitter >= 0 && o->jitter < 1))
				die(2, "--jitter: '%s' is not a percent in [0, 100)", argv[i]);
		} else if ((!strcmp(a, "--scale") || !strcmp(a, "--kernel")) && i + 1 < argc) {
			char *v = argv[++i], *eq = strrchr(v, '=');
			if (!eq || eq == v || o->nsc == MAX_SCALES)
				die(2, "%s: '%s' is not GLOB=FACTOR", a, v);
			double f = strtod(eq + 1, &end);
			if (*end || !eq[1] || !(f > 0 && f < 100))
				die(2, "%s: '%s': the factor is not a number in (0, 100)", a, v);
			*eq = 0;
			o->sc[o->nsc++] = (struct scale){v, f, !strcmp(a, "--kernel")};
		} else if (a[0] == '-' && a[1]) {
			die(2, "unknown option or missing value: '%s'", a);
		} else if (!o->in) {
			o->in = a;
		} else if (!o->out) {
			o->out = a;
		} else {
			die(2, "one input and one output (got '%s' too)", a);
		}
	}
	if (!o->in || !o->out)
		die(2, "usage: tg-plant [options] IN OUT (--help)");
	return 0;
}

/* ------------------------------------------------------------ input */

static char *read_all(size_t *len, const char *path)
{
	gzFile f = gzopen(path, "rb"); /* reads plain files as they are */
	if (!f)
		die(1, "%s: cannot open", path);
	size_t cap = 1 << 20, n = 0;
	char *buf = xrealloc(NULL, cap);
	for (;;) {
		if (n + 1 >= cap)
			buf = xrealloc(buf, cap *= 2);
		int r = gzread(f, buf + n, (unsigned)(cap - n - 1));
		if (r < 0)
			die(1, "%s: read error", path);
		if (!r)
			break;
		n += (size_t)r;
	}
	gzclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

static int cmp_kern(const void *a, const void *b)
{
	const struct kern *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The kernels of the trace as the gate sees them, sorted by start and name. */
static struct kern *core_kernels(size_t *n, tg_trace **tp, tg_tree **treep, tg_measure **mp, tg_atoms **keysp,
                                 const char *data, size_t len, const char *path)
{
	if (tg_trace_read_mem(tp, data, len, path, NULL))
		die(1, "%s", tg_error_last());
	if (tg_tree_build(treep, *tp) || !(*keysp = tg_atoms_new()))
		die(1, "%s: cannot build its tree", path);
	const tg_tree *trees[1] = {*treep};
	if (tg_measure_build(mp, trees, 1, *keysp))
		die(1, "%s: cannot measure it", path);
	size_t nk, ne;
	const tg_kernel_rec *k = tg_measure_kernels(*mp, &nk);
	const tg_event *ev = tg_trace_events(*tp, &ne);
	struct kern *v = xrealloc(NULL, (nk + 1) * sizeof(*v));
	size_t c = 0;
	for (size_t i = 0; i < nk; i++) {
		const tg_event *e = &ev[k[i].event];
		if (e->kind != TG_KIND_KERNEL)
			continue;
		v[c++] = (struct kern){e->ts, tg_trace_str(*tp, e->name), tg_atoms_str(*keysp, k[i].category), 0};
	}
	qsort(v, c, sizeof(*v), cmp_kern);
	*n = c;
	return v;
}

/* ------------------------------------------------------------ scanning */

struct scan {
	const char *s;
	size_t len, pos;
	const char *path;
};

static void scan_fail(const struct scan *sc, const char *what)
{
	die(1, "%s: byte %zu: %s", sc->path, sc->pos, what);
}

static void ws(struct scan *sc)
{
	while (sc->pos < sc->len && strchr(" \t\r\n", sc->s[sc->pos]))
		sc->pos++;
}

/* A string at pos (its opening quote); decodes it into out (cap bytes,
 * truncated; NULL: not kept). */
static void string(struct scan *sc, char *out, size_t cap)
{
	size_t o = 0;
	if (sc->s[sc->pos] != '"')
		scan_fail(sc, "expected a string");
	for (sc->pos++; sc->pos < sc->len && sc->s[sc->pos] != '"'; sc->pos++) {
		char c = sc->s[sc->pos];
		if (c == '\\') {
			c = sc->s[++sc->pos];
			if (c == 'u' && sc->pos + 4 < sc->len) {
				unsigned cp = (unsigned)strtoul((char[5]){sc->s[sc->pos + 1], sc->s[sc->pos + 2],
				                                          sc->s[sc->pos + 3], sc->s[sc->pos + 4], 0},
				                                NULL, 16);
				sc->pos += 4;
				char u[4];
				size_t nu = 0;
				if (cp < 0x80) {
					u[nu++] = (char)cp;
				} else if (cp < 0x800) {
					u[nu++] = (char)(0xc0 | cp >> 6);
					u[nu++] = (char)(0x80 | (cp & 0x3f));
				} else {
					u[nu++] = (char)(0xe0 | cp >> 12);
					u[nu++] = (char)(0x80 | ((cp >> 6) & 0x3f));
					u[nu++] = (char)(0x80 | (cp & 0x3f));
				}
				for (size_t k = 0; k < nu; k++)
					if (out && o + 1 < cap)
						out[o++] = u[k];
				continue;
			}
			c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c == 'b' ? '\b' : c == 'f' ? '\f' : c;
		}
		if (out && o + 1 < cap)
			out[o++] = c;
	}
	if (sc->pos >= sc->len)
		scan_fail(sc, "unterminated string");
	sc->pos++;
	if (out)
		out[o] = 0;
}

/* Skips one value at pos. */
static void skip_value(struct scan *sc)
{
	ws(sc);
	if (sc->pos >= sc->len)
		scan_fail(sc, "unexpected end of data");
	char c = sc->s[sc->pos];
	if (c == '"') {
		string(sc, NULL, 0);
		return;
	}
	if (c == '{' || c == '[') {
		int depth = 0;
		for (; sc->pos < sc->len; sc->pos++) {
			c = sc->s[sc->pos];
			if (c == '"') {
				string(sc, NULL, 0);
				sc->pos--;
			} else if (c == '{' || c == '[') {
				depth++;
			} else if ((c == '}' || c == ']') && --depth == 0) {
				sc->pos++;
				return;
			}
		}
		scan_fail(sc, "unterminated object or array");
	}
	while (sc->pos < sc->len && !strchr(",]} \t\r\n", sc->s[sc->pos]))
		sc->pos++;
}

/* Microseconds as written to integer nanoseconds, rounded as the reader
 * rounds (core/trace/trace_read.c: exact for three decimals). */
static int64_t us_to_ns(const char *s, size_t n)
{
	char buf[64];
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, s, n);
	buf[n] = 0;
	const char *dot = strchr(buf, '.');
	if (strpbrk(buf, "eE"))
		return llround(strtod(buf, NULL) * 1000.0);
	if (!dot) /* an integer: exact (epoch microseconds pass 2^53 in ns) */
		return strtoll(buf, NULL, 10) * 1000;
	int64_t ip = strtoll(buf, NULL, 10), frac = 0;
	int digits = 0, neg = buf[0] == '-';
	const char *p = dot + 1;
	for (; *p >= '0' && *p <= '9' && digits < 3; p++, digits++)
		frac = frac * 10 + (*p - '0');
	for (; digits < 3; digits++)
		frac *= 10;
	if (*p >= '5' && *p <= '9')
		frac++;
	return neg ? ip * 1000 - frac : ip * 1000 + frac;
}

/* The fields of one event object read by plant. */
struct event_text {
	char ph[8], cat[32], name[4096];
	size_t ts_at, ts_len, dur_at, dur_len;
};

static void read_event(struct scan *sc, struct event_text *e)
{
	memset(e, 0, sizeof(*e));
	sc->pos++; /* { */
	for (;;) {
		ws(sc);
		if (sc->s[sc->pos] == '}') {
			sc->pos++;
			return;
		}
		char key[32];
		string(sc, key, sizeof(key));
		ws(sc);
		if (sc->s[sc->pos] != ':')
			scan_fail(sc, "expected ':'");
		sc->pos++;
		ws(sc);
		size_t at = sc->pos;
		if (!strcmp(key, "ph") && sc->s[at] == '"')
			string(sc, e->ph, sizeof(e->ph));
		else if (!strcmp(key, "cat") && sc->s[at] == '"')
			string(sc, e->cat, sizeof(e->cat));
		else if (!strcmp(key, "name") && sc->s[at] == '"')
			string(sc, e->name, sizeof(e->name));
		else
			skip_value(sc);
		if (!strcmp(key, "ts")) {
			e->ts_at = at;
			e->ts_len = sc->pos - at;
		} else if (!strcmp(key, "dur")) {
			e->dur_at = at;
			e->dur_len = sc->pos - at;
		}
		ws(sc);
		if (sc->s[sc->pos] == ',')
			sc->pos++;
		else if (sc->s[sc->pos] != '}')
			scan_fail(sc, "expected ',' or '}' in an event");
	}
}

/* ------------------------------------------------------------ planting */

static double jitter_factor(uint64_t seed, uint64_t ordinal, double amp)
{
	if (amp <= 0)
		return 1;
	uint64_t z = seed * 0x9e3779b97f4a7c15ull + ordinal + 1;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	double u = (double)(z >> 11) / 9007199254740992.0; /* [0, 1) */
	return 1 - amp + 2 * amp * u;
}

static struct kern *find_kern(struct kern *v, size_t n, int64_t ts, const char *name)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (v[mid].ts < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < n && v[i].ts == ts; i++)
		if (!v[i].used && !strcmp(v[i].name, name)) {
			v[i].used = 1;
			return &v[i];
		}
	return NULL;
}

static void add_sum(struct cat_sum **s, size_t *n, const char *cat, double before, double after)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*s)[i].category, cat)) {
			(*s)[i].n++;
			(*s)[i].before_us += before;
			(*s)[i].after_us += after;
			return;
		}
	*s = xrealloc(*s, (*n + 1) * sizeof(**s));
	(*s)[(*n)++] = (struct cat_sum){cat, 1, before, after};
}

static void write_out(const struct opts *o, const char *data, size_t len, const struct subst *sub, size_t nsub)
{
	size_t n = strlen(o->out);
	int gz = n > 3 && !strcmp(o->out + n - 3, ".gz");
	gzFile g = gz ? gzopen(o->out, "wb6") : NULL;
	FILE *f = gz ? NULL : fopen(o->out, "wb");
	if (!g && !f)
		die(1, "%s: cannot create", o->out);
	size_t at = 0;
	int bad = 0;
	for (size_t i = 0; i <= nsub; i++) {
		size_t to = i < nsub ? sub[i].from : len;
		const char *piece[2] = {data + at, i < nsub ? sub[i].text : ""};
		size_t plen[2] = {to - at, i < nsub ? strlen(sub[i].text) : 0};
		for (int k = 0; k < 2; k++) {
			if (!plen[k])
				continue;
			if (g)
				bad |= gzwrite(g, piece[k], (unsigned)plen[k]) != (int)plen[k];
			else
				bad |= fwrite(piece[k], 1, plen[k], f) != plen[k];
		}
		if (i < nsub)
			at = sub[i].to;
	}
	if (g)
		bad |= gzclose(g) != Z_OK;
	else
		bad |= fclose(f) != 0;
	if (bad)
		die(1, "%s: write error", o->out);
}

int main(int argc, char **argv)
{
	struct opts o;
	parse_opts(&o, argc, argv);
	size_t len;
	char *data = read_all(&len, o.in);
	tg_trace *t;
	tg_tree *tree;
	tg_measure *m;
	tg_atoms *keys;
	size_t nk;
	struct kern *kv = core_kernels(&nk, &t, &tree, &m, &keys, data, len, o.in);

	struct scan sc = {data, len, 0, o.in};
	struct subst *sub = NULL;
	size_t nsub = 0, capsub = 0, ordinal = 0, unmatched = 0;
	struct cat_sum *sums = NULL;
	size_t nsums = 0;
	/* the traceEvents array: every object in it is an event */
	const char *te = strstr(data, "\"traceEvents\"");
	if (!te)
		die(1, "%s: no traceEvents", o.in);
	sc.pos = (size_t)(te - data) + strlen("\"traceEvents\"");
	ws(&sc);
	if (sc.s[sc.pos] != ':')
		scan_fail(&sc, "expected ':' after traceEvents");
	sc.pos++;
	ws(&sc);
	if (sc.s[sc.pos] != '[')
		scan_fail(&sc, "traceEvents is not an array");
	sc.pos++;
	for (;;) {
		ws(&sc);
		if (sc.pos >= len)
			scan_fail(&sc, "unterminated traceEvents");
		if (sc.s[sc.pos] == ']')
			break;
		if (sc.s[sc.pos] != '{') {
			skip_value(&sc);
		} else {
			struct event_text e;
			read_event(&sc, &e);
			if (!strcmp(e.ph, "X") && (!strcmp(e.cat, "kernel") || !strcmp(e.cat, "Kernel")) && e.dur_at &&
			    e.ts_at) {
				int64_t ts = us_to_ns(data + e.ts_at, e.ts_len),
					dur = us_to_ns(data + e.dur_at, e.dur_len);
				struct kern *k = find_kern(kv, nk, ts, e.name);
				const char *cat = k ? k->category : "(not measured)";
				unmatched += !k;
				double f = jitter_factor(o.seed, ordinal++, o.jitter);
				for (size_t i = 0; i < o.nsc; i++) /* the first match: factors never compound */
					if (!fnmatch(o.sc[i].glob, o.sc[i].by_name ? e.name : cat, 0)) {
						f *= o.sc[i].f;
						break;
					}
				int64_t nd = llround((double)dur * f);
				if (nd < 0)
					nd = 0;
				add_sum(&sums, &nsums, cat, (double)dur / 1e3, (double)nd / 1e3);
				if (nd != dur) {
					if (nsub == capsub)
						sub = xrealloc(sub,
						               (capsub = capsub ? 2 * capsub : 1024) * sizeof(*sub));
					sub[nsub].from = e.dur_at;
					sub[nsub].to = e.dur_at + e.dur_len;
					snprintf(sub[nsub].text, sizeof(sub[nsub].text), "%lld.%03lld",
					         (long long)(nd / 1000), (long long)(nd % 1000));
					nsub++;
				}
			}
		}
		ws(&sc);
		if (sc.s[sc.pos] == ',')
			sc.pos++;
	}
	write_out(&o, data, len, sub, nsub);
	if (o.summary) {
		fprintf(stderr, "category,kernels,before_us,after_us,factor\n");
		for (size_t i = 0; i < nsums; i++)
			fprintf(stderr, "%s,%zu,%.3f,%.3f,%.4f\n", sums[i].category, sums[i].n, sums[i].before_us,
			        sums[i].after_us, sums[i].before_us > 0 ? sums[i].after_us / sums[i].before_us : 1.0);
		if (unmatched)
			fprintf(stderr, "(%zu kernels outside the gate's view: jittered, not scaled by category)\n",
			        unmatched);
	}
	free(sums);
	free(sub);
	free(kv);
	tg_measure_free(m);
	tg_atoms_free(keys);
	tg_tree_free(tree);
	tg_trace_free(t);
	free(data);
	return 0;
}
