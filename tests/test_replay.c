/* test_replay.c - event replay (core/analysis/replay.h): the distinct invocations of
 * an op, their device and host times, their signatures, the family each is
 * replayed as or why it cannot be, the script's CALL literal (shapes,
 * strides, the dims --scale may reduce, attention's parts) and its quoting
 * of hostile text; on tests/data/replay/ops.json (made by make_ops.py
 * there) and on the shared traces. tests/cli_replay.sh runs the scripts. */
#include "testutil.h"

#include "../core/analysis/replay.h"

#define OPS "tests/data/replay/ops.json"

struct fx {
	tg_trace *t;
	tg_tree *tree;
};

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	if (!f || tg_trace_read_file(&f->t, OPS, NULL) || tg_tree_build(&f->tree, f->t)) {
		fprintf(stderr, "%s: %s\n", OPS, tg_error_last());
		return -1;
	}
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;
	tg_tree_free(f->tree);
	tg_trace_free(f->t);
	free(f);
	return 0;
}

/* The calls of op in tree; fails the test when the op is absent. */
static tg_replay_set *find(const tg_tree *tree, const char *op, const char *match)
{
	tg_replay_set *s = NULL;
	tg_test_must(tg_replay_find(&s, tree, op, match));
	return s;
}

/* The script of call i (0-based) of op; the caller frees it. */
static char *script_of(const tg_tree *tree, const char *op, size_t i, const char *trace_name)
{
	tg_replay_set *s = find(tree, op, NULL);
	size_t n, len;
	const tg_replay_call *c = tg_replay_calls(s, &n);
	assert_true(i < n);
	char *text = NULL;
	tg_test_must(tg_replay_script(&text, &len, tree, &c[i], trace_name, i + 1, n));
	assert_int_equal(strlen(text), len);
	tg_replay_set_free(s);
	return text;
}

static void assert_contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("missing: %s", needle);
}

static void test_gemm_groups(void **state)
{
	struct fx *f = *state;
	tg_replay_set *s = find(f->tree, "aten::mm", NULL);
	size_t n;
	const tg_replay_call *c = tg_replay_calls(s, &n);
	/* largest device time first: the float mm (40 us), the one under
	 * AddmmBackward0 (30 us), the bf16 pair (10 + 12 us) */
	assert_int_equal(n, 3);
	assert_int_equal(tg_replay_set_ops(s), 3);
	assert_int_equal(c[0].gpu_ns, 40000);
	assert_int_equal(c[0].calls, 1);
	assert_string_equal(
		c[0].signature,
		"dims=((16, 32), (32, 8)) types=('float', 'float') strides=((32, 1), (1, 32)) concrete=('', '')");
	assert_int_equal(c[1].gpu_ns, 30000);
	assert_int_equal(c[2].calls, 2);
	assert_int_equal(c[2].gpu_calls, 2);
	assert_int_equal(c[2].gpu_ns, 22000);
	assert_int_equal(c[2].cpu_ns, 2 * 50000);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(c[i].family, TG_REPLAY_GEMM);
		assert_string_equal(c[i].reason, "");
	}
	tg_replay_set_free(s);
	/* --match filters on the signature; the ops before it stay counted */
	s = find(f->tree, "aten::mm", "^dims=\\(\\(64, 32\\)");
	c = tg_replay_calls(s, &n);
	assert_int_equal(n, 1);
	assert_int_equal(c[0].calls, 2);
	assert_int_equal(tg_replay_set_ops(s), 3);
	tg_replay_set_free(s);
	s = find(f->tree, "aten::mm", "c10::Half");
	tg_replay_calls(s, &n);
	assert_int_equal(n, 0);
	assert_int_equal(tg_replay_set_ops(s), 3);
	tg_replay_set_free(s);
}

