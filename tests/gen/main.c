/*
 * main.c - tg-gen's command line: parse and check the options, build the
 * model, write the trace step by step (so that gigabyte traces stream
 * through a fixed amount of memory), print the ground truth.
 *
 * Exit codes: 0 written, 1 I/O error, 2 usage error (one line on stderr).
 */
#include "gen.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: tg-gen [options]\n"
	"\n"
	"Writes a synthetic PyTorch profiler (Kineto) trace of a transformer\n"
	"training or inference loop; the same options give the same bytes.\n"
	"\n"
	"Output\n"
	"  -o FILE              where to write (default -: stdout); a .gz suffix gzips\n"
	"  --gzip-level N       zlib level for .gz output, 1-9 (default 6)\n"
	"  --target-mb M        repeat steps until about M MB (10^6 bytes) of JSON are\n"
	"                       written, streaming; ignores the --steps count\n"
	"  --summary            print the ground truth per step as CSV on stderr:\n"
	"                       step,kernels,memcpys,gemm_us,sdpa_fwd_us,sdpa_bwd_us,\n"
	"                       comm_us,memcpy_us,kernel_us,busy_us (last row: all)\n"
	"\n"
	"Workload\n"
	"  --seed N             seed of the host timing and the noise (default 1)\n"
	"  --steps N            ProfilerStep#1..N (default 4); 0: one pass, no steps\n"
	"  --layers N           transformer layers (default 4)\n"
	"  --batch N --seq N    tokens per step (default 4 x 1024)\n"
	"  --hidden N --heads N model width and attention heads (default 1024, 16)\n"
	"  --train              add the backward pass and the optimizer step\n"
	"  --python             add python_function events (nn.Module frames)\n"
	"  --host-sync N        N .item() calls per step (cudaStreamSynchronize)\n"
	"\n"
	"Changes (to test a gate with)\n"
	"  --noise PCT          per-step factor on every kernel, uniform in\n"
	"                       [1-PCT/100, 1+PCT/100] (default 0)\n"
	"  --jitter PCT         independent per-kernel factor, same range (default 0)\n"
	"  --run-noise PCT      between-run noise: one log-normal factor of sd PCT %\n"
	"                       per run (per --seed) on every compute kernel (default 0)\n"
	"  --family-noise PCT   and one per kernel family (GEMM, SDPA forward, SDPA\n"
	"                       backward, the others) per run (default 0)\n"
	"  --sdpa-scale F       flash attention kernels (fwd and bwd) x F (default 1)\n"
	"  --gemm-scale F       GEMM kernels x F (default 1)\n"
	"  --split-attention F  each flash forward kernel becomes a split-KV kernel and\n"
	"                       a combine kernel, together F x its duration\n"
	"  --sdpa-math F        attention forward dispatched to the math path instead:\n"
	"                       bmm, softmax, bmm under the same SDPA op, together F x\n"
	"                       the flash kernel's duration\n"
	"  --extra-op NAME      one more elementwise op (e.g. aten::gelu) per layer\n"
	"  --distinct-ops N     instead of the transformer, N ops of distinct names\n"
	"                       (aten::op_0000001 ...) per step, one kernel each\n"
	"  --reverse-ops        those ops in reverse order (every name's place moves)\n"
	"\n"
	"Distributed\n"
	"  --ranks N --rank R   write rank R of an N-rank job (default 1, 0); N > 1\n"
	"                       adds distributedInfo and one NCCL allreduce per step\n"
	"  --link-gbps G        bus bandwidth of the allreduce in GB/s as TraceLens\n"
	"                       reports it (GB = 2^30 bytes; default 100)\n"
	"  --straggler R        rank R arrives late at every collective ...\n"
	"  --skew-us X          ... by X microseconds (default 0)\n"
	"\n"
	"Environment\n"
	"  --gpu NAME           deviceProperties name (default NVIDIA H100 80GB HBM3)\n"
	"  --cuda VERSION       cuda_runtime_version, 12.4 or 12040 (default 12.4)\n"
	"  --driver VERSION     cuda_driver_version (default 12.9)\n"
	"\n"
	"  --help               this text\n"
	"See docs/generator.md.\n";

/* Prints one usage error line; returns 2. */
static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;
	fputs("tg-gen: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

static int parse_int(const char *opt, const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (!*s || *end || errno || v < lo || v > hi)
		return fail("%s: '%s' is not an integer in [%lld, %lld]", opt, s, (long long)lo, (long long)hi);
	*out = v;
	return 0;
}

/* A finite number; lo < x (open) or lo <= x, x <= hi. */
static int parse_num(const char *opt, const char *s, double lo, int open_lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(v) || v < lo || (open_lo && v == lo) || v > hi)
		return fail("%s: '%s' is not a number in %c%g, %g]", opt, s, open_lo ? '(' : '[', lo, hi);
	*out = v;
	return 0;
}

