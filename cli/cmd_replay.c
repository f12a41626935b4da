/*
 * cmd_replay.c - `tracegate replay TRACE --op NAME [--match REGEX] [--index N]
 * [-o DIR] [--list]`: writes, for each distinct invocation of the op
 * (core/analysis/replay.h), a self-contained PyTorch script that replays it and
 * prints its time next to the trace's; says on stderr, one line per op and
 * reason, what it cannot replay. Exit 0 when every invocation selected got
 * its script, 1 when some could not be replayed (the others are written),
 * 2 for a usage or input error (docs/replay.md).
 */
#include "../core/analysis/replay.h"
#include "../util/util.h"
#include "cli.h"
#include "commands.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct replay_args {
	tg_read_opts ropts;
	char *path, *op, *match, *dir;
	size_t index; /* 1-based; 0: all */
	int list;
};

static int convert_index(void *dst, char *value)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(value, &end, 10);
	if (end == value || *end || errno || v < 1 || value[0] == '-')
		return -1;
	*(size_t *)dst = (size_t)v;
	return 0;
}

static const tg_opt_spec replay_opts[] = {
	{TG_OPT_ARG, "TRACE", 0, NULL, offsetof(struct replay_args, path), NULL, NULL, TG_OPT_REQUIRED, NULL, NULL},
	{TG_OPT_VALUE, "op", 0, "NAME", offsetof(struct replay_args, op), NULL, NULL, TG_OPT_REQUIRED | TG_OPT_IN_USAGE,
         "the op to replay, as the trace names it (aten::mm, aten::_scaled_dot_product_flash_attention)", NULL},
	{TG_OPT_VALUE, "match", 0, "REGEX", offsetof(struct replay_args, match), NULL, NULL, TG_OPT_IN_USAGE,
         "only the invocations whose arguments match this extended regular expression (the signature --list "
         "shows: dims=(...) types=(...) strides=(...) concrete=(...))",
         NULL},
	{TG_OPT_VALUE, "index", 0, "N", offsetof(struct replay_args, index), convert_index, "a number >= 1",
         TG_OPT_IN_USAGE, "only the Nth distinct invocation of the listing (after --match; largest GPU time first)",
         NULL},
	{TG_OPT_VALUE, NULL, 'o', "DIR", offsetof(struct replay_args, dir), NULL, NULL, TG_OPT_IN_USAGE,
         "write the scripts into DIR (made when missing; default ./replay)", NULL},
	{TG_OPT_SWITCH, "list", 0, NULL, offsetof(struct replay_args, list), NULL, NULL, 0,
         "list the distinct invocations (index, calls, trace time, what a script would call) and write nothing", NULL},
	{TG_OPT_INCLUDE, .offset = offsetof(struct replay_args, ropts), .include = tg_cli_limit_opts},
	{.kind = TG_OPT_EXCLUSIVE, .name = "list -o"},
	{.kind = TG_OPT_END},
};

const tg_opt_command tg_cmd_replay_opts = {
	"replay", NULL,
	"Writes, for each distinct invocation of op NAME in TRACE (distinct shapes, dtypes, strides and concrete "
	"inputs), a self-contained PyTorch script DIR/<op>_<N>.py that builds inputs like the recorded ones, warms "
	"up, times the op (CUDA events on a GPU, the wall clock on a CPU) and prints its time next to the time the "
	"trace recorded: `python3 aten_mm_1.py`, or `--scale 0.1 --device cpu` for a quick run at reduced size. "
	"Covers GEMMs, attention (each backend), convolutions, norms, softmax, pointwise ops and any other ATen op "
	"its torch can call by schema.",
	"What cannot be replayed (an autograd node, an op outside ATen, a list of tensors, a value the trace did not "
	"record) is said on stderr, one line per op and reason. Exit status: 0 every invocation selected has its "
	"script; 1 some could not be replayed (the others are written); 2 usage or input error. docs/replay.md "
	"says what a script does and how it falls back.",
	replay_opts};

/* What a call's trace time is, per call, in ms, and its word. */
static double call_ms(const tg_replay_call *c, const char **what)
{
	int gpu = c->gpu_calls > 0;
	*what = gpu ? "GPU" : "host";
	return (double)(gpu ? c->gpu_ns : c->cpu_ns) / 1e6 / (double)(c->calls ? c->calls : 1);
}

static void list_calls(const char *op, const tg_replay_call *c, size_t n)
{
	printf("%zu distinct invocation%s of ", n, n == 1 ? "" : "s");
	tg_cli_put_name(stdout, op);
	printf(", largest device time first:\n%5s %7s %12s  %s\n", "index", "calls", "trace ms", "replay");
	for (size_t i = 0; i < n; i++) {
		const char *what;
		double ms = call_ms(&c[i], &what);
		printf("%5zu %7llu %10.4f %s  ", i + 1, (unsigned long long)c[i].calls, ms, what);
		if (c[i].family == TG_REPLAY_REFUSED) {
			fputs("cannot: ", stdout);
			tg_cli_put_name(stdout, c[i].reason);
		} else {
			fputs(tg_replay_family_name(c[i].family), stdout);
		}
		fputs("\n      ", stdout);
		tg_cli_put_name(stdout, c[i].signature);
		putchar('\n');
	}
}