static void test_families(void **state)
{
	struct fx *f = *state;
	static const struct {
		const char *op;
		tg_replay_family fam;
	} want[] = {
		{"aten::addmm", TG_REPLAY_GEMM},
		{"aten::bmm", TG_REPLAY_GEMM},
		{"aten::matmul", TG_REPLAY_GEMM},
		{"aten::linear", TG_REPLAY_GEMM},
		{"aten::scaled_dot_product_attention", TG_REPLAY_SDPA},
		{"aten::_scaled_dot_product_flash_attention", TG_REPLAY_SDPA},
		{"aten::_scaled_dot_product_efficient_attention", TG_REPLAY_SDPA},
		{"aten::_scaled_dot_product_cudnn_attention", TG_REPLAY_SDPA},
		{"aten::_scaled_dot_product_attention_math", TG_REPLAY_SDPA},
		{"aten::_scaled_dot_product_flash_attention_backward", TG_REPLAY_SDPA},
		{"aten::_scaled_dot_product_efficient_attention_backward", TG_REPLAY_SDPA},
		{"aten::conv2d", TG_REPLAY_CONV},
		{"aten::cudnn_convolution", TG_REPLAY_CONV},
		{"aten::convolution_backward", TG_REPLAY_CONV},
		{"aten::layer_norm", TG_REPLAY_NORM},
		{"aten::rms_norm", TG_REPLAY_NORM},
		{"aten::native_batch_norm", TG_REPLAY_NORM},
		{"aten::_softmax", TG_REPLAY_SOFTMAX},
		{"aten::_softmax_backward_data", TG_REPLAY_SOFTMAX},
		{"aten::add", TG_REPLAY_ELEMENTWISE},
		{"aten::mul", TG_REPLAY_ELEMENTWISE},
	};
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		tg_replay_set *s = find(f->tree, want[k].op, NULL);
		size_t n;
		const tg_replay_call *c = tg_replay_calls(s, &n);
		assert_int_equal(n, strcmp(want[k].op, "aten::addmm") ? 1 : 2); /* and the one under aten::linear */
		for (size_t i = 0; i < n; i++)
			if (c[i].family != want[k].fam)
				fail_msg("%s: family %s (%s)", want[k].op, tg_replay_family_name(c[i].family),
				         c[i].reason);
		tg_replay_set_free(s);
	}
}

static void test_refusals(void **state)
{
	struct fx *f = *state;
	static const struct {
		const char *op, *reason;
	} want[] = {
		{"AddmmBackward0", "an autograd node, not an op: replay the op under it (aten::mm)"},
		{"aten::_foreach_add_",
	         "input 0 is a list of tensors (TensorList): the profiler records no shapes for them"},
		{"c10d::allreduce_", "a collective (c10d::allreduce_): replaying it needs the job's process group"},
		{"vllm::unified_attention",
	         "not an ATen op: a script calls torch.ops.aten, and vllm::unified_attention is another library's"},
		{"aten::addcmul_", "input 3 is a Scalar without its value (Concrete Inputs)"},
		{"aten::relu", "no Input Dims and Input type: record the trace with record_shapes=True"},
		{"aten::pow",
	         "input 1: '__import__('os').system('touch pwned')' is not a Scalar of numbers or booleans"},
		{"aten::_flash_attention_forward",
	         "the kernel-level entry of attention: replay the op above it (aten::_scaled_dot_product_flash_attention)"},
		{"aten::mm'); __import__('os').system('touch pwned') #",
	         "not an op tracegate can call (a script calls aten::NAME)"},
	};
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		tg_replay_set *s = find(f->tree, want[k].op, NULL);
		size_t n;
		const tg_replay_call *c = tg_replay_calls(s, &n);
		assert_int_equal(n, 1);
		assert_int_equal(c[0].family, TG_REPLAY_REFUSED);
		assert_string_equal(c[0].reason, want[k].reason);
		char *text = (char *)"x";
		size_t len;
		assert_int_equal(tg_replay_script(&text, &len, f->tree, &c[0], "t.json", 1, 1), TG_EINVAL);
		assert_null(text);
		tg_replay_set_free(s);
	}
	/* a hostile type string: refused, shown without its newline */
	tg_replay_set *s = find(f->tree, "aten::gelu", NULL);
	size_t n;
	const tg_replay_call *c = tg_replay_calls(s, &n);
	assert_int_equal(n, 2);
	assert_int_equal(c[0].family, TG_REPLAY_REFUSED);
	assert_string_equal(
		c[0].reason,
		"input 0 has type 'float', 'x': __import__('os')} #?import os', which a script cannot rebuild");
	assert_int_equal(c[1].family, TG_REPLAY_ELEMENTWISE);
	tg_replay_set_free(s);
}