/* "12.4" -> 12040, "12040" -> 12040. */
static int parse_version(const char *opt, const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	long major = strtol(s, &end, 10);
	if (end != s && !errno && *end == '.' && end[1] >= '0' && end[1] <= '9') {
		char *e2;
		long minor = strtol(end + 1, &e2, 10);
		if (!*e2 && major >= 1 && major < 100 && minor >= 0 && minor < 100) {
			*out = major * 1000 + minor * 10;
			return 0;
		}
	} else if (end != s && !*end && !errno && major >= 1000 && major < 1000000) {
		*out = major;
		return 0;
	}
	return fail("%s: '%s' is not a version like 12.4 or 12040", opt, s);
}

static void defaults(gen_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->out = "-";
	o->seed = 1;
	o->steps = 4;
	o->layers = 4;
	o->batch = 4;
	o->seq = 1024;
	o->hidden = 1024;
	o->heads = 16;
	o->sdpa_scale = o->gemm_scale = 1;
	o->ranks = 1;
	o->straggler = -1;
	o->link_gbps = 100;
	o->gpu = "NVIDIA H100 80GB HBM3";
	o->cuda = 12040;
	o->driver = 12090;
	o->gzip_level = 6;
}

#define MAX_DIM (1 << 20)

/* One option with its value v; returns 0 or 2 (error). */
static int option(gen_opts *o, const char *k, const char *v, int *have_skew)
{
	int64_t n;
	int rc;
	double pct;
	if (!strcmp(k, "-o")) {
		if (!*v)
			return fail("-o: empty file name");
		o->out = v;
		return 0;
	}
	if (!strcmp(k, "--seed")) {
		char *end;
		errno = 0;
		unsigned long long s = strtoull(v, &end, 10);
		if (!*v || *end || errno || *v == '-')
			return fail("--seed: '%s' is not an unsigned integer", v);
		o->seed = s;
		return 0;
	}
	struct { const char *name; int64_t *dst, lo, hi; } ints[] = {
		{"--steps", &o->steps, 0, 10000000}, {"--layers", &o->layers, 1, 4096},
		{"--batch", &o->batch, 1, MAX_DIM}, {"--seq", &o->seq, 1, MAX_DIM},
		{"--hidden", &o->hidden, 1, 65536}, {"--heads", &o->heads, 1, 1024},
		{"--host-sync", &o->host_sync, 0, 1000}, {"--ranks", &o->ranks, 1, 65536},
		{"--distinct-ops", &o->distinct_ops, 0, 10000000},
		{"--rank", &o->rank, 0, 65535}, {"--straggler", &o->straggler, 0, 65535},
	};
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		if (!strcmp(k, ints[i].name))
			return parse_int(k, v, ints[i].lo, ints[i].hi, ints[i].dst);
	if (!strcmp(k, "--gzip-level")) {
		if ((rc = parse_int(k, v, 1, 9, &n)))
			return rc;
		o->gzip_level = (int)n;
		return 0;
	}
	if (!strcmp(k, "--run-noise") || !strcmp(k, "--family-noise")) {
		if ((rc = parse_num(k, v, 0, 0, 50, &pct)))
			return rc;
		*(k[2] == 'r' ? &o->run_noise : &o->family_noise) = pct / 100;
		return 0;
	}
	if (!strcmp(k, "--noise") || !strcmp(k, "--jitter")) {
		if ((rc = parse_num(k, v, 0, 0, 99, &pct)))
			return rc;
		*(k[2] == 'n' ? &o->noise : &o->jitter) = pct / 100;
		return 0;
	}
	if (!strcmp(k, "--sdpa-scale"))
		return parse_num(k, v, 0, 1, 1000, &o->sdpa_scale);
	if (!strcmp(k, "--gemm-scale"))
		return parse_num(k, v, 0, 1, 1000, &o->gemm_scale);
	if (!strcmp(k, "--split-attention"))
		return parse_num(k, v, 0, 1, 1000, &o->split_attention);
	if (!strcmp(k, "--sdpa-math"))
		return parse_num(k, v, 0, 1, 1000, &o->sdpa_math);
	if (!strcmp(k, "--skew-us")) {
		*have_skew = 1;
		return parse_num(k, v, 0, 0, 1e9, &o->skew_us);
	}
	if (!strcmp(k, "--link-gbps"))
		return parse_num(k, v, 0, 1, 1e6, &o->link_gbps);
	if (!strcmp(k, "--target-mb"))
		return parse_num(k, v, 0, 1, 1e6, &o->target_mb);
	if (!strcmp(k, "--extra-op") || !strcmp(k, "--gpu")) {
		if (!*v || strlen(v) > 200)
			return fail("%s: give a name of 1 to 200 characters", k);
		*(k[2] == 'e' ? &o->extra_op : &o->gpu) = v;
		return 0;
	}
	if (!strcmp(k, "--cuda"))
		return parse_version(k, v, &o->cuda);
	return parse_version(k, v, &o->driver); /* --driver */
}

