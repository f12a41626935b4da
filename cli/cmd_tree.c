/*
 * cmd_tree.c - `tracegate tree TRACE [--depth N] [--match REGEX]`: prints the
 * event tree like TraceLens's Trace2Tree figure, one node a line:
 *   (python) nn.Module: Linear_75  [1.234 ms]
 *     (cpu) aten::linear  [1.100 ms]
 *       (cuda_runtime) cudaLaunchKernel  [5.000 us]
 *         (kernel) ampere_bf16_...  [40.000 us, stream 7]
 */
#include "../util/regex.h"
#include "cli.h"
#include "commands.h"

#include <regex.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct printer {
	const tg_trace *t;
	const tg_tree *tree;
	const tg_event *ev;
	FILE *out;
	int max_depth; /* levels below a printed root; 0 = all */
	uint32_t key_stream;
	uint64_t lines;
};

static void put_node(struct printer *pr, uint32_t e, int depth)
{
	const tg_event *x = &pr->ev[e];
	for (int i = 0; i < depth; i++)
		fputs("  ", pr->out);
	fprintf(pr->out, "(%s) ", tg_kind_name((tg_kind)x->kind));
	tg_cli_put_name(pr->out, tg_trace_str(pr->t, x->name));
	fputs("  [", pr->out);
	tg_cli_put_duration(pr->out, tg_event_dur(pr->t, x));
	if (tg_kind_is_gpu(x->kind)) {
		int64_t stream;
		if (!tg_arg_int(pr->t, tg_event_arg(pr->t, x, pr->key_stream), &stream))
			fprintf(pr->out, ", stream %lld", (long long)stream);
	}
	fputs("]\n", pr->out);
	pr->lines++;
}

/* Prints e and its subtree (iteratively: trees can be deep). */
static int put_subtree(struct printer *pr, uint32_t root, int base_depth)
{
	size_t cap = 64, sp = 0;
	struct frame {
		uint32_t e;
		int depth;
	} *stack = malloc(cap * sizeof(*stack));
	if (!stack)
		return -1;
	stack[sp++] = (struct frame){root, 0};
	while (sp) {
		struct frame f = stack[--sp];
		put_node(pr, f.e, base_depth + f.depth);
		if (pr->max_depth && f.depth + 1 >= pr->max_depth)
			continue;
		size_t n = tg_tree_child_count(pr->tree, f.e);
		if (sp + n > cap) {
			while (sp + n > cap)
				cap *= 2;
			struct frame *ns = realloc(stack, cap * sizeof(*stack));
			if (!ns) {
				free(stack);
				return -1;
			}
			stack = ns;
		}
		tg_tree_child_iter it; /* pushed last first: popped in order */
		uint32_t c;
		size_t k = sp + n;
		for (tg_tree_child_iter_init(&it, pr->tree, f.e); tg_tree_child_next(&it, &c);)
			stack[--k] = (struct frame){c, f.depth + 1};
		sp += n;
	}
	free(stack);
	return 0;
}

static void put_track_header(struct printer *pr, uint32_t track)
{
	size_t nt;
	const tg_track *tr = &tg_trace_tracks(pr->t, &nt)[track];
	fputs("# ", pr->out);
	if (tr->pid_str != TG_NONE)
		tg_cli_put_name(pr->out, tg_trace_str(pr->t, tr->pid_str));
	else
		fprintf(pr->out, "pid %lld", (long long)tr->pid);
	if (tr->tid_str != TG_NONE) {
		fputs(" ", pr->out);
		tg_cli_put_name(pr->out, tg_trace_str(pr->t, tr->tid_str));
	} else {
		fprintf(pr->out, " tid %lld", (long long)tr->tid);
	}
	if (tr->thread_name != TG_NONE) {
		fputs(" (", pr->out);
		tg_cli_put_name(pr->out, tg_trace_str(pr->t, tr->thread_name));
		fputs(")", pr->out);
	}
	if (tr->ngpu)
		fputs(": device events without a launch", pr->out);
	fputs("\n", pr->out);
}

static void put_breadcrumb(struct printer *pr, uint32_t e)
{
	uint32_t chain[256];
	int n = 0;
	for (uint32_t p = tg_tree_parent(pr->tree, e); p != TG_NONE && n < 256; p = tg_tree_parent(pr->tree, p))
		chain[n++] = p;
	fputs("# in: ", pr->out);
	if (!n)
		fputs("(root)", pr->out);
	for (int i = n - 1; i >= 0; i--) {
		tg_cli_put_name(pr->out, tg_trace_str(pr->t, pr->ev[chain[i]].name));
		if (i)
			fputs(" > ", pr->out);
	}
	fputs("\n", pr->out);
}