static void test_not_found(void **state)
{
	struct fx *f = *state;
	tg_replay_set *s = (tg_replay_set *)1;
	assert_int_equal(tg_replay_find(&s, f->tree, "aten::nope", NULL), TG_ENOTFOUND);
	assert_null(s);
	assert_string_equal(tg_error_last(), "no cpu_op named 'aten::nope'");
	assert_int_equal(tg_replay_find(&s, f->tree, "softmax", NULL), TG_ENOTFOUND);
	assert_string_equal(
		tg_error_last(),
		"no cpu_op named 'softmax' (ops named like it: aten::_softmax, aten::_softmax_backward_data)");
	/* the kernel's name is no cpu_op */
	assert_int_equal(tg_replay_find(&s, f->tree, "kernel_100", NULL), TG_ENOTFOUND);
	assert_int_equal(tg_replay_find(&s, f->tree, "aten::mm", "(unclosed"), TG_EINVAL);
	assert_non_null(strstr(tg_error_last(), "--match: not a regular expression"));
}

static void test_script_gemm(void **state)
{
	struct fx *f = *state;
	char *text = script_of(f->tree, "aten::mm", 2, "ops.json");
	assert_contains(text, "# Replays one op of a PyTorch profiler trace: aten::mm, distinct invocation 3 of 3.\n");
	assert_contains(text, "CALL = {\n    'op': 'aten::mm',\n    'family': 'gemm',\n    'family_label': 'GEMM',\n");
	assert_contains(
		text,
		"    'trace': {'file': 'ops.json', 'calls': 2, 'ms': 0.011, 'what': 'GPU time of the kernels it "
		"launched'},\n");
	assert_contains(text,
	                "        {'t': 'tensor', 'dtype': 'bfloat16', 'shape': (64, 32), 'stride': (32, 1), "
	                "'scale': (0, 1)},\n        {'t': 'tensor', 'dtype': 'bfloat16', 'shape': (32, 48), 'stride': "
	                "(48, 1), 'scale': (0, 1)},\n    ],\n    'sdpa': None,\n}\n");
	/* the runner follows */
	assert_contains(text, "# ---- tracegate replay runner (core/analysis/replay_runner.py");
	assert_contains(text, "\nsys.exit(main(CALL))\n");
	free(text);
	text = script_of(f->tree, "aten::addmm", 0, "ops.json");
	assert_contains(text, "{'t': 'value', 'v': 1},\n        {'t': 'value', 'v': 1},\n");
	free(text);
}