/* Writes the script of call i (1-based index) into dir. Returns 0 or -1
 * after printing the error. */
static int write_script(const tg_tree *tree, const struct replay_args *a, const tg_replay_call *c, size_t index,
                        size_t count)
{
	const char *base = strrchr(a->path, '/') ? strrchr(a->path, '/') + 1 : a->path;
	char *text, name[128], *file = NULL;
	size_t len;
	if (tg_replay_script(&text, &len, tree, c, base, index, count)) {
		tg_cli_error("replay: %s", tg_error_last());
		return -1;
	}
	tg_replay_file_name(name, sizeof(name), a->op, index);
	int rc = asprintf(&file, "%s/%s", a->dir, name) < 0 ? -1 : tg_cli_write_file(file, text, len);
	if (!rc) {
		const char *what;
		double ms = call_ms(c, &what);
		fputs("wrote ", stdout);
		tg_cli_put_name(stdout, file);
		printf(": %llu call%s, trace %.4f ms %s per call, %s\n", (unsigned long long)c->calls,
		       c->calls == 1 ? "" : "s", ms, what, tg_replay_family_name(c->family));
	}
	free(file);
	free(text);
	return rc;
}

/* One line per distinct reason among the refused calls selected. */
static void say_refused(const char *op, const tg_replay_call *c, size_t n, size_t only)
{
	for (size_t i = 0; i < n; i++) {
		if (c[i].family != TG_REPLAY_REFUSED || (only && i + 1 != only))
			continue;
		int seen = 0;
		size_t same = 0;
		for (size_t k = 0; k < n; k++)
			if (c[k].family == TG_REPLAY_REFUSED && (!only || k + 1 == only) &&
			    !strcmp(c[k].reason, c[i].reason)) {
				seen |= k < i;
				same++;
			}
		if (seen)
			continue;
		fputs("tracegate: replay: cannot replay ", stderr);
		tg_cli_put_name(stderr, op);
		if (same > 1)
			fprintf(stderr, " (%zu distinct invocations)", same);
		else
			fprintf(stderr, " (invocation %zu)", i + 1);
		fputs(": ", stderr);
		tg_cli_put_name(stderr, c[i].reason);
		fputc('\n', stderr);
	}
}

/* Writes the scripts selected; returns the exit code. */
static int write_all(const tg_tree *tree, const struct replay_args *a, const tg_replay_call *c, size_t n)
{
	char failed[512];
	size_t refused = 0;
	for (size_t i = 0; i < n; i++)
		refused += c[i].family == TG_REPLAY_REFUSED && (!a->index || i + 1 == a->index);
	if ((a->index ? 1 : n) > refused && tg_util_mkdir_p(failed, sizeof(failed), a->dir, 0777)) {
		tg_cli_error("replay: cannot make %s: %s", failed, strerror(errno));
		return TG_EXIT_USAGE;
	}
	for (size_t i = 0; i < n; i++) {
		if (c[i].family == TG_REPLAY_REFUSED || (a->index && i + 1 != a->index))
			continue;
		if (write_script(tree, a, &c[i], i + 1, n))
			return TG_EXIT_USAGE;
	}
	say_refused(a->op, c, n, a->index);
	return refused ? TG_EXIT_BLOCKED : TG_EXIT_OK;
}

int tg_cmd_replay(int argc, char **argv)
{
	struct replay_args a = {.dir = "replay"};
	int rc;
	if (tg_opt_parse_cli(&rc, &tg_cmd_replay_opts, &a, argc, argv))
		return rc;
	tg_trace *t;
	tg_tree *tree;
	tg_replay_set *set = NULL;
	if (tg_cli_load(&t, &tree, a.path, &a.ropts))
		return TG_EXIT_USAGE;
	rc = TG_EXIT_USAGE;
	if (tg_replay_find(&set, tree, a.op, a.match)) {
		tg_cli_error("%s: %s", a.path, tg_error_last());
		goto out;
	}
	size_t n;
	const tg_replay_call *c = tg_replay_calls(set, &n);
	if (!n) {
		tg_cli_error("replay: no invocation of %s matches --match (%zu distinct: see --list)", a.op,
		             tg_replay_set_ops(set));
		goto out;
	}
	if (a.index > n) {
		tg_cli_error("replay: --index %zu: %s has %zu distinct invocation%s%s", a.index, a.op, n,
		             n == 1 ? "" : "s", a.match ? " matching --match" : "");
		goto out;
	}
	if (a.list) {
		list_calls(a.op, c, n);
		rc = TG_EXIT_OK;
		goto out;
	}
	rc = write_all(tree, &a, c, n);
out:
	tg_replay_set_free(set);
	tg_tree_free(tree);
	tg_trace_free(t);
	return rc;
}