/* Depth-first search for matches; a match prints its whole subtree. */
static int put_matches(struct printer *pr, uint32_t root, regex_t *re, uint64_t *matches)
{
	size_t cap = 64, sp = 0;
	uint32_t *stack = malloc(cap * sizeof(uint32_t));
	if (!stack)
		return -1;
	stack[sp++] = root;
	while (sp) {
		uint32_t e = stack[--sp];
		if (regexec(re, tg_trace_str(pr->t, pr->ev[e].name), 0, NULL, 0) == 0) {
			put_breadcrumb(pr, e);
			if (put_subtree(pr, e, 0)) {
				free(stack);
				return -1;
			}
			(*matches)++;
			continue;
		}
		size_t n = tg_tree_child_count(pr->tree, e);
		if (sp + n > cap) {
			while (sp + n > cap)
				cap *= 2;
			uint32_t *ns = realloc(stack, cap * sizeof(uint32_t));
			if (!ns) {
				free(stack);
				return -1;
			}
			stack = ns;
		}
		tg_tree_child_iter it; /* pushed last first: popped in order */
		uint32_t c;
		size_t k = sp + n;
		for (tg_tree_child_iter_init(&it, pr->tree, e); tg_tree_child_next(&it, &c);)
			stack[--k] = c;
		sp += n;
	}
	free(stack);
	return 0;
}

struct tree_args {
	tg_read_opts ropts;
	char *path;
	const char *match;
	int depth; /* levels below a printed root; 0 = all */
};

static int convert_depth(void *dst, char *value)
{
	char *end;
	long v = strtol(value, &end, 10);
	if (end == value || *end || v < 1 || v > 1000000)
		return -1;
	*(int *)dst = (int)v;
	return 0;
}

static const tg_opt_spec tree_opts[] = {
	{TG_OPT_ARG, "TRACE", 0, NULL, offsetof(struct tree_args, path), NULL, NULL, TG_OPT_REQUIRED, NULL, NULL},
	{TG_OPT_VALUE, "depth", 0, "N", offsetof(struct tree_args, depth), convert_depth, "a number of levels >= 1",
	 TG_OPT_IN_USAGE, "print N levels below each printed root (default: all)", NULL},
	{TG_OPT_VALUE, "match", 0, "REGEX", offsetof(struct tree_args, match), NULL, NULL, TG_OPT_IN_USAGE,
	 "print only the subtrees of nodes whose name matches the POSIX extended REGEX, each after a '# in:' line "
	 "naming its ancestors",
	 NULL},
	{TG_OPT_INCLUDE, .offset = offsetof(struct tree_args, ropts), .include = tg_cli_limit_opts},
	{.kind = TG_OPT_END},
};

const tg_opt_command tg_cmd_tree_opts = {
	"tree", NULL,
	"Prints the event tree of TRACE (.json or gzip): python functions, CPU ops, runtime launches and the GPU "
	"kernels, memcpys and memsets they launched, one node a line with its duration. Device events without a "
	"launch are listed under their GPU track.",
	NULL, tree_opts};

int tg_cmd_tree(int argc, char **argv)
{
	struct tree_args a = {0};
	int exit_code;
	if (tg_opt_parse_cli(&exit_code, &tg_cmd_tree_opts, &a, argc, argv))
		return exit_code;
	const char *path = a.path, *match = a.match;
	regex_t re;
	if (match) {
		char msg[256];
		if (tg_regex_compile(&re, match, msg, sizeof(msg))) {
			tg_cli_error("--match: bad regular expression: %s", msg);
			return TG_EXIT_USAGE;
		}
	}
	tg_trace *t;
	tg_tree *tree;
	if (tg_cli_load(&t, &tree, path, &a.ropts)) {
		if (match)
			regfree(&re);
		return TG_EXIT_USAGE;
	}
	size_t ne;
	struct printer pr = {.t = t, .tree = tree, .ev = tg_trace_events(t, &ne), .out = stdout,
	                     .max_depth = a.depth, .key_stream = tg_trace_key(t, "stream")};
	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	size_t nroots;
	const uint32_t *roots = tg_tree_roots(tree, &nroots);
	uint32_t last_track = TG_NONE;
	uint64_t matches = 0;
	int rc = 0;
	for (size_t i = 0; i < nroots && !rc; i++) {
		if (!match && pr.ev[roots[i]].track != last_track) {
			last_track = pr.ev[roots[i]].track;
			put_track_header(&pr, last_track);
		}
		rc = match ? put_matches(&pr, roots[i], &re, &matches) : put_subtree(&pr, roots[i], 0);
	}
	fflush(stdout);
	if (match) {
		regfree(&re);
		if (!matches && !rc)
			fprintf(stderr, "tracegate: tree: no event name matches '%s'\n", match);
	}
	tg_tree_free(tree);
	tg_trace_free(t);
	if (rc) {
		tg_cli_error("out of memory");
		return TG_EXIT_USAGE;
	}
	return TG_EXIT_OK;
}