static void test_script_attention(void **state)
{
	struct fx *f = *state;
	char *text = script_of(f->tree, "aten::scaled_dot_product_attention", 0, "ops.json");
	/* the backend is the one the trace shows under the entry point */
	assert_contains(text, "backend=efficient',\n");
	assert_contains(text,
	                "{'t': 'tensor', 'dtype': 'bfloat16', 'shape': (2, 4, 64, 32), 'stride': (24576, 32, 384, 1), "
	                "'scale': (0, 2)},\n");
	assert_contains(text,
	                "    'sdpa': {'backend': 'efficient', 'pass': 'forward', 'q': 0, 'k': 1, 'v': 2, 'mask': None, "
	                "'dropout_p': 0.0, 'is_causal': True, 'scale': None},\n");
	free(text);
	text = script_of(f->tree, "aten::_scaled_dot_product_cudnn_attention", 0, "ops.json");
	assert_contains(text,
	                "{'t': 'tensor', 'dtype': 'bfloat16', 'shape': (2, 1, 64, 64), 'stride': (4096, 4096, 64, 1), "
	                "'scale': (0, 2, 3)},\n");
	assert_contains(text,
	                "'sdpa': {'backend': 'cudnn', 'pass': 'forward', 'q': 0, 'k': 1, 'v': 2, 'mask': 3, "
	                "'dropout_p': 0.0, 'is_causal': False, 'scale': None},\n");
	free(text);
	text = script_of(f->tree, "aten::_scaled_dot_product_flash_attention", 0, "ops.json");
	assert_contains(text,
	                "'sdpa': {'backend': 'flash', 'pass': 'forward', 'q': 0, 'k': 1, 'v': 2, 'mask': None, "
	                "'dropout_p': 0.0, 'is_causal': True, 'scale': 0.17677669529663687},\n");
	free(text);
	text = script_of(f->tree, "aten::_scaled_dot_product_flash_attention_backward", 0, "ops.json");
	assert_contains(text,
	                "'sdpa': {'backend': 'flash', 'pass': 'backward', 'q': 1, 'k': 2, 'v': 3, 'mask': None, "
	                "'dropout_p': 0.0, 'is_causal': True, 'scale': 0.17677669529663687},\n");
	/* philox seed and offset: unsigned 64-bit tensors */
	assert_contains(text, "{'t': 'tensor', 'dtype': 'uint64', 'shape': (2,), 'stride': (1,), 'scale': ()},\n");
	free(text);
	text = script_of(f->tree, "aten::_scaled_dot_product_efficient_attention_backward", 0, "ops.json");
	assert_contains(text,
	                "'sdpa': {'backend': 'efficient', 'pass': 'backward', 'q': 1, 'k': 2, 'v': 3, 'mask': None, "
	                "'dropout_p': 0.0, 'is_causal': False, 'scale': None},\n");
	assert_contains(text, "{'t': 'value', 'v': [True, True, True, False]},\n");
	free(text);
}

static void test_script_scaling(void **state)
{
	struct fx *f = *state;
	/* convolution: the batch of input and output, never the weight */
	char *text = script_of(f->tree, "aten::convolution_backward", 0, "ops.json");
	assert_contains(text, "'shape': (2, 8, 16, 16), 'stride': (2048, 256, 16, 1), 'scale': (0,)},\n");
	assert_contains(text, "'shape': (8, 3, 3, 3), 'stride': (27, 9, 3, 1), 'scale': ()},\n");
	assert_contains(text, "{'t': 'value', 'v': [8]},\n");
	free(text);
	/* norms: the dims outside the normalized shape */
	text = script_of(f->tree, "aten::layer_norm", 0, "ops.json");
	assert_contains(text, "'shape': (2, 8, 32), 'stride': (256, 32, 1), 'scale': (0, 1)},\n");
	assert_contains(text, "'shape': (32,), 'stride': (1,), 'scale': ()},\n");
	assert_contains(text, "{'t': 'value', 'v': [32]},\n");
	assert_contains(text, "{'t': 'value', 'v': 1.0000000000000001e-05},\n        {'t': 'value', 'v': True},\n");
	free(text);
	text = script_of(f->tree, "aten::native_batch_norm", 0, "ops.json");
	assert_contains(text, "'shape': (2, 8, 4, 4), 'stride': (128, 16, 4, 1), 'scale': (0,)},\n");
	assert_contains(text, "{'t': 'value', 'v': 0.10000000000000001},\n");
	free(text);
	/* softmax: all but the softmax dim (-1) */
	text = script_of(f->tree, "aten::_softmax_backward_data", 0, "ops.json");
	assert_contains(text, "'shape': (2, 4, 64, 64), 'stride': (16384, 4096, 64, 1), 'scale': (0, 1, 2)},\n");
	assert_contains(text, "{'t': 'value', 'v': -1},\n        {'t': 'value', 'v': 15},\n");
	free(text);
	/* pointwise: every dim; a wrapped Python number is a 0-dim tensor */
	text = script_of(f->tree, "aten::mul", 0, "ops.json");
	assert_contains(text, "'shape': (2, 8, 32), 'stride': (256, 32, 1), 'scale': (0, 1, 2)},\n");
	assert_contains(text, "{'t': 'tensor', 'dtype': 'float64', 'shape': (), 'stride': (), 'scale': ()},\n");
	free(text);
	text = script_of(f->tree, "aten::gelu", 1, "ops.json");
	assert_contains(text, "{'t': 'none'},\n");
	free(text);
}