static int is_flag(const char *k, gen_opts *o)
{
	if (!strcmp(k, "--train"))
		o->train = 1;
	else if (!strcmp(k, "--python"))
		o->python = 1;
	else if (!strcmp(k, "--summary"))
		o->summary = 1;
	else if (!strcmp(k, "--reverse-ops"))
		o->reverse_ops = 1;
	else
		return 0;
	return 1;
}

/* Options that only make sense together. */
static int cross_check(const gen_opts *o, int have_skew)
{
	if (o->hidden % o->heads)
		return fail("--hidden %lld is not a multiple of --heads %lld", (long long)o->hidden, (long long)o->heads);
	if (o->batch * o->seq > (int64_t)1 << 26)
		return fail("--batch x --seq is %lld tokens; at most %lld", (long long)(o->batch * o->seq),
		            (long long)1 << 26);
	if (o->rank >= o->ranks)
		return fail("--rank %lld is not below --ranks %lld", (long long)o->rank, (long long)o->ranks);
	if (o->straggler >= o->ranks || (o->straggler >= 0 && o->ranks < 2))
		return fail("--straggler %lld needs --ranks above it (--ranks %lld)", (long long)o->straggler,
		            (long long)o->ranks);
	if (have_skew && o->straggler < 0)
		return fail("--skew-us needs --straggler");
	if (o->reverse_ops && !o->distinct_ops)
		return fail("--reverse-ops needs --distinct-ops");
	return 0;
}

static const char *const value_options[] = {
	"-o", "--seed", "--steps", "--layers", "--batch", "--seq", "--hidden", "--heads", "--host-sync", "--ranks",
	"--rank", "--straggler", "--gzip-level", "--noise", "--jitter", "--run-noise", "--family-noise", "--sdpa-scale", "--gemm-scale",
	"--split-attention", "--sdpa-math", "--skew-us", "--link-gbps", "--target-mb", "--extra-op", "--gpu", "--cuda", "--driver",
	"--distinct-ops",
};

static int takes_value(const char *k)
{
	for (size_t i = 0; i < sizeof(value_options) / sizeof(value_options[0]); i++)
		if (!strcmp(k, value_options[i]))
			return 1;
	return 0;
}

/* Parses argv into o (--help exits); returns 0 or 2. */
static int parse(gen_opts *o, int argc, char **argv)
{
	int have_skew = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			exit(0);
		}
		if (is_flag(a, o))
			continue;
		if (a[0] != '-' || !a[1])
			return fail("unexpected argument '%s' (see tg-gen --help)", a);
		char key[64];
		const char *v = NULL, *eq = a[1] == '-' ? strchr(a, '=') : NULL;
		size_t klen = eq ? (size_t)(eq - a) : strlen(a);
		if (klen >= sizeof(key))
			klen = sizeof(key) - 1;
		memcpy(key, a, klen);
		key[klen] = 0;
		if (!takes_value(key))
			return fail("unknown option %s (see tg-gen --help)", key);
		if (eq)
			v = eq + 1;
		else if (i + 1 < argc)
			v = argv[++i];
		else
			return fail("%s needs a value", key);
		int rc = option(o, key, v, &have_skew);
		if (rc)
			return rc;
	}
	return cross_check(o, have_skew);
}

int main(int argc, char **argv)
{
	gen_opts o;
	defaults(&o);
	int rc = parse(&o, argc, argv);
	if (rc)
		return rc;
	model m;
	model_init(&m, &o);
	wbuf w;
	if (w_open(&w, o.out, o.gzip_level)) {
		fprintf(stderr, "tg-gen: %s: %s\n", o.out, strerror(errno ? errno : EIO));
		model_free(&m, &o);
		return 1;
	}
	gen g;
	gen_init(&g, &o, &m, &w);
	emit_header(&g);
	if (o.summary)
		truth_print_header(stderr);
	uint64_t target = (uint64_t)(o.target_mb * 1e6);
	int64_t passes = o.steps ? o.steps : 1;
	for (g.pass = 0;; g.pass++) {
		if (target ? g.pass > 0 && w.total >= target : g.pass >= passes)
			break;
		g.step = o.steps ? g.pass + 1 : 0;
		gen_step(&g);
		truth_end_step(&g, o.summary ? stderr : NULL);
		if (w.err)
			break;
	}
	emit_trailer(&g);
	if (o.summary)
		truth_print_all(&g, stderr);
	rc = w_close(&w);
	if (rc)
		fprintf(stderr, "tg-gen: %s: write failed\n", o.out);
	gen_free(&g);
	model_free(&m, &o);
	return rc ? 1 : 0;
}