/* Text from the trace reaches the script only as quoted Python strings. */
static void test_script_quoting(void **state)
{
	struct fx *f = *state;
	char *text =
		script_of(f->tree, "aten::mm", 0, "x'\n__import__('os')#\\\x01\xff\xe2\x82\xac\xf0\x9f\x98\x80.json");
	assert_contains(text,
	                "'trace': {'file': 'x\\'\\n__import__(\\'os\\')#\\\\\\x01\\ufffd\\u20ac\\U0001f600.json', ");
	/* nothing of the name in the comments: each line of the header is ours */
	const char *call = strstr(text, "CALL = {");
	for (const char *p = text; p < call; p = strchr(p, '\n') + 1)
		assert_true(p[0] == '#');
	assert_null(strstr(text, "\n__import__"));
	free(text);
}

static void test_file_name(void **state)
{
	(void)state;
	char buf[128];
	tg_replay_file_name(buf, sizeof(buf), "aten::_scaled_dot_product_flash_attention", 3);
	assert_string_equal(buf, "aten_scaled_dot_product_flash_attention_3.py");
	tg_replay_file_name(buf, sizeof(buf), "aten::mm", 1);
	assert_string_equal(buf, "aten_mm_1.py");
	tg_replay_file_name(buf, sizeof(buf), "../../etc/passwd\n", 12);
	assert_string_equal(buf, "etc_passwd_12.py");
	tg_replay_file_name(buf, sizeof(buf), "::", 2);
	assert_string_equal(buf, "op_2.py");
	tg_replay_file_name(buf, 8, "aten::mm", 1);
	assert_string_equal(buf, "aten_mm");
}

/* h200-dev: the GEMMs and the attention of a bf16 GPT block, recorded on
 * an H200 with PyTorch 2.11 (../shared/traces/h200-dev/SOURCES-h200-dev.md). */
static void test_h200(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	tg_trace *t;
	tg_tree *tree = tg_test_load_shared(&t, "h200-dev/base_r1/rank0.pt.trace.json.gz");
	tg_replay_set *s = find(tree, "aten::mm", NULL);
	size_t n;
	const tg_replay_call *c = tg_replay_calls(s, &n);
	assert_int_equal(n, 8); /* the 4 linear layers' two backward GEMMs */
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(c[i].calls, 24); /* 4 layers x 6 steps */
		assert_int_equal(c[i].family, TG_REPLAY_GEMM);
	}
	assert_string_equal(c[0].signature,
	                    "dims=((4096, 768), (768, 3072)) types=('c10::BFloat16', 'c10::BFloat16') "
	                    "strides=((768, 1), (3072, 1)) concrete=('', '')");
	assert_int_equal(c[0].gpu_ns / 24 / 100, 304); /* 0.0305 ms a call */
	tg_replay_set_free(s);
	/* the attention: autocast's outer dispatch wraps the inner one, which is kept */
	s = find(tree, "aten::scaled_dot_product_attention", NULL);
	c = tg_replay_calls(s, &n);
	assert_int_equal(n, 1);
	assert_int_equal(c[0].calls, 24);
	assert_int_equal(c[0].family, TG_REPLAY_SDPA);
	assert_non_null(strstr(c[0].signature, " backend=flash"));
	char *text;
	size_t len;
	tg_test_must(tg_replay_script(&text, &len, tree, &c[0], "rank0.pt.trace.json.gz", 1, 1));
	assert_contains(text, "'shape': (4, 12, 1024, 64), 'stride': (2359296, 64, 2304, 1), 'scale': (0, 2)},\n");
	assert_contains(text,
	                "'sdpa': {'backend': 'flash', 'pass': 'forward', 'q': 0, 'k': 1, 'v': 2, 'mask': None, "
	                "'dropout_p': 0.0, 'is_causal': True, 'scale': None},\n");
	free(text);
	tg_replay_set_free(s);
	s = find(tree, "aten::_scaled_dot_product_flash_attention_backward", NULL);
	c = tg_replay_calls(s, &n);
	assert_int_equal(n, 1);
	assert_int_equal(c[0].family, TG_REPLAY_SDPA);
	assert_true(c[0].gpu_ns > 2 * (int64_t)c[0].calls * 43000); /* the backward costs more than twice the forward */
	tg_replay_set_free(s);
	s = find(tree, "AddmmBackward0", NULL);
	c = tg_replay_calls(s, &n);
	assert_int_equal(n, 3);
	assert_string_equal(c[0].reason, "an autograd node, not an op: replay the op under it (aten::mm)");
	tg_replay_set_free(s);
	tg_tree_free(tree);
	tg_trace_free(t);
	/* the misaligned GEMM of gemm_misaligned_r1 (width 3076) */
	tree = tg_test_load_shared(&t, "h200-dev/gemm_misaligned_r1/rank0.pt.trace.json.gz");
	s = find(tree, "aten::mm", "3076");
	c = tg_replay_calls(s, &n);
	assert_int_equal(n, 4);
	tg_replay_set_free(s);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* TraceLens's traces: convolutions, norms, softmax, bmm. */
static void test_tracelens(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	static const struct {
		const char *trace, *op;
		tg_replay_family fam;
		size_t n;
	} want[] = {
		/* each norm with and without its affine weights */
		{"tracelens/tests/traces/perf_model/normalization/normalization_layer_test.json.gz", "aten::rms_norm",
	         TG_REPLAY_NORM, 2},
		{"tracelens/tests/traces/perf_model/normalization/normalization_layer_test.json.gz",
	         "aten::_fused_rms_norm", TG_REPLAY_NORM, 2},
		{"tracelens/tests/traces/perf_model/normalization/normalization_layer_test.json.gz",
	         "aten::native_group_norm", TG_REPLAY_NORM, 2},
		{"tracelens/tests/traces/perf_model/normalization/normalization_layer_test.json.gz",
	         "aten::native_layer_norm_backward", TG_REPLAY_NORM, 2},
		{"tracelens/tests/traces/h100/Falconsai_nsfw_image_detection__1016002.json.gz", "aten::conv2d",
	         TG_REPLAY_CONV, 1},
		{"tracelens/tests/traces/h100/facebook_timesformer-base-finetuned-k400__1016002.json.gz",
	         "aten::_softmax", TG_REPLAY_SOFTMAX, 3},
		{"tracelens/tests/traces/h100/facebook_timesformer-base-finetuned-k400__1016002.json.gz", "aten::bmm",
	         TG_REPLAY_GEMM, 4},
		{"tracelens/tests/traces/mi300/resnet_act_checkpoint.json.gz", "aten::miopen_convolution",
	         TG_REPLAY_CONV, 11},
	};
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		tg_trace *t;
		tg_tree *tree = tg_test_load_shared(&t, want[k].trace);
		tg_replay_set *s = find(tree, want[k].op, NULL);
		size_t n;
		const tg_replay_call *c = tg_replay_calls(s, &n);
		if (n != want[k].n)
			fail_msg("%s: %zu distinct invocations, expected %zu", want[k].op, n, want[k].n);
		for (size_t i = 0; i < n; i++)
			if (c[i].family != want[k].fam)
				fail_msg("%s %zu: %s (%s)", want[k].op, i, tg_replay_family_name(c[i].family),
				         c[i].reason);
		tg_replay_set_free(s);
		tg_tree_free(tree);
		tg_trace_free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_gemm_groups, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_families, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_refusals, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_not_found, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_script_gemm, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_script_attention, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_script_scaling, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_script_quoting, fx_setup, fx_teardown),
		cmocka_unit_test(test_file_name),
		cmocka_unit_test(test_h200),
		cmocka_unit_test(test_tracelens),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
